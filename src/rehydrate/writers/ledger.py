"""The ledger write: an edit (``writers.edits``, bytes -> bytes) under a lock, with CAS.

``write()`` runs an ``Operation``'s edit under the ledger's ``flock``, opens the
ledger's directory once without following symlinks, re-reads the ledger and
re-checks the caller's compare-and-swap precondition inside the lock, parses the
result, asks the guard, and replaces the file atomically relative to that directory
(``atomicfile.write_at``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .. import git
from ..config import Config
from ..errors import CASConflict, GitError, LedgerParseError, Refused, RehydrateError
from ..git import changes as git_changes
from ..ledgers import (
    KINDS,
    Context,
    Ledger,
    parse_with,
)
from ..ledgers.atomicfile import (
    ledger_lock,
    open_dir,
    read_at,
    split_relpath,
    sweep_temp_files,
    write_at,
)
from ..ledgers.ids import split_id, using
from .frontmatter import bump_revision
from .operations import Operation, check_id


@dataclass(frozen=True)
class WriteResult:
    kind: str
    action: str
    path: str
    item_id: str
    blob_before: str
    blob_after: str
    revision: int | None
    commit: str | None
    uncommitted: bool  # the ledger now differs from HEAD

    def to_json(self) -> dict[str, object]:
        return {
            "schema": "rehydrate/write-v1",
            "action": self.action,
            "ledger": self.kind,
            "path": self.path,
            "id": self.item_id,
            "blob_before": self.blob_before,
            "blob_after": self.blob_after,
            "revision": self.revision,
            "commit": self.commit,
        }


def check_expectations(
    ledger: Ledger, blob: str, expect_revision: int | None, expect_blob: str | None
) -> None:
    """The caller's compare-and-swap precondition against what is on disk now."""
    if expect_blob is not None:
        wanted = expect_blob.strip().lower()
        if len(wanted) < 7 or not blob.startswith(wanted):
            raise CASConflict(
                f"ledger changed since you read it: blob is {blob}, expected {expect_blob}",
                file=ledger.path,
                code="cas_conflict",
                fix="re-read it (rehydrate state --json), redo your change on the new state, "
                "and retry with the new --expect-blob; nothing was written",
            )
    if expect_revision is not None:
        if ledger.kind != "task":
            raise RehydrateError(
                "--expect-revision applies to the Task ledger only",
                code="usage",
                fix="use --expect-blob SHA for this ledger",
            )
        if ledger.revision != expect_revision:
            raise CASConflict(
                f"Task revision is {ledger.revision}, expected {expect_revision}",
                file=ledger.path,
                code="cas_conflict",
                fix="re-read Task (rehydrate state), redo your change on the new state, and "
                "retry with the new --expect-revision; nothing was written",
            )


def guard_refusal(kind: str, old: Ledger, new: Ledger) -> Refused | None:
    """What the guard says about ``old -> new``, as one Refused carrying every code."""
    from ..guard.rules import check_ledger

    violations = check_ledger(kind, old, new)
    if not violations:
        return None
    first = violations[0]
    others = "".join(
        f"; also {v.code} {v.item_id or ''} (line {v.line}): {v.message}" for v in violations[1:]
    )
    error = Refused(
        f"the guard refuses this change: {first.message}{others}",
        file=new.path,
        line=first.line,
        item_id=first.item_id,
        code=first.code,
        fix=first.fix,
    )
    error.codes = tuple(v.code for v in violations)
    return error


def write(
    repo: git.Repo,
    config: Config,
    op: Operation,
    *,
    expect_revision: int | None = None,
    expect_blob: str | None = None,
    commit: bool = False,
    lock_timeout: float | None = None,
) -> WriteResult:
    """Apply ``op`` to its ledger in the work tree: locked, CAS-checked, guarded, atomic."""
    from ..state import parse_file

    path = config.path_of(op.kind)
    ctx = Context(path, config.section_aliases, config.column_aliases, config.max_ledger_bytes)
    with ledger_lock(repo, path, lock_timeout), _ledger_dir(repo, path) as (dir_fd, name):
        # One directory descriptor from here on: read, temp file and replace all happen in
        # the directory checked once, so a symlink flipped in meanwhile redirects nothing.
        if dir_fd is not None:
            sweep_temp_files(dir_fd, name)
        before = _read_ledger(repo, dir_fd, name, path)  # re-read inside the lock
        old = parse_file(op.kind, before, config, "work tree")
        assert before.data is not None and before.blob is not None
        check_expectations(old, before.blob, expect_revision, expect_blob)
        with using(config.id_scheme, git.branch(repo)):
            change = op.edit(before.data, old, ctx)
        data = change.data
        revision = None
        if op.kind == "task":
            data, revision = bump_revision(data, path)
        try:
            new = parse_with(op.kind, data, ctx)
        except LedgerParseError as exc:
            raise Refused(
                f"the change would leave the ledger unparseable: {exc.message}",
                file=path,
                line=exc.line,
                item_id=exc.item_id,
                code=exc.code,
                fix=exc.fix,
            ) from None
        refusal = guard_refusal(op.kind, old, new)
        if refusal is not None:
            raise refusal
        assert dir_fd is not None  # a missing directory means a missing ledger: refused above
        if data != before.data:  # unchanged: the row was there already (a retry)
            write_at(dir_fd, name, data)
        after = git.hash_blob(data, repo.object_format)
        head = git.head(repo)
        committed = git.tree_entries(repo, head, [path]).get(path, ("", ""))[1] if head else ""
        made = None
        if commit and committed != after:
            named = f" {change.item_id}" if split_id(change.item_id) else ""
            message = f"rehydrate: {op.action}{named}"
            try:
                made = git_changes.commit_paths(repo, [path], message)
            except GitError as exc:  # the write stands: say so, and what to do next
                raise not_committed(repo, path, change.item_id, message, exc) from None
            committed = after
    return WriteResult(
        op.kind,
        op.action,
        path,
        change.item_id,
        before.blob,
        after,
        revision,
        made,
        committed != after,
    )


def not_committed(repo: git.Repo, path: str, item: str, message: str, exc: GitError) -> GitError:
    """A commit after a write failed: the row is in the work tree, the commit is not made,
    and the next step commits it (running the writer again adds nothing: it finds it)."""
    import shlex

    index = os.environ.get("GIT_INDEX_FILE")
    lock = Path(index + ".lock") if index else repo.git_dir / "index.lock"
    commit = f"git add -- {shlex.quote(path)} && git commit -m {shlex.quote(message)}"
    said = exc.message.removeprefix("the ledger was written but the commit failed: ")
    if os.path.lexists(lock):
        said = f"git's index is locked: {lock} exists"
        fix = (
            f"git's index is locked by {lock}: if no other git command is running, remove "
            f"it (rm {shlex.quote(str(lock))}), then commit: {commit} (or run the same "
            "rehydrate command again: it finds the row and only commits)"
        )
    else:
        fix = f"fix what git says, then commit: {commit} (the row is not added twice)"
    return GitError(
        f"written to the work tree, but NOT committed ({said})",
        file=path,
        item_id=item or None,
        code="commit_failed",
        fix=fix,
    )


@contextmanager
def _ledger_dir(repo: git.Repo, path: str) -> Iterator[tuple[int | None, str]]:
    """The ledger's directory, opened without following symlinks; None when missing."""
    folders, name = split_relpath(path)
    try:
        fd: int | None = open_dir(repo.root, folders, shown=path)
    except FileNotFoundError:
        fd = None
    try:
        yield fd, name
    finally:
        if fd is not None:
            os.close(fd)


def _read_ledger(repo: git.Repo, dir_fd: int | None, name: str, path: str) -> git.Blob:
    """The ledger as ``git.read_worktree`` reports it, read relative to ``dir_fd``."""
    if dir_fd is None:
        return git.Blob(path, None, None, None)
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return git.Blob(path, None, None, None)
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(name, dir_fd=dir_fd).encode("utf-8", "surrogateescape")
        return git.Blob(path, target, git.hash_blob(target, repo.object_format), "120000")
    if not stat.S_ISREG(info.st_mode):
        return git.Blob(path, None, None, "040000" if stat.S_ISDIR(info.st_mode) else "other")
    data = read_at(dir_fd, name)  # O_NOFOLLOW: a symlink swapped in since is refused
    if data is None:
        return git.Blob(path, None, None, None)
    mode = "100755" if info.st_mode & 0o111 else "100644"
    return git.Blob(path, data, git.hash_blob(data, repo.object_format), mode)


def ledger_ids(
    repo: git.Repo, config: Config, kinds: Sequence[str] = KINDS
) -> dict[str, frozenset[str]]:
    """The item IDs (retired ones included) of each ledger of ``kinds`` (work tree)."""
    from ..state import parse_file

    files = git.read_worktree(repo, [config.path_of(k) for k in kinds], config.max_ledger_bytes)
    return {
        k: frozenset(
            r.id for r in parse_file(k, files[config.path_of(k)], config, "work tree").all_items()
        )
        for k in kinds
    }


def find_holder(repo: git.Repo, config: Config, item_id: str) -> str:
    """Which ledger holds item ``item_id`` (work tree)."""
    check_id(item_id)
    holders = [k for k, ids in ledger_ids(repo, config).items() if item_id in ids]
    if not holders:
        raise RehydrateError(
            f"no ledger holds an item with ID {item_id}",
            item_id=item_id,
            code="unknown_id",
            fix="check the ID (rehydrate state)",
        )
    if len(holders) > 1:
        raise RehydrateError(
            f"ID {item_id} exists in more than one ledger ({', '.join(holders)})",
            item_id=item_id,
            code="ambiguous_id",
            fix="name the ledger: rehydrate retire ID --ledger KIND",
        )
    return holders[0]
