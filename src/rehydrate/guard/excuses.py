"""What a merge or a rebase may do to a ledger without losing anything: rows renumbered to
make room for the other side's, a retirement both parents made differently, and a
conflict resolved as ``guard.conflicts`` accepts. The guard drops those findings for merge
commits (``excuse_merge``) and for a rewritten branch's tip (``renumbered_content``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from ..ledgers import Ledger
from ..ledgers.model import record_content as _content
from ..typecheck import TYPE_CHECKING
from .conflicts import CONTENT_CODES, conflict_outcomes

# A merge's bases, or how to read them when a finding needs them (one git call).
Bases = Sequence[Ledger] | Callable[[], Sequence[Ledger]]

if TYPE_CHECKING:
    from ..ledgers.model import Item
    from .rules import Violation


def renumbered(
    parent: Ledger,
    merged: Ledger,
    others: Iterable[Ledger],
    base_ids: frozenset[str] = frozenset(),
) -> dict[str, str]:
    """Items of ``parent`` that a merge moved to a new ID: {old ID: new ID}.

    Item X counts as renumbered to Y when X — an ID no merge base had, so both sides
    added it — has another parent's X row in ``merged``, and Y — an ID in no parent —
    holds exactly ``parent``'s X content. Nothing of ``parent`` is lost: its row lives
    on under Y. (An X the base had is a conflict: ``guard.conflicts``.)
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
        if item_id in base_ids or now is None or _content(now) == _content(record):
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


def renumbered_content(
    old: Ledger, new: Ledger, shared: frozenset[str] | None = None
) -> dict[str, str]:
    """Items of ``old`` whose exact content ``new`` holds under another ID: {old ID: new ID}.

    What a rebase leaves when the merge driver renumbered the branch's rows to make room
    for upstream ones. Each row of ``new`` stands for one row of ``old`` at most. A row
    the branch added itself (an ID not in ``shared``, the IDs at the merge base of the
    two tips) may move to any ID whose own old row moved on too (F-004 -> F-005 and
    F-005 -> F-006; an old row whose ID was taken and whose content went nowhere is
    still reported under its ID); any other row only to an ID ``old`` never had. ``shared`` None: no
    merge base is known, every row is the branch's own but may only move to a fresh ID.
    The retirement, if any, must have moved along.
    """
    mine = {r.id: r for r in old.all_items()}
    now = {r.id: r for r in new.all_items()}
    kept = {i for i, r in mine.items() if i in now and _content(now[i]) == _content(r)}
    by_content: dict[tuple[str | tuple[str, str], ...], list[str]] = {}
    for rid, record in now.items():
        if rid not in kept:
            by_content.setdefault((record.kind, *_content(record)), []).append(rid)
    retired_old, retired_new = old.retired_ids, new.retired_ids
    out: dict[str, str] = {}
    for item_id, record in mine.items():
        if item_id in kept:
            continue
        own = shared is not None and item_id not in shared
        matches = by_content.get((record.kind, *_content(record)), [])
        for candidate in matches:
            if candidate in mine and not own:
                continue
            if item_id in retired_old and candidate not in retired_new:
                continue
            matches.remove(candidate)
            out[item_id] = candidate
            break
    return out


def excuse_merge(
    violations: list[Violation],
    parent: Ledger,
    merged: Ledger,
    others: Iterable[Ledger],
    bases: Bases = (),
) -> list[Violation]:
    """Drop the guard's findings that a merge commit cannot avoid, compared with ``parent``.

    Three cases, all losing nothing: an item the merge renumbered (see ``renumbered``;
    its retirement in ``parent``, if any, moved with it), an item both parents retired
    with different rows, where the merge kept the other parent's Retired row, and a
    conflict resolved as ``guard.conflicts`` accepts (any other handling of a
    conflicting item is reported under its ``merge_*`` code instead).
    """
    if not violations:
        return violations
    others = list(others)
    base_list = list(bases() if callable(bases) else bases)
    base_ids = frozenset(r.id for b in base_list for r in b.all_items())
    moved = renumbered(parent, merged, others, base_ids)
    excused = _moved_whole(parent, merged, moved) | _retired_alike(parent, merged, others)
    kept = _resolved(
        [v for v in violations if v.item_id not in excused], parent, merged, others, base_list
    )
    return renumbered_order(kept, parent, merged, moved)


def _moved_whole(parent: Ledger, merged: Ledger, moved: Mapping[str, str]) -> set[str]:
    """The renumbered items whose retirement in ``parent``, if any, moved with them."""
    merged_retired = merged.retired_ids
    return {
        old for old, new in moved.items() if old not in parent.retired_ids or new in merged_retired
    }


def _retired_alike(parent: Ledger, merged: Ledger, others: Sequence[Ledger]) -> set[str]:
    """Items both parents retired with different rows, where the merge kept another
    parent's Retired row and left the item itself as ``parent`` had it."""
    mine = {r.id: r for r in parent.retired}
    items = {r.id: r for r in parent.all_items()}
    now = {r.id: r for r in merged.all_items()}
    out: set[str] = set()
    for item_id, row in {r.id: r for r in merged.retired}.items():
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
            out.add(item_id)
    return out


def renumbered_order(
    found: list[Violation], old: Ledger, new: Ledger, moved: Mapping[str, str]
) -> list[Violation]:
    """``found`` without ``phase_reordered`` when the phases keep their order once the
    renumbered IDs (``moved``) are read as their new IDs: renumbering moves an ID, not a
    row."""
    if not moved or not any(v.code == "phase_reordered" for v in found):
        return found
    order = [moved.get(r.id, r.id) for r in old.section("phases")]
    wanted = set(order)
    if order != [r.id for r in new.section("phases") if r.id in wanted]:
        return found
    return [v for v in found if v.code != "phase_reordered"]


def _resolved(
    violations: list[Violation],
    parent: Ledger,
    merged: Ledger,
    others: list[Ledger],
    bases: Sequence[Ledger],
) -> list[Violation]:
    """A conflicting item's findings against ``parent`` when the merge kept another
    parent's version: none once ``parent``'s version is recorded, else the one finding
    that says what is missing. A recorded copy of an unknown write may be retired: the
    question (a new unknown write) carries its doubt on."""
    if not violations or not others:
        return violations
    outcomes = conflict_outcomes(merged, [parent, *others], bases)
    if not outcomes:
        return violations
    mine = {o.item_id: o for o in outcomes if o.other == 0}
    copies = {o.copy for o in outcomes if o.problem is None}
    out: list[Violation] = []
    reported: set[str] = set()
    for v in violations:
        outcome = mine.get(v.item_id) if v.item_id else None
        if v.item_id and outcome is not None and v.code in CONTENT_CODES:
            if outcome.problem is not None and v.item_id not in reported:
                reported.add(v.item_id)
                out.append(outcome.problem)
            continue
        if v.item_id in copies and v.code == "retired_unknown_write":
            continue
        out.append(v)
    return out
