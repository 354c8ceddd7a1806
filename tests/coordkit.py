"""Real remotes for the claims and sync tests: a bare server with the rehydrate
pre-receive hook, reached over ``file://`` or a real ``git daemon`` on 127.0.0.1, and
clones of it with the ledgers and the merge driver set up."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from conftest import commit, git, scaffold

PHASES = """\
| ID | Phase | Status |
|---|---|---|
| P1 | Reproduce the bug | todo |
| P2 | Fix it | todo |
| P3 | Document it | todo |
"""


def server(tmp_path: Path) -> Path:
    """A bare repository whose pre-receive hook is ``rehydrate guard --pre-receive``."""
    bare = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m rehydrate guard --pre-receive\n")
    hook.chmod(0o755)
    return bare


def seed(tmp_path: Path, bare: Path, url: str, *, phases: str = PHASES) -> Path:
    """The first clone: example ledgers with three phases, the merge driver registered
    (.gitattributes committed), pushed to ``url`` as main."""
    first = tmp_path / "seed"
    first.mkdir()
    git(first, "init", "-q")
    scaffold(first)
    task = first / "docs" / "Task.md"
    text = task.read_text()
    old = text[text.index("| ID | Phase") : text.index("\n\n## Next action")] + "\n"
    task.write_text(text.replace(old, phases))
    init = subprocess.run(
        [sys.executable, "-m", "rehydrate", "init", "--no-hook"],
        cwd=first,
        capture_output=True,
        text=True,
    )
    assert init.returncode == 0, init.stderr
    commit(first, "ledgers")
    git(first, "remote", "add", "origin", url)
    git(first, "push", "-q", "origin", "main")
    git(bare, "symbolic-ref", "HEAD", "refs/heads/main")
    return first


def clone(url: str, path: Path, name: str) -> Path:
    """A clone of ``url`` at ``path`` with the merge driver registered, as ``name``."""
    git(path.parent, "clone", "-q", url, str(path))
    git(path, "config", "user.name", name)
    # what `rehydrate init` / `hook install` registers in each clone (no process per clone)
    from rehydrate.merge.driver import DRIVER, NAME, driver_command

    git(path, "config", f"merge.{DRIVER}.driver", driver_command())
    git(path, "config", f"merge.{DRIVER}.name", NAME)
    return path


def start(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``python -m rehydrate ARGS`` in ``repo``, started now (a racer)."""
    return subprocess.Popen(
        [sys.executable, "-m", "rehydrate", *args],
        cwd=repo,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def race(procs: Sequence[subprocess.Popen[str]]) -> list[tuple[int, str, str]]:
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=120)
        out.append((proc.returncode, stdout, stderr))
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def daemon(base: Path) -> Iterator[str]:
    """A real ``git daemon`` serving ``base`` on 127.0.0.1 (receive-pack enabled); yields
    the URL of ``base/server.git``; stopped on exit."""
    port = free_port()
    proc = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            "--export-all",
            "--enable=receive-pack",
            "--listen=127.0.0.1",
            f"--port={port}",
            f"--base-path={base}",
            str(base),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ},
    )
    url = f"git://127.0.0.1:{port}/server.git"
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            probe = git(base, "ls-remote", url, check=False)
            if probe.returncode == 0:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("git daemon did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()
