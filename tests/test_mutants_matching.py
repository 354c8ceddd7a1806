"""``agents.matching``: which rows a command repeats, and which of a row's attempts and of
the command's parts is reported (``scripts/mutation.py --module matching`` found these
untested). Pure: rows built here, no git, no files.

Each refusal (an exact hit) has its legitimate twin (a close note, or nothing) next to it.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from rehydrate.agents import matching
from rehydrate.agents.commandline import read
from rehydrate.agents.matching import MAX_SPANS, Hit, attempts_in_cell, commands_in, hits_in
from rehydrate.agents.shell import TEXT_BUDGET, Budget

PATH = "docs/Failed_Attempts.md"


class Row(NamedTuple):
    id: str
    line: int
    tried: str
    failure: str = "it failed"
    workaround: str = "do the other thing"


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test reads its cells afresh (the span cache would otherwise answer from an
    earlier test, and the reading code would go untested)."""
    monkeypatch.setattr(matching, "_READ", {})


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
    assert advice.split("\n~~~~")[0] == (
        f"rehydrate: allowed, but this is close to failed attempt F-002 in {PATH}:9 (same "
        "program and subcommand, other options, arguments or environment); the row is "
        "quoted below. Make sure this is not the same attempt again."
    )
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
    """``export X=1 && npm ci`` records the attempt ``npm ci``: running ``npm ci`` again is
    refused, and the set-up step alone is not; after ``cd x`` the attempt is ``npm ci``
    run in x (docs/check-command.md, *working directory*)."""
    cell = f"`{step} x && npm ci`"
    assert [c.text for c in attempts_in_cell(cell)] == ["npm ci"]
    assert hits(f"{step} x", Row("F-001", 8, cell)) == []
    if step in ("cd", "pushd"):  # the attempt ran in x: there it is the same act
        assert [k for _, k, _, _ in hits(f"{step} x && npm ci", Row("F-001", 8, cell))] == ["exact"]
        assert hits("npm ci", Row("F-001", 8, cell)) == []  # at the root: another act
    elif step == "popd":  # `popd x`: a directory not known, never refused
        assert hits(f"{step} x && npm ci", Row("F-001", 8, cell)) == []
    else:
        assert [k for _, k, _, _ in hits("npm ci", Row("F-001", 8, cell))] == ["exact"]


def test_the_first_exact_attempt_is_named() -> None:
    """Of two attempts in a row that the command both repeats, the first is named."""
    row = Row("F-001", 8, "`npm ci` then `npm ci --verbose`")
    assert hits("npm ci", row) == [("F-001", "exact", "npm ci", "npm ci")]
    assert hits("npm ci --verbose", Row("F-001", 8, "`npm ci --verbose` then `npm ci`")) == [
        ("F-001", "exact", "npm ci --verbose", "npm ci --verbose")
    ]


def test_commands_in_reads_every_simple_command() -> None:
    assert [c.text for c in commands_in("cd app && npm ci")] == ["cd app", "npm ci"]
    assert commands_in("") == []


def test_a_reading_cut_short_is_not_remembered() -> None:
    """A cell read under a spent budget misses the script ``bash -c`` runs; read again
    with a budget to spare, the script is there (the short reading was not kept)."""
    cell = "`bash -c 'npm ci'`"
    assert [c.text for c in attempts_in_cell(cell, Budget(text=1))] == ["bash -c npm ci"]
    assert [c.text for c in attempts_in_cell(cell)] == ["bash -c npm ci", "npm ci"]
    assert [c.text for c in attempts_in_cell(cell)] == ["bash -c npm ci", "npm ci"]


def test_the_span_cache_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    full = {f"tool{i} run": [] for i in range(matching._READ_KEPT)}
    monkeypatch.setattr(matching, "_READ", full)
    assert [c.text for c in attempts_in_cell("`npm ci`")] == ["npm ci"]
    assert len(matching._READ) <= matching._READ_KEPT and "npm ci" in matching._READ


def test_a_code_span_is_read_without_its_backticks() -> None:
    assert [c.text for c in attempts_in_cell("ran ``npm ci`` here")] == ["npm ci"]
    assert [c.text for c in attempts_in_cell("`npm ci` and then `make` again")] == [
        "npm ci",
        "make",
    ]


def test_one_check_spends_one_budget_on_all_its_rows() -> None:
    """The shell text one check reads is bounded over all its rows, not per row (issue
    13: a ledger of megabyte cells must not cost minutes): past the budget a row's nested
    script is not unwrapped. The same row on its own is refused."""
    nested = Row("F-002", 2, "`bash -c 'go vet'`")
    big = Row("F-001", 1, "`echo " + "x" * (TEXT_BUDGET + 1) + "`")
    assert hits("go vet", big, nested) == []
    assert hits("go vet", nested) == [("F-002", "exact", "go vet", "go vet")]
