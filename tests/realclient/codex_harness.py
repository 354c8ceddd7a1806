"""Real Codex CLI from npm, pinned, driven headless (``codex exec``) against the fake
Responses API on loopback.

Installed once into the same cache as Claude Code (``npm_client._CACHE``), one folder per
version; no registry reachable: the suite skips, saying so; reachable but the install
broken: it fails. Each session gets a throwaway ``CODEX_HOME`` whose ``config.toml``
points a ``[model_providers.fake]`` (``wire_api = "responses"``) at the fake server. The
hooks are trusted the way a user does it, by ``rehydrate hook codex trust`` (or not at
all, or ``--dangerously-bypass-hook-trust``, as a test asks).
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fake_openai_responses import FakeResponses
from harness import write_ledgers
from npm_client import VENV_BIN, Client, install

from conftest import commit, git

CODEX_VERSION = "0.171.0"
PACKAGE = "@openai/codex"
SESSION_TIMEOUT = 90  # seconds for one codex exec
MODEL = "fake-model"


CODEX = Client(
    PACKAGE,
    CODEX_VERSION,
    f"codex-{CODEX_VERSION}",
    ("node_modules/@openai/codex-linux-*/vendor/*/bin/codex",),  # the native binary itself
)


def install_codex() -> Path:
    """The pinned codex executable, installed from npm on first use (or a skip)."""
    return install(CODEX)


def rehydrate(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(VENV_BIN / "rehydrate"), *args],
        cwd=repo,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert done.returncode == 0, f"rehydrate {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stderr


def make_project(tmp_path: Path, **ledgers: str) -> Path:
    """A real git repository set up by the real ``rehydrate init --agent codex``."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    rehydrate(repo, "init", "--agent", "codex")
    write_ledgers(repo, **ledgers)
    commit(repo, "ledgers")
    return repo


def codex_home(repo: Path) -> Path:
    home = repo.parent / "codex-home"
    home.mkdir(exist_ok=True)
    return home


def configure(repo: Path, fake: FakeResponses, auto_compact: int | None = None) -> Path:
    """``$CODEX_HOME/config.toml``: the fake provider, and the project trusted (headless
    Codex wants that; its hooks are a second, separate trust). Trust entries written
    before (``rehydrate hook codex trust``) are kept."""
    home = codex_home(repo)
    path = home / "config.toml"
    kept = path.read_text(encoding="utf-8") if path.exists() else ""
    kept = kept.split("# rehydrate-tests: end of provider\n", 1)[-1]
    limit = f"model_auto_compact_token_limit = {auto_compact}\n" if auto_compact else ""
    head = textwrap.dedent(
        f"""\
        model = "{MODEL}"
        model_provider = "fake"
        {limit}
        [model_providers.fake]
        name = "fake"
        base_url = "{fake.base_url}"
        wire_api = "responses"
        env_key = "REHYDRATE_TESTS_FAKE_KEY"
        # rehydrate-tests: end of provider
        """
    )
    project = f'[projects."{repo}"]'
    if project not in kept:
        kept += f'\n{project}\ntrust_level = "trusted"\n'
    path.write_text(head + kept, encoding="utf-8")
    return home


def trust(repo: Path) -> str:
    """Trust the project and its hooks as a user would: ``rehydrate hook codex trust``."""
    return rehydrate(repo, "hook", "codex", "trust", env={"CODEX_HOME": str(codex_home(repo))})


@dataclass
class Session:
    returncode: int
    stdout: str
    stderr: str

    @property
    def hook_lines(self) -> list[str]:
        """Codex's own report of the hooks it ran ("hook: PreToolUse Blocked", ...)."""
        return [line for line in self.stderr.splitlines() if line.startswith("hook: ")]


def environment(repo: Path, with_rehydrate: bool = True) -> dict[str, str]:
    bins = [str(VENV_BIN)] if with_rehydrate else []
    return {
        "PATH": os.pathsep.join([*bins, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(repo.parent),
        "CODEX_HOME": str(codex_home(repo)),
        "LANG": "C.UTF-8",
        "REHYDRATE_TESTS_FAKE_KEY": "sk-fake-key-for-tests",
        **{k: v for k, v in os.environ.items() if k.startswith("GIT_")},
    }


def run_codex(
    codex: Path,
    repo: Path,
    fake: FakeResponses,
    prompt: str = "go",
    *,
    extra: Sequence[str] = (),
    auto_compact: int | None = None,
    with_rehydrate: bool = True,
    resume: bool = False,
) -> Session:
    """One ``codex exec`` in ``repo`` against ``fake`` (commands run unsandboxed)."""
    configure(repo, fake, auto_compact)
    args = [str(codex), "exec", *(["resume", "--last"] if resume else [])]
    args += ["--skip-git-repo-check", "-c", 'sandbox_mode="danger-full-access"', *extra]
    done = subprocess.run(
        [*args, prompt],
        cwd=repo,
        env=environment(repo, with_rehydrate),
        capture_output=True,
        text=True,
        timeout=SESSION_TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    runs = len(list(repo.parent.glob("codex-stderr-*.txt")))
    (repo.parent / f"codex-stderr-{runs}.txt").write_text(done.stderr, encoding="utf-8")
    return Session(done.returncode, done.stdout, done.stderr)
