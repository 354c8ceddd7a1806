"""``--on-violation revert`` never removes what a session recorded.

The rows that are the project's memory (``KEPT``: failures, external writes and their
status moves, verifications) that the reverted session added are read from its last
state before the revert, then written again on top of the reverted state through the
ledger writers (locked, guarded, atomic), and committed in one commit. Nothing else of
the session is re-applied. A row the writer refuses stays out, is named, and stops the
run (exit 1); it stays readable in the session's ref and saved ledger files.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import git
from ..config import Config
from ..diff import ADDED, CHANGED, diff_ledger
from ..errors import RehydrateError
from ..ledgers import Ledger
from ..records import NamedTuple

# (ledger kind, section) -> the statuses a status move of it re-applies (None: none)
KEPT: Mapping[tuple[str, str], bool] = {
    ("failures", "failures"): False,
    ("task", "external writes"): True,
    ("task", "verified"): False,
}


class Row(NamedTuple):
    kind: str
    section: str
    item_id: str
    cells: Mapping[str, str] | None  # a new row's cells; None: a status move
    status: str | None


def recorded(before: Mapping[str, Ledger], after: Mapping[str, Ledger]) -> list[Row]:
    """The rows of ``KEPT`` sections added (or, external writes, moved) from before to after."""
    rows: list[Row] = []
    for (kind, section), moves in KEPT.items():
        new = after.get(kind)
        if new is None:
            continue
        diff = diff_ledger(before.get(kind), new)
        records = {r.id: r for r in new.section(section)}
        for change in diff.items:
            if change.section != section or change.item_id not in records:
                continue
            row = records[change.item_id]
            if change.kind == ADDED:
                cells = {k: v for k, v in row.cells().items() if k != "id"}
                rows.append(Row(kind, section, change.item_id, cells, None))
            elif change.kind == CHANGED and moves and change.moved("status"):
                rows.append(Row(kind, section, change.item_id, None, row.cells().get("status")))
    return rows


class Reapplied(NamedTuple):
    done: tuple[str, ...]  # "F-002" or "F-002 as F-003"
    refused: tuple[str, ...]  # "F-002: why"
    commit: str | None


def reapply(repo: git.Repo, config: Config, rows: list[Row], number: int) -> Reapplied:
    """Write ``rows`` again on the reverted ledgers, then commit them (hooks run)."""
    from ..git.changes import commit_paths
    from ..writers.ledger import write
    from ..writers.operations import add_row, update_row

    done: list[str] = []
    refused: list[str] = []
    paths: list[str] = []
    for row in rows:
        if row.cells is not None:
            op = add_row(row.kind, "re-apply", row.section, row.cells)
        else:
            op = update_row(
                row.kind, "re-apply", row.section, row.item_id, {"status": row.status or ""}
            )
        try:
            result = write(repo, config, op)
        except RehydrateError as exc:
            refused.append(f"{row.item_id}: {exc}")
            continue
        done.append(
            row.item_id if result.item_id == row.item_id else f"{row.item_id} as {result.item_id}"
        )
        if result.path not in paths:
            paths.append(result.path)
    commit = None
    if paths:
        message = (
            f"rehydrate run: rows recorded by reverted session {number} re-applied\n\n"
            f"{', '.join(done)}"
        )
        try:
            commit = commit_paths(repo, paths, message)
        except RehydrateError as exc:
            refused.append(f"the commit of {', '.join(paths)}: {exc}")
    return Reapplied(tuple(done), tuple(refused), commit)
