"""Start one agent session and see it end: the prompt delivered, the output streamed to
the terminal and the log, the process group ended on a limit or Ctrl-C.

The agent runs in a session (and process group) of its own (``start_new_session``), so
a Ctrl-C at the terminal reaches ``rehydrate run`` only; the run then ends the group:
SIGTERM, and SIGKILL after the grace period. Processes the agent left behind in its
group are ended the same way when it exits, and so is every other process descended from
it (the loop is their subreaper, ``reaper``), so nothing the session started outlives
it. The agent itself dies with the loop (``PR_SET_PDEATHSIG``). Never ``shell=True``.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO

from ..continuity.sessions import EXITED, INTERRUPTED
from ..errors import RehydrateError
from ..records import NamedTuple
from .reaper import end_descendants, reap_orphans
from .usage import Usage

POLL = 0.1  # seconds between looks at the session
REAP_EVERY = 5.0  # seconds between collections of exited orphans
CHUNK = 1 << 16
_PLACEHOLDER = re.compile(r"\{prompt(_file)?\}")


class Ending(NamedTuple):
    returncode: int | None  # negative: the signal that ended it
    ended_by: str


def delivery(command: Sequence[str], prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
    """(argv, prompt on stdin?): ``{prompt}`` and ``{prompt_file}`` in ARGS are replaced;
    with neither, the prompt goes to stdin."""
    uses = any(_PLACEHOLDER.search(arg) for arg in command[1:])
    if not uses:
        return list(command), True

    def put(match: re.Match[str]) -> str:
        return str(prompt_file) if match[1] else prompt

    return [command[0], *(_PLACEHOLDER.sub(put, arg) for arg in command[1:])], False


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the group; False when no process of it is left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its identity: nothing more to end
        return False
    return True


def stop_group(proc: subprocess.Popen[bytes], grace: float, interrupts: Sequence[int] = ()) -> None:
    """SIGTERM to the agent's process group, SIGKILL after ``grace`` seconds (or at a
    second Ctrl-C) if any member is left; returns once the agent has been reaped."""
    pgid = proc.pid
    seen = len(interrupts)
    try:
        if not _signal_group(pgid, signal.SIGTERM):
            proc.wait()
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and len(interrupts) <= max(seen, 1):
            if proc.poll() is not None and not _signal_group(pgid, 0):
                return
            time.sleep(0.05)
    finally:  # also on a second Ctrl-C: never leave the group running
        _signal_group(pgid, signal.SIGKILL)
        proc.wait()


class _Pump(threading.Thread):
    """Copies the agent's output to the log, the terminal and the usage reader."""

    def __init__(
        self, stream: IO[bytes], log: IO[bytes], echo: Callable[[bytes], None], usage: Usage
    ) -> None:
        super().__init__(daemon=True)
        self.stream, self.log, self.echo, self.usage = stream, log, echo, usage

    def run(self) -> None:
        fd = self.stream.fileno()
        while True:
            try:
                chunk = os.read(fd, CHUNK)
            except OSError:
                break
            if not chunk:
                break
            self.log.write(chunk)
            self.log.flush()
            self.usage.feed(chunk)
            with contextlib.suppress(OSError, ValueError):
                self.echo(chunk)
        self.usage.close()


def _feed(stdin: IO[bytes], data: bytes) -> None:
    with contextlib.suppress(OSError, ValueError):
        try:
            stdin.write(data)
        finally:
            stdin.close()


def start(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], piped: bool
) -> subprocess.Popen[bytes]:
    from .reaper import die_with_parent

    try:
        return subprocess.Popen(  # noqa: PLW1509 (preexec_fn: prctl only, looked up before)
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent(),
        )
    except FileNotFoundError:
        raise RehydrateError(
            f"the agent command {argv[0]!r} was not found",
            code="agent_not_found",
            fix="check the command after -- (is it on PATH?)",
        ) from None
    except OSError as exc:  # E2BIG: a {prompt} argument over the kernel's limit
        raise RehydrateError(
            f"cannot start {argv[0]!r}: {exc.strerror or exc}",
            code="agent_not_started",
            fix="pass the prompt on stdin or as {prompt_file} rather than {prompt}",
        ) from None


class Launch(NamedTuple):
    """One session to run: what to start, where, and how to follow it."""

    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    stdin: bytes | None  # the prompt, when it goes on stdin
    log: Path
    echo: Callable[[bytes], None]
    watch: Callable[[], str | None]  # a reason to end the session now, or None
    quiesce: Callable[[], AbstractContextManager[object]]  # held while the group is ended
    grace: float
    interrupts: Sequence[int] = ()  # Ctrl-Cs so far (a second one skips the grace)


def run_session(launch: Launch, usage: Usage) -> Ending:
    """Run the session to its end (its own exit, a reason from ``watch``, or Ctrl-C)."""
    with launch.log.open("ab") as log:
        proc = start(launch.argv, launch.cwd, launch.env, launch.stdin is not None)
        assert proc.stdout is not None  # stdout=PIPE
        pump = _Pump(proc.stdout, log, launch.echo, usage)
        pump.start()
        if launch.stdin is not None:
            threading.Thread(target=_feed, args=(proc.stdin, launch.stdin), daemon=True).start()
        ended_by = EXITED
        reaped = time.monotonic()
        try:
            while proc.poll() is None:
                reason = launch.watch()
                if reason is not None:
                    ended_by = reason
                    break
                if time.monotonic() - reaped >= REAP_EVERY:
                    reap_orphans(proc.pid)
                    reaped = time.monotonic()
                time.sleep(POLL)
        except KeyboardInterrupt:
            ended_by = INTERRUPTED
        try:
            with launch.quiesce():  # no ledger write is cut in half
                stop_group(proc, launch.grace, launch.interrupts)
                end_descendants(launch.grace)  # setsid() or double-forked: ours still
        except KeyboardInterrupt:
            stop_group(proc, 0)
            end_descendants(0)
            ended_by = INTERRUPTED
        pump.join(timeout=5)  # a process that left the group may hold the pipe
        return Ending(proc.returncode, ended_by)
