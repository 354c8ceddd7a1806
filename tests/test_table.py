"""The table parser (``ledgers._table``), directly: consecutive '|' lines in, a Table or a
refusal out. Every refusal names its line, code, message and fix; every accepted table
gives the cells ``split_row`` gives row by row, and a plain table ('| a | b |' rows only)
takes the column-by-column path that lets long ledgers parse without per-row work."""

from __future__ import annotations

import pytest

from rehydrate.errors import LedgerParseError
from rehydrate.ledgers._table import normalize, parse_table, split_row

HEAD = [(1, "| a | b |"), (2, "|---|---|")]
ROW_FIX = "give the row exactly one cell per column (write a literal pipe as '\\|')"


def rows(*texts: str, first: int = 3) -> list[tuple[int, str]]:
    return [(first + i, t) for i, t in enumerate(texts)]


REFUSED = [
    pytest.param(
        [(5, "| a | b |")],
        5,
        "stray_table_line",
        "a line starting with '|' is not part of a table (no delimiter row follows)",
        "add a '|---|' delimiter row under the header, or remove the leading '|'",
        id="header-alone",
    ),
    pytest.param(
        [(1, "| a | b |"), (2, "| x | y |")],
        2,
        "stray_table_line",
        "second line of a table must be the delimiter row ('|---|---|')",
        "put a delimiter row under the header; a '|' line outside a table is not allowed",
        id="no-delimiter-row",
    ),
    pytest.param(
        [(1, "| a | b |"), (2, "|---|")],
        2,
        "table_malformed",
        "delimiter row has 1 cells, header has 2",
        "give the delimiter row one '---' per header column",
        id="delimiter-too-narrow",
    ),
    pytest.param(
        [(1, "| a | b |"), (2, "|---|---|---|")],
        2,
        "table_malformed",
        "delimiter row has 3 cells, header has 2",
        "give the delimiter row one '---' per header column",
        id="delimiter-too-wide",
    ),
    pytest.param(
        [(1, "| a | |"), (2, "|---|---|")],
        1,
        "table_malformed",
        "table header has an empty column name",
        "name every column",
        id="empty-header-cell",
    ),
    pytest.param(
        [(1, "| a | b"), (2, "|---|---|")],
        1,
        "table_malformed",
        "table row must end with an unescaped '|'",
        "close the row with ' |'",
        id="header-without-closing-pipe",
    ),
    pytest.param(
        [(1, "| a | b |"), (2, "|---|---")],
        2,
        "table_malformed",
        "table row must end with an unescaped '|'",
        "close the row with ' |'",
        id="delimiter-without-closing-pipe",
    ),
    pytest.param(
        [*HEAD, *rows("| x |")],
        3,
        "table_malformed",
        "row has 1 cells, the header has 2",
        ROW_FIX,
        id="short-plain-row",
    ),
    pytest.param(
        [*HEAD, *rows("| x | y |", "| x | y | z |")],
        4,
        "table_malformed",
        "row has 3 cells, the header has 2",
        ROW_FIX,
        id="long-row-after-a-plain-one",
    ),
    pytest.param(
        [*HEAD, *rows("| x \\| y | z |", "| x |")],
        4,
        "table_malformed",
        "row has 1 cells, the header has 2",
        ROW_FIX,
        id="short-row-row-by-row",
    ),
    pytest.param(
        [*HEAD, *rows("| x | y |", "| x | y")],
        4,
        "table_malformed",
        "table row must end with an unescaped '|'",
        "close the row with ' |'",
        id="row-without-closing-pipe",
    ),
]


@pytest.mark.parametrize(("lines", "line", "code", "message", "fix"), REFUSED)
def test_parse_table_refuses(lines, line, code, message, fix) -> None:
    with pytest.raises(LedgerParseError) as info:
        parse_table(lines, "docs/T.md")
    error = info.value
    assert (error.file, error.line, error.code, error.message, error.fix) == (
        "docs/T.md",
        line,
        code,
        message,
        fix,
    )


# (rows after HEAD, their cells, whether the table is plain, whether no cell is empty)
ACCEPTED = [
    pytest.param([], [], True, True, id="no-rows"),
    pytest.param(["| x | y |"], [("x", "y")], True, True, id="one-plain-row"),
    pytest.param(
        ["| x | y |", "| z | w |", "| u | v |"],
        [("x", "y"), ("z", "w"), ("u", "v")],
        True,
        True,
        id="plain-rows",
    ),
    pytest.param(["| x | |"], [("x", "")], True, False, id="plain-row-with-empty-cell"),
    pytest.param(["| | y |"], [("", "y")], True, False, id="plain-row-with-empty-first-cell"),
    pytest.param(
        # ' | | ' overlaps in the joined rows: the cell count is off, so row by row
        ["| x | y |", "| | w |"],
        [("x", "y"), ("", "w")],
        False,
        None,
        id="empty-cell-after-a-row",
    ),
    pytest.param(["|x | y|"], [("x", "y")], False, True, id="unpadded-edge-cells"),
    pytest.param(["|x | y |"], [("x", "y")], False, True, id="unpadded-first-cell"),
    pytest.param(["| x | y|"], [("x", "y")], False, True, id="unpadded-last-cell"),
    pytest.param(["|x|y|"], [("x", "y")], False, True, id="no-padding"),
    pytest.param(
        ["| x | y | ", "| z | w |"],
        [("x", "y"), ("z", "w")],
        False,
        True,
        id="trailing-space-after-a-row",
    ),
    pytest.param(["  | x | y |"], [("x", "y")], False, True, id="indented-row"),
    pytest.param(["| x\ty | z |"], [("x y", "z")], False, True, id="tab-collapses"),
    pytest.param(["| x \t y |\tz |"], [("x y", "z")], False, True, id="tab-padding"),
    pytest.param(["|  x  y  | z |"], [("x y", "z")], False, True, id="double-spaces-collapse"),
    pytest.param(["| x | a \\| b |"], [("x", "a | b")], False, True, id="escaped-pipe"),
    pytest.param(["| x | `a \\| b` |"], [("x", "`a | b`")], False, True, id="escaped-in-code"),
    pytest.param(["| x | a\\b |"], [("x", "a\\b")], False, True, id="backslash-kept"),
    pytest.param(
        # one escaped row sends the whole table row by row: each row is split on its own
        ["| x | a \\| b |", "| p | q|", "| p\tq | r |", "| p | q |", "|p | q |", "| | q |"],
        [("x", "a | b"), ("p", "q"), ("p q", "r"), ("p", "q"), ("p", "q"), ("", "q")],
        False,
        None,
        id="row-by-row",
    ),
]


@pytest.mark.parametrize(("texts", "cells", "plain", "filled"), ACCEPTED)
def test_parse_table_splits_every_row(texts, cells, plain, filled) -> None:
    lines = [*HEAD, *rows(*texts)]
    table = parse_table(lines, "docs/T.md")
    assert (table.line, table.header, table.end_line) == (1, ("a", "b"), lines[-1][0])
    assert [r.line for r in table.rows] == [no for no, _ in lines[2:]]
    assert [r.cells for r in table.rows] == cells
    assert [r.cells for r in table.rows] == [split_row(t, "docs/T.md", 0) for t in texts]
    assert (table.parsed_rows is None) is plain
    if plain:
        assert table.columns == tuple(tuple(row[i] for row in cells) for i in range(2))
        assert table.filled is filled
        assert table.block == "\n".join(texts)
        assert table.first_row == 3


def test_a_one_column_plain_table() -> None:
    table = parse_table([(7, "| a |"), (8, "|---|"), (9, "| x |"), (10, "| y |")], "T.md")
    assert table.parsed_rows is None and table.columns == (("x", "y"),)
    assert [(r.line, r.cells) for r in table.rows] == [(9, ("x",)), (10, ("y",))]


def test_a_row_with_an_empty_middle_cell_is_split_row_by_row() -> None:
    table = parse_table([(1, "| a | b | c |"), (2, "|---|---|---|"), (3, "| x || z |")], "T.md")
    assert [r.cells for r in table.rows] == [("x", "", "z")]


@pytest.mark.parametrize(
    "delimiter",
    ["|---|---|", "| --- | --- |", "|:---|---:|", "| :-: | - |", "|  ---  |:--|"],
)
def test_delimiter_rows_gfm_accepts(delimiter: str) -> None:
    assert parse_table([(1, "| a | b |"), (2, delimiter)], "T.md").header == ("a", "b")


@pytest.mark.parametrize("delimiter", ["| a | --- |", "| -:- | --- |", "| :: | --- |"])
def test_delimiter_rows_gfm_refuses(delimiter: str) -> None:
    with pytest.raises(LedgerParseError) as info:
        parse_table([(1, "| a | b |"), (2, delimiter)], "T.md")
    assert (info.value.code, info.value.line) == ("stray_table_line", 2)


@pytest.mark.parametrize("delimiter", ["| - - | --- |", "| : --- | --- |", "| --- | -- - |"])
def test_a_delimiter_cell_with_inner_spaces_is_no_delimiter(delimiter: str) -> None:
    """cmark-gfm and mistune read no table there, so neither do we."""
    with pytest.raises(LedgerParseError):
        parse_table([(1, "| a | b |"), (2, delimiter)], "T.md")


@pytest.mark.parametrize("delimiter", ["| --- | --- |", "|:---|---:|", "| :-: |\t--- |"])
def test_a_delimiter_row_padded_outside_its_cells_is_one(delimiter: str) -> None:
    """The legitimate twin: padding around the dashes is no inner space."""
    assert parse_table([(1, "| a | b |"), (2, delimiter), (3, "| x | y |")], "T.md")


def test_only_ascii_spaces_and_tabs_are_trimmed_and_collapsed() -> None:
    """No Unicode normalisation (CONTRACT §2): other white space is part of the cell."""
    assert normalize(" \t\u00a0x\u2003 \t") == "\u00a0x\u2003"
    assert normalize("a \t b\u00a0\u00a0c") == "a b\u00a0\u00a0c"
    assert split_row(" \t| \u00a0x | y\u2003 |\t ", "T.md", 1) == ("\u00a0x", "y\u2003")


@pytest.mark.parametrize(
    ("text", "cells"),
    [
        pytest.param("||", ("",), id="one-empty-cell"),
        pytest.param("| |", ("",), id="one-blank-cell"),
        pytest.param("|||", ("", ""), id="two-empty-cells"),
        pytest.param("| a \\| b |", ("a | b",), id="escaped-pipe"),
        pytest.param("| a \\ | b |", ("a \\", "b"), id="backslash-before-a-pipe-cell"),
    ],
)
def test_split_row(text: str, cells: tuple[str, ...]) -> None:
    assert split_row(text, "T.md", 1) == cells


START = ("table row must start with '|'", "write every row as '| a | b |'")
END = ("table row must end with an unescaped '|'", "close the row with ' |'")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        pytest.param("X| a |", START, id="letter-first"),
        pytest.param("\u00a0| a |", START, id="no-break-space-first"),
        pytest.param("a | b |", START, id="no-leading-pipe"),
        pytest.param("|", END, id="one-pipe"),
        pytest.param("| a |X", END, id="letter-last"),
        pytest.param("| a |\u00a0", END, id="no-break-space-last"),
        pytest.param("| a \\|", END, id="escaped-last-pipe"),
        pytest.param("| a", END, id="no-closing-pipe"),
    ],
)
def test_split_row_refuses(text: str, said: tuple[str, str]) -> None:
    with pytest.raises(LedgerParseError) as info:
        split_row(text, "docs/T.md", 4)
    error = info.value
    assert (error.file, error.line, error.code, error.message, error.fix) == (
        "docs/T.md",
        4,
        "table_malformed",
        *said,
    )
