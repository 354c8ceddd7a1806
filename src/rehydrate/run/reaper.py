"""The agent dies with the loop, and nothing it started outlives its session (Linux).

* The loop makes itself a **child subreaper** (``PR_SET_CHILD_SUBREAPER``): a process
  the agent leaves behind, even one that called ``setsid()`` or double-forked, is
  re-parented to the loop rather than to init, so it stays a descendant the loop can
  find (``/proc/<pid>/stat``) and end when the session ends, before it is judged.
* The agent gets ``PR_SET_PDEATHSIG`` = SIGKILL: when the loop dies (``kill -9``), the
  kernel kills the agent at once. A process the agent started is not covered by that
  (the signal is not inherited), but it can no longer write unseen: the next run
  compares the repository with the state the last session was judged at (``startcheck``).

Elsewhere (no ``prctl``) both are skipped and the process group is all the loop ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_PRCTL: Callable[..., int] | None = None


def _prctl() -> Callable[..., int] | None:
    global _PRCTL
    if _PRCTL is None and sys.platform.startswith("linux"):
        import ctypes
        import ctypes.util

        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            prctl = libc.prctl
        except (OSError, AttributeError):
            return None
        prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
        prctl.restype = ctypes.c_int
        _PRCTL = prctl
    return _PRCTL


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants; False where it cannot."""
    prctl = _prctl()
    return prctl is not None and prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0) == 0


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child die (SIGKILL) with this process; None where
    there is no ``prctl``. Everything it needs is looked up here, before the fork."""
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()
    kill = int(signal.SIGKILL)

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, kill, 0, 0)
        if os.getppid() != parent:  # the loop died before prctl took effect
            os._exit(1)

    return preexec


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process /proc shows (empty where there is no /proc)."""
    out: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read(4096)
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses
        rest = stat[stat.rfind(b")") + 2 :].split(b" ")
        if len(rest) > 1 and rest[1].isdigit():
            out[int(name)] = int(rest[1])
    return out


def descendants(root: int | None = None) -> list[int]:
    """Every living descendant of ``root`` (default: this process), zombies left out."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    for pid, ppid in _parents().items():
        children.setdefault(ppid, []).append(pid)
    out: list[int] = []
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if pid in out:
            continue
        out.append(pid)
        todo += children.get(pid, [])
    return [pid for pid in out if not _zombie(pid)]


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read(4096)
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"Z", b"X")


def reap() -> None:
    """Collect every exited child (orphans re-parented to the loop become ours)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def reap_orphans(keep: int) -> None:
    """While a session runs: collect the exited orphans re-parented to the loop (zombies
    otherwise, until the session ends), never ``keep`` (the agent: its Popen waits for it)."""
    me = os.getpid()
    for pid, ppid in _parents().items():
        if ppid == me and pid != keep and _zombie(pid):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


def end_descendants(grace: float, keep: Callable[[int], bool] = lambda pid: False) -> int:
    """SIGTERM to every descendant, SIGKILL after ``grace`` to those left; repeated until
    none is left (a process forking meanwhile is caught by the next pass). Returns how
    many were ended. ``keep``: pids to leave alone."""
    ended: set[int] = set()
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        left = [p for p in descendants() if not keep(p)]
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
            ended.add(pid)
        deadline = time.monotonic() + wait
        while left and time.monotonic() < deadline:
            reap()
            left = [p for p in descendants() if not keep(p)]
            time.sleep(0.05)
    for _ in range(50):
        reap()
        left = [p for p in descendants() if not keep(p)]
        if not left:
            break
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            ended.add(pid)
        time.sleep(0.02)
    reap()
    return len(ended)
