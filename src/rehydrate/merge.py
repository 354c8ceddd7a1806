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

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from .errors import LedgerParseError
from .ledgers import MAX_LEDGER_BYTES, Ledger, parse_ledger
from .ledgers._document import Context
from .ledgers._table import normalize
from .rowedit import rewrite_cells

# (ours, base, theirs) -> (merged, clean?): git merge-file, injected so this module stays pure.
MergeText = Callable[[bytes, bytes, bytes], tuple[bytes, bool]]


class Conflict(NamedTuple):
    """One thing the merge would not decide: a stable code, the item ID, what differs."""

    code: str
    item_id: str | None
    message: str

    def __str__(self) -> str:
        ident = f" {self.item_id}" if self.item_id else ""
        return f"{self.code}{ident}: {self.message}"


class MergeResult(NamedTuple):
    """The merged bytes (with conflict markers when ``conflicts``), and what was done."""

    data: bytes
    conflicts: list[Conflict]
    notes: list[str]
    renamed: dict[str, str]  # theirs' colliding ID -> the ID it got

    @property
    def clean(self) -> bool:
        return not self.conflicts


def merge_ledger(kind: str, base: bytes, ours: bytes, theirs: bytes, path: str, *,
                 section_aliases: Mapping[str, str] | None = None,
                 column_aliases: Mapping[str, str] | None = None,
                 max_bytes: int = MAX_LEDGER_BYTES, merge_text: MergeText | None = None,
                 marker_size: int = 7, labels: tuple[str, str, str] = ("ours", "base", "theirs"),
                 trusted: frozenset[str] = frozenset(), object_format: str = "sha1",
                 ) -> MergeResult:
    """Merge three versions of the ``kind`` ledger at ``path`` (empty ``base``: no ancestor).

    ``trusted`` holds git blob ids of failure ledgers known to parse (the guard's cache
    of what it parsed at commit time): when ours is one, it is not parsed again.
    """
    ctx = Context(path, section_aliases or {}, column_aliases or {}, max_bytes)
    if kind == "failures" and base:
        known = bool(trusted) and _blob_id(ours, object_format) in trusted
        quick = _appends_only(base, ours, theirs, ctx, known)
        if quick is not None:
            return quick
    from .merge_rows import _Merger, no_text_merge

    merger = _Merger(kind, ctx, merge_text or no_text_merge, marker_size, labels)
    return merger.run(base, ours, theirs)


def _blob_id(data: bytes, object_format: str) -> str:
    from .git import hash_blob

    return hash_blob(data, object_format)


def _first_cells(data: bytes) -> set[str]:
    """The first cell of every table line: every item ID and every retired ID."""
    out = set()
    for line in data.split(b"\n"):
        body = line.lstrip(b" \t")
        if body[:1] == b"|":
            out.add(body.split(b"|", 2)[1].strip(b" \t\r").decode("utf-8", "replace"))
    return out


def _appends_only(base: bytes, ours: bytes, theirs: bytes, ctx: Context,
                  ours_known: bool = False) -> MergeResult | None:
    """The common case for the failure ledger, without parsing three 10,000-row files.

    When each side only inserted rows into base's failure table, ours is parsed in full
    and the inserted rows are checked one by one (cell count, required cells, simple
    IDs, no invisible characters, an ID not used by base nor named in ours' Retired
    rows): then base and theirs parse too, and theirs' rows appended to ours' table give
    a ledger that parses and passes the guard against both parents (theirs' rows only
    move, or change their ID when renumbered; ``excuse_merge``). Anything else
    (retirements, edits, an unusual layout) returns None and the full merge runs.
    """
    from types import SimpleNamespace

    from .appendonly import BOM, failure_header, failure_table

    config = SimpleNamespace(section_aliases=ctx.section_aliases,
                             column_aliases=ctx.column_aliases, max_ledger_bytes=ctx.max_bytes)
    if base.startswith(BOM) or len(theirs) + len(ours) > ctx.max_bytes:
        return None
    table = failure_table(base, config)
    if table is None:
        return None
    header = failure_header(table[0], ctx.column_aliases, ctx.path)
    if header is None:
        return None
    blocks = []
    for side in (ours, theirs):
        found = _inserted_rows(base, side, table, header, ctx)
        if found is None:
            return None
        blocks.append(found)
    mine = {cells[0]: cells for _, cells in blocks[0]}
    theirs_ids = [cells[0] for _, cells in blocks[1]]
    if ours_known:  # ours parsed at commit time; base is ours without the new rows
        named = _first_cells(base)
        if set(mine) & named:
            return None
        everything, base_ids = named | set(mine), named
    else:
        try:
            ledger = parse_ledger("failures", ctx.path, ours,
                                  section_aliases=ctx.section_aliases,
                                  column_aliases=ctx.column_aliases, max_bytes=ctx.max_bytes)
        except LedgerParseError:
            return None  # the full merge names the side that does not parse
        everything = {r.id for r in ledger.all_items()}
        base_ids = everything - set(mine)
        if set(mine) & ledger.retired_ids:
            return None
    if len(set(theirs_ids)) != len(theirs_ids) or set(theirs_ids) & base_ids:
        return None
    end = failure_table(ours, config)
    if end is None or not ours[:end[2]].endswith(b"\n"):
        return None
    newline = "\r\n" if ours[:end[2]].endswith(b"\r\n") else "\n"
    where = header.index("id")
    fresh = _Allocator(everything | set(theirs_ids))
    renamed: dict[str, str] = {}
    notes: list[str] = []
    out: list[str] = []
    for line, cells in blocks[1]:
        item_id = cells[0]
        if item_id in mine:
            if mine[item_id] == cells:
                continue  # the same new row on both sides: once
            new = fresh.renumber(item_id)
            renamed[item_id] = new
            notes.append(f"{ctx.path}: {item_id} was added on both sides with different "
                         f"content: kept ours as {item_id}, theirs' row is now {new}")
            line = rewrite_cells(line, {where: new})
        out.append(line + newline)
    merged = ours[:end[2]] + "".join(out).encode("utf-8") + ours[end[2]:]
    return MergeResult(merged, [], notes, renamed)


def _inserted_rows(base: bytes, side: bytes, table: tuple[bytes, int, int], header: list[str],
                   ctx: Context) -> list[tuple[str, tuple[str, ...]]] | None:
    """(line, cells with the ID first and all cells normalised) of the well-formed rows
    ``side`` inserted at one place inside base's failure table, or None."""
    from .appendonly import REQUIRED, SIMPLE_ID, inserted_lines
    from .ledgers import visible
    from .ledgers._document import entity_forbidden, has_forbidden
    from .ledgers._render import hidden_markup
    from .ledgers._table import split_row

    lines = inserted_lines(base, side)
    if lines is None or not table[1] <= lines[0] <= table[2] or has_forbidden(lines[1]):
        return None
    width, where = len(header), header.index("id")
    required = [header.index(n) for n in REQUIRED]
    out = []
    for line in lines[1]:
        if not line.startswith("|") or line.startswith("|||||||"):
            return None
        try:
            cells = split_row(line, ctx.path, 0)  # trimmed and normalised
        except LedgerParseError:
            return None
        if len(cells) != width or not all(cells[i] for i in required):
            return None
        # the parser's cell rules (shape, visible, nothing hidden): else the full merge
        if (not SIMPLE_ID.match(cells[where]) or not all(visible(cells[i]) for i in required)
                or hidden_markup(line) or ("&" in line and entity_forbidden(line))):
            return None
        out.append((line, (cells[where], *cells[:where], *cells[where + 1:])))
    return out


class _Allocator:
    """Free IDs for renumbered rows: one scan of the IDs in use, then counting up."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)
        self.high: dict[str, int] = {}

    def renumber(self, item_id: str) -> str:
        from . import ids

        parts = ids.split_id(item_id)
        if parts is None:
            new = ids.renumber(self.taken, item_id)
        else:
            if parts.prefix not in self.high:
                # Counting a look-alike ID too (F-7-x) only makes the number higher: still free.
                cut = len(parts.prefix)
                heads = (i[cut:].split("-", 1)[0] for i in self.taken
                         if i.startswith(parts.prefix))
                self.high[parts.prefix] = max((int(h) for h in heads if h.isdigit()), default=0)
            self.high[parts.prefix] += 1
            new = f"{parts.prefix}{self.high[parts.prefix]:0{parts.width}d}"
        self.taken.add(new)
        return new


def _cells(record: Any) -> dict[str, str]:
    return {k: normalize(v) for k, v in record.cells().items()}


def _content(record: Any) -> tuple[tuple[str, str], ...]:
    """A record's cells without its ID, comparable across IDs."""
    return tuple(sorted((k, v) for k, v in _cells(record).items() if k != "id"))


def renumbered(parent: Ledger, merged: Ledger, others: Iterable[Ledger]) -> dict[str, str]:
    """Items of ``parent`` that a merge moved to a new ID: {old ID: new ID}.

    Item X counts as renumbered to Y when X's row in ``merged`` is another parent's
    X, and Y — an ID in no parent — holds exactly ``parent``'s X content. Nothing
    of ``parent`` is lost: its row lives on under Y.
    """
    others = list(others)
    mine = {r.id: r for r in parent.all_items()}
    merged_items = {r.id: r for r in merged.all_items()}
    theirs: dict[str, list[Any]] = {}
    for other in others:
        for r in other.all_items():
            theirs.setdefault(r.id, []).append(r)
    fresh: dict[tuple[tuple[str, str], ...], list[str]] = {}
    out: dict[str, str] = {}
    for item_id, record in mine.items():
        now = merged_items.get(item_id)
        if now is None or _content(now) == _content(record):
            continue
        if not any(_content(now) == _content(r) for r in theirs.get(item_id, ())):
            continue
        if not fresh:
            for rid, candidate in merged_items.items():
                if rid not in mine and rid not in theirs:
                    fresh.setdefault(_content(candidate), []).append(rid)
        matches = fresh.get(_content(record), [])
        if matches:
            out[item_id] = matches.pop(0)
    return out


def renumbered_content(old: Ledger, new: Ledger) -> dict[str, str]:
    """Items of ``old`` whose exact content ``new`` holds under an ID ``old`` never had:
    {old ID: new ID}. What a rebase leaves when the merge driver renumbered the branch's
    rows to make room for upstream ones; the retirement, if any, must have moved along.
    """
    mine = {r.id: r for r in old.all_items()}
    now = {r.id: r for r in new.all_items()}
    fresh: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for rid, record in now.items():
        if rid not in mine:
            fresh.setdefault((record.kind, *_content(record)), []).append(rid)
    retired_old, retired_new = old.retired_ids, new.retired_ids
    out: dict[str, str] = {}
    for item_id, record in mine.items():
        there = now.get(item_id)
        if there is not None and _content(there) == _content(record):
            continue
        matches = fresh.get((record.kind, *_content(record)), [])
        while matches:
            candidate = matches.pop(0)
            if item_id not in retired_old or candidate in retired_new:
                out[item_id] = candidate
                break
    return out


def excuse_merge(violations: list[Any], parent: Ledger, merged: Ledger,
                 others: Iterable[Ledger]) -> list[Any]:
    """Drop the guard's findings that a merge commit cannot avoid, compared with ``parent``.

    Two cases, both losing nothing: an item the merge renumbered (see ``renumbered``;
    its retirement in ``parent``, if any, moved with it), and an item both parents
    retired with different rows, where the merge kept the other parent's Retired row.
    """
    if not violations:
        return violations
    others = list(others)
    moved = renumbered(parent, merged, others)
    merged_retired = {r.id: r for r in merged.retired}
    excused = {old for old, new in moved.items()
               if old not in parent.retired_ids or new in merged_retired}
    mine = {r.id: r for r in parent.retired}
    items = {r.id: r for r in parent.all_items()}
    now = {r.id: r for r in merged.all_items()}
    for item_id, row in merged_retired.items():
        if item_id not in mine or _content(mine[item_id]) == _content(row):
            continue
        if item_id in items and item_id in now and items[item_id][2:] != now[item_id][2:]:
            continue  # the item itself changed too: not only the retirement
        if any(_content(r) == _content(row) for other in others for r in other.retired
               if r.id == item_id):
            excused.add(item_id)
    kept = [v for v in violations if v.item_id not in excused]
    if moved and any(v.code == "phase_reordered" for v in kept):
        # Renumbering moves an ID, not a row: compare phase order under the new IDs.
        order = [moved.get(r.id, r.id) for r in parent.section("phases")]
        wanted = set(order)
        if order == [r.id for r in merged.section("phases") if r.id in wanted]:
            kept = [v for v in kept if v.code != "phase_reordered"]
    return kept


def __getattr__(name: str) -> Any:
    # The full merge lives in merge_rows (imported only when the fast path does not apply);
    # its merger stays importable from here.
    if name == "_Merger":
        from .merge_rows import _Merger

        return _Merger
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
