"""A rebase's second step: follow the renumbering OURS already made (pure).

Rebasing a branch with two new failure rows onto an upstream that took F-004: the first
replayed commit's merge kept upstream's F-004 and moved the branch's F-004 to F-005.
Replaying the second commit merges base (the branch's first commit: F-004 = the branch's
row) with ours (F-004 = upstream's, F-005 = the branch's old F-004) and theirs (the
branch's F-004 and a new F-005). Read by ID, ours changed an immutable row and both sides
added F-005: a conflict. Read as what happened, ours renumbered base's F-004 to F-005,
so base and theirs are read with that renumbering (``follow_renumbering``): base's and
theirs' F-004 become F-005, and theirs' own F-005, whose ID ours now uses, takes a fresh
ID. The row merge then sees nothing but theirs' one addition.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..errors import LedgerParseError
from ..guard.excuses import renumbered_content
from ..ledgers import Context, Ledger, parse_with
from ..ledgers.rowedit import join_text, rewrite_cells, split_cells, split_text
from ..records import NamedTuple
from .result import Allocator


class Followed(NamedTuple):
    """Base and theirs with ours' renumbering applied, and what was renamed."""

    base: bytes
    theirs: bytes
    moved: dict[str, str]  # base's ID -> the ID ours gave its row
    renamed: dict[str, str]  # theirs' own row whose ID ours took -> its fresh ID
    notes: list[str]


def _all_rows_kept(base: bytes, ours: bytes) -> bool:
    """Whether every table line of base is a line of ours (line endings aside): then ours
    renumbered nothing. Two sets of lines, no parse."""
    if b"\r" in base or b"\r" in ours:
        base, ours = base.replace(b"\r", b""), ours.replace(b"\r", b"")
    gone = set(base.split(b"\n")).difference(ours.split(b"\n"))
    return not any(line.lstrip()[:1] == b"|" for line in gone)


def _parse(kind: str, ctx: Context, data: bytes) -> Ledger:
    return parse_with(kind, data, ctx)


def follow_renumbering(
    kind: str, ctx: Context, base: bytes, ours: bytes, theirs: bytes
) -> Followed | None:
    """Base and theirs read with the renumbering ours made of base's rows, or None when
    ours renumbered nothing (every row of base is in ours as it was: one set lookup per
    row, nothing parsed) or a side does not parse (the row merge reports it)."""
    if not base.strip() or _all_rows_kept(base, ours):
        return None
    try:
        b, o, t = (_parse(kind, ctx, data) for data in (base, ours, theirs))
    except LedgerParseError:
        return None
    moved = renumbered_content(b, o, frozenset())
    if not moved:
        return None
    theirs_ids = {r.id for r in t.all_items()} | t.retired_ids
    base_ids = {r.id for r in b.all_items()} | b.retired_ids
    fresh = Allocator(base_ids | theirs_ids | {r.id for r in o.all_items()} | o.retired_ids)
    renamed = {
        rid: fresh.renumber(rid)
        for rid in sorted(theirs_ids)
        if rid in moved.values() and rid not in base_ids
    }
    notes = [
        f"{ctx.path}: ours renumbered {old} to {new} (a rebase's earlier step); "
        "theirs' rows follow it"
        + (f", theirs' own {new} is now {renamed[new]}" if new in renamed else "")
        for old, new in moved.items()
    ]
    return Followed(
        _rename(base, b, moved),
        _rename(theirs, t, {**renamed, **{o_: n for o_, n in moved.items() if o_ in theirs_ids}}),
        moved,
        renamed,
        notes,
    )


def _rename(data: bytes, ledger: Ledger, names: Mapping[str, str]) -> bytes:
    """``data`` with the ID cell of each item row and Retired row, and a Retired row's
    ``Replaced by``, renamed by ``names``; every other byte kept."""
    if not names:
        return data
    text = split_text(data)
    lines = list(text.lines)
    rows = [(r.id, r.line, "") for r in ledger.all_items()]
    rows += [(r.id, r.line, r.replaced_by) for r in ledger.retired]
    for item_id, number, replaced_by in rows:
        line = lines[number - 1]
        updates: dict[int, str] = {}
        wanted = [item_id, replaced_by] if replaced_by else [item_id]
        for index, cell in enumerate(c.strip() for c in split_cells(line)):
            if wanted and cell == wanted[0] and cell in names:
                updates[index] = names[cell]
            if wanted and cell == wanted[0]:
                wanted.pop(0)
        lines[number - 1] = rewrite_cells(line, updates)
    return join_text(replace(text, lines=tuple(lines)))
