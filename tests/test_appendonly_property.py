"""Property: the failure ledger's fast path (``appendonly.table_edit``) never disagrees
with the full parser and rules. It may decline (None); when it answers, its verdict is
the full path's, and it never accepts a state the parser refuses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rehydrate.config import Config
from rehydrate.errors import LedgerParseError
from rehydrate.guard.fastpath import table_edit
from rehydrate.guard.rules import check_ledger
from rehydrate.ledgers import parse_ledger
from test_guard import F2, FAILURES

# Pieces an adversary would try in a cell: blanks, fillers, entities, markup, joiners.
_PIECES = st.sampled_from(
    [
        "a",
        "use uv",
        "F-001",
        "é",
        "\u3164",
        "\u2800",
        "\ufe0f",
        "\u034f",
        "\u200d",
        "\u00a0",
        "&nbsp;",
        "&#32;",
        "&lt;",
        "<br>",
        "<span></span>",
        "<!--",
        "-->",
        "` `",
        "`x`",
        "**",
        "[]()",
        "[x](y)",
        "\\",
        "\\|",
        "|",
        " ",
        "  ",
        "\t",
        "<div hidden>",
        "]:",
        "<?",
        "<b>",
        "&amp;",
        "\u0421",
        "-",
        "_",
        ".",
        "#",
        "1",
        "&#x202E;",
        "&#8203;",
        "&shy;",
        "&#10;",
        "\u200b",
        "<span style=x>",
    ]
)
_CELL = st.lists(_PIECES, min_size=0, max_size=4).map("".join)
_ID = st.one_of(
    st.sampled_from(
        [
            "F-004",
            "F-005",
            "f6",
            "F-004.a",
            "F" + "x" * 31,
            "F" + "x" * 32,
            "\u0421-004",
            "F-\u200d004",
            "4F",
            "F/4",
            "F-001",
            "F-003",
            "",
            "F 4",
        ]
    ),
    st.from_regex(r"[A-Za-z][A-Za-z0-9._-]{0,6}", fullmatch=True),
)
_ROW = st.tuples(_ID, _CELL, _CELL, _CELL).map(lambda r: "| " + " | ".join(r) + " |")
_OLD = FAILURES.encode()
_CONFIG = Config()
_OLD_LEDGER = parse_ledger("failures", "docs/Failed_Attempts.md", _OLD)


def _full(new: bytes) -> list[str] | None:
    """The full path's codes, or None when the new state does not parse."""
    try:
        ledger = parse_ledger("failures", "docs/Failed_Attempts.md", new)
    except LedgerParseError:
        return None
    return [v.code for v in check_ledger("failures", _OLD_LEDGER, ledger)]


@settings(max_examples=400, deadline=None)
@given(
    rows=st.lists(_ROW, min_size=1, max_size=3),
    after_f2=st.booleans(),
    edit_f2=st.one_of(st.none(), _CELL),
)
def test_fast_path_agrees_with_the_full_parse(rows, after_f2, edit_f2):
    text = FAILURES
    added = "".join(row + "\n" for row in rows)
    anchor = F2 if after_f2 else "| F-001 |"
    text = text.replace(anchor, (F2 + added) if after_f2 else added + anchor, 1)
    if edit_f2 is not None:
        text = text.replace("| resolver loop |", f"| {edit_f2} |", 1)
    new = text.encode()
    fast = table_edit(_OLD, new, _CONFIG, "docs/Failed_Attempts.md")
    if fast is None:
        return
    full = _full(new)
    assert full is not None, "the fast path accepted a state the parser refuses"
    assert [v.code for v in fast] == full


def test_the_fast_path_answers_a_plain_append() -> None:
    """The property above is not vacuous: a plain append takes the fast path."""
    new = FAILURES.replace(F2, F2 + "| F-004 | a | b | c |\n").encode()
    assert table_edit(_OLD, new, _CONFIG) == []
