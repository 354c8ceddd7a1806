"""The agent core's pure parts: sizes in a runtime's unit, Claude Code's rewriting of the
compaction summary, and the record command a captured failure is named with."""

from __future__ import annotations

import shlex

import pytest

from rehydrate.agents.captured import (
    WORKAROUND,
    Pending,
    code_span,
    failure_line,
    one_line,
    record_command,
)
from rehydrate.agents.claude import summary_as_seen
from rehydrate.agents.commands import attempts_in_cell, commands_in, match
from rehydrate.agents.units import (
    CODE_POINTS,
    UTF8,
    UTF16,
    Cap,
    Unit,
    fit,
    prefix_within,
    utf16_units,
)

ROCKET = "\U0001f680"


@pytest.mark.parametrize(
    ("text", "units"),
    [
        pytest.param("abc", 3, id="ascii"),
        pytest.param("é", 1, id="bmp"),
        pytest.param(ROCKET, 2, id="astral"),
        pytest.param("a" + ROCKET * 3 + "b", 8, id="mixed"),
        pytest.param("", 0, id="empty"),
    ],
)
def test_utf16_units_are_javascript_length(text: str, units: int) -> None:
    assert utf16_units(text) == units == len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize("unit", [UTF16, UTF8, CODE_POINTS], ids=lambda u: u.name)
@pytest.mark.parametrize("limit", [0, 1, 2, 3, 7, 40])
def test_fit_never_exceeds_the_cap_and_never_splits_a_character(unit: Unit, limit: int) -> None:
    cap = Cap(limit, unit)
    text = ("x" + ROCKET + "é") * 10
    out = fit(text, cap, "[cut]")
    assert cap.fits(out)
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in out)  # whole code points only
    if limit >= 40 and cap.fits(text):
        assert out == text


def test_prefix_within_is_the_longest_prefix() -> None:
    text = ROCKET * 5
    assert prefix_within(text, 5, utf16_units) == ROCKET * 2
    assert prefix_within(text, 10, utf16_units) == text
    assert prefix_within(text, 1, utf16_units) == ""


SUMMARY_VIEWS = [
    pytest.param(
        "<analysis>secret plan</analysis>\n<summary>\nDone.\n</summary>",
        "Summary:\nDone.",
        id="analysis-dropped-summary-relabelled",
    ),
    pytest.param(
        "<summary>first</summary><analysis>kept</analysis>",
        "Summary:\nfirst<analysis>kept</analysis>",
        id="analysis-after-a-summary-tag-is-kept",
    ),
    pytest.param(
        "<analysis>a</analysis><analysis>b</analysis>",
        "<analysis>b</analysis>",
        id="only-the-first-analysis-block",
    ),
    pytest.param(
        "<analysis>open <summary>x</summary>", "<analysis>open Summary:\nx", id="unclosed"
    ),
    pytest.param("<Analysis>x</Analysis>", "<Analysis>x</Analysis>", id="case-sensitive"),
    pytest.param("a\n\n\n\nb\n\nc", "a\nb\nc", id="blank-lines-collapse"),
    pytest.param("  no tags  ", "no tags", id="trimmed"),
    pytest.param("</analysis><analysis>x", "</analysis><analysis>x", id="close-before-open"),
]


@pytest.mark.parametrize(("raw", "seen"), SUMMARY_VIEWS)
def test_summary_as_claude_code_shows_it(raw: str, seen: str) -> None:
    assert summary_as_seen(raw) == seen


def test_a_summary_view_is_linear_on_hostile_tags() -> None:
    raw = "<analysis>" * 20000 + "<summary>" * 20000
    assert summary_as_seen(raw).startswith("<analysis>")


@pytest.mark.parametrize(
    ("command", "line"),
    [
        pytest.param("make test", "make test", id="one-line"),
        pytest.param("touch x\ngo test ./...", "touch x; go test ./...", id="newline"),
        pytest.param("go test \\\n  ./...", "go test    ./...", id="continuation"),
    ],
)
def test_one_line(command: str, line: str) -> None:
    assert one_line(command) == line


@pytest.mark.parametrize(
    ("text", "span"),
    [
        pytest.param("ls", "`ls`", id="plain"),
        pytest.param("echo `date`", "`` echo `date` ``", id="ticks"),
        pytest.param("`x`", "`` `x` ``", id="edges"),
    ],
)
def test_code_span_holds_any_backticks(text: str, span: str) -> None:
    assert code_span(text) == span


@pytest.mark.parametrize(
    ("error", "line"),
    [
        pytest.param(
            "Exit code 2\nls: no such file\nmore", "Exit code 2: ls: no such file", id="exit"
        ),
        pytest.param("File does not exist.", "File does not exist.", id="plain"),
        pytest.param("", "failed", id="empty"),
        pytest.param("Exit code 1", "Exit code 1", id="exit-only"),
    ],
)
def test_failure_line(error: str, line: str) -> None:
    assert failure_line(error) == line


@pytest.mark.parametrize(
    "command",
    [
        "ls /nonexistent-dir",
        "go test -tags=musl ./...",
        "echo 'it''s' | grep -c x",
        pytest.param("touch x\ngo test -tags=musl ./...", id="newline"),
        "echo `date` && make",
    ],
)
def test_the_record_command_records_a_row_that_matches_the_command(command: str) -> None:
    words = shlex.split(record_command(Pending(1, command, "Exit code 1\nboom", "t")))
    assert words[:3] == ["rehydrate", "fail", "add"]
    tried = words[words.index("--tried") + 1]
    assert words[words.index("--workaround") + 1] == WORKAROUND
    assert "\n" not in tried
    attempts = attempts_in_cell(tried)
    assert attempts and any(
        match(candidate, attempt) is not None
        for candidate in commands_in(command)
        for attempt in attempts
    )
