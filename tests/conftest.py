"""Shared fixtures: real git repositories in tmp_path, pinned identities, in-process CLI."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def _pinned_git(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in (
        "GIT_DIR",
        "GIT_INDEX_FILE",
        "GIT_WORK_TREE",
        "NO_COLOR",
        "PRE_COMMIT_FROM_REF",
        "PRE_COMMIT_TO_REF",
    ):
        monkeypatch.delenv(key, raising=False)
    (home / ".gitconfig").write_text(
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[core]\n\tautocrlf = false\n"
    )


def git(
    repo: Path, *args: str, input: str | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run real git in ``repo``."""
    return subprocess.run(
        ["git", *args], cwd=repo, input=input, text=True, capture_output=True, check=check
    )


def write(repo: Path, relpath: str, text: str, *, dedent: bool = True) -> Path:
    path = repo / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text) if dedent else text, encoding="utf-8", newline="")
    return path


def commit(repo: Path, message: str = "change", *extra: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, *extra)
    return git(repo, "rev-parse", "HEAD").stdout.strip()


@dataclass
class Result:
    code: int
    out: str
    err: str


def run(repo: Path, *args: str, input: str | bytes | None = None) -> Result:
    """Run the rehydrate CLI in-process with ``repo`` as the working directory. ``input``
    as bytes is stdin's ``buffer``, as a real stdin has: invalid UTF-8 reaches the CLI as
    it would from a runtime."""
    from rehydrate.cli import main

    old_cwd = os.getcwd()
    old = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), io.StringIO()
    if isinstance(input, bytes):
        buffer = io.BytesIO(input)
        sys.stdin = io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape")
    else:
        sys.stdin = io.StringIO(input or "")
    sys.stdout, sys.stderr = out, err
    try:
        os.chdir(repo)
        code = main(list(args))
    finally:
        os.chdir(old_cwd)
        sys.stdin, sys.stdout, sys.stderr = old
    return Result(code, out.getvalue(), err.getvalue())


def run_subprocess(
    repo: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None
) -> Result:
    """Run ``python -m rehydrate`` as a real process (for hooks, exit codes, stdin)."""
    proc = subprocess.run(
        [sys.executable, "-m", "rehydrate", *args],
        cwd=repo,
        input=input,
        text=True,
        capture_output=True,
        env={**os.environ, **(env or {})},
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def make_venv(path: Path) -> Path:
    """A real virtualenv at ``path`` (no pip: fast) whose python imports this rehydrate and
    its dependencies through a .pth file; returns that python, by its path in ``path``."""
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    src = Path(__file__).resolve().parents[1] / "src"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = path / "lib" / version / "site-packages"
    (site / "rehydrate-tests.pth").write_text(f"{src}\n{sysconfig.get_paths()['purelib']}\n")
    return path / "bin" / "python"


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """An empty git repository (no commits)."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q")
    yield path


EXAMPLE_LEDGERS = Path(__file__).with_name("fixtures") / "ledgers"
EXAMPLE_NAMES = {"spec": "Spec.md", "task": "Task.md", "failures": "Failed_Attempts.md"}


def example_ledger(kind: str) -> str:
    """A ledger of ``kind`` with one example row per section (tests/fixtures/ledgers)."""
    return (EXAMPLE_LEDGERS / EXAMPLE_NAMES[kind]).read_text(encoding="utf-8")


def scaffold(repo: Path) -> None:
    """What `rehydrate init` writes (without a hook), then one example row per section.

    ``init`` writes empty tables; the rows these tests read (C-001, K-001, D-001, P1,
    O-001, E-001 pending, A-001 granted, X-001, F-001 ``go test -tags=musl``) come from
    ``tests/fixtures/ledgers``.
    """
    from rehydrate.config import load_config
    from rehydrate.git import find_repo
    from rehydrate.writers.scaffold import init_repo

    config = load_config(repo)
    created = {a.path for a in init_repo(find_repo(repo), config) if a.what == "created"}
    write_examples(repo, created)


def write_examples(repo: Path, only: set[str] | None = None) -> None:
    """Replace the ledgers `rehydrate init` wrote (paths in ``only``; None: all three) by
    the example ledgers, before they are first committed."""
    from rehydrate.config import load_config

    config = load_config(repo)
    for kind, name in EXAMPLE_NAMES.items():
        if only is None or config.path_of(kind) in only:  # init never overwrites; nor this
            (repo / config.path_of(kind)).write_bytes((EXAMPLE_LEDGERS / name).read_bytes())


@pytest.fixture
def ledger_repo(repo: Path) -> Path:
    """A repository with the three example ledgers committed (HEAD exists)."""
    scaffold(repo)
    commit(repo, "init ledgers")
    return repo


def only_row(repo: Path, row: str) -> None:
    """Make ``row`` the only row of the example failures ledger, committed."""
    failures = repo / "docs" / "Failed_Attempts.md"
    head, sep, rest = failures.read_text(encoding="utf-8").partition("|---|---|---|---|\n")
    assert sep, "the example ledger's failures table moved"
    kept = "".join(line + "\n" for line in rest.split("\n") if not line.startswith("| F-"))
    failures.write_text(head + sep + row + kept.lstrip("\n"), encoding="utf-8")
    commit(repo, "the row these tests use")


def pre_tool_answers(repo: Path, commands: list[str]) -> dict[str, dict[str, object]]:
    """What the real Claude Code pre-tool hook answers for each Bash command, started by
    the launch line the installers write, the event on stdin, from ``repo``."""
    import json

    argv = [sys.executable, "-I", "-m", "rehydrate", "hook", "claude", "pre-tool-use"]
    answers = {}
    for command in commands:
        event = {"session_id": "s", "cwd": str(repo), "tool_name": "Bash"}
        event["tool_input"] = {"command": command}
        proc = subprocess.run(
            argv, cwd=repo, input=json.dumps(event), capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        answers[command] = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return answers
