"""Real OpenCode (npm, pinned) run headless (``opencode run --format json``) against the
fake Chat Completions API on loopback, through an ``@ai-sdk/openai-compatible`` provider
set in the session's throwaway user configuration (the project stays as init leaves it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fake_openai_chat import MODEL, FakeChat
from harness import write_ledgers
from npm_client import _CACHE, OPENCODE, VENV_BIN

from conftest import commit, git

SESSION_TIMEOUT = 120
# OpenCode installs @opencode-ai/plugin (64 MB, from npm) into a project's .opencode/ on its
# first start there; the first test's copy seeds the others (a copy, not the registry).
SEED = _CACHE / f"{OPENCODE.folder}-project-deps"
SEEDED = ("node_modules", "package.json", "package-lock.json")


def make_project(tmp_path: Path) -> Path:
    """A git repository set up by the real ``rehydrate init --agent opencode`` (its
    OpenCode wiring), with rehydrate's ledgers and its OpenCode plugin, committed."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    subprocess.run(
        [str(VENV_BIN / "rehydrate"), "init", "--agent", "opencode"],
        cwd=repo,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    write_ledgers(repo)
    commit(repo, "ledgers")
    return repo


def environment(repo: Path, fake: FakeChat, context: int) -> dict[str, str]:
    home = repo.parent / "opencode-home"
    config = home / ".config" / "opencode"
    config.mkdir(parents=True, exist_ok=True)
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Fake",
        "options": {"baseURL": fake.base_url, "apiKey": "fake-key"},
        "models": {MODEL: {"name": "Fake", "limit": {"context": context, "output": 4096}}},
    }
    settings = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"fake": provider},
        "model": f"fake/{MODEL}",
        "small_model": f"fake/{MODEL}",
        "autoupdate": False,
        "share": "disabled",
        "permission": {"bash": "allow", "edit": "allow", "external_directory": "allow"},
    }
    (config / "opencode.json").write_text(json.dumps(settings), encoding="utf-8")
    return {
        "PATH": os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "PWD": str(repo),
        "LANG": "C.UTF-8",
        "OPENCODE_DISABLE_MODELS_FETCH": "true",
        "OPENCODE_DISABLE_AUTOUPDATE": "true",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "true",
        "npm_config_cache": str(_CACHE / "npm-cache"),
        **{k: v for k, v in os.environ.items() if k.startswith("GIT_")},
    }


@dataclass
class Session:
    returncode: int
    events: list[dict[str, Any]]
    stderr: str


def run_opencode(
    opencode: Path,
    repo: Path,
    fake: FakeChat,
    prompt: str = "go",
    context: int = 100_000,
    env: Mapping[str, str] | None = None,
) -> Session:
    """``opencode run --format json PROMPT`` in ``repo`` against ``fake``."""
    environ = {**environment(repo, fake, context), **(env or {})}
    _seed(repo / ".opencode")
    try:
        done = subprocess.run(
            [str(opencode), "run", "--format", "json", prompt],
            cwd=repo,
            env=environ,
            capture_output=True,
            text=True,
            timeout=SESSION_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"opencode ran over {SESSION_TIMEOUT} s: {str(exc.stderr)[-2000:]}")
    _keep_seed(repo / ".opencode")
    (repo.parent / "opencode-output.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
    events = []
    for line in done.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return Session(done.returncode, events, done.stderr)


def _seed(folder: Path) -> None:
    if (SEED / "node_modules").is_dir() and not (folder / "node_modules").exists():
        for name in SEEDED:
            source = SEED / name
            if source.is_dir():
                shutil.copytree(source, folder / name, symlinks=True)
            elif source.exists():
                shutil.copy2(source, folder / name)


def _keep_seed(folder: Path) -> None:
    if SEED.exists() or not (folder / "node_modules" / "@opencode-ai" / "plugin").is_dir():
        return
    partial = SEED.with_name(f"{SEED.name}.{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for name in SEEDED:
        source = folder / name
        if source.is_dir():
            shutil.copytree(source, partial / name, symlinks=True)
        elif source.exists():
            shutil.copy2(source, partial / name)
    try:
        partial.rename(SEED)  # atomic: parallel workers never see half a seed
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)


def serve_session(
    opencode: Path, repo: Path, fake: FakeChat, prompt: str, turns: int, settle: float = 5.0
) -> None:
    """Under ``opencode serve``: one session, one prompt (through the HTTP API); returns once
    the fake has had ``turns`` conversation requests and ``settle`` seconds more went by
    without another (or the timeout came)."""
    import socket
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    environ = environment(repo, fake, 100_000)
    _seed(repo / ".opencode")
    log = (repo.parent / "opencode-serve.txt").open("w", encoding="utf-8")
    command = [str(opencode), "serve", "--port", str(port), "--hostname", "127.0.0.1"]
    server = subprocess.Popen(command, cwd=repo, env=environ, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"

    def post(path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            base + path, json.dumps(body).encode(), {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=SESSION_TIMEOUT) as reply:  # noqa: S310
            return json.loads(reply.read() or b"null")

    try:
        deadline = time.monotonic() + SESSION_TIMEOUT
        while True:
            try:
                urllib.request.urlopen(base + "/session", timeout=2).close()  # noqa: S310
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail(f"opencode serve did not come up; see {log.name}")
                time.sleep(0.5)
        session = post("/session", {})["id"]
        model = {"providerID": "fake", "modelID": MODEL}
        post(
            f"/session/{session}/message",
            {"parts": [{"type": "text", "text": prompt}], "model": model},
        )
        seen, quiet = len(fake.turn_requests()), time.monotonic()
        deadline = time.monotonic() + SESSION_TIMEOUT  # for what follows the first idle
        while time.monotonic() < deadline and (seen < turns or time.monotonic() - quiet < settle):
            time.sleep(0.25)
            if len(fake.turn_requests()) != seen:
                seen, quiet = len(fake.turn_requests()), time.monotonic()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    _keep_seed(repo / ".opencode")
