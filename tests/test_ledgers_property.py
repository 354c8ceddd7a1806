"""Property: generated tables survive render -> parse unchanged (pipes, backslashes, code)."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from rehydrate.errors import LedgerParseError
from rehydrate.ledgers import parse_ledger, visible
from rehydrate.ledgers._render import hidden_markup
from rehydrate.ledgers._table import normalize, parse_table, render_row, split_row
from rehydrate.prompt.sections import failures_listing

# Printable text without line breaks or the characters ledgers refuse inside items.
_alphabet = st.characters(
    blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn"),
    blacklist_characters="\n\r",
)
_cell = (
    st.text(
        alphabet=st.one_of(_alphabet, st.sampled_from("|\\`* -")),
        min_size=1,
        max_size=30,
    )
    .map(normalize)
    .filter(bool)
)
# A cell that must be filled shows something, and nothing in a ledger hides (CONTRACT §2).
_filled = _cell.filter(lambda c: visible(c) and hidden_markup(c) is None)


@settings(max_examples=300, deadline=None)
@given(st.lists(_cell, min_size=1, max_size=6))
def test_row_round_trip(cells):
    assert split_row(render_row(cells), "x.md", 1) == tuple(cells)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(
        st.tuples(_filled, _filled, _filled, _cell.filter(lambda c: hidden_markup(c) is None)),
        min_size=0,
        max_size=12,
    ),
    crlf=st.booleans(),
)
def test_failure_table_round_trip(rows, crlf):
    ids = [f"F-{i:03d}" for i in range(len(rows))]
    lines = [
        "# Failed attempts",
        "",
        render_row(["ID", "Tried", "Failure", "Workaround", "Note"]),
        "|---|---|---|---|---|",
    ]
    lines += [render_row([i, a, b, c, d]) for i, (a, b, c, d) in zip(ids, rows, strict=True)]
    text = "\n".join(lines) + "\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    ledger = parse_ledger("failures", "f.md", text.encode("utf-8"))
    parsed = ledger.section("failures")
    assert [f.id for f in parsed] == ids
    assert [(f.tried, f.failure, f.workaround, f.extra[0][1]) for f in parsed] == rows


# Raw table lines, mostly plain ('| a | b |') with the odd space, escape or pipe that sends
# a table down the row-by-row path.
_raw_cell = st.text(alphabet=st.sampled_from("ab1 |\\`-"), min_size=0, max_size=4)
_raw_row = st.tuples(
    st.sampled_from(["| ", "| ", "| ", "|", "|  ", " | "]),
    st.lists(
        st.tuples(_raw_cell, st.sampled_from([" | ", " | ", " | ", "|", " |", "  | "])),
        min_size=1,
        max_size=4,
    ),
    _raw_cell,
    st.sampled_from([" |", " |", " |", "|", "  |", " \\|"]),
).map(lambda p: p[0] + "".join(c + s for c, s in p[1]) + p[2] + p[3])


def _row_by_row(lines: list[str], width: int) -> tuple | str:
    rows = []
    for no, text in enumerate(lines, start=3):
        try:
            cells = split_row(text, "t.md", no)
        except LedgerParseError as exc:
            return exc.code
        if len(cells) != width:
            return "table_malformed"
        rows.append((no, cells))
    return tuple(rows)


@st.composite
def _table_body(draw):
    width = draw(st.integers(min_value=1, max_value=4))
    plain_cell = st.one_of(
        st.text(alphabet=st.sampled_from("ab1-`"), min_size=1, max_size=5),
        st.text(alphabet=st.sampled_from("ab "), min_size=0, max_size=5),
    )
    plain_row = st.lists(plain_cell, min_size=width, max_size=width).map(
        lambda cells: "| " + " | ".join(cells) + " |"
    )
    odd = draw(st.integers(min_value=0, max_value=3))  # 0: every row plain-shaped
    rows = st.one_of(plain_row, _raw_row) if odd else plain_row
    return width, draw(st.lists(rows, max_size=8))


@settings(max_examples=500, deadline=None)
@given(shape=_table_body())
def test_plain_table_fast_path_splits_like_row_by_row(shape):
    """Whole-table splitting (columns at C speed) gives exactly what row-by-row gives."""
    width, body = shape
    header = "| " + " | ".join(f"H{i}" for i in range(width)) + " |"
    lines = [(1, header), (2, "|" + "---|" * width)] + list(enumerate(body, start=3))
    expected = _row_by_row(body, width)
    try:
        table = parse_table(lines, "t.md")
    except LedgerParseError as exc:
        assert exc.code == expected
        return
    assert tuple((row.line, row.cells) for row in table.rows) == expected
    if table.parsed_rows is None:  # the fast path: its verbatim block is the rows as written
        assert table.block == "\n".join(body)
        assert table.filled == all(all(cells) for _, cells in expected)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(st.tuples(_filled, _filled, _filled), min_size=1, max_size=10),
    retire=st.booleans(),
    extra_column=st.booleans(),
)
def test_verbatim_failure_rows_render_like_the_records(rows, retire, extra_column):
    """The prompt may quote a plain failure table's own lines only when rendering its
    records would give the same text; otherwise it renders the records."""
    head = ["ID", "Tried", "Failure", "Workaround"] + (["Note"] if extra_column else [])
    lines = ["# Failed attempts", "", "## Failures", "", render_row(head), "|" + "---|" * len(head)]
    for i, (a, b, c) in enumerate(rows):
        lines.append(render_row([f"F-{i:03d}", a, b, c] + (["n"] if extra_column else [])))
    if retire:
        lines += ["", "## Retired", "", "| ID | Reason |", "|---|---|", "| F-000 | moot |"]
    ledger = parse_ledger("failures", "f.md", ("\n".join(lines) + "\n").encode("utf-8"))
    listing = failures_listing(SimpleNamespace(ledgers={"failures": ledger}))
    assert listing.render() == listing._replace(verbatim=None).render()
    if retire or extra_column:
        assert listing.verbatim is None
