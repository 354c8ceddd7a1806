"""Semantic three-way merge of one ledger (pure): rows by ID, states by the guard's own rules.

``merge_ledger(kind, base, ours, theirs, path)`` never merges item rows as
text. Rows are matched by ID: a row added on one side is kept; the same new ID
added on both sides with different content keeps ours and renumbers theirs;
a row both sides moved takes the furthest state the guard's ``RULES`` allow
(never a second copy of the rules); two different decisions, evidence, next
actions or settled outcomes are a conflict. Everything that is not an item
row (front matter aside) is a *skeleton* — prose, headings, table headers —
merged by git's own three-way text merge when both sides changed it. The
result is built by editing OURS' bytes: rows keep their line endings, padding
and extra columns, theirs-only rows are appended to the table. The merged
ledger must parse and pass ``check_ledger`` against both parents; when it
would not, the rows concerned become a conflict instead of a bad merge.
This module holds the entry point, the failure ledger's append-only fast path
and the merge-commit excuses; the full row merge is ``merge_rows``.
See docs/merging.md.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import LedgerParseError
from ..failtable import FailureTable, find, row
from ..ledgers import MAX_LEDGER_BYTES, Context, parse_with
from ..ledgers.rowedit import rewrite_cells
from .result import Allocator, MergeResult, MergeText


def merge_ledger(
    kind: str,
    base: bytes,
    ours: bytes,
    theirs: bytes,
    path: str,
    *,
    section_aliases: Mapping[str, str] | None = None,
    column_aliases: Mapping[str, str] | None = None,
    max_bytes: int = MAX_LEDGER_BYTES,
    merge_text: MergeText | None = None,
    marker_size: int = 7,
    labels: tuple[str, str, str] = ("ours", "base", "theirs"),
    trusted: frozenset[str] = frozenset(),
    object_format: str = "sha1",
) -> MergeResult:
    """Merge three versions of the ``kind`` ledger at ``path`` (empty ``base``: no ancestor).

    ``trusted`` holds git blob ids of failure ledgers known to parse (the guard's cache
    of what it parsed at commit time): when ours is one, it is not parsed again.
    """
    ctx = Context(path, section_aliases or {}, column_aliases or {}, max_bytes)
    from .follow import follow_renumbering

    followed = follow_renumbering(kind, ctx, base, ours, theirs)
    if followed is not None:
        base, theirs = followed.base, followed.theirs
    result = _merge(
        kind, ctx, base, ours, theirs, merge_text, marker_size, labels, trusted, object_format
    )
    if followed is None:
        return result
    return MergeResult(
        result.data,
        result.conflicts,
        followed.notes + result.notes,
        {**followed.renamed, **result.renamed},
    )


def _merge(
    kind: str,
    ctx: Context,
    base: bytes,
    ours: bytes,
    theirs: bytes,
    merge_text: MergeText | None,
    marker_size: int,
    labels: tuple[str, str, str],
    trusted: frozenset[str],
    object_format: str,
) -> MergeResult:
    if kind == "failures" and base:
        known = bool(trusted) and _blob_id(ours, object_format) in trusted
        quick = _appends_only(base, ours, theirs, ctx, known)
        if quick is not None:
            return quick
    from .rows import Merger, no_text_merge

    merger = Merger(kind, ctx, merge_text or no_text_merge, marker_size, labels)
    return merger.run(base, ours, theirs)


def _blob_id(data: bytes, object_format: str) -> str:
    from ..git import hash_blob

    return hash_blob(data, object_format)


def _first_cells(data: bytes) -> set[str]:
    """The first cell of every table line: every item ID and every retired ID."""
    out = set()
    for line in data.split(b"\n"):
        body = line.lstrip(b" \t")
        if body[:1] == b"|":
            out.add(body.split(b"|", 2)[1].strip(b" \t\r").decode("utf-8", "replace"))
    return out


def _appends_only(
    base: bytes, ours: bytes, theirs: bytes, ctx: Context, ours_known: bool = False
) -> MergeResult | None:
    """The common case for the failure ledger, without parsing three 10,000-row files.

    When each side only inserted rows into base's failure table, ours is parsed in full
    and the inserted rows are checked one by one (cell count, required cells, simple
    IDs, no invisible characters, an ID not used by base nor named in ours' Retired
    rows): then base and theirs parse too, and theirs' rows appended to ours' table give
    a ledger that parses and passes the guard against both parents (theirs' rows only
    move, or change their ID when renumbered; ``excuse_merge``). Anything else
    (retirements, edits, an unusual layout) returns None and the full merge runs.
    """
    from ..ledgers.appendonly import BOM

    if base.startswith(BOM) or len(theirs) + len(ours) > ctx.max_bytes:
        return None
    table = find(base, ctx.section_aliases, ctx.column_aliases, ctx.path)
    if table is None:
        return None
    blocks = []
    for side in (ours, theirs):
        found = _inserted_rows(base, side, table, ctx)
        if found is None:
            return None
        blocks.append(found)
    mine = {str(cells[0]): cells for _, cells in blocks[0]}
    theirs_ids = [str(cells[0]) for _, cells in blocks[1]]
    if ours_known:  # ours parsed at commit time; base is ours without the new rows
        named = _first_cells(base)
        if set(mine) & named:
            return None
        everything, base_ids = named | set(mine), named
    else:
        try:
            ledger = parse_with("failures", ours, ctx)
        except LedgerParseError:
            return None  # the full merge names the side that does not parse
        everything = {r.id for r in ledger.all_items()}
        base_ids = everything - set(mine)
        if set(mine) & ledger.retired_ids:
            return None
    if len(set(theirs_ids)) != len(theirs_ids) or set(theirs_ids) & base_ids:
        return None
    end = find(ours, ctx.section_aliases, ctx.column_aliases, ctx.path)
    if end is None or not ours[: end.end].endswith(b"\n"):
        return None
    newline = "\r\n" if ours[: end.end].endswith(b"\r\n") else "\n"
    where = table.position("id")
    fresh = Allocator(everything | set(theirs_ids))
    renamed: dict[str, str] = {}
    notes: list[str] = []
    out: list[str] = []
    for line, cells in blocks[1]:
        item_id = str(cells[0])
        if item_id in mine:
            if mine[item_id] == cells:
                continue  # the same new row on both sides: once
            new = fresh.renumber(item_id)
            renamed[item_id] = new
            notes.append(
                f"{ctx.path}: {item_id} was added on both sides with different "
                f"content: kept ours as {item_id}, theirs' row is now {new}"
            )
            line = rewrite_cells(line, {where: new})
        out.append(line + newline)
    merged = ours[: end.end] + "".join(out).encode("utf-8") + ours[end.end :]
    return MergeResult(merged, [], notes, renamed)


def _inserted_rows(
    base: bytes, side: bytes, table: FailureTable, ctx: Context
) -> list[tuple[str, tuple[object, ...]]] | None:
    """(line, its content with the ID first) of the well-formed rows ``side`` inserted at
    one place inside base's failure table, or None. Each row is read by the one failure
    table reader (``failtable.row``): anything the parser might judge otherwise is None."""
    from ..ledgers.appendonly import inserted_lines

    lines = inserted_lines(base, side)
    if lines is None or not table.start <= lines[0] <= table.end:
        return None
    out: list[tuple[str, tuple[object, ...]]] = []
    for line in lines[1]:
        record = row(line, table.header, 0, ctx.path)
        if record is None or not line.startswith("|"):
            return None
        content = (record.id, record.tried, record.failure, record.workaround, record.extra)
        out.append((line, content))
    return out
