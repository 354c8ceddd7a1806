"""Property: generated tables survive render -> parse unchanged (pipes, backslashes, code)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rehydrate.ledgers import parse_ledger
from rehydrate.ledgers._table import normalize, render_row, split_row

# Printable text without line breaks or the characters ledgers refuse inside items.
_alphabet = st.characters(
    blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn"),
    blacklist_characters="\n\r",
)
_cell = st.text(
    alphabet=st.one_of(_alphabet, st.sampled_from("|\\`* -")), min_size=1, max_size=30,
).map(normalize).filter(bool)


@settings(max_examples=300, deadline=None)
@given(st.lists(_cell, min_size=1, max_size=6))
def test_row_round_trip(cells):
    assert split_row(render_row(cells), "x.md", 1) == tuple(cells)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(st.tuples(_cell, _cell, _cell, _cell), min_size=0, max_size=12),
    crlf=st.booleans(),
)
def test_failure_table_round_trip(rows, crlf):
    ids = [f"F-{i:03d}" for i in range(len(rows))]
    lines = ["# Failed attempts", "", render_row(["ID", "Tried", "Failure", "Workaround", "Note"]),
             "|---|---|---|---|---|"]
    lines += [render_row([i, a, b, c, d]) for i, (a, b, c, d) in zip(ids, rows, strict=True)]
    text = "\n".join(lines) + "\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    ledger = parse_ledger("failures", "f.md", text.encode("utf-8"))
    parsed = ledger.section("failures")
    assert [f.id for f in parsed] == ids
    assert [(f.tried, f.failure, f.workaround, f.extra[0][1]) for f in parsed] == rows
