"""Shared ledger reading: bytes -> lines -> front matter -> sections -> records."""

import re
from collections.abc import Callable, Mapping
from functools import cache, partial
from itertools import repeat
from typing import cast

from ..errors import LedgerParseError
from ..quote import CELL, HIDDEN_ASCII, hidden_class
from ..records import NamedTuple
from . import _frontmatter
from ._markdown import Section, split_sections
from ._render import visible
from ._table import Table, normalize
from .ids import ID_PATTERN, id_problem
from .model import RETIRED, Item, Ledger, NextAction, ProseSection, Record, Retired, Schema

MAX_LEDGER_BYTES = 32 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_BLOB = r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$"
_ID_SHAPE = re.compile(ID_PATTERN).fullmatch
_ID_COLUMNS = frozenset({"id", "replaced_by"})  # cells that hold an ID (or nothing)
# Every cell of a column (joined, each followed by a line feed) is an ID: one C scan
# (the class excludes the line feed, so each repetition's end is fixed).
_ID_LINES = re.compile(rf"(?:{ID_PATTERN}\n)*").fullmatch
_ASCII_MARKUP = b" \t*_~`\\"  # ASCII that never shows by itself (ledgers.md)
# Cc except tab; Cf except ZWNJ/ZWJ (U+200C/D); line/paragraph separators; tag characters.
_FORBIDDEN = hidden_class(CELL)


@cache
def forbidden() -> re.Pattern[str]:
    """The characters refused inside items, compiled on first use (clean ASCII never asks)."""
    return re.compile(_FORBIDDEN)


class Finished(NamedTuple):
    """What a ledger kind's own reading adds: its typed front matter, its Next action."""

    meta: Mapping[str, object]
    next_action: NextAction | None = None


class Context(NamedTuple):
    """What a ledger reader needs besides the bytes."""

    path: str
    section_aliases: Mapping[str, str]  # lowercase alias -> canonical section
    column_aliases: Mapping[str, str]  # lowercase alias -> canonical header
    max_bytes: int = MAX_LEDGER_BYTES
    scan_cells: bool = True  # False once the whole text is known to hold no forbidden char

    def refused(
        self, message: str, line: int | None, code: str, fix: str, item_id: str | None = None
    ) -> LedgerParseError:
        """The error for this ledger at ``line`` (and row ``item_id``): what, rule, fix."""
        return LedgerParseError(
            message, file=self.path, line=line, item_id=item_id, code=code, fix=fix
        )


# A ledger kind's own reading: (front matter, sections by key, context) -> what it adds.
Finish = Callable[[Mapping[str, object], Mapping[str | None, Section], Context], Finished | None]


def decode(data: bytes, ctx: Context) -> list[str]:
    """Bytes to lines: size cap first, BOM and CRLF folded, invalid UTF-8 refused."""
    if len(data) > ctx.max_bytes:
        raise ctx.refused(
            f"ledger is {len(data)} bytes, over the {ctx.max_bytes}-byte cap",
            1,
            "too_large",
            "retire and archive old rows, or raise max_ledger_bytes in the configuration",
        )
    if data.startswith(_BOM):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ctx.refused(
            f"invalid UTF-8 at byte {exc.start}",
            data[: exc.start].count(b"\n") + 1,
            "bad_encoding",
            "save the file as UTF-8",
        ) from None
    if "\x00" in text:
        raise ctx.refused(
            "NUL byte in ledger",
            text[: text.index("\x00")].count("\n") + 1,
            "bad_encoding",
            "remove the NUL byte; ledgers are text",
        )
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [t[:-1] if t.endswith("\r") else t for t in lines]
    return lines


# Every character _FORBIDDEN refuses that is ASCII, but for the line feed.
_ASCII_FORBIDDEN = HIDDEN_ASCII


def has_forbidden(lines: list[str], data: bytes | None = None) -> bool:
    """Whether any line holds a character refused inside items (one scan of the text).

    ``data``, the bytes the lines came from, allows a faster scan when it is plain ASCII
    without carriage returns (which ``decode`` strips at line ends).
    """
    if data is not None and data.isascii() and b"\r" not in data:
        return len(data.translate(None, _ASCII_FORBIDDEN)) != len(data)
    text = " ".join(lines).replace("\t", " ")
    if text.isprintable():  # every refused character is non-printable: one fast C scan
        return False
    return forbidden().search(text) is not None


def check_text(value: str, ctx: Context, line: int, item_id: str | None = None) -> None:
    """Refuse invisible, bidi, control and tag characters inside an item."""
    bad = forbidden().search(value)
    if bad:
        raise ctx.refused(
            f"invisible or control character U+{ord(bad.group()):04X} in an item "
            f"(column {bad.start() + 1} of the cell)",
            line,
            "forbidden_character",
            "remove it; it changes what the model reads without showing",
            item_id,
        )


# One pass over the rows: its branches are the cell rules (docs/design.md, Sizes).
def records(  # noqa: C901
    schema: Schema, table: Table, ctx: Context
) -> tuple[list[Record], str | None]:
    """Turn one table into records of ``schema.record``, checked cell by cell.

    Also returns the table's rows as written when rendering the records as a pipe table
    in the schema's column order would give exactly those lines (else None): a plain
    table with every column of the schema, in order, and no other.
    """
    index: dict[str, int] = {}
    extra: list[tuple[int, str]] = []
    extra_names: set[str] = set()  # a set: N extra columns cost N, not N squared
    check_text("\t".join(table.header), ctx, table.line)
    for pos, raw in enumerate(table.header):
        name = raw.lower()
        name = ctx.column_aliases.get(name, name)
        if name in index or name in extra_names:
            raise ctx.refused(
                f"column {raw!r} appears twice",
                table.line,
                "table_malformed",
                "keep one column of each name",
            )
        if any(c.header == name for c in schema.columns):
            index[name] = pos
        else:
            extra.append((pos, name))
            extra_names.add(name)
    for column in schema.columns:
        if column.required and column.header not in index:
            raise ctx.refused(
                f"the {schema.section!r} table has no {column.header!r} column",
                table.line,
                "missing_column",
                "columns: " + ", ".join(c.header for c in schema.columns if c.required),
            )
    out = []
    positions = [index.get(c.header) for c in schema.columns]  # column 0 is the ID
    # cells that must show something (an ID's shape is checked apart, and implies it)
    required = [
        i
        for i, c in enumerate(schema.columns)
        if c.required and c.name not in schema.values and c.name not in _ID_COLUMNS
    ]
    closed = [(i, c.name) for i, c in enumerate(schema.columns) if c.name in schema.values]
    # record fields are (id, line, *schema columns[1:]) in this order; built by position
    build: Callable[..., Record] = schema.record
    # Columns exactly as the schema lists them, no closed vocabulary, no suspicious text:
    # a row with no empty cell needs no per-cell work at all.
    plain = (
        not extra and not closed and not ctx.scan_cells and positions == list(range(len(positions)))
    )
    id_columns = [i for i, c in enumerate(schema.columns) if c.name in _ID_COLUMNS]
    if (
        plain
        and table.filled
        and table.parsed_rows is None
        and _bulk_clean(table.columns, id_columns, required)
    ):
        ids, *rest = table.columns
        lines = range(table.first_row, table.first_row + len(ids))
        return list(
            map(
                partial(tuple.__new__, schema.record),
                zip(ids, lines, *rest, repeat((), len(ids)), strict=True),
            )
        ), table.block
    other_ids = [i for i in id_columns if i]  # 'Replaced by'
    for row in table.rows:
        cells = row.cells
        if (
            plain
            and "" not in cells
            and all(_ID_SHAPE(cells[i]) for i in id_columns)
            and all(visible(cells[i]) for i in required)
        ):
            out.append(build(cells[0], row.line, *cells[1:]))
            continue
        values = [cells[p] if p is not None else "" for p in positions]
        item_id = values[0]
        shaped = _ID_SHAPE(item_id) is not None
        if ctx.scan_cells:
            for cell in cells:
                check_text(cell, ctx, row.line, item_id if shaped else None)
        if not item_id:
            raise ctx.refused(
                "row has an empty ID",
                row.line,
                "empty_id",
                "give every row an ID (e.g. C-001, F-012, P3)",
            )
        if not shaped:
            _refuse_id(item_id, "ID", ctx, row.line, None)
        for i in other_ids:
            if values[i] and _ID_SHAPE(values[i]) is None:
                _refuse_id(values[i], schema.columns[i].header, ctx, row.line, item_id)
        for i in required:
            if not visible(values[i]):
                header = schema.columns[i].header
                retiring = schema is RETIRED
                raise ctx.refused(
                    f"required cell {header!r} is empty"
                    + (" (nothing in it renders)" if values[i] else ""),
                    row.line,
                    "retire_without_reason" if retiring else "empty_cell",
                    "retiring needs a reason (visible text)"
                    if retiring
                    else f"fill in {header!r} with visible text",
                    item_id,
                )
        for i, name in closed:
            values[i] = _vocabulary(schema, name, values[i], ctx, row.line, item_id)
        if schema.section == "verified" and not re.match(_BLOB, values[3]):
            raise ctx.refused(
                "Blob must be a full git blob id",
                row.line,
                "bad_blob",
                "record `git hash-object <artifact>` (or use `rehydrate task verified add`)",
                item_id,
            )
        more = tuple((name, cells[pos]) for pos, name in extra) if extra else ()
        out.append(build(item_id, row.line, *values[1:], extra=more))
    return out, None


def _bulk_clean(
    columns: tuple[tuple[str, ...], ...], id_columns: list[int], required: list[int]
) -> bool:
    """Whether every ID cell has an ID's shape and every required cell of a plain table is
    plain ASCII text with something to show (cheap, a few C-level scans per column);
    False sends the table through the per-row checks."""
    for i in id_columns:
        if columns[i] and not _ID_LINES("\n".join(columns[i]) + "\n"):
            return False
    for i in required:
        joined = "\n".join(columns[i])
        if not joined.isascii() or "<" in joined or "&" in joined or "]" in joined:
            return False
        # Without tags, entities and link targets, an ASCII cell shows something iff it
        # holds a character other than blanks and markup (or a code span of markup,
        # which the per-row check sees): drop those and look for an emptied cell.
        rest = joined.encode("ascii").translate(None, _ASCII_MARKUP)
        if not rest or b"\n\n" in rest or rest[:1] == b"\n" or rest[-1:] == b"\n":
            return False
    return True


def _refuse_id(value: str, header: str, ctx: Context, line: int, item_id: str | None) -> None:
    raise ctx.refused(
        f"{header!r} cell is not an ID: {id_problem(value)}",
        line,
        "id_invalid",
        "IDs are ASCII: a letter, then up to 31 letters, digits, '.', '_' or '-' "
        "(e.g. C-001, F-012, P3)",
        item_id,
    )


def _vocabulary(
    schema: Schema, name: str, value: str, ctx: Context, line: int, item_id: str
) -> str:
    allowed = schema.values[name]
    # ASCII case folding only: 'MUſT'.upper() would be 'MUST' (no look-alike is accepted).
    canon = (value.upper() if name == "level" else value.lower()) if value.isascii() else value
    if canon not in allowed:
        what = "Level" if name == "level" else "Status"
        raise ctx.refused(
            f"unknown {what} {value!r} in {schema.section!r}",
            line,
            f"unknown_{name}",
            "use one of: " + ", ".join(allowed),
            item_id,
        )
    return canon


def canonical_section(section: Section, ctx: Context) -> str | None:
    if section.title is None:
        return None
    name = normalize(section.title).lower()
    return ctx.section_aliases.get(name, name)


def read(
    kind: str,
    data: bytes,
    ctx: Context,
    schemas: Mapping[str, Schema | None],
    pick_tables: Callable[[list[tuple[str | None, Section]]], dict[int, Schema]],
    finish: Callable[
        [Mapping[str, object], Mapping[str | None, Section], Context], Finished | None
    ],
) -> Ledger:
    """Parse one ledger. ``pick_tables`` maps id(table) -> schema for item tables."""
    lines = decode(data, ctx)
    if not has_forbidden(lines, data):
        ctx = ctx._replace(scan_cells=False)
    markup = b"<" in data or b"[" in data  # else no line can hold hidden markup
    meta, skip = _frontmatter.split(lines, ctx.path)
    declared = meta.get("ledger")
    if declared is not None and declared != kind:
        raise ctx.refused(
            f"front matter says ledger: {declared!r}, but this path is the {kind} ledger",
            1,
            "frontmatter_invalid",
            f"set 'ledger: {kind}' or fix the configured path",
        )
    sections = list(split_sections(lines[skip:], ctx.path, skip + 1, markup=markup))
    keyed = [(canonical_section(s, ctx), s) for s in sections]
    seen: dict[str | None, int] = {}
    for key, section in keyed:
        if key in schemas or key == "retired":
            if key in seen:
                raise ctx.refused(
                    f"section {section.title!r} appears twice (first at line {seen[key]})",
                    section.line,
                    "duplicate_section",
                    "merge the two sections into one",
                )
            seen[key] = section.line
    chosen = pick_tables(keyed)
    for key, section in keyed:
        if key == "retired":
            for table in section.tables:
                chosen[id(table)] = RETIRED
    items: dict[str, list[Item]] = {}
    blocks: dict[str, str | None] = {}
    retired: list[Retired] = []
    prose: list[ProseSection] = []
    for key, section in keyed:
        spans: list[tuple[int, int]] = []
        for table in section.tables:
            schema = chosen.get(id(table))
            if schema is None:
                _refuse_stray_items(table, section, schemas, ctx)
                continue
            spans.append((table.line, table.end_line))
            built, block = records(schema, table, ctx)
            if schema is RETIRED:
                retired.extend(cast("list[Retired]", built))
            else:
                items.setdefault(schema.section, []).extend(cast("list[Item]", built))
                # verbatim rows only for a section made of one table
                blocks[schema.section] = None if schema.section in blocks else block
        prose.append(
            ProseSection(section.title, key, section.line, _prose_text(section.lines, spans))
        )
    if ctx.scan_cells or b"&" in data:
        _check_everywhere(lines, ctx, raw=ctx.scan_cells)
    _check_ids(items, retired, ctx)
    finished = finish(meta, {k: s for k, s in keyed}, ctx) or Finished(meta)
    return Ledger(
        kind=kind,
        path=ctx.path,
        meta=finished.meta,
        prose=tuple(prose),
        items={k: tuple(v) for k, v in items.items()},
        retired=tuple(retired),
        plain_rows={k: v for k, v in blocks.items() if v},
        next_action=finished.next_action,
    )


_RENDERED_BLANKS = {9: 32, 10: 32, 13: 32}  # '&#10;' renders as white space, not hidden


def entity_forbidden(text: str) -> re.Match[str] | None:
    """A refused character that an HTML entity in ``text`` renders as (``&#x202E;``)."""
    import html

    return forbidden().search(html.unescape(text).translate(_RENDERED_BLANKS))


def _check_everywhere(lines: list[str], ctx: Context, *, raw: bool) -> None:
    """Refuse the characters refused in items anywhere else too (front matter, prose,
    headings, fences), as written (``raw``) or as an HTML entity that renders as one
    (``&#x202E;``): text that renders as nothing is still read by the model. Items were
    checked cell by cell before, with their own line and ID."""
    bad = forbidden()
    for no, text in enumerate(lines, start=1):
        hit = bad.search(text) if raw else None
        how = ""
        if hit is None and "&" in text:
            hit = entity_forbidden(text)
            how = " written as an HTML entity"
        if hit is not None:
            raise ctx.refused(
                f"invisible or control character U+{ord(hit.group()):04X}{how}",
                no,
                "forbidden_character",
                "remove it; it changes what the model reads without showing",
            )


def _prose_text(lines: tuple[tuple[int, str], ...], spans: list[tuple[int, int]]) -> str:
    """The section's lines outside the item tables' line spans (first, last), joined."""
    if not spans:
        return "\n".join([text for _, text in lines])
    first = lines[0][0]
    if lines[-1][0] - first != len(lines) - 1:  # numbered with gaps: skip line by line
        skip = {no for start, end in spans for no in range(start, end + 1)}
        return "\n".join([text for no, text in lines if no not in skip])
    kept: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        kept.extend([text for _, text in lines[pos : max(pos, start - first)]])
        pos = max(pos, end - first + 1)
    kept.extend([text for _, text in lines[pos:]])
    return "\n".join(kept)


def _refuse_stray_items(
    table: Table, section: Section, schemas: Mapping[str, Schema | None], ctx: Context
) -> None:
    """A table shaped like this ledger's items but outside its section is an error.

    Otherwise a '### Constraints' heading, or a table pasted under the title, would make
    rows that look like constraints silently count for nothing.
    """
    names = {ctx.column_aliases.get(h.lower(), h.lower()) for h in table.header}
    for schema in schemas.values():
        if schema is None:
            continue
        required = {c.header for c in schema.columns if c.required}
        if required <= names:
            where = f"under '## {section.title}'" if section.title else "before any section"
            raise ctx.refused(
                f"a {schema.section!r} table sits {where}, where its rows would not count as items",
                table.line,
                "table_outside_section",
                f"move it under '## {schema.section.capitalize()}' (a level-2 heading)"
                " or rename its columns if it is not meant as items",
            )


def tables_by_section(
    schemas: Mapping[str, Schema | None],
) -> Callable[[list[tuple[str | None, Section]]], dict[int, Schema]]:
    """The usual rule: every table in a known item section is an item table."""

    def pick(keyed: list[tuple[str | None, Section]]) -> dict[int, Schema]:
        out: dict[int, Schema] = {}
        for key, section in keyed:
            schema = schemas.get(key) if key else None
            if schema is not None:
                for table in section.tables:
                    out[id(table)] = schema
        return out

    return pick


def _check_ids(items: Mapping[str, list[Item]], retired: list[Retired], ctx: Context) -> None:
    ids = [record.id for records_ in items.values() for record in records_]
    gone = [row.id for row in retired]
    known = set(ids)
    if len(known) == len(ids) and len(set(gone)) == len(gone) and known.issuperset(gone):
        return  # the usual case, checked with sets; the loops below find the line to blame
    problem = _id_problem(items, retired)
    if problem is not None:
        message, row, code, fix = problem
        raise LedgerParseError(
            message, file=ctx.path, line=row.line, item_id=row.id, code=code, fix=fix
        )


def _id_problem(
    items: Mapping[str, list[Item]], retired: list[Retired]
) -> tuple[str, Record, str, str] | None:
    """(message, row to blame, code, fix) of the first reused or badly retired ID."""
    first: dict[str, int] = {}
    for records_ in items.values():
        for record in records_:
            if record.id in first:
                return (
                    f"duplicate ID (first used at line {first[record.id]})",
                    record,
                    "duplicate_id",
                    "IDs are never reused: give this row the next free ID",
                )
            first[record.id] = record.line
    done: dict[str, int] = {}
    for row in retired:
        if row.id not in first:
            return (
                "retired row names no item of this ledger",
                row,
                "retired_unknown_id",
                "retire an existing item by its ID; the item's own row stays where it is",
            )
        if row.id in done:
            return (
                f"item is retired twice (first at line {done[row.id]})",
                row,
                "duplicate_id",
                "keep one retirement row per item",
            )
        done[row.id] = row.line
    return None
