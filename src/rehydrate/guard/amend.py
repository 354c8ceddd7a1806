"""Amending an unpushed commit's own rows (issue 24, class 6): ``git commit --amend`` that
fixes a typo in a row the HEAD commit itself added is not an edit of the record.

The pre-commit hook compares the index with HEAD. During ``git commit --amend`` the new
commit replaces HEAD, so its parent is HEAD's parent: when HEAD is on no remote-tracking
branch (never pushed, so no one else has its rows) and is not a merge, a row that HEAD
introduced (absent from HEAD's parent) is judged against the parent, where it does not
exist yet: the amended row is judged as what it is in the rewritten commit, an added
row, exactly as the range check will judge that commit. Every other row is still judged
against HEAD, and deleting a row stays refused (an amend may fix a row, not take back
the record of it).

git tells a pre-commit hook nothing about ``--amend``; ``amending`` reads it from the
command line of the nearest ``git commit`` among the hook's ancestors (``/proc``, else
``ps``). Not found (another platform, an alias, ``guard --staged`` run by hand): no
relaxation, the edit is refused as before. A plain commit on top that edits HEAD's row
stays refused, as the range check refuses it. Costs nothing unless HEAD's comparison
already refused a row.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ledgers import Ledger
from ..typecheck import TYPE_CHECKING
from .rules import Violation, check_ledger

if TYPE_CHECKING:
    from ..git import Repo

# Refusals an amend cannot excuse: the row (or its ID) is taken out of the record.
_KEPT = frozenset({"row_deleted", "unknown_write_dropped", "id_reused"})


def excusable(found: list[Violation]) -> bool:
    """Whether any refusal names a row an amend of HEAD could have introduced."""
    return any(v.item_id is not None and v.code not in _KEPT for v in found)


# git options that take the next argument as their value (so '-m --amend' is a message).
_GIT_VALUED = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
_COMMIT_VALUED = frozenset(
    {"-m", "--message", "-F", "--file", "-C", "--reuse-message", "-c", "--reedit-message"}
    | {"--author", "--date", "-t", "--template", "--fixup", "--squash", "--cleanup"}
    | {"--trailer", "--pathspec-from-file", "-u", "--untracked-files"}
)


def amending(start: int | None = None, depth: int = 8) -> bool:
    """Whether the nearest ``git commit`` among this process's ancestors has ``--amend``."""
    import os

    pid = os.getppid() if start is None else start
    for _ in range(depth):
        found = _process(pid)
        if found is None:
            return False
        argv, parent = found
        verdict = commit_amends(argv)
        if verdict is not None:
            return verdict
        if parent <= 1:
            return False
        pid = parent
    return False


def _process(pid: int) -> tuple[list[str], int] | None:
    """(argv, parent pid) of a process, from /proc or ``ps``; None when unreadable."""
    try:
        raw = open(f"/proc/{pid}/cmdline", "rb").read()  # noqa: SIM115 - tiny, read once
        stat = open(f"/proc/{pid}/stat", "rb").read()  # noqa: SIM115
        argv = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
        return argv, int(stat.rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        pass
    import subprocess

    try:
        out = (
            subprocess.run(
                ["ps", "-o", "ppid=", "-o", "args=", "-p", str(pid)],
                capture_output=True,
                check=False,
                timeout=5,
            )
            .stdout.decode("utf-8", "replace")
            .split()
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if len(out) < 2 or not out[0].isdigit():
        return None
    return out[1:], int(out[0])


def commit_amends(argv: list[str]) -> bool | None:
    """For a ``git … commit …`` command line, whether it amends; None for anything else."""
    import os.path

    if not argv or os.path.basename(argv[0]) not in ("git", "git.exe"):
        return None
    index = 1
    while index < len(argv) and argv[index].startswith("-"):
        index += 2 if argv[index] in _GIT_VALUED else 1
    if index >= len(argv) or argv[index] != "commit":
        return None
    args = argv[index + 1 :]
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--":
            break
        elif arg in _COMMIT_VALUED:
            skip = True
        elif len(arg) >= 4 and "--amend".startswith(arg):  # git accepts '--ame', '--amen'
            return True
    return False


def head_parent(repo: Repo) -> tuple[str, str | None] | None:
    """(HEAD, its parent or None for a root commit) when HEAD is unpushed and not a merge;
    None when the relaxation does not apply."""
    from ..git import head_and_parents, on_remotes

    ids = head_and_parents(repo)
    if not ids or len(ids) > 2 or on_remotes(repo, ids[0]):
        return None
    return ids[0], ids[1] if len(ids) == 2 else None


def amended(
    repo: Repo,
    kind: str,
    path: str,
    found: list[Violation],
    blobs: tuple[tuple[str, bytes], tuple[str, bytes]],
    parse: Callable[[str, bytes], Ledger | None],
    state: dict[str, tuple[str, str | None] | None],
) -> list[Violation]:
    """``found`` for one ledger with HEAD's own rows judged as an amend would have them
    (``blobs``: HEAD's and the index's (blob id, bytes); ``state`` caches HEAD's parent
    per run)."""
    if not excusable(found) or not amending():
        return found
    if "head" not in state:
        state["head"] = head_parent(repo)
    where = state["head"]
    if where is None:
        return found
    head, new = parse(*blobs[0]), parse(*blobs[1])
    if head is None or new is None:
        return found
    parent: Ledger | None = None
    if where[1] is not None:
        from ..git import cat_blobs, tree_entries

        entry = tree_entries(repo, where[1], [path]).get(path)
        if entry is not None and entry[0] in ("100644", "100755") and entry[1]:
            parent = parse(entry[1], cat_blobs(repo, [entry[1]])[entry[1]])
            if parent is None:
                return found  # the parent's version does not parse: nothing to excuse
    return rejudge(kind, found, head, parent, new)


def rejudge(
    kind: str,
    found: list[Violation],
    head: Ledger,
    parent: Ledger | None,
    new: Ledger,
) -> list[Violation]:
    """``found`` (the index against HEAD) with each row HEAD introduced judged against
    HEAD's parent instead."""
    before = {item.id for item in parent.all_items()} if parent is not None else set()
    introduced = {item.id for item in head.all_items()} - before
    if not introduced:
        return found
    kept = [v for v in found if v.item_id not in introduced or v.code in _KEPT]
    again = check_ledger(kind, parent, new)
    return kept + [v for v in again if v.item_id in introduced and v.code not in _KEPT]
