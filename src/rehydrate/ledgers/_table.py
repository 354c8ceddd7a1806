"""Strict pipe-table rows: split, unescape and render cells (stricter than GFM).

A row starts and ends with ``|``; a ``|`` preceded by a backslash is a literal
pipe (also inside inline code). Short and long rows are errors, never padded
or truncated.
"""

import re
from functools import partial
from itertools import repeat

from ..errors import LedgerParseError
from ..records import NamedTuple

_DELIMITER_CELL = re.compile(r"^:?-+:?$")
_SPACES = re.compile(r"[ \t]+")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
_DOUBLE_SPACE = re.compile("  ")  # a literal-prefix scan: faster than `in` on megabytes


class TableRow(NamedTuple):
    line: int
    cells: tuple[str, ...]


class Table(NamedTuple):
    line: int  # line of the header row
    header: tuple[str, ...]
    parsed_rows: tuple[TableRow, ...] | None  # None when ``columns`` holds the cells
    end_line: int
    # A plain table (every row '| a | b |'): its cells column by column, top to bottom,
    # and the line of its first row. Lets 10,000 rows become records with no per-row
    # Python code; ``rows`` builds TableRows from them only when asked.
    columns: tuple[tuple[str, ...], ...] = ()
    first_row: int = 0
    filled: bool = False  # known to have no empty cell (lets records skip per-row checks)
    block: str = ""  # a plain table's rows as written, joined by line feeds

    @property
    def rows(self) -> tuple[TableRow, ...]:
        if self.parsed_rows is not None:
            return self.parsed_rows
        count = len(self.columns[0])
        return tuple(
            map(
                _new_row,
                zip(
                    range(self.first_row, self.first_row + count),
                    zip(*self.columns, strict=True),
                    strict=True,
                ),
            )
        )


# Build NamedTuples from ready tuples without a Python-level call per row.
_new_row = partial(tuple.__new__, TableRow)


def normalize(value: str) -> str:
    """Trim and collapse ASCII spaces and tabs only (no Unicode normalisation)."""
    value = value.strip(" \t")
    if "  " in value or "\t" in value:
        return _SPACES.sub(" ", value)
    return value


def _refused(
    message: str, path: str, line: int, fix: str, code: str = "table_malformed"
) -> LedgerParseError:
    """The error of a table line that breaks the table grammar (most are malformed)."""
    return LedgerParseError(message, file=path, line=line, code=code, fix=fix)


def split_row(text: str, path: str, line: int) -> tuple[str, ...]:
    """Split one table line into unescaped, trimmed cells."""
    body = text.strip(" \t")
    if not body.startswith("|"):
        raise _refused(
            "table row must start with '|'", path, line, "write every row as '| a | b |'"
        )
    if len(body) < 2 or not body.endswith("|") or body.endswith("\\|"):
        raise _refused(
            "table row must end with an unescaped '|'", path, line, "close the row with ' |'"
        )
    inner = body[1:-1]
    if "\\" in inner:
        return tuple(normalize(p.replace("\\|", "|")) for p in _UNESCAPED_PIPE.split(inner))
    if "  " in inner or "\t" in inner:
        return tuple(normalize(p) for p in inner.split("|"))
    return tuple([p.strip(" ") for p in inner.split("|")])  # hot path: single-space padding


def escape_cell(value: str) -> str:
    """Render a cell value so that split_row gives it back unchanged."""
    return value.replace("|", "\\|")


def render_row(cells: tuple[str, ...] | list[str]) -> str:
    return "| " + " | ".join(escape_cell(c) for c in cells) + " |"


def is_delimiter_row(cells: tuple[str, ...]) -> bool:
    """Every cell is ``---``, ``:---``, ``---:`` or ``:---:``; cells come trimmed, and a
    space inside one (``- -``) makes it text, as GitHub's cmark-gfm and mistune read it."""
    return all(_DELIMITER_CELL.match(c) for c in cells)


def _plain_columns(
    texts: list[str], width: int
) -> tuple[tuple[tuple[str, ...], ...], bool, str] | None:
    """All cells, column by column, when every row is a plain '| a | b |' row; else None.

    Plain: single-space padding, no escapes, every row '| ... |' with exactly ``width + 1``
    pipes, and every inner pipe inside ' | '. Then the rows, joined with their boundaries
    ' |\n| ' turned into ' | ', split on ' | ' into exactly the trimmed cells that
    split_row would return, in row order. Also says whether no cell is empty, and gives
    the joined rows.
    """
    if not texts:
        return tuple(() for _ in range(width)), True, ""
    block = "\n".join(texts)
    count = len(texts)
    if (
        "\\" in block
        or "\t" in block
        or _DOUBLE_SPACE.search(block)
        or not block.startswith("| ")
        or not block.endswith(" |")
        or set(map(str.count, texts, repeat("|"))) != {width + 1}
    ):
        return None
    joined = block.replace(" |\n| ", " | ")
    if "\n" in joined:  # some row does not start with '| ' or end with ' |'
        return None
    # joined holds count * width + 1 pipes, the first and the last ones its ends; then
    # count * width cells means every other one is a separator
    cells = joined.split(" | ")
    if len(cells) != count * width:
        return None
    if len(cells) == 1:
        cells[0] = cells[0][2:-2]
    else:
        cells[0], cells[-1] = cells[0][2:], cells[-1][:-2]
    return tuple(tuple(cells[i::width]) for i in range(width)), "" not in cells, block


def parse_table(lines: list[tuple[int, str]], path: str) -> Table:
    """Parse consecutive '|' lines (header, delimiter, rows) into a Table."""
    first_no, first_text = lines[0]
    if len(lines) < 2:
        raise _refused(
            "a line starting with '|' is not part of a table (no delimiter row follows)",
            path,
            first_no,
            "add a '|---|' delimiter row under the header, or remove the leading '|'",
            "stray_table_line",
        )
    header = split_row(first_text, path, first_no)
    delim_no, delim_text = lines[1]
    delim = split_row(delim_text, path, delim_no)
    if not is_delimiter_row(delim):
        raise _refused(
            "second line of a table must be the delimiter row ('|---|---|')",
            path,
            delim_no,
            "put a delimiter row under the header; a '|' line outside a table is not allowed",
            "stray_table_line",
        )
    width = len(header)
    if len(delim) != width:
        raise _refused(
            f"delimiter row has {len(delim)} cells, header has {width}",
            path,
            delim_no,
            "give the delimiter row one '---' per header column",
        )
    if any(not h for h in header):
        raise _refused("table header has an empty column name", path, first_no, "name every column")
    pipes = width + 1
    bulk = _plain_columns([text for _, text in lines[2:]], width)
    if bulk is not None:
        first_row = lines[2][0] if len(lines) > 2 else delim_no + 1
        return Table(first_no, header, None, lines[-1][0], bulk[0], first_row, bulk[1], bulk[2])
    rows = []
    for no, text in lines[2:]:
        # Hot path for '| a | b |' rows: exactly width+1 pipes, single spaces, no escapes,
        # so splitting on ' | ' gives the trimmed cells; anything else takes split_row.
        if (
            text[:2] == "| "
            and text[-2:] == " |"
            and text.count("|") == pipes
            and "\\" not in text
            and "  " not in text
            and "\t" not in text
        ):
            cells = tuple(text[2:-2].split(" | "))
            if len(cells) != width:
                cells = split_row(text, path, no)
        else:
            cells = split_row(text, path, no)
        if len(cells) != width:
            raise _refused(
                f"row has {len(cells)} cells, the header has {width}",
                path,
                no,
                "give the row exactly one cell per column (write a literal pipe as '\\|')",
            )
        rows.append(TableRow(no, cells))
    return Table(first_no, header, tuple(rows), lines[-1][0])
