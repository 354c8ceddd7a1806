"""What a merge or a rebase may do to a ledger without losing anything: rows renumbered to
make room for the other side's, and a retirement both parents made differently. The guard
drops those findings for merge commits (``excuse_merge``) and for a rewritten branch's tip
(``renumbered_content``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..ledgers import Ledger
from ..ledgers.model import record_content as _content

if TYPE_CHECKING:
    from ..ledgers.model import Item
    from .rules import Violation


def renumbered(parent: Ledger, merged: Ledger, others: Iterable[Ledger]) -> dict[str, str]:
    """Items of ``parent`` that a merge moved to a new ID: {old ID: new ID}.

    Item X counts as renumbered to Y when X's row in ``merged`` is another parent's
    X, and Y — an ID in no parent — holds exactly ``parent``'s X content. Nothing
    of ``parent`` is lost: its row lives on under Y.
    """
    others = list(others)
    mine = {r.id: r for r in parent.all_items()}
    merged_items = {r.id: r for r in merged.all_items()}
    theirs: dict[str, list[Item]] = {}
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
    fresh: dict[tuple[str | tuple[str, str], ...], list[str]] = {}
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


def excuse_merge(
    violations: list[Violation], parent: Ledger, merged: Ledger, others: Iterable[Ledger]
) -> list[Violation]:
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
    excused = {
        old for old, new in moved.items() if old not in parent.retired_ids or new in merged_retired
    }
    mine = {r.id: r for r in parent.retired}
    items = {r.id: r for r in parent.all_items()}
    now = {r.id: r for r in merged.all_items()}
    for item_id, row in merged_retired.items():
        if item_id not in mine or _content(mine[item_id]) == _content(row):
            continue
        if item_id in items and item_id in now and items[item_id][2:] != now[item_id][2:]:
            continue  # the item itself changed too: not only the retirement
        if any(
            _content(r) == _content(row)
            for other in others
            for r in other.retired
            if r.id == item_id
        ):
            excused.add(item_id)
    kept = [v for v in violations if v.item_id not in excused]
    if moved and any(v.code == "phase_reordered" for v in kept):
        # Renumbering moves an ID, not a row: compare phase order under the new IDs.
        order = [moved.get(r.id, r.id) for r in parent.section("phases")]
        wanted = set(order)
        if order == [r.id for r in merged.section("phases") if r.id in wanted]:
            kept = [v for v in kept if v.code != "phase_reordered"]
    return kept
