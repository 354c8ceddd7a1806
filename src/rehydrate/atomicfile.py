"""The ledger lock and the atomic replace a writer runs under.

One ``O_EXCL`` lock file per ledger in ``.git/rehydrate/locks/`` (waited for a
bounded time, never broken), and a replace that leaves the old file or the new
one, never a torn one: temp file beside the target, fsync, ``os.replace``,
fsync of the directory, file mode kept.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .errors import RehydrateError

LOCK_TIMEOUT = 5.0  # seconds to wait for another writer; REHYDRATE_LOCK_TIMEOUT overrides
TEMP_MARK = ".rehydrate-"  # temp files: .<name>.rehydrate-<pid>-<nonce>.tmp beside the ledger


def _hostname() -> str:
    """This machine's name, for the lock file (``socket`` costs ~2 ms to import)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


def lock_path(repo: Any, ledger_path: str) -> Path:
    """``.git/rehydrate/locks/<ledger path>.lock``: per work tree, never committed."""
    return repo.git_dir / "rehydrate" / "locks" / (ledger_path + ".lock")


@contextmanager
def ledger_lock(repo: Any, ledger_path: str, timeout: float | None = None
                ) -> Iterator[Path]:
    """Hold the ledger's ``O_EXCL`` lock file; wait a bounded time, never break it."""
    lock = lock_path(repo, ledger_path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    if timeout is None:
        timeout = float(os.environ.get("REHYDRATE_LOCK_TIMEOUT", LOCK_TIMEOUT))
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            break
        except FileExistsError:
            if time.monotonic() >= deadline:
                raise _lock_busy(lock, ledger_path, timeout) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
    try:
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        os.write(fd, f"pid {os.getpid()}\nhost {_hostname()}\nsince {stamp}\n".encode())
        os.close(fd)
        yield lock
    finally:
        try:
            os.unlink(lock)
        except FileNotFoundError:
            pass


def _lock_busy(lock: Path, ledger_path: str, timeout: float) -> RehydrateError:
    try:
        holder = dict(line.split(" ", 1) for line in lock.read_text().splitlines() if " " in line)
    except OSError:
        holder = {}
    pid = holder.get("pid", "?")
    alive = ""
    if pid.isdigit() and holder.get("host") == _hostname():
        try:
            os.kill(int(pid), 0)
            alive = f" (pid {pid} is still running)"
        except ProcessLookupError:
            alive = f" (pid {pid} is not running: the lock is stale)"
        except PermissionError:
            alive = f" (pid {pid} is running as another user)"
    return RehydrateError(
        f"{ledger_path} is locked by another writer since {holder.get('since', '?')}{alive}; "
        f"waited {timeout:g}s", file=str(lock), code="ledger_locked",
        fix=f"retry; if no rehydrate writer is running, the lock is stale: remove it with "
            f"`rm {lock}` (rehydrate never deletes it by itself)",
    )


def sweep_temp_files(target: Path) -> list[Path]:
    """Remove temp files a killed writer left beside ``target`` (call under the lock)."""
    gone = []
    for stray in target.parent.glob(f".{target.name}{TEMP_MARK}*.tmp"):
        try:
            stray.unlink()
            gone.append(stray)
        except OSError:
            pass
    return gone


def atomic_write(target: Path, data: bytes) -> None:
    """Replace ``target`` with ``data``: the old file or the new one, never a torn one.

    The target's file mode is kept (0644 for a new file)."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o644
    tmp = target.parent / f".{target.name}{TEMP_MARK}{os.getpid()}-{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    dir_fd = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


