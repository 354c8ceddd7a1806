"""The semantic ledger merge (pure): union by ID, furthest allowed state, real conflicts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import example_ledger
from rehydrate.git import hash_blob
from rehydrate.git.changes import merge_file
from rehydrate.guard.excuses import excuse_merge, renumbered
from rehydrate.guard.rules import check_ledger
from rehydrate.ledgers import parse_ledger
from rehydrate.ledgers._document import Context
from rehydrate.merge.ledger import merge_ledger
from rehydrate.merge.result import MergeResult
from rehydrate.merge.rows import Merger as _Merger

PATHS = {"spec": "docs/Spec.md", "task": "docs/Task.md", "failures": "docs/Failed_Attempts.md"}


def failures(*rows: str, retired: tuple[str, ...] = (), intro: str = "Intro prose.") -> bytes:
    table = "".join(f"| {r} |\n" for r in rows)
    gone = "".join(f"| {r} |\n" for r in retired)
    return (
        "---\nledger: failures\n---\n# Failed attempts\n\n" + intro + "\n\n"
        "| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n"
        + table
        + "\n## Retired\n\n| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
        + gone
    ).encode()


def template(kind: str) -> str:
    """The example ledger (one row per section; ``rehydrate init`` writes empty tables)."""
    return example_ledger(kind)


def edit(kind: str, *pairs: tuple[str, str], revision: int | None = None) -> bytes:
    """The template with text replacements (and Task's revision set)."""
    text = template(kind)
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    if revision is not None:
        text = text.replace("revision: 1", f"revision: {revision}", 1)
    return text.encode()


def merge(kind: str, base: bytes, ours: bytes, theirs: bytes) -> MergeResult:
    return merge_ledger(kind, base, ours, theirs, PATHS[kind], merge_text=merge_file)


def parse(kind: str, data: bytes):  # noqa: ANN201 - a Ledger
    return parse_ledger(kind, PATHS[kind], data)


def assert_passes_guard(kind: str, result: MergeResult, ours: bytes, theirs: bytes) -> None:
    """The merged ledger parses and passes the guard against both parents."""
    assert result.clean, result.conflicts
    merged = parse(kind, result.data)
    mine, other = parse(kind, ours), parse(kind, theirs)
    assert check_ledger(kind, mine, merged) == []
    found = check_ledger(kind, other, merged)
    assert excuse_merge(found, other, merged, [mine]) == []
    assert set(renumbered(other, merged, [mine])) == set(result.renamed)


def ids(kind: str, data: bytes) -> list[str]:
    return [r.id for r in parse(kind, data).all_items()]


P1 = "| P1 | Example: reproduce the bug with a failing test | todo |"
E1 = (
    "| E-001 | Example: create the release tag on the package registry | pending | "
    "example-key-001 | |"
)
D1 = "| D-001 | Example: which database for the cache? | open | | example-owner | 2030-01-01 | |"
C1 = "| C-001 | Example: do not push to the main branch directly | MUST NOT | example |"
NEXT = "Example: write the failing test for the bug described in the objective"


def test_rows_added_on_both_sides_are_all_kept_ours_first() -> None:
    base = failures("F-001 | a | b | c")
    ours = failures("F-001 | a | b | c", "F-002-aaaaa | o1 | x | y", "F-003-bbbbb | o2 | x | y")
    theirs = failures("F-001 | a | b | c", "F-002-ccccc | t1 | x | y")
    result = merge("failures", base, ours, theirs)
    assert_passes_guard("failures", result, ours, theirs)
    assert ids("failures", result.data) == ["F-001", "F-002-aaaaa", "F-003-bbbbb", "F-002-ccccc"]
    assert result.data.startswith(ours[: ours.index(b"| F-003")])


def test_same_new_id_with_different_content_renumbers_theirs_and_says_so() -> None:
    base = failures("F-001 | a | b | c")
    ours = failures("F-001 | a | b | c", "F-002 | ours | x | y")
    theirs = failures(
        "F-001 | a | b | c",
        "F-002 | theirs | x | y",
        "F-003 | t3 | x | y",
        retired=("F-002 | wrong | 2026-01-01 | F-003",),
    )
    result = merge("failures", base, ours, theirs)
    assert_passes_guard("failures", result, ours, theirs)
    assert result.renamed == {"F-002": "F-004"}
    merged = parse("failures", result.data)
    rows = {r.id: r.tried for r in merged.all_items()}
    assert rows == {"F-001": "a", "F-002": "ours", "F-004": "theirs", "F-003": "t3"}
    assert [(r.id, r.replaced_by) for r in merged.retired] == [("F-004", "F-003")]
    assert any("F-002" in n and "F-004" in n for n in result.notes)


def test_same_new_row_on_both_sides_is_kept_once() -> None:
    base = failures("F-001 | a | b | c")
    both = failures("F-001 | a | b | c", "F-002 | same | x | y")
    result = merge("failures", base, both, both)
    assert result.clean and result.data == both and result.renamed == {}


def test_rows_keep_ours_bytes_crlf_bom_padding_and_extra_columns() -> None:
    head = (
        "\ufeff---\r\nledger: failures\r\n---\r\n# F\r\n\r\n"
        "| ID  | Tried | Failure | Workaround | Owner |\r\n|---|---|---|---|---|\r\n"
        "| F-001   | a |  b | c | me |\r\n"
    )
    base = head.encode()
    ours = (head + "| F-002-aaaaa | o | x | y | you |\r\n").encode()
    theirs = (
        head.replace("\r\n", "\n").replace("\ufeff", "") + "| F-002-bbbbb | t | x | y | them |\n"
    ).encode()
    result = merge("failures", base, ours, theirs)
    assert_passes_guard("failures", result, ours, theirs)
    assert result.data == ours + b"| F-002-bbbbb | t | x | y | them |\r\n"


@pytest.mark.parametrize(
    ("ours_row", "theirs_row", "expected"),
    [
        pytest.param(
            P1.replace("todo", "doing"),
            P1.replace("todo", "done"),
            "done",
            id="phase-doing-vs-done",
        ),
        pytest.param(
            P1.replace("todo", "done"),
            P1.replace("todo", "doing"),
            "done",
            id="phase-done-vs-doing",
        ),
        pytest.param(P1.replace("todo", "doing"), P1, "doing", id="phase-one-side"),
    ],
)
def test_phase_moves_take_the_furthest_state(ours_row: str, theirs_row: str, expected: str) -> None:
    base = edit("task")
    ours = edit("task", (P1, ours_row), revision=2)
    theirs = edit("task", (P1, theirs_row), (NEXT, "Run the test suite once"), revision=5)
    result = merge("task", base, ours, theirs)
    assert_passes_guard("task", result, ours, theirs)
    merged = parse("task", result.data)
    assert merged.section("phases")[0].status == expected
    assert merged.revision == 6
    assert merged.next_action is not None and merged.next_action.text == "Run the test suite once"


def test_write_unknown_and_confirmed_merge_to_confirmed_with_evidence() -> None:
    base = edit("task")
    ours = edit("task", (E1, E1.replace("pending", "unknown")), revision=2)
    theirs = edit(
        "task",
        (
            E1,
            E1.replace(
                "pending | example-key-001 | |", "confirmed | example-key-001 | tag v1 exists |"
            ),
        ),
        revision=2,
    )
    result = merge("task", base, ours, theirs)
    assert_passes_guard("task", result, ours, theirs)
    write = parse("task", result.data).section("external writes")[0]
    assert (write.status, write.evidence) == ("confirmed", "tag v1 exists")


@pytest.mark.parametrize(
    ("kind", "ours", "theirs", "code", "item_id"),
    [
        pytest.param(
            "task",
            (
                E1,
                E1.replace("pending | example-key-001 | |", "confirmed | example-key-001 | seen |"),
            ),
            (
                E1,
                E1.replace(
                    "pending | example-key-001 | |", "not_applied | example-key-001 | absent |"
                ),
            ),
            "write_conflict",
            "E-001",
            id="write-confirmed-vs-not-applied",
        ),
        pytest.param(
            "task",
            (
                E1,
                E1.replace(
                    "pending | example-key-001 | |", "confirmed | example-key-001 | log A |"
                ),
            ),
            (
                E1,
                E1.replace(
                    "pending | example-key-001 | |", "confirmed | example-key-001 | log B |"
                ),
            ),
            "write_conflict",
            "E-001",
            id="write-different-evidence",
        ),
        pytest.param(
            "spec",
            (
                D1,
                D1.replace(
                    "open | | example-owner | 2030-01-01 | |",
                    "decided | Redis | example-owner | 2030-01-01 | ADR-1 |",
                ),
            ),
            (
                D1,
                D1.replace(
                    "open | | example-owner | 2030-01-01 | |",
                    "decided | Memcached | example-owner | 2030-01-01 | ADR-2 |",
                ),
            ),
            "decision_conflict",
            "D-001",
            id="two-decisions",
        ),
        pytest.param(
            "task",
            (NEXT, "Run the linter"),
            (NEXT, "Run the formatter"),
            "next_action_conflict",
            None,
            id="two-next-actions",
        ),
        pytest.param(
            "spec",
            ("> One rule per row.", "> One rule per row, always."),
            ("> One rule per row.", "> One rule per row, always."),
            None,
            None,
            id="same-change-on-both-is-no-conflict",
        ),
        pytest.param(
            "failures",
            ("| Example: crashes", "| Example: segfaults"),
            ("| Example: crashes", "| Example: hangs"),
            "cell_conflict",
            "F-001",
            id="immutable-cell-edited-on-both",
        ),
    ],
)
def test_incompatible_changes_are_conflicts_with_markers(
    kind: str, ours: tuple[str, str], theirs: tuple[str, str], code: str | None, item_id: str | None
) -> None:
    revision = 2 if kind == "task" else None
    base = edit(kind)
    mine, other = edit(kind, ours, revision=revision), edit(kind, theirs, revision=revision)
    result = merge(kind, base, mine, other)
    if code is None:
        assert result.clean
        return
    assert [(c.code, c.item_id) for c in result.conflicts] == [(code, item_id)]
    text = result.data.decode()
    assert "<<<<<<< ours\n" in text and "\n=======\n" in text and ">>>>>>> theirs\n" in text
    block = text[text.index("<<<<<<< ours") : text.index(">>>>>>> theirs")]
    assert ours[1] in block and theirs[1] in block


@pytest.mark.parametrize(
    ("ours_level", "theirs_level", "expected"),
    [
        pytest.param("MUST", "SHOULD", "MUST", id="should-must-stricter-wins"),
        pytest.param("SHOULD", "MUST", "MUST", id="must-on-theirs"),
        pytest.param("MUST", "MUST NOT", None, id="opposite-polarity-conflicts"),
    ],
)
def test_level_moves(ours_level: str, theirs_level: str, expected: str | None) -> None:
    row = C1.replace("MUST NOT", "MAY")
    base = edit("spec", (C1, row))
    ours = edit("spec", (C1, row.replace("MAY", ours_level)))
    theirs = edit("spec", (C1, row.replace("MAY", theirs_level)))
    result = merge("spec", base, ours, theirs)
    if expected is None:
        assert [(c.code, c.item_id) for c in result.conflicts] == [("level_conflict", "C-001")]
        return
    assert_passes_guard("spec", result, ours, theirs)
    assert parse("spec", result.data).section("constraints")[0].level == expected


def test_prose_edits_merge_with_git_and_same_line_edits_conflict() -> None:
    base = edit("spec")
    first = "> What this task must respect."
    second = "> Questions and their answers."
    ours = edit("spec", (first, "> What this task must respect (ours)."))
    theirs = edit(
        "spec",
        (second, "> Questions and answers (theirs)."),
        (C1, C1 + "\n| C-002 | new rule | SHOULD | t |"),
    )
    result = merge("spec", base, ours, theirs)
    assert_passes_guard("spec", result, ours, theirs)
    text = result.data.decode()
    assert "(ours)." in text and "(theirs)." in text and "| C-002 | new rule |" in text
    clash = merge("spec", base, ours, edit("spec", (first, "> Something else.")))
    assert [c.code for c in clash.conflicts] == ["prose_conflict"]
    assert "<<<<<<< ours" in clash.data.decode()


@pytest.mark.parametrize("side", ["base", "ours", "theirs"])
def test_an_unparseable_side_is_a_conflict_naming_it(side: str) -> None:
    good = failures("F-001 | a | b | c")
    broken = failures("F-001 | a | b | c", "F-002 | only three | cells")
    args = {"base": good, "ours": good, "theirs": good, side: broken}
    result = merge("failures", args["base"], args["ours"], args["theirs"])
    assert [c.code for c in result.conflicts] == ["side_unparseable"]
    assert result.conflicts[0].message.startswith(f"the {side} side cannot be parsed")
    assert b"<<<<<<<" in result.data


def test_retirements_union_and_a_double_retirement_keeps_ours_reason() -> None:
    rows = ("F-001 | a | b | c", "F-002 | d | e | f", "F-003 | g | h | i")
    base = failures(*rows)
    ours = failures(
        *rows,
        retired=("F-001 | ours reason | 2026-01-01 | ", "F-002 | fixed upstream | 2026-01-02 | "),
    )
    theirs = failures(
        *rows, retired=("F-001 | theirs reason | 2026-01-03 | ", "F-003 | obsolete | 2026-01-04 | ")
    )
    result = merge("failures", base, ours, theirs)
    merged = parse("failures", result.data)
    assert result.clean
    assert [(r.id, r.reason) for r in merged.retired] == [
        ("F-001", "ours reason"),
        ("F-002", "fixed upstream"),
        ("F-003", "obsolete"),
    ]
    assert any("F-001" in n and "ours' reason" in n for n in result.notes)
    assert_passes_guard("failures", result, ours, theirs)


def test_theirs_phases_go_after_their_predecessor() -> None:
    p2 = "| P2 | second | todo |"
    base = edit("task", (P1, P1 + "\n" + p2))
    ours = edit("task", (P1, P1 + "\n" + p2 + "\n| P3 | ours last | todo |"), revision=2)
    theirs = edit("task", (P1, P1 + "\n| P3 | theirs between | todo |\n" + p2), revision=3)
    result = merge("task", base, ours, theirs)
    assert_passes_guard("task", result, ours, theirs)
    phases = [(r.id, r.phase) for r in parse("task", result.data).section("phases")]
    assert phases == [
        ("P1", P1.split(" | ")[1]),
        ("P4", "theirs between"),
        ("P2", "second"),
        ("P3", "ours last"),
    ]


def test_phases_reordered_differently_conflict() -> None:
    p2 = "| P2 | second | todo |"
    base = edit("task", (P1, P1 + "\n" + p2))
    ours = edit("task", (P1, p2 + "\n" + P1), revision=2)
    theirs = edit("task", (P1, P1 + "\n" + p2 + "\n| P3 | x | todo |"), revision=2)
    result = merge("task", base, ours, theirs)
    assert "phase_order_conflict" in [c.code for c in result.conflicts]


@pytest.mark.parametrize("deleter", ["ours", "theirs"])
def test_a_deleted_row_is_a_conflict(deleter: str) -> None:
    base = failures("F-001 | a | b | c", "F-002 | d | e | f")
    kept = failures("F-001 | a | b | c", "F-002 | d | e | f", "F-003 | g | h | i")
    cut = failures("F-001 | a | b | c")
    ours, theirs = (cut, kept) if deleter == "ours" else (kept, cut)
    result = merge("failures", base, ours, theirs)
    assert ("row_deleted", "F-002") in [(c.code, c.item_id) for c in result.conflicts]


def test_a_merge_the_guard_would_refuse_becomes_a_conflict() -> None:
    base = edit("task")
    ours = edit("task", (E1, E1.replace("pending", "unknown")), revision=2)
    theirs = edit(
        "task",
        (
            "| ID | Reason | Date | Replaced by |\n|---|---|---|---|",
            "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
            "| E-001 | not needed | 2026-01-01 | |",
        ),
        revision=2,
    )
    result = merge("task", base, ours, theirs)
    assert ("guard_retired_unknown_write", "E-001") in [
        (c.code, c.item_id) for c in result.conflicts
    ]
    assert b"<<<<<<< ours" in result.data


def test_no_common_ancestor_merges_as_union() -> None:
    ours = failures("F-001 | a | b | c")
    theirs = failures("F-001 | a | b | c", "F-002 | d | e | f")
    result = merge("failures", b"", ours, theirs)
    assert result.clean and ids("failures", result.data) == ["F-001", "F-002"]


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from("abcdefgh"), max_size=6),
    st.lists(st.sampled_from("abcdefgh"), max_size=6),
)
def test_appends_on_both_sides_lose_nothing_and_duplicate_no_id(
    mine: list[str], other: list[str]
) -> None:
    start = ["F-001 | seed | x | y"]
    ours = failures(*start, *(f"F-{i + 2:03d} | {t}{i} | x | y" for i, t in enumerate(mine)))
    theirs = failures(*start, *(f"F-{i + 2:03d} | {t}{i} | x | y" for i, t in enumerate(other)))
    result = merge("failures", failures(*start), ours, theirs)
    assert_passes_guard("failures", result, ours, theirs)
    merged = parse("failures", result.data)
    contents = {(r.tried, r.failure) for r in merged.all_items()}
    for side in (ours, theirs):
        assert {(r.tried, r.failure) for r in parse("failures", side).all_items()} <= contents
    got = ids("failures", result.data)
    assert len(got) == len(set(got))
    full = _Merger(
        "failures", Context(PATHS["failures"], {}, {}), merge_file, 7, ("ours", "base", "theirs")
    ).run(failures(*start), ours, theirs)
    assert (full.data, full.renamed) == (result.data, result.renamed)  # the fast path agrees
    known = merge_ledger(
        "failures",
        failures(*start),
        ours,
        theirs,
        PATHS["failures"],
        trusted=frozenset({hash_blob(ours)}),
    )  # ours parsed at commit time
    assert (known.data, known.renamed) == (result.data, result.renamed)
