"""The semantic diff engine: item by item, pure (no git)."""

from __future__ import annotations

import pytest

from rehydrate.diff import diff_ledger
from rehydrate.ledgers import parse_ledger
from test_guard import BASE, F2, PATHS, REV, apply


def _diff(kind: str, edit: list[tuple[str, str, str]]) -> object:
    new = apply(edit)
    return diff_ledger(
        parse_ledger(kind, PATHS[kind], BASE[kind].encode()),
        parse_ledger(kind, PATHS[kind], new[kind].encode()),
    )


@pytest.mark.parametrize(
    ("kind", "edit", "expected"),
    [
        pytest.param(
            "failures",
            [("failures", F2, F2 + "| F-004 | a | b | c |\n")],
            [("added", "F-004")],
            id="added",
        ),
        pytest.param("failures", [("failures", F2, "")], [("deleted", "F-002")], id="deleted"),
        pytest.param(
            "failures",
            [("failures", "| F-003 | fixed upstream | 2026-01-01 | |\n", "")],
            [("unretired", "F-003")],
            id="unretired",
        ),
        pytest.param(
            "spec",
            [("spec", "| run the linter | SHOULD |", "| run the linter | MUST |")],
            [("changed", "C-002")],
            id="changed",
        ),
        pytest.param(
            "spec", [("spec", "| K-001 | user ids |", "|K-001|user ids|")], [], id="padding-only"
        ),
        pytest.param(
            "spec",
            [
                (
                    "spec",
                    "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n",
                    "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
                    "| C-002 | obsolete | 2026-02-01 | |\n",
                )
            ],
            [("retired", "C-002")],
            id="retired",
        ),
    ],
)
def test_item_events(
    kind: str, edit: list[tuple[str, str, str]], expected: list[tuple[str, str]]
) -> None:
    diff = _diff(kind, edit)
    assert [(c.kind, c.item_id) for c in diff.items] == expected


def test_level_and_status_moves() -> None:
    spec = _diff("spec", [("spec", "| run the linter | SHOULD |", "| run the linter | MUST |")])
    assert list(spec.level_moves()) == [("C-002", "SHOULD", "MUST")]
    task = _diff("task", [("task", "| P2 | fix | doing |", "| P2 | fix | done |"), REV])
    assert list(task.status_moves()) == [("P2", "doing", "done")]
    assert [(m.column, m.old, m.new) for m in task.meta] == [("revision", "3", "4")]


def test_retired_carries_the_reason_and_json_is_plain() -> None:
    diff = _diff(
        "spec",
        [
            (
                "spec",
                "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n",
                "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
                "| C-002 | obsolete  now | 2026-02-01 | |\n",
            )
        ],
    )
    (change,) = diff.items
    assert change.reason == "obsolete now" and change.section == "constraints"
    assert diff.to_json()["items"][0] == {
        "kind": "retired",
        "id": "C-002",
        "section": "constraints",
        "line": 35,
        "reason": "obsolete now",
    }


def test_reordering_unordered_rows_is_no_change_but_phases_are_moved() -> None:
    spec = _diff(
        "spec",
        [
            (
                "spec",
                "| C-001 | do not push to main | MUST NOT | team |\n"
                "| C-002 | run the linter | SHOULD | team |",
                "| C-002 | run the linter | SHOULD | team |\n"
                "| C-001 | do not push to main | MUST NOT | team |",
            )
        ],
    )
    assert spec.items == () and spec.reordered == ()
    task = _diff(
        "task",
        [
            (
                "task",
                "| P2 | fix | doing |\n| P3 | release | todo |",
                "| P3 | release | todo |\n| P2 | fix | doing |",
            ),
            REV,
        ],
    )
    assert task.reordered == ("phases",)


def test_prose_next_action_and_homoglyphs() -> None:
    task = _diff(
        "task",
        [
            ("task", "Some prose about the task.", "Other prose."),
            ("task", "write the failing test", "write the failing tеst"),
            REV,
        ],
    )
    assert task.prose == ("(preamble)",)  # the next action is reported apart, not as prose
    assert task.next_action == ("write the failing test", "write the failing tеst")


def test_padding_and_line_endings_are_no_change() -> None:
    diff = _diff(
        "failures",
        [("failures", "\n", "\r\n"), ("failures", "| F-001 | go test", "|  F-001\t| go   test")],
    )
    assert diff.empty  # ASCII space/tab runs fold; CR before LF is a line ending


def test_creation_and_deletion_are_file_events() -> None:
    ledger = parse_ledger("spec", PATHS["spec"], BASE["spec"].encode())
    created = diff_ledger(None, ledger)
    assert [f.kind for f in created.files] == ["created"]
    assert {c.kind for c in created.items} == {"added"}
    deleted = diff_ledger(ledger, None)
    assert [f.kind for f in deleted.files] == ["deleted"]
    with pytest.raises(ValueError):
        diff_ledger(None, None)


def test_people_see_the_same_marks_and_headlines_as_in_log() -> None:
    """`diff` names what was added, not just its ID, with `log`'s marks (issue 17)."""
    from rehydrate.cli.diff import render

    added = _diff("failures", [("failures", F2, F2 + "| F-004 | `make x` | boom | use y |\n")])
    assert (
        "  + failure added F-004: `make x`: boom (workaround: use y)"
        in render([added], "A", "B").splitlines()
    )
    stronger = _diff("spec", [("spec", "| run the linter | SHOULD |", "| run the linter | MUST |")])
    lines = render([stronger], "A", "B").splitlines()
    assert "  ^ constraint strengthened C-002 (SHOULD -> MUST): run the linter" in lines
    assert not any(line.strip().startswith("level:") for line in lines)  # said once
    deleted = render([_diff("failures", [("failures", F2, "")])], "A", "B")
    assert "  x failure deleted F-002: " in deleted
