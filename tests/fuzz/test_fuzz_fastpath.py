"""The failure ledger's fast path (``appendonly.table_edit``) against the full parse
(``parse_ledger`` + ``guard.check_ledger``): whenever the fast path gives a verdict, the
full path must give the same one (accept or refuse, with the same rule codes). The
table's layout varies too, as far as docs/ledgers.md allows: headings and prose above
it, prose between it and the next section, CRLF, extra columns, the columns in any
order and any case, and no newline at the end of the file."""

from __future__ import annotations

import time

from fuzzing import MAX_SECONDS, YAML_VALUES, fuzz
from hypothesis import given
from hypothesis import strategies as st

from rehydrate.config import Config
from rehydrate.errors import LedgerParseError
from rehydrate.guard.fastpath import table_edit
from rehydrate.guard.rules import check_ledger
from rehydrate.ledgers import parse_ledger

PATH = "docs/Failed_Attempts.md"
FRONT = ["---", "ledger: failures", "---"]
# what may stand above the table (docs/ledgers.md): headings, prose, quotes, code spans
ABOVE = [
    [],
    ["# Failed attempts", ""],
    ["# Failed attempts", "", "> Append rows only.", ""],
    ["## Active", "", "Prose with `code`, a | pipe and F-009 named.", ""],
    ["# Failed attempts", "", "Intro.", "", "## Failures", "", "More prose.", ""],
    ["Prose right under the front matter.", "", "# Failed attempts", ""],
    ["# Failed attempts", "", "```text", "| ID | not | a | table |", "```", ""],
]
# (header, delimiter, where each column of the header takes its cell from: 0 the ID,
# 1-3 Tried, Failure, Workaround, 4 and up the extra columns)
HEADERS = [
    ("| ID | Tried | Failure | Workaround |", "|---|---|---|---|", (0, 1, 2, 3)),
    ("| ID | Tried | Failure | Workaround | Owner |", "|---|---|---|---|---|", (0, 1, 2, 3, 4)),
    (
        "| ID | Date | Tried | Failure | Workaround | Note |",
        "|:--|---|---|---|---|--:|",
        (0, 4, 1, 2, 3, 5),
    ),
    ("| ID | Failure | Tried | Workaround |", "|---|---|---|---|", (0, 2, 1, 3)),
    ("| Workaround | id | TRIED | Failure |", "| --- | :-: | --- | --- |", (3, 0, 1, 2)),
    ("| Owner | Failure | ID | Workaround | Tried |", "|---|---|---|---|---|", (4, 2, 0, 3, 1)),
]
_TAILS = [
    ["", "## Retired", ""],
    ["", "Prose between the table and the next section.", "", "## Retired", ""],
    ["", "## Notes", "", "Text.", "", "## Retired", ""],
]
RETIRED = [
    "| ID | Reason | Date | Replaced by |",
    "|---|---|---|---|",
    "| F-002 | obsolete | 2026-01-01 | |",
]
_cell = st.one_of(
    st.sampled_from(
        [
            "x",
            "`make`",
            "a \\| b",
            "",
            " ",
            "F-001",
            "F-009",
            "<!-- c -->",
            "\u200b",
            "\u202e",
            "|",
            "\\",
            "`",
        ]
    ),
    st.sampled_from(YAML_VALUES),
    st.text(max_size=12).map(lambda t: t.replace("\n", " ").replace("\r", " ")),
)
_id = st.one_of(
    st.sampled_from(
        [
            "F-001",
            "F-002",
            "F-003",
            "F-004",
            "F-010",
            "f-1",
            "9",
            "F_1",
            "F-" + "1" * 40,
            "F-001 ",
            "Ｆ-001",
        ]
    ),
    st.from_regex(r"F-[0-9]{1,3}", fullmatch=True),
)


def _row(rid: str, cells: list[str], order: tuple[int, ...]) -> str:
    """The row of ID ``rid`` and cells Tried, Failure, Workaround, laid out as ``order``."""
    logical = [rid, *cells, *(["x"] * (len(order) - 4))]
    return "| " + " | ".join(logical[i] for i in order) + " |"


@st.composite
def _old_new(draw):
    header, delimiter, order = draw(st.sampled_from(HEADERS))
    head = FRONT + draw(st.sampled_from(ABOVE)) + [header, delimiter]
    tail = draw(st.sampled_from(_TAILS)) + RETIRED + draw(st.sampled_from([[""], []]))
    rows = [_row(f"F-00{i}", ["tried", "failed", "fix"], order) for i in (1, 2, 3)]
    old = head + rows + tail
    new_rows = list(rows)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["append", "insert", "edit", "delete", "swap", "raw"]))
        if op in ("append", "insert"):
            at = len(new_rows) if op == "append" else draw(st.integers(0, len(new_rows)))
            new_rows.insert(at, _row(draw(_id), [draw(_cell) for _ in range(3)], order))
        elif op == "edit" and new_rows:
            at = draw(st.integers(0, len(new_rows) - 1))
            cells = new_rows[at].strip("| ").split(" | ")
            k = draw(st.integers(0, len(cells) - 1))
            cells[k] = draw(_cell)
            new_rows[at] = "| " + " | ".join(cells) + " |"  # in the header's order
        elif op == "delete" and new_rows:
            del new_rows[draw(st.integers(0, len(new_rows) - 1))]
        elif op == "swap" and len(new_rows) > 1:
            new_rows.reverse()
        elif op == "raw":
            new_rows.insert(
                draw(st.integers(0, len(new_rows))),
                draw(
                    st.sampled_from(
                        [
                            "|",
                            "| a |",
                            "||||||||",
                            "| a | b | c |",
                            "|a|b|c|d|e|",
                            "text",
                            "",
                            "<<<<<<< HEAD",
                            "| F-005 | a | b | c | d |",
                        ]
                    )
                ),
            )
    crlf = draw(st.booleans())
    join = "\r\n" if crlf else "\n"
    return join.join(old).encode(), join.join(head + new_rows + tail).encode()


def _full(old_data: bytes, new_data: bytes) -> set[str] | None:
    """Rule codes of the full path (empty: accepted); None when ``new`` does not parse."""
    old = parse_ledger("failures", PATH, old_data)
    try:
        new = parse_ledger("failures", PATH, new_data)
    except LedgerParseError:
        return None
    return {v.code for v in check_ledger("failures", old, new)}


@fuzz(8)
@given(pair=_old_new())
def test_fast_path_agrees_with_the_full_parse(pair):
    old, new = pair
    config = Config()
    started = time.monotonic()
    fast = table_edit(old, new, config, PATH)
    assert time.monotonic() - started < MAX_SECONDS
    if fast is None:
        return  # the fast path declined: the guard parses both versions in full
    full = _full(old, new)
    fast_codes = {v.code for v in fast}
    assert full is not None, ("fast path judged a ledger that does not parse", fast_codes)
    assert fast_codes == full, (fast_codes, full)


def _layouts():
    for header, delimiter, order in HEADERS:
        for above in ABOVE:
            for tail in _TAILS:
                for newline in ("\n", "\r\n"):
                    yield [*FRONT, *above, header, delimiter], order, tail, newline


def test_the_fast_path_answers_on_every_layout():
    """The differential above proves nothing on a layout where the fast path always
    declines: on each one, a plain append gets a fast verdict, the full path's verdict.
    (A fenced block above the table is the one layout it may leave to the full parse.)"""
    declined = []
    for head, order, tail, newline in _layouts():
        fenced = any(line.startswith("```") for line in head)
        rows = [_row(f"F-00{i}", ["tried", "failed", "fix"], order) for i in (1, 2, 3)]
        old = newline.join(head + rows + tail + RETIRED).encode()
        added = rows + [_row("F-004", ["`make x`", "fails", "use y"], order)]
        new = newline.join(head + added + tail + RETIRED).encode()
        fast = table_edit(old, new, Config(), PATH)
        if fast is None:
            if not fenced:
                declined.append((head[-2], tail, newline))
        else:
            assert {v.code for v in fast} == _full(old, new) == set(), (head, tail)
    assert not declined, declined
