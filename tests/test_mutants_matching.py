"""``agents.matching``: which rows a command repeats, and which of a row's attempts and of
the command's parts is reported (``scripts/mutation.py --module matching`` found these
untested). Pure: rows built here, no git, no files.

Each refusal (an exact hit) has its legitimate twin (a close note, or nothing) next to it.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from rehydrate.agents.commandline import read
from rehydrate.agents.matching import MAX_SPANS, Hit, attempts_in_cell, hits_in

PATH = "docs/Failed_Attempts.md"


class Row(NamedTuple):
    id: str
    line: int
    tried: str
    failure: str = "it failed"
    workaround: str = "do the other thing"


def hits(command: str, *rows: Row) -> list[tuple[str, str, str, str]]:
    """(row ID, kind, the command's part, the row's attempt) for each hit."""
    return [(h.id, h.kind, h.command, h.attempt) for h in hits_in(read(command), rows, PATH)]


def test_an_exact_repeat_is_refused_and_a_close_one_noted() -> None:
    exact, close = Row("F-001", 8, "`go test ./...`"), Row("F-002", 9, "`go test -race ./...`")
    assert hits("go test ./...", exact) == [("F-001", "exact", "go test ./...", "go test ./...")]
    assert hits("go test ./...", close) == [
        ("F-002", "close", "go test ./...", "go test -race ./...")
    ]
    assert hits("go build ./...", exact, close) == []


def test_the_hit_carries_the_rows_cells() -> None:
    row = Row("F-007", 12, "ran `npm ci` twice", "lockfile drift", "npm install")
    (hit,) = hits_in(read("npm ci"), [row], PATH)
    assert hit == Hit(
        "F-007",
        "exact",
        12,
        PATH,
        "ran `npm ci` twice",
        "lockfile drift",
        "npm install",
        "npm ci",
        "npm ci",
    )
    assert hit.to_json() == {
        "id": "F-007",
        "match": "exact",
        "path": PATH,
        "line": 12,
        "tried": "ran `npm ci` twice",
        "failure": "lockfile drift",
        "workaround": "npm install",
        "command": "npm ci",
        "attempt": "npm ci",
    }


def test_exact_hits_come_first_then_by_line() -> None:
    rows = (
        Row("F-003", 30, "`cargo build --release`"),
        Row("F-002", 20, "`cargo build --offline`"),
        Row("F-001", 10, "`cargo build --locked`"),
        Row("F-004", 40, "`cargo build`"),
    )
    found = hits_in(read("cargo build"), rows, PATH)
    assert [(h.id, h.kind) for h in found][0] == ("F-004", "exact")
    assert [h.line for h in found[1:]] == sorted(h.line for h in found[1:])
    assert all(h.kind == "close" for h in found[1:])


def test_a_rows_exact_attempt_wins_over_its_close_one() -> None:
    """A row recording a close attempt before an exact one is an exact hit (refused),
    naming the exact attempt; a row with only the close one is a note."""
    both = Row("F-001", 8, "`go test -race ./...` then `go test ./...`")
    assert hits("go test ./...", both) == [("F-001", "exact", "go test ./...", "go test ./...")]
    exact_first = Row("F-001", 8, "`go test ./...` then `go test -race ./...`")
    assert hits("go test ./...", exact_first) == [
        ("F-001", "exact", "go test ./...", "go test ./...")
    ]
    only_close = Row("F-001", 8, "`go test -race ./...`")
    assert [k for _, k, _, _ in hits("go test ./...", only_close)] == ["close"]


def test_the_first_close_attempt_is_named() -> None:
    row = Row("F-001", 8, "`go test -race ./...` then `go test -short ./...`")
    assert hits("go test ./...", row) == [
        ("F-001", "close", "go test ./...", "go test -race ./...")
    ]


def test_the_part_of_the_command_that_repeats_is_named() -> None:
    """Of a compound command, the part that runs the failed attempt exactly, not a part
    that only comes close (and not the first part of the program)."""
    row = Row("F-001", 8, "`go test ./...`")
    assert hits("go test -race ./... && go test ./...", row) == [
        ("F-001", "exact", "go test ./...", "go test ./...")
    ]
    assert hits("go test -race ./... && go test -short ./...", row) == [
        ("F-001", "close", "go test -race ./...", "go test ./...")
    ]


def test_a_row_with_both_attempts_used_by_two_rows_is_judged_alike() -> None:
    """One attempt text in many rows is read once; each row still gets its own hit."""
    rows = (Row("F-001", 8, "`npm ci`"), Row("F-002", 9, "`npm ci`"))
    assert [(i, k) for i, k, _, _ in hits("npm ci", *rows)] == [
        ("F-001", "exact"),
        ("F-002", "exact"),
    ]


def test_what_a_tried_cell_records() -> None:
    """Its code spans, else the whole cell when it reads as a command; never prose; the
    set-up steps of a compound attempt are dropped, unless nothing else is left."""

    def texts(cell: str) -> list[str]:
        return [c.text for c in attempts_in_cell(cell)]

    assert texts("npm ci") == ["npm ci"]
    assert texts("Used npm ci") == []
    assert texts("ran `npm ci` and `npm ci` again") == ["npm ci"]
    assert texts("`cd app && npm ci`") == ["npm ci"]
    assert texts("`cd app && pushd b`") == ["cd app", "pushd b"]
    assert texts("`cd app`") == ["cd app"]
    many = " ".join(f"`tool{i} run`" for i in range(MAX_SPANS + 10))
    assert texts(many) == [f"tool{i} run" for i in range(MAX_SPANS)]


def test_the_advice_and_the_text_name_the_row() -> None:
    row = Row("F-002", 9, "`go test -race ./...`", "flaky", "go test -count=1 ./...")
    (hit,) = hits_in(read("go test ./..."), [row], PATH)
    advice = hit.advice()
    assert f"close to failed attempt F-002 in {PATH}:9" in advice
    assert "same program and subcommand" in advice
    for said in ("Attempt: go test -race ./...", "Failure: flaky", "Workaround: go test"):
        assert said in advice
    assert str(hit) == (
        f"{PATH}:9: F-002 (close match of `go test -race ./...`)\n"
        "  tried:      `go test -race ./...`\n  failure:    flaky\n"
        "  workaround: go test -count=1 ./..."
    )


# the set-up steps of a compound attempt (docs/check-command.md: cd, export, source, echo, …)
SETUP = ("cd", "pushd", "popd", "export", "source", ".", "set", "echo", "true", "unset")


@pytest.mark.parametrize("step", [*SETUP, "printf", ":"])
def test_a_set_up_step_is_no_attempt(step: str) -> None:
    """``cd x && npm ci`` records the attempt ``npm ci``: running ``npm ci`` again
    elsewhere is refused, and the set-up step alone is not."""
    cell = f"`{step} x && npm ci`"
    assert [c.text for c in attempts_in_cell(cell)] == ["npm ci"]
    assert [k for _, k, _, _ in hits("npm ci", Row("F-001", 8, cell))] == ["exact"]
    assert hits(f"{step} x", Row("F-001", 8, cell)) == []
