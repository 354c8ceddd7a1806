"""Real agent clients from npm, pinned, installed once into a cache outside any repository.

The cache is ``harness._CACHE`` (``$REHYDRATE_CLAUDE_CODE_CACHE``, else
``$XDG_CACHE_HOME/rehydrate-tests/npm``, else ``~/.cache/rehydrate-tests/npm``), one folder
per package and version. No registry reachable: the test skips, saying so. The registry
reachable but the install broken: it fails. Also: the hook tracing shim, for triage.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from harness import _CACHE, _npm, _unreachable

VENV_BIN = Path(sys.executable).parent


class Client(NamedTuple):
    package: str  # npm name
    version: str  # pinned
    folder: str  # its folder under the cache
    binary: str  # the executable, relative to node_modules/.bin


GEMINI = Client("@google/gemini-cli", "0.61.0", "gemini-cli-0.61.0", "gemini")
OPENCODE = Client("opencode-ai", "1.18.33", "opencode-1.18.33", "opencode")
COPILOT = Client("@github/copilot", "1.0.102", "copilot-1.0.102", "copilot")


def version_of(binary: Path) -> str:
    done = subprocess.run(
        [str(binary), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(binary.parent)},
    )
    return done.stdout if done.returncode == 0 else ""


def install(client: Client) -> Path:
    """The pinned client's executable, installed from npm on first use (or a skip)."""
    prefix = _CACHE / client.folder
    binary = prefix / "node_modules" / ".bin" / client.binary
    if binary.exists() and client.version in version_of(binary):
        return binary
    if shutil.which("npm") is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI has no npm executable: cannot install {client.package}")
        _unreachable("no npm executable on PATH")
    prefix.mkdir(parents=True, exist_ok=True)
    spec = f"{client.package}@{client.version}"
    with (prefix.parent / f".{prefix.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.exists() and client.version in version_of(binary):
            return binary
        try:
            probe = _npm("view", "--fetch-retries=1", spec, "version", timeout=60)
        except subprocess.TimeoutExpired:
            _unreachable("`npm view` timed out after 60 s")
        if probe.returncode != 0:
            _unreachable(f"`npm view {spec}` failed: {probe.stderr.strip()[:300]}")
        done = _npm(
            "install",
            "--prefix",
            str(prefix),
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            spec,
            timeout=540,
        )
        if not binary.exists() or client.version not in version_of(binary):
            pytest.fail(
                f"npm is reachable but installing {spec} into {prefix} gave no runnable "
                f"{client.binary} (exit {done.returncode}):\n{done.stderr[-2000:]}"
            )
        return binary


# Wraps a hook command: logs the call (command, stdin, stdout, stderr, exit) to
# $REHYDRATE_HOOK_TRACE and runs the command unchanged (sh -c).
SHIM = """\
#!{python}
import json, os, subprocess, sys, time
data = sys.stdin.buffer.read()
done = subprocess.run(["/bin/sh", "-c", sys.argv[1]], input=data, capture_output=True)
with open(os.environ["REHYDRATE_HOOK_TRACE"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"command": sys.argv[1], "time": time.time(),
                          "stdin": data.decode("utf-8", "replace"),
                          "stdout": done.stdout.decode("utf-8", "replace"),
                          "stderr": done.stderr.decode("utf-8", "replace"),
                          "exit": done.returncode}}) + "\\n")
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
sys.exit(done.returncode)
"""


def shim(folder: Path) -> str:
    """The tracing shim's path (written once into ``folder``), shell-quoted."""
    path = folder / "hook-trace"
    if not path.exists():
        path.write_text(SHIM.format(python=sys.executable), encoding="utf-8")
        path.chmod(0o755)
    return shlex.quote(str(path))


def trace_commands(path: Path, entries: Callable[[Any], list[dict[str, Any]]], key: str) -> None:
    """Route every hook command of the JSON file ``path`` through the shim."""
    prefix = shim(path.parents[1].parent) + " "
    data = json.loads(path.read_text(encoding="utf-8"))
    for entry in entries(data):
        command = entry.get(key)
        if isinstance(command, str) and not command.startswith(prefix):
            entry[key] = prefix + shlex.quote(command)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def read_trace(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
