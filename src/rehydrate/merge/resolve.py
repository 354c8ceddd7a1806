"""Resolving a conflicting ledger merge by taking one side (``rehydrate merge resolve``).

``resolve_ledger`` rewrites the three inputs so that the row merge keeps the taken
version of each named item (or of Task's next action or objective), and adds to ours
what the guard accepts for the other version (``guard.conflicts``): a copy of it under
a fresh ID, retired with ``Replaced by`` the kept ID, and a question naming both — an
open decision (Spec), an ``unknown`` write (a write's outcome is in doubt), an open
obligation (any other Task row, and a single value, quoted). The row merge then runs as
the driver's does, judged against the *real* parents: what comes out without conflicts
is what the hook accepts. Pure (bytes in, bytes out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..errors import LedgerParseError, RehydrateError
from ..guard.conflicts import SINGLE_VALUES, describe, question_for, short
from ..ledgers import Context, Ledger, parse_with, split_front_matter
from ..ledgers.ids import next_id, style_of
from ..ledgers.model import record_cells, record_content
from ..ledgers.rowedit import join_text, replace_line, split_text
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from ..writers.edits import FIRST_IDS, SCHEMAS, append_row, set_cells, set_next_action
from .result import MergeResult, MergeText
from .rows import Merger, no_text_merge

if TYPE_CHECKING:
    from ..ledgers.model import Item

SIDES = ("ours", "theirs")


class Recorded(NamedTuple):
    """What resolving one conflict wrote."""

    target: str  # the item ID, or "next-action" / "objective"
    take: str  # "ours" | "theirs"
    sides: tuple[str, str]  # the names of the kept side and of the other
    kept: str  # the kept version, in a few words
    other: str  # the version not kept
    copy: str | None  # the retired copy of the version not kept (items only)
    question: str  # the ID of the question
    question_section: str
    question_text: str

    def to_json(self) -> dict[str, object]:
        return {
            "target": self.target,
            "take": self.take,
            "names": {"kept": self.sides[0], "other": self.sides[1]},
            "kept": self.kept,
            "other": self.other,
            "copy": self.copy,
            "question": {
                "id": self.question,
                "section": self.question_section,
                "text": self.question_text,
            },
        }


class Resolution(NamedTuple):
    result: MergeResult
    recorded: list[Recorded]


class Names(NamedTuple):
    """How the two sides are called in what the resolution writes (branch names)."""

    ours: str = "ours"
    theirs: str = "theirs"
    date: str = ""


DEFAULT_NAMES = Names()


class _Sides:
    """The three inputs being rewritten, their real parsed versions, and free IDs."""

    def __init__(
        self, kind: str, ctx: Context, data: dict[str, bytes], ledgers: dict[str, Ledger | None]
    ):
        self.kind, self.ctx, self.data, self.ledgers = kind, ctx, data, ledgers
        self.used = {
            i
            for ledger in ledgers.values()
            if ledger is not None
            for i in [*(r.id for r in ledger.all_items()), *ledger.retired_ids]
        }

    def side(self, name: str) -> Ledger:
        ledger = self.ledgers[name]
        assert ledger is not None
        return ledger

    def fresh(self, section: str) -> str:
        ids = [r.id for name in SIDES for r in self.side(name).section(section)]
        prefix, width = style_of(ids, FIRST_IDS[section])
        new = next_id(self.used, prefix, width=width)
        self.used.add(new)
        return new


def parse_side(kind: str, ctx: Context, name: str, data: bytes) -> Ledger:
    try:
        return parse_with(kind, data, ctx)
    except LedgerParseError as exc:
        raise RehydrateError(
            f"the {name} side cannot be parsed: {exc.message}",
            file=ctx.path,
            line=exc.line,
            code="side_unparseable",
            fix="resolve this file by hand (docs/merging.md); rehydrate merge resolve needs "
            "both sides to parse",
        ) from None


def contested(sides: _Sides, item_id: str) -> str | None:
    """The section of ``item_id`` when both sides changed it differently, else None."""
    found = []
    for name in ("base", *SIDES):
        ledger = sides.ledgers[name]
        rows = {r.id: (s, r) for s, rs in ledger.items.items() for r in rs} if ledger else {}
        found.append(rows.get(item_id))
    base, ours, theirs = found
    if base is None or ours is None or theirs is None:
        return None
    versions = [record_content(x[1]) for x in (base, ours, theirs)]
    if versions[1] == versions[2] or versions[0] in versions[1:] or ours[0] != theirs[0]:
        return None
    return str(ours[0])


def _sides(kind: str, ctx: Context, base: bytes, ours: bytes, theirs: bytes) -> _Sides:
    data = {"base": base, "ours": ours, "theirs": theirs}
    ledgers: dict[str, Ledger | None] = {
        name: parse_side(kind, ctx, name, raw) if raw.strip() or name != "base" else None
        for name, raw in data.items()
    }
    return _Sides(kind, ctx, dict(data), ledgers)


def _single_contested(sides: _Sides, name: str) -> bool:
    base = sides.ledgers["base"]
    if sides.kind != "task" or base is None:
        return False
    value = SINGLE_VALUES[name]
    before, mine, yours = value(base), value(sides.side("ours")), value(sides.side("theirs"))
    return mine != yours and before not in (mine, yours)


def contested_targets(
    kind: str, ctx: Context, base: bytes, ours: bytes, theirs: bytes, targets: Iterable[str]
) -> set[str]:
    """The ``targets`` (item IDs, or single values) both sides changed differently: what
    ``resolve_ledger`` can resolve. The three versions are parsed once."""
    sides = _sides(kind, ctx, base, ours, theirs)
    out = set()
    for target in targets:
        if target in SINGLE_VALUES:
            if _single_contested(sides, target):
                out.add(target)
            continue
        section = contested(sides, target)
        if section is not None and question_for(kind, section) is not None:
            out.add(target)
    return out


def is_contested(
    kind: str, ctx: Context, base: bytes, ours: bytes, theirs: bytes, target: str
) -> bool:
    """Whether both sides changed ``target`` differently (see ``contested_targets``)."""
    return bool(contested_targets(kind, ctx, base, ours, theirs, [target]))


def resolve_ledger(
    kind: str,
    base: bytes,
    ours: bytes,
    theirs: bytes,
    ctx: Context,
    takes: Mapping[str, str],
    *,
    names: Names = DEFAULT_NAMES,
    merge_text: MergeText | None = None,
    marker_size: int = 7,
) -> Resolution:
    """Merge the three versions with each target of ``takes`` resolved to its side."""
    sides = _sides(kind, ctx, base, ours, theirs)
    recorded = [
        _resolve_single(sides, target, take, names)
        if target in SINGLE_VALUES
        else _resolve_item(sides, target, take, names)
        for target, take in takes.items()
    ]
    merger = Merger(kind, ctx, merge_text or no_text_merge, marker_size, ("ours", "base", "theirs"))
    merger.judge = (sides.ledgers["base"], sides.side("ours"), sides.side("theirs"))
    result = merger.run(sides.data["base"], sides.data["ours"], sides.data["theirs"])
    return Resolution(result, recorded)


def not_in_conflict(ctx: Context, target: str) -> RehydrateError:
    return RehydrateError(
        f"{target} is not in conflict in {ctx.path}: it needs a version in the merge base "
        "and a different change on each side",
        file=ctx.path,
        item_id=target if target not in SINGLE_VALUES else None,
        code="not_in_conflict",
        fix="name an ID the merge driver reported as CONFLICT (git status lists the "
        "unmerged ledgers)",
    )


def _resolve_item(sides: _Sides, item_id: str, take: str, names: Names) -> Recorded:
    section = contested(sides, item_id)
    form = question_for(sides.kind, section) if section else None
    if section is None or form is None:
        raise not_in_conflict(sides.ctx, item_id)
    other = "theirs" if take == "ours" else "ours"
    kept_row = next(r for r in sides.side(take).section(section) if r.id == item_id)
    other_row = next(r for r in sides.side(other).section(section) if r.id == item_id)
    kept_cells = _by_header(section, record_cells(kept_row))
    other_cells = _by_header(section, record_cells(other_row))
    changed = {c: v for c, v in kept_cells.items() if other_cells.get(c) != v and c != "id"}
    sides.data[other] = set_cells(
        sides.data[other], sides.kind, section, item_id, changed, sides.ctx
    )
    copy, question = sides.fresh(section), sides.fresh(form.section)
    label = {"ours": names.ours, "theirs": names.theirs}
    texts = {take: describe(kept_row), other: describe(other_row)}
    if texts[take] == texts[other]:  # the status says too little: name the cells
        texts = {
            take: _cells_apart(kept_row, other_row),
            other: _cells_apart(other_row, kept_row),
        }
    said = f"{item_id} was {_both(texts['ours'], label['ours'], texts['theirs'], label['theirs'])}"
    said += f"; {label[take]}'s is kept, {label[other]}'s is now {copy} (retired)"
    text = {
        "decisions": f"{said} \u2014 which stands?",
        "external writes": f"reconcile {item_id} ({short(other_cells.get('operation', ''))}): "
        f"{said} \u2014 read which holds, never retry",
        "obligations": f"reconcile {item_id}: {said} \u2014 record which holds",
    }[form.section]
    kept_text, other_text = texts[take], texts[other]
    values = {"id": question, form.column: text, "status": form.status}
    if form.section == "decisions":
        values["source"] = f"merge of {names.theirs} into {names.ours}"
        if kept_cells.get("owner"):  # who owned the question owns it again
            values["owner"] = kept_cells["owner"]
    if form.section == "external writes" and kept_cells.get("idempotency key"):
        values["idempotency key"] = kept_cells["idempotency key"]
    copied = {**other_cells, "id": copy}
    ours = append_row(sides.data["ours"], sides.kind, section, copied, sides.ctx)
    ours = append_row(ours, sides.kind, form.section, values, sides.ctx)
    reason = (
        f"merge conflict on {item_id}: {label[other]}'s version ({other_text}); "
        f"{label[take]}'s was kept, see {question}"
    )
    retired = {"id": copy, "reason": reason, "date": names.date, "replaced by": item_id}
    sides.data["ours"] = append_row(ours, sides.kind, "retired", retired, sides.ctx)
    return Recorded(
        item_id,
        take,
        (label[take], label[other]),
        kept_text,
        other_text,
        copy,
        question,
        form.section,
        text,
    )


def _by_header(section: str, cells: dict[str, str]) -> dict[str, str]:
    """A record's cells keyed by column header (what the byte edits take)."""
    header = {c.name: c.header for c in SCHEMAS[section].columns}
    return {header.get(name, name): value for name, value in cells.items()}


def _cells_apart(record: Item, other: Item) -> str:
    theirs = dict(record_content(other))
    return ", ".join(f"{k} {short(v)}" for k, v in record_content(record) if theirs.get(k) != v)


def _both(first: str, first_name: str, second: str, second_name: str) -> str:
    """'decided Redis on main and Memcached on feature': a shared first word said once."""
    head, _, rest = second.partition(" ")
    if rest and first.partition(" ")[0] == head:
        second = rest
    return f"{first} on {first_name} and {second} on {second_name}"


def _resolve_single(sides: _Sides, name: str, take: str, names: Names) -> Recorded:
    """Task's next action or objective: the taken value in both inputs, the other quoted."""
    if not _single_contested(sides, name):
        raise not_in_conflict(sides.ctx, name)
    value = SINGLE_VALUES[name]
    mine, yours = value(sides.side("ours")), value(sides.side("theirs"))
    other = "theirs" if take == "ours" else "ours"
    kept, lost = (mine, yours) if take == "ours" else (yours, mine)
    if name == "next-action":
        sides.data[other] = set_next_action(sides.data[other], kept, sides.ctx)
    else:
        sides.data[other] = _copy_front_line(sides, take, other, "objective")
    label = {"ours": names.ours, "theirs": names.theirs}
    what = "next action" if name == "next-action" else "objective"
    question = sides.fresh("obligations")
    text = (
        f"the {what} on {label[other]} was: {lost} ({label[take]}'s was kept) \u2014 "
        "do it or retire this with a reason"
        if name == "next-action"
        else f"the {what} on {label[other]} was: {lost} ({label[take]}'s was kept) \u2014 "
        "reconcile the two"
    )
    values = {"id": question, "obligation": text, "status": "open"}
    sides.data["ours"] = append_row(
        sides.data["ours"], sides.kind, "obligations", values, sides.ctx
    )
    return Recorded(
        name, take, (label[take], label[other]), kept, lost, None, question, "obligations", text
    )


def _copy_front_line(sides: _Sides, source: str, target: str, key: str) -> bytes:
    """``target``'s bytes with its front-matter ``key`` line replaced by ``source``'s."""
    line = _front_line(sides, source, key)
    text = split_text(sides.data[target])
    lines = list(text.lines)
    _, end = split_front_matter(lines, sides.ctx.path)
    for index in range(1, max(end - 1, 1)):
        if lines[index].startswith(key + ":"):
            if line is None:
                raise _by_hand(sides.ctx, key)
            return join_text(replace_line(text, index, line))
    raise _by_hand(sides.ctx, key)


def _front_line(sides: _Sides, name: str, key: str) -> str | None:
    lines = list(split_text(sides.data[name]).lines)
    _, end = split_front_matter(lines, sides.ctx.path)
    for index in range(1, max(end - 1, 1)):
        if lines[index].startswith(key + ":"):
            following = lines[index + 1] if index + 1 < end - 1 else ""
            if following[:1] in (" ", "\t", "-"):
                raise _by_hand(sides.ctx, key)  # a multi-line YAML value
            return lines[index]
    return None


def _by_hand(ctx: Context, key: str) -> RehydrateError:
    return RehydrateError(
        f"the {key} is not a one-line front-matter value on both sides",
        file=ctx.path,
        code="resolve_by_hand",
        fix=f"edit the {key} line by hand and record the other side's {key} in a new open "
        "obligation (docs/merging.md)",
    )
