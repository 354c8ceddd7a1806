"""The one atomic writer, and the ledger lock it runs under.

Every file rehydrate writes (ledgers, hooks, ``.gitattributes``, scaffolded files,
adapter state, ``prompt -o``) goes through ``write_at`` / ``write_in_repo`` /
``atomic_write``: a temp file beside the target, fsync, ``os.replace``, fsync of the
directory, file mode kept. A crash leaves the old file or the new one, never a torn one.

Inside the repository a path is never resolved twice: ``open_dir`` walks it from the
repository root one component at a time with ``O_DIRECTORY | O_NOFOLLOW`` (a symlinked
directory is refused, not followed), and everything after that (read, temp file, replace,
fsync) is relative to that one directory descriptor, so flipping ``docs/`` to a symlink
mid-write cannot redirect a byte outside the repository.

The ledger lock is ``fcntl.flock`` on ``.git/rehydrate/locks/<ledger path>.lock`` (opened
the same way from the git directory): the kernel releases it when its holder dies, so a
killed writer never blocks the next one. The file stays (unlinking a flock'd file races
with a waiter that already opened it); it only records the last holder, for messages.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from ..errors import RehydrateError
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Protocol

    class _Repo(Protocol):
        """What the lock needs of a ``git.Repo`` (git imports ledgers, so not that class)."""

        @property
        def git_dir(self) -> Path: ...


LOCK_TIMEOUT = 5.0  # seconds to wait for another writer; REHYDRATE_LOCK_TIMEOUT overrides
TEMP_MARK = ".rehydrate-"  # temp files: .<name>.rehydrate-<pid>-<nonce>.tmp beside the target
_DIR_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_FILE_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _hostname() -> str:
    """This machine's name, for the lock file (``socket`` costs ~2 ms to import)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


def _unsafe(shown: str, what: str) -> RehydrateError:
    return RehydrateError(
        f"{shown} {what}; rehydrate writes only through real directories inside the repository",
        file=shown,
        code="path_outside_repo",
        fix=f"replace {shown} with a real directory (or file) inside the repository",
    )


def open_dir(
    root: Path | str,
    parts: list[str] | tuple[str, ...],
    *,
    create: bool = False,
    shown: str | None = None,
) -> int:
    """A descriptor of ``root/parts...``, walked without following any symlink.

    ``root`` itself is opened as given (the repository root git reported). ``create`` makes
    missing directories (0777 minus umask). Raises ``FileNotFoundError`` for a missing
    component when not ``create``; a symlink or non-directory component is
    ``path_outside_repo``. The caller closes the descriptor.
    """
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    done: list[str] = []
    try:
        for part in parts:
            if part in ("", ".", ".."):
                raise _unsafe("/".join([*done, part]) or ".", "is not a plain path component")
            done.append(part)
            try:
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise _unsafe(
                        shown or "/".join(done), "is a symlink or not a directory"
                    ) from None
                raise
            os.close(fd)
            fd = nfd
        return fd
    except BaseException:
        os.close(fd)
        raise


def resolves_inside(root: Path | str, relpath: str) -> bool:
    """Whether ``relpath`` under ``root``, every symlink followed, is still inside it."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, relpath))
    return os.path.commonpath([real, real_root]) == real_root


def split_relpath(relpath: str) -> tuple[list[str], str]:
    """(directory components, file name) of a repository-relative POSIX path."""
    parts = [p for p in relpath.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts:
        raise _unsafe(relpath or ".", "is not a file path")
    return parts[:-1], parts[-1]


@contextmanager
def repo_dir(root: Path | str, relpath: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
    """``(directory descriptor, file name)`` for ``relpath`` under ``root`` (see open_dir)."""
    folders, name = split_relpath(relpath)
    fd = open_dir(root, folders, create=create, shown=relpath)
    try:
        yield fd, name
    finally:
        os.close(fd)


def read_at(dir_fd: int, name: str) -> bytes | None:
    """The bytes of regular file ``name`` in ``dir_fd``; None when absent. A symlink is
    refused (``O_NOFOLLOW``), never followed."""
    try:
        fd = os.open(name, os.O_RDONLY | _FILE_NOFOLLOW, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _unsafe(name, "is a symlink") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _unsafe(name, "is not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_at(
    dir_fd: int, name: str, data: bytes, *, mode: int | None = None, exclusive: bool = False
) -> bool:
    """Replace ``name`` in directory ``dir_fd`` with ``data`` atomically; True if written.

    The target's mode is kept (``mode``, else 0644, for a new file). ``exclusive``: only
    create, never replace (False when ``name`` exists); the new file appears complete or
    not at all (``os.link`` of the finished temp file).
    """
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
        except FileNotFoundError:
            mode = 0o644
    tmp = f".{name}{TEMP_MARK}{os.getpid()}-{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FILE_NOFOLLOW, 0o600, dir_fd=dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            try:
                os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except FileExistsError:
                return False
            finally:
                os.unlink(tmp, dir_fd=dir_fd)
        else:
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        raise
    os.fsync(dir_fd)
    return True


def write_in_repo(
    root: Path | str,
    relpath: str,
    data: bytes,
    *,
    create_dirs: bool = False,
    exclusive: bool = False,
    mode: int | None = None,
) -> bool:
    """``write_at`` for ``relpath`` under ``root``, never through a symlink."""
    with repo_dir(root, relpath, create=create_dirs) as (fd, name):
        return write_at(fd, name, data, mode=mode, exclusive=exclusive)


def atomic_write(target: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``target`` (a path the user named, e.g. ``prompt -o``) atomically.

    The parent directory is opened once as given (symlinks in it followed, as for any
    file the user names); the file itself is replaced, never written through.
    """
    parent = target.parent if str(target.parent) else Path(".")
    fd = os.open(parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        write_at(fd, target.name, data, mode=mode)
    finally:
        os.close(fd)


def sweep_temp_files(dir_fd: int, name: str) -> list[str]:
    """Remove temp files a killed writer left beside ``name`` (call under the lock)."""
    gone = []
    prefix = f".{name}{TEMP_MARK}"
    for entry in os.listdir(dir_fd):
        if entry.startswith(prefix) and entry.endswith(".tmp"):
            try:
                os.unlink(entry, dir_fd=dir_fd)
                gone.append(entry)
            except OSError:
                pass
    return gone


def lock_path(repo: _Repo, ledger_path: str) -> Path:
    """``.git/rehydrate/locks/<ledger path>.lock``: per work tree, never committed."""
    return repo.git_dir / "rehydrate" / "locks" / (ledger_path + ".lock")


@contextmanager
def ledger_lock(repo: _Repo, ledger_path: str, timeout: float | None = None) -> Iterator[Path]:
    """Hold the ledger's ``flock``; wait a bounded time. Released by the kernel on death."""
    import fcntl

    lock = lock_path(repo, ledger_path)
    relative = os.path.relpath(lock, repo.git_dir).replace(os.sep, "/")
    if timeout is None:
        from ..environment import LOCK_TIMEOUT as VARIABLE
        from ..environment import number

        timeout = number(VARIABLE, LOCK_TIMEOUT)  # nan, inf, -1, garbage: bad_environment
    with repo_dir(repo.git_dir, relative, create=True) as (dir_fd, name):
        fd = os.open(name, os.O_RDWR | os.O_CREAT | _FILE_NOFOLLOW, 0o644, dir_fd=dir_fd)
    try:
        deadline = time.monotonic() + max(timeout, 0.0)
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise _lock_busy(fd, lock, ledger_path, timeout) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}\nhost {_hostname()}\nsince {stamp}\n".encode(), 0)
        yield lock
    finally:
        os.close(fd)  # releases the flock


def _lock_busy(fd: int, lock: Path, ledger_path: str, timeout: float) -> RehydrateError:
    try:
        text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
        holder = dict(line.split(" ", 1) for line in text.splitlines() if " " in line)
    except OSError:
        holder = {}
    pid = holder.get("pid", "?")
    return RehydrateError(
        f"{ledger_path} is locked by another writer (pid {pid} on {holder.get('host', '?')} "
        f"since {holder.get('since', '?')}); waited {timeout:g}s",
        file=str(lock),
        code="ledger_locked",
        fix="retry when that writer is done (REHYDRATE_LOCK_TIMEOUT=SECONDS waits longer); "
        "the lock is released as soon as its holder exits, even when it is killed",
    )
