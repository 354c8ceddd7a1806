"""How many git processes a pre-tool hook starts per shell call (issue 28 item 5), counted
with git's own trace on real repositories, while every copy of the failed-attempts ledger
is still judged: one to find the repository and HEAD, one for the ids of every HEAD and
index copy, and one more, for all of them together, only where a copy differs from the
work tree's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import commit, git, run

REPEAT = "go test -tags=musl ./..."  # F-001 of the example ledgers
OTHER = "go test ./..."
LEDGER = "docs/Failed_Attempts.md"
ROW = "| F-002 | `make deploy-fast` | the cache was stale | make deploy |\n"


def _pre_tool(ledger_repo: Path, command: str, trace: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The permission decision of Claude Code's pre-tool hook ("allow" when none)."""
    monkeypatch.setenv("GIT_TRACE", str(trace))
    event = {"session_id": "s", "cwd": str(ledger_repo), "tool_name": "Bash"}
    raw = json.dumps({**event, "tool_input": {"command": command}})
    result = run(ledger_repo, "hook", "claude", "pre-tool-use", input=raw)
    monkeypatch.delenv("GIT_TRACE")
    assert result.code == 0, result
    out = json.loads(result.out) if result.out.strip() else {}
    return str(out.get("hookSpecificOutput", {}).get("permissionDecision", "allow"))


def _processes(trace: Path) -> list[str]:
    """The git commands started, in order (one ``trace: built-in`` line each)."""
    lines = trace.read_text().splitlines() if trace.exists() else []
    return [line.split("built-in: ", 1)[1] for line in lines if "trace: built-in: " in line]


def _without_row(ledger_repo: Path, row: str) -> None:
    path = ledger_repo / LEDGER
    path.write_text("".join(x for x in path.read_text().splitlines(True) if row not in x))


def _with_row(ledger_repo: Path) -> None:
    path = ledger_repo / LEDGER
    text = path.read_text()
    path.write_text(text.replace("\n\n## Retired", "\n" + ROW + "\n## Retired", 1))


def test_every_copy_the_work_trees_costs_two_git_processes(
    ledger_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "trace"
    assert _pre_tool(ledger_repo, OTHER, trace, monkeypatch) == "allow"
    started = _processes(trace)
    assert len(started) == 2, started
    assert started[0].startswith("git rev-parse"), started
    assert started[1] == "git cat-file --batch-check", started


def test_index_and_head_copies_are_read_with_one_process(
    ledger_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three different copies: F-001 only in HEAD, F-002 only in the index; both refused."""
    _with_row(ledger_repo)
    _without_row(ledger_repo, "F-001")
    git(ledger_repo, "add", LEDGER)
    _without_row(ledger_repo, "F-002")
    for command in (REPEAT, "make deploy-fast"):
        trace = tmp_path / f"trace-{len(command)}"
        assert _pre_tool(ledger_repo, command, trace, monkeypatch) == "deny", command
        started = _processes(trace)
        assert started.count("git cat-file --batch") == 1, started
        assert len(started) == 3, started
    trace = tmp_path / "trace-allowed"
    assert _pre_tool(ledger_repo, OTHER, trace, monkeypatch) == "allow"  # the legitimate twin
    assert len(_processes(trace)) == 3


def test_a_settings_file_changed_in_index_and_work_tree_is_read_with_one_process(
    ledger_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ledger_repo / "pyproject.toml").write_text('[project]\nname = "x"\n')
    commit(ledger_repo, "pyproject")
    (ledger_repo / "pyproject.toml").write_text('[project]\nname = "y"\n')
    git(ledger_repo, "add", "pyproject.toml")
    (ledger_repo / "pyproject.toml").write_text('[project]\nname = "z"\n')
    trace = tmp_path / "trace"
    assert _pre_tool(ledger_repo, REPEAT, trace, monkeypatch) == "deny"
    started = _processes(trace)
    assert started.count("git cat-file --batch") == 1, started


def test_the_kinds_judged_are_the_ledgers_kinds() -> None:
    from rehydrate.agents.judging import KINDS
    from rehydrate.ledgers import KINDS as PARSED

    assert KINDS == PARSED


def test_a_shell_call_on_ledgers_parsed_before_imports_no_parser(ledger_repo: Path) -> None:
    """The parser (``rehydrate.ledgers``, ~5 ms of imports) is for a ledger whose blob did
    not parse before; the first call parses, the next ones read bytes only."""
    raw = json.dumps({"session_id": "s", "cwd": str(ledger_repo), "tool_name": "Bash"})
    raw = raw[:-1] + ', "tool_input": {"command": "go test ./..."}}'
    argv = [sys.executable, "-X", "importtime", "-I", "-m", "rehydrate"]
    argv += ["hook", "claude", "pre-tool-use"]
    first = subprocess.run(argv, cwd=ledger_repo, input=raw, capture_output=True, text=True)
    assert "rehydrate.ledgers" in first.stderr  # the first call parses them
    again = subprocess.run(argv, cwd=ledger_repo, input=raw, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in again.stderr.splitlines()]
    assert "rehydrate.agents.tools" in imported  # the check ran
    assert not [m for m in imported if m.startswith(("rehydrate.ledgers", "rehydrate.state"))]
