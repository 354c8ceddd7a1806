"""``rehydrate status``: the one-screen view (real repos; a real pseudo-terminal for colour)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import commit, git, run, write
from rehydrate.cli.status import use_color
from rehydrate.ledgers.model import Phase
from rehydrate.views.status import parse_due, progress_bar


def _task(path: Path, old: str, new: str, revision: int) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new).replace("revision: 1\n", f"revision: {revision}\n")
    path.write_text(text, encoding="utf-8")


@pytest.fixture(autouse=True)
def _today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REHYDRATE_TODAY", "2030-01-05")


def test_status_shows_task_phases_next_action_and_counts(ledger_repo: Path) -> None:
    result = run(ledger_repo, "status")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("Task T-001 (revision 1): Example objective")
    assert "Phases     [-] 0/1 done" in result.out
    assert "Next       Example: write the failing test" in result.out
    assert "Continuity reauthorization_required" in result.out
    assert "constraints 1 active, 0 retired" in result.out
    assert "Uncommitted ledger changes: none" in result.out
    assert "\x1b[" not in result.out  # not a terminal: plain


def test_status_puts_blocked_writes_first_and_still_exits_0(ledger_repo: Path) -> None:
    _task(
        ledger_repo / "docs/Task.md",
        "| pending | example-key-001 |",
        "| unknown | example-key-001 |",
        2,
    )
    commit(ledger_repo, "write outcome unknown")
    result = run(ledger_repo, "status")
    assert result.code == 0  # a view, not a gate: `check` exits 3
    assert result.out.index("BLOCKED ON RECONCILIATION") < result.out.index("Phases")
    assert "E-001  Example: create the release tag" in result.out
    assert "blocked_on_reconciliation (`rehydrate check` exits 3)" in result.out
    assert run(ledger_repo, "check").code == 3


@pytest.mark.parametrize(
    "due, today, overdue_days",
    [
        pytest.param("2030-01-01", "2030-01-05", 4, id="overdue"),
        pytest.param("2030-01-05", "2030-01-05", 0, id="due-today"),
        pytest.param("2030-02-01", "2030-01-05", -27, id="future"),
        pytest.param("2030-01-01 (board meeting)", "2030-01-02", 1, id="date-then-text"),
        pytest.param("next sprint", "2030-01-05", None, id="not-a-date"),
        pytest.param("2030-02-30", "2030-01-05", None, id="impossible-date"),
        pytest.param("", "2030-01-05", None, id="empty"),
    ],
)
def test_status_flags_overdue_decisions(
    ledger_repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    due: str,
    today: str,
    overdue_days: int | None,
) -> None:
    spec = ledger_repo / "docs/Spec.md"
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("| 2030-01-01 |", f"| {due} |"), encoding="utf-8"
    )
    monkeypatch.setenv("REHYDRATE_TODAY", today)
    data = json.loads(run(ledger_repo, "status", "--json").out)
    [decision] = data["open_decisions"]
    assert decision["due"] == due
    assert decision["overdue"] is bool(overdue_days and overdue_days > 0)
    assert decision["overdue_days"] == (overdue_days or 0)
    text = run(ledger_repo, "status").out
    assert ("OVERDUE by" in text) is bool(overdue_days and overdue_days > 0)


def test_status_lists_uncommitted_ledger_changes_and_reads_the_work_tree(ledger_repo: Path) -> None:
    _task(
        ledger_repo / "docs/Task.md",
        "| P1 | Example: reproduce the bug with a failing test | todo |",
        "| P1 | Example: reproduce the bug with a failing test | done |",
        2,
    )
    result = run(ledger_repo, "status")
    assert "[#] 1/1 done" in result.out  # the work tree, by default
    assert "Uncommitted ledger changes (work tree differs from HEAD" in result.out
    assert "  docs/Task.md" in result.out
    at_head = run(ledger_repo, "status", "--rev", "HEAD")
    assert "[-] 0/1 done" in at_head.out
    assert "  docs/Task.md" in at_head.out  # still says the work tree differs
    assert json.loads(run(ledger_repo, "status", "--json").out)["uncommitted"] == ["docs/Task.md"]


def test_status_before_the_first_commit(repo: Path) -> None:
    from conftest import scaffold

    scaffold(repo)
    result = run(repo, "status")
    assert result.code == 0
    assert "HEAD no commits yet" in result.out
    assert "docs/Spec.md" in result.out and "docs/Failed_Attempts.md" in result.out


def test_status_marks_stale_verifications(ledger_repo: Path) -> None:
    write(ledger_repo, "src/app.py", "print('v1')\n")
    commit(ledger_repo, "code")
    blob = git(ledger_repo, "rev-parse", "HEAD:src/app.py").stdout.strip()
    header = "| ID | Check | Artifact | Blob | Report |\n|---|---|---|---|---|\n"
    _task(
        ledger_repo / "docs/Task.md",
        header,
        header + f"| V-001 | unit tests pass | `src/app.py` | {blob} | ci.log |\n",
        2,
    )
    commit(ledger_repo, "verified")
    assert "Stale verifications" not in run(ledger_repo, "status").out
    write(ledger_repo, "src/app.py", "print('v2')\n")
    result = run(ledger_repo, "status")
    assert "Stale verifications" in result.out
    assert f"V-001  unit tests pass  `src/app.py`: checked at {blob[:12]}" in result.out
    data = json.loads(run(ledger_repo, "status", "--json").out)
    assert [s["id"] for s in data["stale_verifications"]] == ["V-001"]
    assert data["stale_verifications"][0]["recorded_blob"] == blob
    # At HEAD the artifact is the checked one: not stale there.
    assert "Stale verifications" not in run(ledger_repo, "status", "--rev", "HEAD").out


def test_status_json_is_one_object_with_schema(ledger_repo: Path) -> None:
    result = run(ledger_repo, "status", "--json")
    data = json.loads(result.out)
    assert data["schema"] == "rehydrate/status-v1"
    assert data["today"] == "2030-01-05"
    assert data["task"] == {
        "id": "T-001",
        "revision": 1,
        "objective": "Example objective - replace with what this task must achieve",
    }
    assert data["phases"]["done"] == 0 and data["phases"]["total"] == 1
    assert data["decision"]["decision"] == "reauthorization_required"
    assert data["counts"]["constraints"] == {"active": 1, "retired": 0}
    assert [w["id"] for w in data["pending_writes"]] == ["E-001"]


@pytest.mark.parametrize(
    "mutation, code",
    [
        pytest.param(("docs/Task.md", "| P1 |", "| P1 | extra |"), "table_malformed", id="bad-row"),
        pytest.param(
            ("docs/Spec.md", "| MUST NOT |", "| MUSTNT |"), "unknown_level", id="unknown-level"
        ),
    ],
)
def test_status_exits_2_on_unreadable_ledgers(
    ledger_repo: Path, mutation: tuple[str, str, str], code: str
) -> None:
    path, old, new = mutation
    target = ledger_repo / path
    target.write_text(target.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    result = run(ledger_repo, "status")
    assert result.code == 2
    assert path in result.err and code in result.err
    assert result.out == ""


def test_status_refuses_a_bad_today(ledger_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REHYDRATE_TODAY", "tomorrow")
    result = run(ledger_repo, "status")
    assert result.code == 2 and "REHYDRATE_TODAY" in result.err


@pytest.mark.parametrize(
    "statuses, bar",
    [
        pytest.param((), "[]", id="none"),
        pytest.param(("done", "done", "doing", "todo", "todo"), "[##>--]", id="per-phase"),
        pytest.param(("done",) * 30 + ("todo",) * 10, "[###############-----]", id="scaled"),
        pytest.param(
            ("done",) * 10 + ("doing",) + ("todo",) * 29,
            "[#####>--------------]",
            id="scaled-doing",
        ),
    ],
)
def test_progress_bar(statuses: tuple[str, ...], bar: str) -> None:
    phases = [Phase(f"P{i}", i, "x", s) for i, s in enumerate(statuses)]
    assert progress_bar(phases) == bar


@pytest.mark.parametrize(
    "isatty, env, expected",
    [
        pytest.param(True, {}, True, id="terminal"),
        pytest.param(False, {}, False, id="piped"),
        pytest.param(True, {"NO_COLOR": "1"}, False, id="no-color"),
        pytest.param(True, {"NO_COLOR": ""}, True, id="no-color-empty-is-unset"),
        pytest.param(True, {"TERM": "dumb"}, False, id="dumb-terminal"),
    ],
)
def test_use_color(isatty: bool, env: dict[str, str], expected: bool) -> None:
    assert use_color(isatty, env) is expected


def test_parse_due_reads_only_leading_iso_dates() -> None:
    assert parse_due("2026-03-04") == dt.date(2026, 3, 4)
    assert parse_due("4 March") is None


def _in_pty(repo: Path, env: dict[str, str]) -> str:
    """Run `python -m rehydrate status` with a pseudo-terminal as stdout: a real TTY."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rehydrate", "status"],
        cwd=repo,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO once the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait()
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_status_is_coloured_on_a_terminal_and_plain_with_no_color(ledger_repo: Path) -> None:
    _task(
        ledger_repo / "docs/Task.md",
        "| pending | example-key-001 |",
        "| unknown | example-key-001 |",
        2,
    )
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS")}
    env["TERM"] = "xterm-256color"
    coloured = _in_pty(ledger_repo, {**env, "COLUMNS": "1000"})
    assert "\x1b[31m\x1b[1mBLOCKED ON RECONCILIATION" in coloured
    plain = _in_pty(ledger_repo, {**env, "NO_COLOR": "1", "COLUMNS": "1000"})
    assert "\x1b[" in _in_pty(ledger_repo, {**env, "NO_COLOR": "", "COLUMNS": "1000"})
    assert "BLOCKED ON RECONCILIATION" in plain and "\x1b[" not in plain
    piped = subprocess.run(
        [sys.executable, "-m", "rehydrate", "status"],
        cwd=ledger_repo,
        capture_output=True,
        text=True,
        env=env,
    )
    assert piped.returncode == 0 and "\x1b[" not in piped.stdout
    assert piped.stdout.replace("\n", "") == plain.replace("\r\n", "")


@pytest.mark.parametrize("width", [40, 60, 80])
def test_fit_wraps_at_spaces_never_inside_a_word(width: int) -> None:
    from rehydrate.cli.status import fit

    text = (
        "Next       Write the backfill runbook in docs/runbook.md and link it from the README\n"
        "  D-002  How long are exported files kept in the archive?  owner Maya Chen\n"
        "short"
    )
    out = fit(text, width).split("\n")
    assert all(len(line) <= width for line in out), out
    assert " ".join(" ".join(out).split()) == " ".join(text.split())  # every word, whole
    assert out[-1] == "short"
    label_rest = [line for line in out[1:] if line.startswith(" " * 11) and "runbook" in line]
    assert all(not line[11].isspace() for line in label_rest)
    assert fit(text, None) == text  # piped: untouched


def test_fit_keeps_a_word_longer_than_the_screen_whole() -> None:
    """A word wider than the screen is never cut: it gets a line of its own."""
    from rehydrate.cli.status import fit

    word = "x" * 30
    rest = " " * 11
    assert fit(f"Next       {word} y", 20).split("\n") == ["Next", rest + word, rest + "y"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_status_on_a_60_column_terminal_wraps_between_words(ledger_repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    screen = _in_pty(ledger_repo, {**env, "NO_COLOR": "1", "COLUMNS": "60"})
    lines = screen.replace("\r\n", "\n").split("\n")
    assert max(len(line) for line in lines) <= 60, screen
    piped = subprocess.run(
        [sys.executable, "-m", "rehydrate", "status"],
        cwd=ledger_repo,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    assert max(len(line) for line in piped.split("\n")) > 60  # the case is real
    assert screen.split() == piped.split()  # the same words, none cut


def test_status_without_phases_says_how_to_add_one(tmp_path: Path) -> None:
    from conftest import git, run

    git(tmp_path, "init", "-q")
    assert run(tmp_path, "init", "--no-hook").code == 0
    out = run(tmp_path, "status").out
    assert "Phases     none yet (rehydrate task phase add" in out and "[]" not in out
