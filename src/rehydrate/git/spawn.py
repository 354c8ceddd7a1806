"""One git process run to its end: started with ``os.posix_spawn``, fed and read through
pipes by one ``select.poll`` loop, reaped with ``os.waitpid``.

This is ``subprocess.run(argv, input=..., capture_output=True)`` for the one program the
package runs on every hook call, without importing ``subprocess`` (with ``signal``,
``threading``, ``selectors`` and ``locale``: ~4 ms of each agent tool call, issue 28
item 5, docs/design.md "speed4"). It keeps what ``subprocess`` guarantees that git's
answers depend on: the program looked up on the PATH of the environment it is given;
SIGPIPE and SIGXFSZ back to their defaults in the child (Python ignores SIGPIPE, and an
ignored signal stays ignored across ``exec``: ``git log | head`` inside a git alias
would see EPIPE errors instead of ending); the child reaped on every path out, an
exception included (killed first). The directory is git's own ``-C`` (``posix_spawn``
has no working directory); the caller checks that it exists.
"""

from __future__ import annotations

import errno
import os
import select
import signal
from collections.abc import Mapping, Sequence

from ..records import NamedTuple

_CHUNK = 65536
_RESET = (signal.SIGPIPE, signal.SIGXFSZ)  # what subprocess's restore_signals resets


class Done(NamedTuple):
    """What a finished process left: ``subprocess.CompletedProcess``'s four fields."""

    args: list[str]
    returncode: int
    stdout: bytes
    stderr: bytes


def run(argv: Sequence[str], env: Mapping[str, str], input: bytes | None = None) -> Done:
    """Run ``argv`` to its end with ``input`` on its stdin (none: an empty stdin) and its
    stdout and stderr captured. ``FileNotFoundError`` when the program is on no directory
    of ``env``'s PATH, as ``subprocess`` raises it."""
    to_child, stdin = os.pipe()
    stdout, from_out = os.pipe()
    stderr, from_err = os.pipe()
    mine, theirs = (stdin, stdout, stderr), (to_child, from_out, from_err)
    try:
        pid = _spawn(argv, env, theirs)
    except BaseException:
        for fd in mine + theirs:
            os.close(fd)
        raise
    for fd in theirs:
        os.close(fd)
    try:
        out, err = _communicate(stdin, stdout, stderr, input or b"")
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    _, status = os.waitpid(pid, 0)
    return Done(list(argv), os.waitstatus_to_exitcode(status), out, err)


def _spawn(argv: Sequence[str], env: Mapping[str, str], fds: tuple[int, int, int]) -> int:
    """The child's pid: ``argv[0]`` found on the PATH first (a failed start costs a process
    each, a look costs a ``stat``), then started."""
    program = argv[0]
    path = program if "/" in program else found(program, env)
    actions = [(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)]
    return os.posix_spawn(path, list(argv), env, file_actions=actions, setsigdef=_RESET)


def found(program: str, env: Mapping[str, str]) -> str:
    """The first file named ``program`` in an absolute directory of ``env``'s PATH that may
    be run; else the first that exists (starting it raises ``PermissionError``, as
    subprocess does); else ``FileNotFoundError``. A relative entry (``.``, ``bin``, an
    empty one) names a place in the repository the hook guards, where the agent can write
    a ``git`` of its own: it is skipped (hooks run only our code). ``git._start`` starts
    its streamed git with this program too: one lookup for both doors."""
    there = None
    for directory in os.get_exec_path(env):
        if not os.path.isabs(directory):
            continue
        place = os.path.join(directory, program)
        if os.path.isfile(place):
            if os.access(place, os.X_OK):
                return place
            there = there or place
    if there is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    return there


def _communicate(stdin: int, stdout: int, stderr: int, data: bytes) -> tuple[bytes, bytes]:
    """Write ``data`` to ``stdin`` (then close it) while reading ``stdout`` and ``stderr``
    to their ends; every descriptor is closed on return."""
    poller = select.poll()
    chunks: dict[int, list[bytes]] = {stdout: [], stderr: []}
    for fd in chunks:
        poller.register(fd, select.POLLIN)
    if data:
        os.set_blocking(stdin, False)
        poller.register(stdin, select.POLLOUT)
    else:
        os.close(stdin)
    view, sent, open_fds = memoryview(data), 0, {stdout, stderr} | ({stdin} if data else set())
    try:
        while open_fds:
            for fd, _ in poller.poll():
                if fd == stdin:
                    try:
                        sent += os.write(stdin, view[sent : sent + _CHUNK])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # the child stopped reading: what it said counts
                        sent = len(data)
                    if sent < len(data):
                        continue
                else:
                    chunk = os.read(fd, _CHUNK)
                    if chunk:
                        chunks[fd].append(chunk)
                        continue
                poller.unregister(fd)
                os.close(fd)
                open_fds.discard(fd)
    finally:
        for fd in open_fds:
            os.close(fd)
    return b"".join(chunks[stdout]), b"".join(chunks[stderr])
