"""One side of a three-way ledger merge, read into a *skeleton* (every line that is not an
item row, with a token where each table's rows go) and row slots by ID."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..ledgers import (
    Context,
    Ledger,
    canonical_section,
    parse_with,
    split_front_matter,
    split_sections,
    tables_by_section,
)
from ..ledgers.model import RETIRED
from ..ledgers.rowedit import split_text
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..ledgers import Section
    from ..ledgers.model import Item, Retired, Schema

MARK = "\x1erehydrate-merge\x1e"


FRONT = MARK + "front-matter"


NEXT = MARK + "next-action"


REVISION = re.compile(r"^(revision:[ \t]*[\"']?)(\d+)([\"']?[ \t]*(?:#.*)?)$")


class Slot(NamedTuple):
    """One item table of one side: its section, which one of that section, its rows."""

    token: str
    section: str
    header: tuple[str, ...]  # canonical column names
    rows: tuple[int, ...]  # 1-based line numbers


class Side(NamedTuple):
    name: str
    ledger: Ledger
    lines: tuple[str, ...]
    eols: tuple[str, ...]
    bom: bool
    newline: str
    front: int  # the front matter takes lines [0, front)
    slots: dict[str, Slot]  # token -> slot, in file order
    skeleton: tuple[str, ...]
    source: tuple[int, ...]  # skeleton line -> index into lines (-1 for a token)
    items: dict[str, tuple[str, Item]]  # id -> (section, record)
    retired: dict[str, Retired]
    slot_of: dict[str, Slot]  # id (item or retired row) -> its slot
    id_at: dict[int, str]  # row line number -> its ID

    def line_of(self, item_id: str, retired: bool = False) -> str:
        record = self.retired[item_id] if retired else self.items[item_id][1]
        return self.lines[record.line - 1]


def pick_tables(kind: str) -> Callable[[list[tuple[str | None, Section]]], dict[int, Schema]]:
    if kind == "failures":
        from ..ledgers.failures import pick

        return pick
    if kind == "task":
        from ..ledgers.task import SCHEMAS
    else:
        from ..ledgers.spec import SCHEMAS
    return tables_by_section(SCHEMAS)


def section_of(token: str) -> str:
    return token[len(MARK + "rows ") :].rsplit(" #", 1)[0]


def front_index(lines: list[str], key: str) -> int | None:
    for index, line in enumerate(lines[1:-1], start=1):
        if line.startswith(key + ":"):
            return index
    return None


def front_line(side: Side, key: str) -> str | None:
    lines = list(side.lines[: side.front])
    index = front_index(lines, key)
    return lines[index] if index is not None else None


def read_side(kind: str, ctx: Context, name: str, data: bytes) -> Side:
    ledger = parse_with(kind, data, ctx)
    text = split_text(data)
    lines = list(text.lines)
    _, front = split_front_matter(lines, ctx.path)
    keyed = [
        (canonical_section(s, ctx), s) for s in split_sections(lines[front:], ctx.path, front + 1)
    ]
    chosen = pick_tables(kind)(keyed)
    for key, section in keyed:
        if key == "retired":
            for table in section.tables:
                chosen[id(table)] = RETIRED
    slots: dict[str, Slot] = {}
    after_delimiter: dict[int, str] = {}
    row_lines: set[int] = set()
    count: dict[str, int] = {}
    for _, section in keyed:
        for table in section.tables:
            schema = chosen.get(id(table))
            if schema is None:
                continue
            ordinal = count.get(schema.section, 0)
            count[schema.section] = ordinal + 1
            token = f"{MARK}rows {schema.section} #{ordinal}"
            header = tuple(ctx.column_aliases.get(h.lower(), h.lower()) for h in table.header)
            rows = tuple(r.line for r in table.rows)
            slots[token] = Slot(token, schema.section, header, rows)
            after_delimiter[table.line + 1] = token
            row_lines.update(rows)
    next_line = ledger.next_action.line if ledger.next_action else 0
    skeleton: list[str] = []
    source: list[int] = []
    if front:
        skeleton.append(FRONT)
        source.append(-1)
    for index in range(front, len(lines)):
        number = index + 1
        if number in row_lines:
            continue
        if number == next_line:
            skeleton.append(NEXT)
            source.append(-1)
            continue
        skeleton.append(lines[index])
        source.append(index)
        if number in after_delimiter:
            skeleton.append(after_delimiter[number])
            source.append(-1)
    by_line = {line: slot for slot in slots.values() for line in slot.rows}
    items = {r.id: (section, r) for section, records in ledger.items.items() for r in records}
    retired = {r.id: r for r in ledger.retired}
    slot_of = {r.id: by_line[r.line] for _, r in items.values()}
    slot_of.update({f"retired:{r.id}": by_line[r.line] for r in ledger.retired})
    id_at = {r.line: r.id for _, r in items.values()}
    id_at.update({r.line: r.id for r in ledger.retired})
    return Side(
        name,
        ledger,
        text.lines,
        text.eols,
        text.bom,
        text.newline,
        front,
        slots,
        tuple(skeleton),
        tuple(source),
        items,
        retired,
        slot_of,
        id_at,
    )
