"""Real Claude Code from npm, pinned, driven against the fake Messages API on loopback.

The package is installed once into a cache outside any git repository
(``$REHYDRATE_CLAUDE_CODE_CACHE``, else ``$XDG_CACHE_HOME/rehydrate-tests/npm``, else
``~/.cache/rehydrate-tests/npm``), one folder per version. No registry reachable: the
suite skips, saying so. The registry reachable but the install broken: it fails.
"""

from __future__ import annotations

import itertools
import json
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import FakeAnthropic
from npm_client import VENV_BIN, Client, install  # VENV_BIN: the rehydrate under test

from conftest import commit, git

# 2.1.332 ships its native binary in the registry package @anthropic-ai/claude-code-linux-x64
# (an optional dependency; the postinstall only copies it), so nothing is downloaded from
# anywhere but the npm registry.
CLAUDE_CODE_VERSION = "2.1.332"
PACKAGE = "@anthropic-ai/claude-code"
SESSION_TIMEOUT = 60  # seconds for one claude run
ROOT = Path(__file__).resolve().parents[2]  # the repository: also rehydrate's plugin marketplace
PLUGIN_ID = "rehydrate@rehydrate"  # plugin name @ marketplace name (.claude-plugin/*.json)

CLAUDE = Client(
    PACKAGE,
    CLAUDE_CODE_VERSION,
    f"claude-code-{CLAUDE_CODE_VERSION}",
    (
        "node_modules/@anthropic-ai/claude-code/bin/claude.exe",
        "node_modules/@anthropic-ai/claude-code-linux-*/claude",
    ),
)


def install_claude() -> Path:
    """The pinned Claude Code executable, installed from npm on first use (or a skip)."""
    return install(CLAUDE)


# Ledgers with IDs of their own, so that a hit can only come from rehydrate's context
# (CLAUDE.md, which Claude Code also sends, names none of them).
SPEC = """\
    ---
    ledger: spec
    ---
    # Spec

    ## Constraints

    | ID | Rule | Level | Source |
    |---|---|---|---|
    | C-RC1 | never push to the main branch directly | MUST NOT | realclient |
    | C-RC2 | keep every test under one minute | MUST | realclient |

    ## Decisions

    | ID | Question | Status | Decision | Owner | Due | Source |
    |---|---|---|---|---|---|---|
    | D-RC1 | which cache backend? | open | | ops | 2030-01-01 | |
    """
TASK = """\
    ---
    ledger: task
    task: T-RC
    revision: 1
    objective: drive rehydrate through a real Claude Code session
    ---
    # Task

    ## Phases

    | ID | Phase | Status |
    |---|---|---|
    | P1 | run the real client | doing |

    ## Next action

    run the scripted session against the fake model API

    ## Obligations

    | ID | Obligation | Status |
    |---|---|---|
    | O-RC1 | report what reached the model | open |
    """
FAILURES = """\
    ---
    ledger: failures
    ---
    # Failed attempts

    | ID | Tried | Failure | Workaround |
    |---|---|---|---|
    | F-RC7 | `go test -tags=musl ./...` | crashes in the dynamic linker | use default build tags |
    """


def write_ledgers(repo: Path, spec: str = SPEC, task: str = TASK, failures: str = FAILURES) -> None:
    for name, text in (("Spec.md", spec), ("Task.md", task), ("Failed_Attempts.md", failures)):
        (repo / "docs" / name).write_text(textwrap.dedent(text), encoding="utf-8")


def make_project(tmp_path: Path, spec: str = SPEC, *, claude: bool = True) -> Path:
    """A real git repository set up by the real ``rehydrate init --claude`` (``claude``
    False: plain ``rehydrate init``, no Claude Code settings), ledgers committed."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    subprocess.run(
        [str(VENV_BIN / "rehydrate"), "init", *(["--claude"] if claude else [])],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    write_ledgers(repo, spec=spec)
    commit(repo, "ledgers")
    return repo


# Wraps each hook command of .claude/settings.json: logs the call (command, stdin, stdout,
# stderr, exit) to $REHYDRATE_HOOK_TRACE and runs the command as Claude Code would (sh -c),
# so the trace holds whatever executable `rehydrate init` wrote, bare name or absolute path.
_SHIM = """\
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


def _trace_hooks(repo: Path) -> None:
    """Route every hook command in ``repo``'s .claude/settings.json through the tracing shim."""
    shim = repo.parent / "hook-trace"
    shim.write_text(_SHIM.format(python=sys.executable), encoding="utf-8")
    shim.chmod(0o755)
    prefix = shlex.quote(str(shim)) + " "
    path = repo / ".claude" / "settings.json"
    if not path.exists():  # no settings hooks (the plugin's are not traced)
        return
    settings = json.loads(path.read_text(encoding="utf-8"))
    for groups in settings.get("hooks", {}).values():
        for group in groups:
            for hook in group.get("hooks", []):
                command = hook.get("command")
                if hook.get("type") == "command" and command and not command.startswith(prefix):
                    hook["command"] = prefix + shlex.quote(command)
    path.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


@dataclass
class Session:
    """One finished claude run: exit code, its stream-json events, stderr, the hook calls."""

    returncode: int
    events: list[dict[str, Any]]
    stderr: str
    hooks: list[dict[str, Any]]  # every hook call, in order (from the shim)
    raw: str = field(repr=False)

    def hook_order(self) -> list[str]:
        """The hook subcommands rehydrate was called with, in order (``session-start``, ...)."""
        return [call["command"].split()[-1] for call in self.hooks]

    def calls(self, name: str) -> list[dict[str, Any]]:
        return [call for call in self.hooks if call["command"].split()[-1] == name]

    def results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "result"]


def _environment(repo: Path, fake: FakeAnthropic, with_rehydrate: bool = True) -> dict[str, str]:
    home = repo.parent / "claude-home"
    home.mkdir(exist_ok=True)
    bins = [str(VENV_BIN)] if with_rehydrate else []
    return {
        "PATH": os.pathsep.join([*bins, "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "REHYDRATE_HOOK_TRACE": os.devnull,  # run_claude names a file per run
        "ANTHROPIC_BASE_URL": fake.base_url,
        "ANTHROPIC_API_KEY": "sk-ant-fake-key-for-tests",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        **{k: v for k, v in os.environ.items() if k.startswith("GIT_")},
    }


def claude_command(
    claude: Path, repo: Path, fake: FakeAnthropic, *args: str
) -> subprocess.CompletedProcess[str]:
    """One non-interactive ``claude ARGS`` in ``repo``, with the sessions' throwaway HOME."""
    return subprocess.run(
        [str(claude), *args],
        cwd=repo,
        env=_environment(repo, fake),
        capture_output=True,
        text=True,
        timeout=SESSION_TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def install_plugin(claude: Path, repo: Path, fake: FakeAnthropic, source: Path = ROOT) -> None:
    """``claude plugin marketplace add SOURCE`` then ``claude plugin install``, for real, into
    the throwaway HOME the sessions in ``repo`` use."""
    for args in (
        ("plugin", "marketplace", "add", str(source)),
        ("plugin", "install", PLUGIN_ID),
    ):
        done = claude_command(claude, repo, fake, *args)
        assert done.returncode == 0, f"claude {' '.join(args)}: {done.stdout}{done.stderr}"


def _is_result(line: str) -> bool:
    try:
        event = json.loads(line)
    except ValueError:
        return False
    return isinstance(event, dict) and event.get("type") == "result"


def run_claude(
    claude: Path,
    repo: Path,
    fake: FakeAnthropic,
    *messages: str,
    extra: Sequence[str] = (),
    with_rehydrate: bool = True,
    env: Mapping[str, str] | None = None,
) -> Session:
    """Run ``claude -p`` in ``repo`` against ``fake``, one user message after another.

    One message goes in as plain stdin; several go in as stream-json, each sent once the
    previous one's ``result`` event has come back (sent all at once, Claude Code folds
    the later ones into the running turn).
    """
    env = {**_environment(repo, fake, with_rehydrate), **(env or {})}
    _trace_hooks(repo)
    run = next(n for n in itertools.count() if not (repo.parent / f"stream-{n}.jsonl").exists())
    trace = repo.parent / f"hooks-{run}.jsonl"  # kept per run, for triage
    env["REHYDRATE_HOOK_TRACE"] = str(trace)
    args = [
        str(claude),
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-hook-events",
        "--allowedTools",
        "Bash",
        "Write",
        "Agent",
        *extra,
    ]
    streaming = len(messages) > 1
    if streaming:
        args += ["--input-format", "stream-json"]
    proc = subprocess.Popen(
        args,
        cwd=repo,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    timer = threading.Timer(SESSION_TIMEOUT, proc.kill)
    timer.start()
    lines: list[str] = []
    errors: list[str] = []
    drain = threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)
    drain.start()
    try:
        if not streaming:
            proc.stdin.write(messages[0] if messages else "go")
            proc.stdin.close()
        pending = list(messages) if streaming else []

        def send_next() -> None:
            message = {"type": "user", "message": {"role": "user", "content": pending.pop(0)}}
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if not pending:
                proc.stdin.close()

        if pending:
            send_next()
        for line in proc.stdout:
            lines.append(line)
            if pending and _is_result(line):
                send_next()
        proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        drain.join(timeout=5)
    if proc.returncode == -9:
        pytest.fail(
            f"claude ran over {SESSION_TIMEOUT} s and was killed; stdout tail: "
            f"{''.join(lines)[-2000:]!r}"
        )
    events = []
    for line in lines:
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    (repo.parent / f"stream-{run}.jsonl").write_text("".join(lines), encoding="utf-8")
    hooks = (
        [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
        if trace.exists()
        else []
    )
    return Session(proc.returncode, events, "".join(errors), hooks, "".join(lines))


def run_doctor(claude: Path, repo: Path, fake: FakeAnthropic) -> str:
    """``claude doctor`` in ``repo`` under a pseudo-terminal (it wants one); its text output."""
    env = _environment(repo, fake)
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [str(claude), "doctor"],
        cwd=repo,
        env=env,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + SESSION_TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal closed: claude exited
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            elif proc.poll() is not None:
                break
        else:
            pytest.fail(f"claude doctor ran over {SESSION_TIMEOUT} s")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(leader)
    text = b"".join(chunks).decode("utf-8", "replace")
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r", "", text)
