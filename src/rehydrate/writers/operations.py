"""What each writer command asks for: an ``Operation`` (the ledger, the edit, the CAS
expectations) built from validated cell values. Pure: ``writers.ledger.write`` runs it."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from .. import git
from ..errors import LedgerParseError, Refused, RehydrateError
from ..ledgers import (
    Context,
    Ledger,
    check_text,
    normalize,
    render_row,
    split_row,
    visible,
)
from ..ledgers.atomicfile import resolves_inside
from ..ledgers.model import (
    LEVEL_STRENGTH,
)
from .edits import SCHEMAS, append_row, next_id, set_cells, set_next_action


@dataclass(frozen=True)
class Change:
    data: bytes
    item_id: str


@dataclass(frozen=True)
class Operation:
    """One writer command: which ledger, what to call it in a commit, and the edit."""

    kind: str
    action: str  # "fail add", "task phase", ...
    edit: Callable[[bytes, Ledger, Context], Change]


# The most one value a writer puts in a ledger may hold (docs/mcp.md, "Limits"): a cell
# is a line of a table a person reads, never a document; every writer (CLI and MCP) is held
# to it here.
MAX_CELL_BYTES = 4096
# Every character some reader ends a line at (str.splitlines is the widest: \v, \f, the
# file separators, NEL, U+2028/9): a value any reader sees as two lines could start a row.
_LINE_END = re.compile("[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_text(option: str, value: str) -> str:
    """Refuse text that is not Unicode: argv bytes that are not UTF-8 reach Python as lone
    surrogates, and no ledger can hold them."""
    if _SURROGATE.search(value):
        raise RehydrateError(
            f"{option} holds bytes that are not UTF-8 text",
            code="bad_value",
            fix=f"write {option} as UTF-8 text (check the terminal's or the script's encoding)",
        )
    return value


def cell(option: str, value: str | None, *, required: bool = True) -> str:
    """Validate one cell's input: at most ``MAX_CELL_BYTES``, one line, no invisible
    characters, reading back as exactly one cell, non-empty if required."""
    value = utf8_text(option, value or "")
    size = len(value) if len(value) > MAX_CELL_BYTES else len(value.encode("utf-8", "replace"))
    if size > MAX_CELL_BYTES:
        raise RehydrateError(
            f"{option} is {size:,} bytes or more; a ledger cell holds at most "
            f"{MAX_CELL_BYTES} bytes",
            code="value_too_long",
            fix=f"shorten it to {MAX_CELL_BYTES} bytes or less: put the long text in a file "
            "and name that file in the cell",
        )
    if _LINE_END.search(value):
        raise RehydrateError(
            f"{option} contains a line break; a table cell holds one line",
            code="bad_value",
            fix="write it on one line (separate parts with '; ')",
        )
    try:
        check_text(value, Context(option, {}, {}), 0)
    except LedgerParseError as exc:
        raise RehydrateError(f"{option}: {exc.message}", code="bad_value", fix=exc.fix) from None
    value = normalize(value)
    _one_cell(option, value)
    if required and not visible(value):
        raise RehydrateError(
            f"{option} is empty" + (" (nothing in it renders)" if value else ""),
            code="empty_value",
            fix=f"give {option} a visible value",
        )
    return value


def _one_cell(option: str, value: str) -> None:
    """Refuse a value that, written as a cell, would not read back as that one cell.

    The writer escapes ``|`` as ``\\|``. A value already holding ``\\|`` would be written
    ``\\\\|``, which the strict reader takes as a literal pipe but a GFM renderer (mistune)
    as an escaped backslash and a cell boundary: the row people see would have a cell the
    ledger does not.
    """
    if "\\|" in value:
        raise RehydrateError(
            f"{option} holds a backslash directly before '|', which Markdown renderers read "
            "as the end of the cell",
            code="bad_value",
            fix="write it another way (grep -E 'a|b' for grep 'a\\|b'); a plain '|' is "
            "fine, the writer escapes it",
        )
    try:
        back = split_row(render_row([value]), option, 0)
    except LedgerParseError:
        back = ()
    if back != (value,):
        raise RehydrateError(
            f"{option} would not read back as one table cell (it reads as {len(back)})",
            code="bad_value",
            fix="write it as plain text on one line",
        )


def check_id(value: str, option: str = "ID") -> str:
    """Refuse an ID argument that is not an ID (CONTRACT §2), without echoing it whole."""
    from ..ledgers.ids import id_problem

    problem = id_problem(value)
    if problem is not None:
        raise RehydrateError(
            f"{option}: {problem}",
            code="id_invalid",
            fix="IDs are ASCII: a letter, then up to 31 letters, digits, '.', '_' or '-'",
        )
    return value


def _require(ledger: Ledger, section: str, item_id: str) -> None:
    check_id(item_id)
    if not any(r.id == item_id for r in ledger.section(section)):
        raise RehydrateError(
            f"no {section} item with ID {item_id}",
            file=ledger.path,
            item_id=item_id,
            code="unknown_id",
            fix="check the ID (rehydrate state)",
        )


def add_row(
    kind: str, action: str, section: str, values: Mapping[str, str], *, before: str | None = None
) -> Operation:
    """Append a row with the next free ID (or insert it directly above row ``before``)."""

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        item_id = next_id(ledger, section, values)
        row = {"id": item_id, **values}
        return Change(append_row(data, kind, section, row, ctx, before=before), item_id)

    return Operation(kind, action, edit)


def update_row(
    kind: str, action: str, section: str, item_id: str, values: Mapping[str, str]
) -> Operation:
    """Rewrite some cells of an existing row; refuses a rewrite that changes nothing."""
    check_id(item_id)

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        _require(ledger, section, item_id)
        row = next(r for r in ledger.section(section) if r.id == item_id).cells()
        if all(row.get(column, "") == value for column, value in values.items()):
            shown = ", ".join(f"{c} {v!r}" for c, v in values.items())
            raise Refused(
                f"nothing to change: it already has {shown}",
                file=ledger.path,
                item_id=item_id,
                code="no_change",
                fix="nothing to do (rehydrate state shows the row)",
            )
        return Change(set_cells(data, kind, section, item_id, values, ctx), item_id)

    return Operation(kind, action, edit)


def next_action(action: str) -> Operation:
    """Set Task's single Next action."""
    from ..guard.rules import FIXES
    from ..ledgers.task import next_action_problem

    problem = next_action_problem(action)
    if problem:
        raise Refused(problem, code="next_action_not_single", fix=FIXES["next_action_not_single"])

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        return Change(set_next_action(data, action, ctx), "next action")

    return Operation("task", "task next", edit)


def retire(
    kind: str,
    item_id: str,
    reason: str,
    replaced_by: str = "",
    date: str | None = None,
    *,
    known_elsewhere: Callable[[], frozenset[str]] | None = None,
) -> Operation:
    """Add a ``## Retired`` row for an existing item of ``kind``'s ledger.

    ``replaced_by`` must name another item: of this ledger, or one ``known_elsewhere()``
    returns (the other ledgers' IDs, read only when needed; None skips that check).
    """

    check_id(item_id)
    if replaced_by:
        check_id(replaced_by, "--replaced-by")
    if replaced_by == item_id:
        raise RehydrateError(
            f"--replaced-by names {item_id} itself",
            item_id=item_id,
            code="replaced_by_self",
            fix="name the item that supersedes it, or leave --replaced-by out",
        )

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        ids = {r.id for r in ledger.all_items()}
        if item_id not in ids:
            raise RehydrateError(
                f"no item with ID {item_id} in {ledger.path}",
                file=ledger.path,
                item_id=item_id,
                code="unknown_id",
                fix="check the ID (rehydrate state)",
            )
        if item_id in ledger.retired_ids:
            raise Refused(
                "already retired",
                file=ledger.path,
                item_id=item_id,
                code="already_retired",
                fix="nothing to do",
            )
        if replaced_by and replaced_by not in ids and known_elsewhere is not None:
            if replaced_by not in known_elsewhere():
                raise RehydrateError(
                    f"--replaced-by {replaced_by}: no ledger holds an item with that ID",
                    file=ledger.path,
                    item_id=item_id,
                    code="replaced_by_unknown",
                    fix="add the replacement first (its writer prints its ID), then retire "
                    f"{item_id} with --replaced-by that ID",
                )
        values = {
            "id": item_id,
            "reason": reason,
            "date": date or _today(),
            "replaced by": replaced_by,
        }
        return Change(append_row(data, kind, "retired", values, ctx), item_id)

    return Operation(kind, f"{'fail' if kind == 'failures' else kind} retire", edit)


def _today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


def level(value: str) -> str:
    canon = normalize(value).upper()
    if canon not in LEVEL_STRENGTH:
        raise RehydrateError(
            f"unknown level {value!r}",
            code="unknown_level",
            fix="use one of: " + ", ".join(LEVEL_STRENGTH),
        )
    return canon


def status(section: str, value: str) -> str:
    canon = normalize(value).lower()
    allowed = SCHEMAS[section].values["status"]
    if canon not in allowed:
        raise RehydrateError(
            f"unknown {section} status {value!r}",
            code="unknown_status",
            fix="use one of: " + ", ".join(allowed),
        )
    return canon


def artifact_blob(repo: git.Repo, path: str, cwd: str | None = None) -> tuple[str, str]:
    """(repo-relative path, git blob id) of a work-tree file; refuses what leaves the repo."""
    absolute = os.path.normpath(os.path.join(cwd or os.getcwd(), path))
    relative = os.path.relpath(absolute, repo.root)
    relative = relative.replace(os.sep, "/")
    if relative == ".." or relative.startswith("../") or os.path.isabs(relative):
        raise RehydrateError(
            f"{path} is outside the repository",
            file=path,
            code="path_outside_repo",
            fix="name a file inside the repository",
        )
    if relative.split("/")[0] == ".git":
        raise RehydrateError(
            f"{path} is inside .git",
            file=path,
            code="path_outside_repo",
            fix="name a tracked work-tree file",
        )
    blob = git.read_worktree(repo, [relative])[relative]  # refuses symlinked dirs leaving it
    if blob.mode == "120000":
        if not resolves_inside(repo.root, relative):
            raise RehydrateError(
                f"{path} is a symlink that leaves the repository",
                file=path,
                code="path_outside_repo",
                fix="name the real file instead",
            )
    elif blob.data is None:
        raise RehydrateError(
            f"{path} is not a file", file=path, code="artifact_missing", fix="name an existing file"
        )
    assert blob.blob is not None
    return relative, blob.blob
