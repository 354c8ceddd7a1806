"""What the shell's own state makes a line run (issue 28 item 1): `shift` in a function,
a slice of the parameters or of an array, `read` and `printf -v` setting a variable from
text written out, aliases (a value ending in a blank, after `time`, in `eval`'s text),
and `time`/`!` before a compound command, which the grammar reads as a command named
`time` or `{`. Each case is labelled by what real bash runs: the test runs it with an
`rm` on the PATH that records its arguments, so a label cannot drift from bash; the
check must refuse exactly the lines that run `rm -rf build`, and allow every twin."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rehydrate.agents.commands import attempts_in_cell, commands_in, match

ROW = "`rm -rf build`"
ALIASES = "shopt -s expand_aliases\n"  # bash -c expands no alias without it (an agent's shell may)

# (line, whether bash runs `rm -rf build`)
CASES = [
    # shift: the parameters without their first N, where the shift runs for certain
    ('f() { shift; "$@"; }; f x rm -rf build', True),
    ('f() { shift; "$@"; }; f rm -rf build', False),
    (
        'retry() { local n=$1; shift; for i in $(seq $n); do "$@" && break; done; }; '
        "retry 3 rm -rf build",
        True,
    ),
    ('x() { shift 2; "$@"; }; x a b rm -rf build', True),
    ('x() { shift 2; "$@"; }; x a rm -rf build', False),
    ('set -- x rm -rf build; shift; "$@"', True),
    ('set -- x rm -rf build; if false; then shift; fi; "$@"', False),
    ('n=1; set -- x rm -rf build; shift $n; "$@"', True),
    ('f() { local a=$1; shift; "$a" "$@"; }; f rm -rf build', True),
    ('f() { ( shift; "$@" ); }; f x rm -rf build', True),
    ('f() { "$@"; }; g() { shift; f "$@"; }; g x rm -rf build', True),
    # what a function's body sets is known in it where it is called, not after it
    ("f() { c=rm; $c -rf build; }; f", True),
    ("f() { c=rm; }; g() { $c -rf build; }; g", False),
    # slices of the parameters and of arrays
    ('g() { "${@:2}"; }; g x rm -rf build', True),
    ('g() { "${@:3}"; }; g x rm -rf build', False),
    ('a=(x rm -rf build); "${a[@]:1}"', True),
    ('a=(x rm -rf build); "${a[@]:2}"', False),
    ('a=(rm -rf build x); "${a[@]:0:3}"', True),
    ('a=(rm -rf build x); "${a[@]:0:4}"', False),
    # aliases: in force from the next line; a value ending in a blank reads the next word
    # as one too; a value's first word is one in turn; after `time`; in `eval`'s text
    (ALIASES + "alias s='nice '\nalias r='rm -rf'\ns r build", True),
    (ALIASES + "alias s='nice'\nalias r='rm -rf'\ns r build", False),
    (ALIASES + "alias s='nice ' n='nice '\nalias r='rm -rf'\ns n r build", True),
    (ALIASES + "alias t='time '\nalias d='rm -rf'\nt d build", True),
    (ALIASES + "alias r='rm -rf'\ntime r build", True),
    (ALIASES + "alias r='rm -rf'\ntime 'r' build", False),
    (ALIASES + "alias r='rm -rf'\neval r build", True),
    (ALIASES + "alias r='rm -rf'\neval 'echo x; r build'", True),
    (ALIASES + "alias r='rm -rf'\neval 'echo r build'", False),
    (ALIASES + "alias w=r r='rm -rf'\nw build", True),
    (ALIASES + "alias x='true; r build' r='rm -rf'\nx", True),
    (ALIASES + "alias r='rm -rf'; r build", False),  # not yet in force on its own line
    # `time` and `!` before a compound command
    ("time { rm -rf build; }", True),
    ("time -p { rm -rf build; }", True),
    ("! { rm -rf build; }", True),
    ("time if true; then rm -rf build; fi", True),
    ('time for d in build; do rm -rf "$d"; done', True),
    ("true | time { rm -rf build; }", False),  # `time` starts a pipeline only: an error
    ("time true | { rm -rf build; }", True),
    ("time { time { rm -rf build; }; }", True),
    ("time { rm -rf build.old; }", False),
    ("echo time { rm -rf build; }", False),  # `}` out of place: bash runs nothing
    # read and printf -v: a value from text written out
    ("read -r c <<< 'rm -rf build'; $c", True),
    ("read -r p a <<< 'rm -rf build'; $p $a", True),
    ("read -r p a <<< 'rm -rf build'; $p $p", False),
    ("read <<< 'rm -rf build'; $REPLY", True),
    ("read -r c <<'EOF'\nrm -rf build\nEOF\n$c", True),
    ("read -r c <<< 'rm -rf build.old'; $c", False),
    ("( read -r c <<< 'rm -rf build' ); $c", False),
    ("printf -v c '%s -rf %s' rm build; $c", True),
    ("printf -v c '%s %s' rm -rf build; $c", False),  # the format again: `rm -rfbuild `
    ("D=build; printf -v c 'rm -rf %s' \"$D\"; $c", True),
    ("printf -v c 'rm -rf %s' build; echo $c", False),
    ("printf -v c 'rm -rf build\\n'; $c", True),  # an escape printf reads: a newline
    # a value printed by one `echo` or `printf` in a substitution
    ("c=$(printf 'rm -rf %s' build); $c", True),
    ("c=$(echo rm -rf build); $c", True),
    ('c="$(echo rm -rf build)"; $c', True),
    ("c=`echo rm -rf build`; $c", True),
    ("c=$(echo -n rm -rf build); $c", True),
    ("D=build; c=$(echo rm -rf $D); $c", True),
    ("c=$(echo rm -rf build.old); $c", False),
    ("c=$(echo rm -rf build; echo x); $c", False),  # two lines: `rm -rf build x`
    ("c=$(printf '%s %s' rm -rf build); $c", False),
    ("c=$(echo rm -rf build); echo $c", False),
]


def _refused(line: str) -> bool:
    return any(
        match(candidate, attempt) == "exact"
        for attempt in attempts_in_cell(ROW)
        for candidate in commands_in(line)
    )


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with an `rm` that records its arguments (and nothing else)."""
    folder = tmp_path_factory.mktemp("shim")
    rm = folder / "rm"
    rm.write_text('#!/bin/sh\nprintf \'%s\\n\' "$*" >> "$MARK"\n', encoding="utf-8")
    rm.chmod(0o755)
    return folder


@pytest.mark.parametrize(("line", "runs"), CASES)
def test_the_label_is_what_bash_runs(shim: Path, tmp_path: Path, line: str, runs: bool) -> None:
    bash = shutil.which("bash")
    assert bash, "bash is what these labels are checked against"
    mark = tmp_path / "ran"
    env = {"PATH": f"{shim}:/usr/bin:/bin", "MARK": str(mark), "HOME": str(tmp_path)}
    subprocess.run([bash, "-c", line], cwd=tmp_path, env=env, capture_output=True, timeout=30)
    ran = mark.read_text(encoding="utf-8").splitlines() if mark.exists() else []
    assert ("-rf build" in ran) == runs, ran


@pytest.mark.parametrize(("line", "runs"), CASES)
def test_the_check_refuses_what_runs_the_row_and_allows_its_twins(
    tmp_path: Path, line: str, runs: bool
) -> None:
    here = os.getcwd()
    os.chdir(tmp_path)  # where the row was recorded: no script here to read
    try:
        assert _refused(line) == runs
    finally:
        os.chdir(here)


def test_a_prefix_nested_past_the_passes_is_read_word_by_word_and_said() -> None:
    from rehydrate.agents import shell

    deep = "time { " * (shell.MAX_PREFIX_PASSES + 2) + "rm -rf build" + "; }" * 12
    script = shell.parse(deep)
    assert script.problems and "nested deeper" in script.problems[0]
    assert ("rm", "-rf", "build") in [c.words for c in script.commands]
    assert _refused(deep)


def test_aliases_put_in_past_their_budget_are_said_unread() -> None:
    from rehydrate.agents import commandline, shell

    big = "x" * (shell.ALIAS_BUDGET // 2)
    line = f"alias a='{big}'\n" + "a;" * 400
    reading = commandline.read(line)
    assert any("aliases put in" in p for p in reading.problems)


def test_the_real_hook_refuses_a_timed_group_and_lets_its_twin_run(ledger_repo: Path) -> None:
    """Through the launch line the installers write, on a ledger holding the row."""
    from conftest import only_row, pre_tool_answers

    only_row(ledger_repo, "| F-001 | `rm -rf build` | wiped the cache | make clean |\n")
    timed, twin = "time { rm -rf build; }", "time { rm -rf build.old; }"
    answers = pre_tool_answers(ledger_repo, [timed, twin])
    denied = answers[timed]["hookSpecificOutput"]
    assert isinstance(denied, dict) and denied["permissionDecision"] == "deny"
    assert "F-001" in denied["permissionDecisionReason"]
    allowed = answers[twin].get("hookSpecificOutput", {})
    assert not isinstance(allowed, dict) or allowed.get("permissionDecision") != "deny"
