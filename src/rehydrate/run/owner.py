"""``rehydrate run`` owns its sessions: one run per work tree, exclusive session numbers,
a mark for the session that is running, and the state each session was judged at.

* **The run lock** (``.git/rehydrate/run.lock``, ``flock``): a second ``run`` in the same
  work tree exits 2 naming the pid that holds it. The kernel drops the lock when the
  holder dies, ``kill -9`` included, so a stale lock never needs removing by hand.
* **Exclusive numbers**: a session's number is taken by creating its log with
  ``O_CREAT | O_EXCL`` (one past the highest number the index, the logs and the marks
  know), so no two sessions share a number and no log is ever truncated.
* **The open mark** (``<n>.open.json``): written when a session starts, removed once its
  record is in the index. A mark left behind is a session whose loop died (``kill -9``):
  the next run judges it and records it as ``interrupted``.
* **The judged state** (``judged.json``): HEAD and the ledgers' blob ids when the last
  session was judged, and the state it was judged clean against. The next run compares
  the repository with it before starting (``startcheck``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from .. import git
from ..continuity.sessions import SESSIONS_DIR, sessions_dir
from ..errors import RehydrateError
from ..readlimit import read_upto
from ..records import NamedTuple

LOCK = "rehydrate/run.lock"  # under the git directory: never in a commit
JUDGED = "judged.json"
_NUMBERED = re.compile(r"^(\d{1,9})\.(?:log|open\.json|prompt\.md)$")
MARK_LIMIT = 64 << 10  # bytes of a mark or judged.json read


class RunBusy(RehydrateError):
    pass


@contextlib.contextmanager
def run_lock(repo: git.Repo) -> Iterator[None]:
    """Hold the work tree's run lock for the block, or raise ``run_busy`` naming its holder."""
    import fcntl

    path = repo.git_dir / LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise RunBusy(
                f"another `rehydrate run` holds this work tree's run lock (pid {holder})",
                file=str(path),
                code="run_busy",
                fix=f"wait for it to end, or end it (kill {holder}); one run per work tree",
            ) from None
        try:  # the file we locked must still be the one at the path (not unlinked)
            same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)


def _numbers(folder: Path) -> list[int]:
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    return [int(m[1]) for m in map(_NUMBERED.match, names) if m]


def claim_number(root: Path, at_least: int) -> tuple[int, Path]:
    """The next free session number and its new, empty log (created exclusively)."""
    folder = sessions_dir(root)
    number = max([at_least - 1, *_numbers(folder)]) + 1
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    while True:
        log = folder / f"{number}.log"
        try:
            os.close(os.open(log, flags, 0o600))
        except FileExistsError:
            number += 1
            continue
        return number, log


class OpenMark(NamedTuple):
    number: int
    pid: int
    head_before: str | None
    start: str
    agent: str


def _mark_path(root: Path, number: int) -> Path:
    return root / SESSIONS_DIR / f"{number}.open.json"


def write_mark(root: Path, mark: OpenMark) -> None:
    from ..ledgers.atomicfile import write_in_repo

    data = json.dumps(mark._asdict(), sort_keys=True).encode("utf-8")
    write_in_repo(root, f"{SESSIONS_DIR}/{mark.number}.open.json", data)


def clear_mark(root: Path, number: int) -> None:
    _mark_path(root, number).unlink(missing_ok=True)


def read_regular(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of the regular file at ``path``, checked before reading: a
    FIFO, a device or a symlink raises OSError (never blocks), so does a larger file."""
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        if info.st_size > limit:
            raise OSError(f"{path} is over {limit} bytes")
        data = read_upto(fd, limit + 1)
        if len(data) > limit:
            raise OSError(f"{path} is over {limit} bytes")
        return data
    finally:
        os.close(fd)


def _read_json(path: Path) -> object:
    try:
        return json.loads(read_regular(path, MARK_LIMIT))
    except (OSError, ValueError, RecursionError):
        return None


def open_marks(root: Path) -> list[OpenMark]:
    """The marks left by sessions whose record never reached the index, oldest first."""
    out = []
    for number in sorted(set(_numbers(root / SESSIONS_DIR))):
        path = _mark_path(root, number)
        if not path.is_file():
            continue
        raw = _read_json(path)
        try:
            mark = OpenMark(**raw) if isinstance(raw, dict) else None
        except TypeError:
            mark = None
        head = mark.head_before if mark else None
        if (
            mark is None
            or mark.number != number
            or not isinstance(mark.pid, int)
            or not (
                head is None or (isinstance(head, str) and re.fullmatch(r"[0-9a-f]{40,64}", head))
            )
        ):
            mark = OpenMark(number, 0, None, "", "")  # unreadable: still an unjudged session
        out.append(mark)
    return out


class Judged(NamedTuple):
    """The repository as the last session was judged: the base it was judged against (its
    HEAD_before), HEAD then, each ledger's blob id in the work tree, and the verdict."""

    number: int
    base: str
    head: str
    ledgers: Mapping[str, str | None]
    verdict: str
    branch: str | None  # the branch it ran on (None: a detached HEAD)


def ledger_blobs(repo: git.Repo, paths: list[str]) -> dict[str, str | None]:
    """Each ledger path's blob id as the work tree has it (None: missing or not a file)."""
    out: dict[str, str | None] = {}
    for path in paths:
        try:
            data = read_regular(repo.root / path, 1 << 30)
        except OSError:
            out[path] = None
        else:
            out[path] = git.hash_blob(data, repo.object_format)
    return out


def write_judged(root: Path, judged: Judged) -> None:
    from ..ledgers.atomicfile import write_in_repo

    data = json.dumps(judged._asdict(), sort_keys=True).encode("utf-8")
    write_in_repo(root, f"{SESSIONS_DIR}/{JUDGED}", data)


def read_judged(root: Path) -> Judged | None:
    raw = _read_json(root / SESSIONS_DIR / JUDGED)
    if not isinstance(raw, dict):
        return None
    try:
        judged = Judged(**raw)
    except TypeError:
        return None
    sha = re.compile(r"[0-9a-f]{40,64}")
    if not (
        isinstance(judged.number, int)
        and all(isinstance(x, str) and sha.fullmatch(x) for x in (judged.base, judged.head))
        and isinstance(judged.ledgers, dict)
        and isinstance(judged.verdict, str)
        and (judged.branch is None or isinstance(judged.branch, str))
    ):
        return None
    return judged
