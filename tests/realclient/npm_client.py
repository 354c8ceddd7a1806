"""Real agent clients from npm, pinned, installed once into a cache outside any repository.

The cache is ``_CACHE`` (``$REHYDRATE_CLAUDE_CODE_CACHE``, else
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
from typing import Any, NamedTuple, NoReturn

import pytest

VENV_BIN = Path(sys.executable).parent

_CACHE = Path(
    os.environ.get("REHYDRATE_CLAUDE_CODE_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rehydrate-tests" / "npm"
)


def _npm(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["npm", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _unreachable(why: str) -> NoReturn:
    """Off CI a missing registry skips, saying why; in CI (CI=true) it fails the run: a
    real-client suite that cannot install its client must never go green by skipping."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI cannot install the real client: npm unreachable: {why}")
    pytest.skip(f"npm unreachable: {why}")


class Client(NamedTuple):
    package: str  # npm name
    version: str  # pinned
    folder: str  # its folder under the cache
    binaries: tuple[str, ...]  # where its executable may be, globs under the folder; first wins


GEMINI = Client("@google/gemini-cli", "0.61.0", "gemini-cli-0.61.0", ("node_modules/.bin/gemini",))
OPENCODE = Client("opencode-ai", "1.18.33", "opencode-1.18.33", ("node_modules/.bin/opencode",))
COPILOT = Client("@github/copilot", "1.0.102", "copilot-1.0.102", ("node_modules/.bin/copilot",))


def version_of(binary: Path) -> str:
    try:
        done = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            check=False,
            env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(binary.parent)},
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout if done.returncode == 0 else ""


def installed(client: Client) -> Path | None:
    """The pinned client's executable in the cache, if it is there and runs."""
    prefix = _CACHE / client.folder
    for pattern in client.binaries:
        for candidate in sorted(prefix.glob(pattern)):
            if candidate.is_file() and client.version in version_of(candidate):
                return candidate
    return None


def install(client: Client) -> Path:
    """The pinned client's executable, installed from npm on first use (or a skip)."""
    found = installed(client)
    if found is not None:
        return found
    if shutil.which("npm") is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI has no npm executable: cannot install {client.package}")
        _unreachable("no npm executable on PATH")
    prefix = _CACHE / client.folder
    prefix.mkdir(parents=True, exist_ok=True)
    spec = f"{client.package}@{client.version}"
    with (prefix.parent / f".{prefix.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel runs install once
        found = installed(client)
        if found is not None:
            return found
        try:
            probe = _npm("view", "--fetch-retries=1", spec, "version", timeout=60)
        except subprocess.TimeoutExpired:
            _unreachable("`npm view` timed out after 60 s")
        if probe.returncode != 0:
            said = " | ".join(probe.stderr.strip().splitlines()[:3])
            _unreachable(f"`npm view {spec}` failed: {said}")
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
        found = installed(client)
        if found is None:
            pytest.fail(
                f"npm is reachable but installing {spec} into {prefix} gave no runnable "
                f"{client.binaries[0]} (exit {done.returncode}):\n{done.stderr[-2000:]}"
            )
        return found


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
