"""Byte-exact edits of one ledger file, each a pure function bytes -> bytes.

An edit appends a row after the last row of a section's table, rewrites the cells it owns
in one row, replaces the Next action line, or raises Task's ``revision`` digits. Every
other byte (BOM, CRLF, padding of other rows, extra columns, prose, the final newline)
comes out as it went in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..errors import RehydrateError
from ..ledgers import (
    Context,
    Ledger,
    Section,
    Table,
    canonical_section,
    escape_cell,
    render_row,
    split_front_matter,
    split_sections,
)
from ..ledgers.model import ALL_SCHEMAS, Schema
from ..ledgers.rowedit import Text, insert_lines, join_text, replace_line, rewrite_cells, split_text

SCHEMAS: Mapping[str, Schema] = {s.section: s for s in ALL_SCHEMAS}


TITLES: Mapping[str, str] = {
    "constraints": "Constraints",
    "contracts": "Contracts",
    "decisions": "Decisions",
    "phases": "Phases",
    "next action": "Next action",
    "obligations": "Obligations",
    "external writes": "External writes",
    "approvals": "Approvals",
    "verified": "Verified",
    "completion checks": "Completion checks",
    "rollback": "Rollback",
    "failures": "Failures",
    "retired": "Retired",
}


# The ID a section starts with when it has no rows yet (the templates' style).
FIRST_IDS: Mapping[str, str] = {
    "constraints": "C-001",
    "contracts": "K-001",
    "decisions": "D-001",
    "phases": "P1",
    "obligations": "O-001",
    "external writes": "E-001",
    "approvals": "A-001",
    "verified": "V-001",
    "completion checks": "X-001",
    "failures": "F-001",
}


_BULLET = re.compile(r"^([ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)")


def _sections(text: Text, ctx: Context) -> list[tuple[str | None, Section]]:
    lines = list(text.lines)
    _, skip = split_front_matter(lines, ctx.path)
    sections = split_sections(lines[skip:], ctx.path, skip + 1)
    return [(canonical_section(s, ctx), s) for s in sections]


def _section_table(
    kind: str, keyed: list[tuple[str | None, Section]], name: str
) -> tuple[Section | None, Table | None]:
    """The section and the table that holds ``name``'s rows (the last one if several)."""
    if kind == "failures" and name == "failures":
        for key, section in keyed:  # the failure table is the first table outside Retired
            if key != "retired" and section.tables:
                return section, section.tables[0]
        return None, None
    for key, section in keyed:
        if key == name:
            return section, (section.tables[-1] if section.tables else None)
    return None, None


def _column_index(table: Table, ctx: Context) -> dict[str, int]:
    out: dict[str, int] = {}
    for pos, raw in enumerate(table.header):
        name = raw.lower()
        out[ctx.column_aliases.get(name, name)] = pos
    return out


def _header_title(header: str) -> str:
    return "ID" if header == "id" else header[:1].upper() + header[1:]


def _end_of_section(text: Text, keyed: list[tuple[str | None, Section]], key: str) -> int:
    """0-based index just past the last non-blank line of section ``key``."""
    for position, (k, section) in enumerate(keyed):
        if k == key:
            end = keyed[position + 1][1].line - 1 if position + 1 < len(keyed) else len(text.lines)
            while end > section.line and not text.lines[end - 1].strip():
                end -= 1
            return end
    raise KeyError(key)


def _new_section_index(
    text: Text, keyed: list[tuple[str | None, Section]], after: Sequence[str]
) -> int:
    """Where a missing section goes: after the first of ``after`` present, else before
    ``## Retired``, else at the end."""
    present = {k for k, _ in keyed}
    for key in after:
        if key in present:
            index = _end_of_section(text, keyed, key)
            nxt = [s.line - 1 for k, s in keyed if s.line - 1 >= index and s.title is not None]
            return min(nxt) if nxt else len(text.lines)
    for name, section in keyed:
        if name == "retired":
            return section.line - 1
    return len(text.lines)


def _add_block(text: Text, index: int, block: list[str]) -> Text:
    """Insert a block of lines at ``index`` separated from its neighbours by blank lines."""
    if index > 0 and text.lines[index - 1].strip():
        block = ["", *block]
    if index < len(text.lines) and text.lines[index].strip():
        block = [*block, ""]
    return insert_lines(text, index, block)


def _after_each(first: str, last: str) -> dict[str, tuple[str, ...]]:
    """Each section from ``first`` to ``last`` of one ledger (TITLES lists each ledger's
    sections in its template's order) -> the sections before it, nearest first."""
    order = list(TITLES)
    run = order[order.index(first) : order.index(last) + 1]
    return {name: tuple(reversed(run[:index])) for index, name in enumerate(run)}


# A missing section is created after the nearest earlier one that exists.
SECTION_ORDER: Mapping[str, tuple[str, ...]] = {
    **_after_each("constraints", "decisions"),
    **_after_each("phases", "rollback"),
    "failures": (),
    "retired": (),
}


def append_row(
    data: bytes,
    kind: str,
    section: str,
    values: Mapping[str, str],
    ctx: Context,
    *,
    before: str | None = None,
) -> bytes:
    """Add one row after the last row of ``section``'s table (creating it if missing), or
    directly above row ``before``.

    ``values`` maps canonical column names to cell text; columns it does not name
    (extra columns included) get empty cells. A table created here has the schema's
    columns, then any other column ``values`` fills.
    """
    text = split_text(data)
    keyed = _sections(text, ctx)
    owner, table = _section_table(kind, keyed, section)
    if table is not None:
        missing = [c for c, v in values.items() if v and c not in _column_index(table, ctx)]
        if missing:  # the writer adds the column itself: never send an agent to an editor
            text = add_columns(text, table, [_header_title(c) for c in missing])
            table = _section_table(kind, _sections(text, ctx), section)[1]
            assert table is not None
        return join_text(_insert_into(text, table, section, values, ctx, before))
    if before is not None:
        raise _no_row(section, before, ctx)
    header = [c.header for c in SCHEMAS[section].columns]
    header += [name for name, value in values.items() if value and name not in header]
    block = [
        render_row([_header_title(h) for h in header]),
        "|" + "---|" * len(header),
        render_row([values.get(h, "") for h in header]),
    ]
    if owner is not None:  # the section exists but holds no table yet
        return join_text(_add_block(text, _end_of_section(text, keyed, section), block))
    title = TITLES[section]
    where = _new_section_index(text, keyed, SECTION_ORDER.get(section, ()))
    if section == "retired":
        where = len(text.lines)
    return join_text(_add_block(text, where, [f"## {title}", "", *block]))


def _insert_into(
    text: Text,
    table: Table,
    section: str,
    values: Mapping[str, str],
    ctx: Context,
    before: str | None,
) -> Text:
    """``text`` with a row of ``values`` added to ``table`` (at its end, or above ``before``)."""
    index = _column_index(table, ctx)
    by_position = {pos: name for name, pos in index.items()}
    cells = [values.get(by_position[pos], "") for pos in range(len(table.header))]
    where = table.end_line
    if before is not None:
        rows = [r for r in table.rows if "id" in index and r.cells[index["id"]] == before]
        if not rows:
            raise _no_row(section, before, ctx)
        where = rows[0].line - 1
    return insert_lines(text, where, [render_row(cells)])


def add_columns(text: Text, table: Table, titles: Sequence[str]) -> Text:
    """``text`` with columns ``titles`` appended to ``table``: the header names them, the
    delimiter row gains ``---`` cells, every row an empty cell; every other byte is kept."""
    lines = list(text.lines)
    for index in range(table.line - 1, table.end_line):
        line = lines[index]
        body = line.rstrip(" \t")
        cells = {
            table.line - 1: [f" {escape_cell(t)} |" for t in titles],
            table.line: ["---|" for _ in titles],
        }.get(index, ["  |" for _ in titles])
        lead = "" if body.endswith("|") and not body.endswith("\\|") else " |"
        lines[index] = body + lead + "".join(cells) + line[len(body) :]
    return Text(text.bom, tuple(lines), text.eols)


def _no_row(section: str, item_id: str, ctx: Context) -> RehydrateError:
    return RehydrateError(
        f"no {section} row with ID {item_id}",
        file=ctx.path,
        item_id=item_id,
        code="unknown_id",
        fix="check the ID (rehydrate state)",
    )


def set_cells(
    data: bytes, kind: str, section: str, item_id: str, values: Mapping[str, str], ctx: Context
) -> bytes:
    """Rewrite the named cells of row ``item_id``; other cells keep their exact bytes."""
    text = split_text(data)
    keyed = _sections(text, ctx)
    candidates = [
        t
        for k, s in keyed
        if (k == section or (kind == "failures" and k != "retired"))
        for t in s.tables
    ]
    for table in candidates:
        index = _column_index(table, ctx)
        if "id" not in index:
            continue
        for row in table.rows:
            if row.cells[index["id"]] != item_id:
                continue
            missing = [c for c, v in values.items() if v and c not in index]
            if missing:  # add the column (empty in every other row), then write the cell
                text = add_columns(text, table, [_header_title(c) for c in missing])
                return set_cells(join_text(text), kind, section, item_id, values, ctx)
            updates = {index[c]: v for c, v in values.items() if c in index}
            line = rewrite_cells(text.lines[row.line - 1], updates)
            return join_text(replace_line(text, row.line - 1, line))
    raise _no_row(section, item_id, ctx)


def set_next_action(data: bytes, action: str, ctx: Context) -> bytes:
    """Replace the one Next action line (keeping its bullet), or create the section."""
    text = split_text(data)
    keyed = _sections(text, ctx)
    for key, section in keyed:
        if key != "next action":
            continue
        body = [(no, t) for no, t in section.lines if t.strip()]
        if body:
            no, old = body[0]
            prefix = _BULLET.match(old)
            return join_text(
                replace_line(text, no - 1, (prefix.group(1) if prefix else "") + action)
            )
        return join_text(_add_block(text, section.line, [action]))
    where = _new_section_index(text, keyed, SECTION_ORDER["next action"])
    return join_text(_add_block(text, where, ["## Next action", "", action]))


def set_prose(data: bytes, key: str, lines: Sequence[str], ctx: Context) -> bytes:
    """Replace the body of prose section ``key`` (e.g. Task's Rollback) by ``lines``, or
    create the section where ``SECTION_ORDER`` puts it; every other byte is kept."""
    text = split_text(data)
    keyed = _sections(text, ctx)
    for position, (k, section) in enumerate(keyed):
        if k != key:
            continue
        start = section.line  # 0-based index of the line after the heading
        end = keyed[position + 1][1].line - 1 if position + 1 < len(keyed) else len(text.lines)
        block = ["", *lines, ""] if end < len(text.lines) else ["", *lines]
        kept = Text(
            text.bom,
            text.lines[:start] + text.lines[end:],
            text.eols[:start] + text.eols[end:],
        )
        if end == len(text.lines) and not text.eols[-1]:  # no final newline: still none
            kept = Text(kept.bom, kept.lines, kept.eols[:-1] + ("",))
        return join_text(insert_lines(kept, start, block))
    where = _new_section_index(text, keyed, SECTION_ORDER[key])
    return join_text(_add_block(text, where, [f"## {TITLES[key]}", "", *lines]))


def next_id(ledger: Ledger, section: str, content: Mapping[str, str] | None = None) -> str:
    """The next free ID in the section's own style (prefix, zero padding).

    The number is one more than the highest used with that prefix anywhere in the
    file — retired items and other sections included — so an ID is never reused.
    Minted by ``rehydrate.ids`` under the current policy (``id_scheme``: a
    ``branch-safe`` ID adds a tag hashed from the branch and ``content``).
    """
    from ..ledgers.ids import current_policy, style_of
    from ..ledgers.ids import next_id as mint

    prefix, width = style_of([r.id for r in ledger.section(section)], FIRST_IDS[section])
    used = [r.id for r in ledger.all_items()] + [r.id for r in ledger.retired]
    policy = current_policy()
    return mint(used, prefix, policy.scheme, width=width, branch=policy.branch, content=content)
