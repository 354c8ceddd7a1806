"""Amending an unpushed commit's own rows (issue 24, class 6): ``git commit --amend`` that
fixes a typo in a row the HEAD commit itself added is not an edit of the record.

The pre-commit hook compares the index with HEAD. When HEAD is on no remote-tracking
branch (it was never pushed, so no one else has its rows) and has at most one parent,
a row that HEAD introduced (absent from HEAD's parent) is judged against the parent
instead: there it does not exist yet, so the amended row is judged as what it is in the
rewritten commit, an added row. Every other row is still judged against HEAD, and
deleting a row stays refused (an amend may fix a row, not take back the record of it).

git tells a pre-commit hook nothing about ``--amend``, so the same applies to a new
commit on top of an unpushed one that edits such a row; that commit is refused by the
range check and the server (each commit against its parent), so it can be pushed only
once squashed into the commit that added the row, which is what an amend makes.
Costs nothing unless HEAD's comparison already refused a row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..ledgers import Ledger
from .rules import Violation, check_ledger

if TYPE_CHECKING:
    from ..git import Repo

# Refusals an amend cannot excuse: the row (or its ID) is taken out of the record.
_KEPT = frozenset({"row_deleted", "unknown_write_dropped", "id_reused"})


def excusable(found: list[Violation]) -> bool:
    """Whether any refusal names a row an amend of HEAD could have introduced."""
    return any(v.item_id is not None and v.code not in _KEPT for v in found)


def head_parent(repo: Repo) -> tuple[str, str | None] | None:
    """(HEAD, its parent or None for a root commit) when HEAD is unpushed and not a merge;
    None when the relaxation does not apply."""
    from ..git import run

    proc = run(repo, "rev-list", "--parents", "-n", "1", "HEAD", "--", check=False)
    ids = proc.stdout.decode().split() if proc.returncode == 0 else []
    if not ids or len(ids) > 2:
        return None
    pushed = run(
        repo,
        "for-each-ref",
        "--count=1",
        "--contains",
        ids[0],
        "--format=%(refname)",
        "refs/remotes/",
        check=False,
    )
    if pushed.returncode != 0 or pushed.stdout.strip():
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
    if not excusable(found):
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
