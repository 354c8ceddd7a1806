"""Claude Code hook adapters: documented event JSON in, validated hook JSON out."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, git, run, run_subprocess, write
from rehydrate.agents.claude import (
    CONTEXT_LIMIT,
    PROMPT_FILE,
    VERDICT_FILE,
    WARNING_FILE,
    hold_file,
)
from rehydrate.agents.claude_install import hook_command, merge_settings

COMMON = {"session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": "."}


@pytest.fixture(autouse=True)
def _no_project_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


PLAIN_STDOUT = ("pre-compact", "post-compact")  # Claude Code reads their stdout as text


def hook(repo: Path, name: str, event: dict[str, Any] | str) -> tuple[int, Any, str]:
    """Run one hook; returns (exit code, parsed stdout JSON, plain text or None, stderr)."""
    raw = event if isinstance(event, str) else json.dumps({**COMMON, **event})
    result = run(repo, "hook", "claude", name, input=raw)
    if name in PLAIN_STDOUT:
        return result.code, result.out or None, result.err
    out = json.loads(result.out) if result.out.strip() else None
    if out is not None:
        assert result.out.count("\n") == 1  # exactly one JSON object
    return result.code, out, result.err


def context_of(out: Any) -> str:
    assert set(out) == {"hookSpecificOutput"}
    specific = out["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["hookEventName"] == "SessionStart"
    text = specific["additionalContext"]
    assert isinstance(text, str) and len(text.encode("utf-16-le")) // 2 <= CONTEXT_LIMIT
    return text


def deny_reason(out: Any) -> str:
    specific = out["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "deny"
    return str(specific["permissionDecisionReason"])


@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact"])
def test_session_start_every_source(ledger_repo: Path, source: str) -> None:
    code, out, _ = hook(
        ledger_repo, "session-start", {"hook_event_name": "SessionStart", "source": source}
    )
    assert code == 0
    text = context_of(out)
    assert "Example: write the failing test" in text  # the next action
    assert PROMPT_FILE in text and "work tree" in text
    full = (ledger_repo / PROMPT_FILE).read_text()
    assert "Example: reproduce the bug" in full  # a phase: only in the full prompt
    assert git(ledger_repo, "status", "--porcelain").stdout == ""  # .rehydrate/ is ignored


def test_session_start_blocked_says_so_first(ledger_repo: Path) -> None:
    assert run(ledger_repo, "task", "write", "settle", "E-001", "--status", "unknown").code == 0
    _, out, _ = hook(
        ledger_repo, "session-start", {"hook_event_name": "SessionStart", "source": "startup"}
    )
    first = context_of(out).splitlines()[0]
    assert "BLOCKED ON RECONCILIATION" in first and "E-001" in first


def _big_ledgers(repo: Path) -> None:
    rules = [
        f"| C-{n:03d} | rule number {n}: "
        + "keep the public API stable " * 3
        + f"| {'MUST' if n % 8 == 0 else 'SHOULD'} | review |"
        for n in range(1, 161)
    ]
    write(
        repo,
        "docs/Spec.md",
        "---\nledger: spec\n---\n# Spec\n\n## Constraints\n\n"
        "| ID | Rule | Level | Source |\n|---|---|---|---|\n" + "\n".join(rules) + "\n",
    )
    writes = [
        f"| E-{n:03d} | publish artefact {n} | {'unknown' if n <= 6 else 'confirmed'} | "
        f"key-{n} | {'' if n <= 6 else 'seen'} |"
        for n in range(1, 21)
    ]
    write(
        repo,
        "docs/Task.md",
        "---\nledger: task\ntask: T-1\nrevision: 3\nobjective: big\n---\n# Task\n\n"
        "## Phases\n\n| ID | Phase | Status |\n|---|---|---|\n| P1 | build | doing |\n\n"
        "## Next action\n\nrun the integration suite once\n\n## External writes\n\n"
        "| ID | Operation | Status | Idempotency key | Evidence |\n|---|---|---|---|---|\n"
        + "\n".join(writes)
        + "\n",
    )
    fails = [
        f"| F-{n:03d} | `tool run --case={n}` | failed with a long error message "
        + "about timeouts and retries " * 3
        + f"| use case {n + 1000} |"
        for n in range(1, 251)
    ]
    write(
        repo,
        "docs/Failed_Attempts.md",
        "# Failed attempts\n\n"
        "| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n" + "\n".join(fails) + "\n",
    )
    commit(repo, "big ledgers")


def test_session_start_caps_a_50k_prompt_and_counts_the_rest(repo: Path) -> None:
    _big_ledgers(repo)
    _, out, _ = hook(
        repo, "session-start", {"hook_event_name": "SessionStart", "source": "startup"}
    )
    text = context_of(out)
    full = (repo / PROMPT_FILE).read_text()
    assert len(full) >= 50000
    assert text.splitlines()[0].startswith("**rehydrate: BLOCKED ON RECONCILIATION")
    assert "blocked_on_reconciliation" in text
    assert "run the integration suite once" in text
    for n in range(1, 7):
        assert f"E-{n:03d}" in text
    assert PROMPT_FILE in text
    only = re.search(r"Only in that file: ([^;]*);", text)
    assert only is not None
    counts = dict((k, int(n)) for n, k in re.findall(r"(\d+) ([A-Za-z/ ]+?)(?:,|$)", only.group(1)))
    assert counts["SHOULD/SHOULD NOT/MAY constraints"] == 140
    shown = len(re.findall(r"^\| F-\d{3} \|", text, re.MULTILINE))
    assert shown + counts["failures"] == 250  # nothing left out silently
    must = [f"C-{n:03d}" for n in range(8, 161, 8)]
    assert all(f"| {c} |" in text for c in must)


def test_stored_warning_and_verdict_come_first_then_are_consumed(ledger_repo: Path) -> None:
    write(
        ledger_repo,
        "docs/Task.md",
        (ledger_repo / "docs/Task.md").read_text().replace("revision: 1", "revision: 2"),
    )
    assert (
        hook(ledger_repo, "pre-compact", {"hook_event_name": "PreCompact", "trigger": "auto"})[0]
        == 0
    )
    assert (
        hook(
            ledger_repo,
            "post-compact",
            {
                "hook_event_name": "PostCompact",
                "trigger": "auto",
                "compact_summary": "we worked on things",
            },
        )[0]
        == 0
    )
    _, out, _ = hook(
        ledger_repo, "session-start", {"hook_event_name": "SessionStart", "source": "compact"}
    )
    text = context_of(out)
    first = text.splitlines()[0]
    assert "UNCOMMITTED" in first and "UNFAITHFUL" in first
    assert "constraint_dropped C-001" in text and "next_action_dropped" in text
    assert "docs/Task.md" in text.split("\n\n")[1]
    assert not (ledger_repo / WARNING_FILE).exists()
    assert not (ledger_repo / VERDICT_FILE).exists()
    _, again, _ = hook(
        ledger_repo, "session-start", {"hook_event_name": "SessionStart", "source": "startup"}
    )
    assert "UNFAITHFUL" not in context_of(again)


def _summary(repo: Path, *, drop: str = "") -> str:
    text = (
        "Working on T-001 under C-001; next: Example: write the failing test for the bug "
        "described in the objective. E-001 is pending."
    )
    return text.replace(drop, "") if drop else text


POST_COMPACT = [
    pytest.param("", "faithful", [], id="all-present"),
    pytest.param("C-001", "unfaithful", [("constraint_dropped", "C-001")], id="must-dropped"),
    pytest.param(
        "Example: write the failing test",
        "unfaithful",
        [("next_action_dropped", None)],
        id="next-action-dropped",
    ),
]


@pytest.mark.parametrize(("drop", "summary", "reasons"), POST_COMPACT)
def test_post_compact_verdict(
    ledger_repo: Path, drop: str, summary: str, reasons: list[tuple[str, str | None]]
) -> None:
    code, out, err = hook(
        ledger_repo,
        "post-compact",
        {
            "hook_event_name": "PostCompact",
            "trigger": "manual",
            "compact_summary": _summary(ledger_repo, drop=drop),
        },
    )
    shown = f"rehydrate: compaction summary check (ids): {summary}"
    assert code == 0 and out.lower().startswith(shown)
    verdict = json.loads((ledger_repo / VERDICT_FILE).read_text())
    assert verdict["schema"] == "rehydrate/claude-compact-verdict-v1"
    assert verdict["summary"] == summary and verdict["method"] == "ids"
    assert [(r["code"], r["id"]) for r in verdict["reasons"]] == reasons
    assert "Example" not in json.dumps(verdict)  # IDs and codes only, never ledger prose


def test_post_compact_unknown_write_must_be_named(ledger_repo: Path) -> None:
    run(ledger_repo, "task", "write", "settle", "E-001", "--status", "unknown")
    hook(
        ledger_repo,
        "post-compact",
        {
            "hook_event_name": "PostCompact",
            "trigger": "auto",
            "compact_summary": _summary(ledger_repo, drop="E-001"),
        },
    )
    verdict = json.loads((ledger_repo / VERDICT_FILE).read_text())
    assert ("unknown_write_dropped", "E-001") in [(r["code"], r["id"]) for r in verdict["reasons"]]


def test_post_compact_with_a_manifest_uses_the_verifier(ledger_repo: Path) -> None:
    manifest = run(ledger_repo, "manifest", "--worktree", "--format", "yaml").out
    summary = f"Summary.\n\n```resume-manifest\n{manifest}```\n"
    hook(
        ledger_repo,
        "post-compact",
        {"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": summary},
    )
    verdict = json.loads((ledger_repo / VERDICT_FILE).read_text())
    assert (verdict["method"], verdict["summary"]) == ("manifest", "faithful")


def test_session_start_before_post_compact_delivers_the_verdict_once(ledger_repo: Path) -> None:
    _, out, _ = hook(
        ledger_repo, "session-start", {"hook_event_name": "SessionStart", "source": "compact"}
    )
    assert "not been verified yet" in context_of(out)
    assert (ledger_repo / hold_file("abc123")).exists()
    hook(
        ledger_repo,
        "post-compact",
        {"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": "nothing useful"},
    )
    assert (
        json.loads((ledger_repo / hold_file("abc123")).read_text())["verdict"]["summary"]
        == "unfaithful"
    )
    bash = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
    code, out, _ = hook(ledger_repo, "pre-tool-use", bash)
    assert code == 0 and "UNFAITHFUL" in deny_reason(out) and "C-001" in deny_reason(out)
    assert hook(ledger_repo, "pre-tool-use", bash) == (0, None, "")


def test_session_start_before_faithful_post_compact_stays_quiet(ledger_repo: Path) -> None:
    hook(ledger_repo, "session-start", {"hook_event_name": "SessionStart", "source": "compact"})
    hook(
        ledger_repo,
        "post-compact",
        {
            "hook_event_name": "PostCompact",
            "trigger": "auto",
            "compact_summary": _summary(ledger_repo),
        },
    )
    assert not (ledger_repo / VERDICT_FILE).exists()
    assert not (ledger_repo / hold_file("abc123")).exists()
    bash = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
    assert hook(ledger_repo, "pre-tool-use", bash) == (0, None, "")


def test_pre_tool_use_denies_a_failed_attempt(ledger_repo: Path) -> None:
    code, out, _ = hook(
        ledger_repo,
        "pre-tool-use",
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "go test -tags=musl -v ./...", "description": "tests"},
        },
    )
    assert code == 0
    reason = deny_reason(out)
    assert "F-001" in reason and "Workaround: Example: use the default build tags" in reason


PRE_TOOL_ALLOWED = [
    pytest.param(
        {"tool_name": "Bash", "tool_input": {"command": "go vet ./..."}}, "", id="no-match"
    ),
    pytest.param({"tool_name": "Write", "tool_input": {"file_path": "x"}}, "", id="other-tool"),
    pytest.param("{not json", "not JSON", id="malformed-json"),
    pytest.param("[1, 2]", "not a JSON object", id="not-an-object"),
    pytest.param({"tool_name": "Bash", "tool_input": {}}, "no command", id="no-command"),
    pytest.param(
        {"tool_name": "Bash", "tool_input": "ls"}, "no command", id="tool-input-not-object"
    ),
]


@pytest.mark.parametrize(("event", "note"), PRE_TOOL_ALLOWED)
def test_pre_tool_use_allows_silently_or_with_a_note(
    ledger_repo: Path, event: Any, note: str
) -> None:
    code, out, err = hook(ledger_repo, "pre-tool-use", event)
    assert (code, out) == (0, None)
    assert note in err if note else err == ""


def test_pre_tool_use_denies_when_the_failures_ledger_is_broken(ledger_repo: Path) -> None:
    path = ledger_repo / "docs/Failed_Attempts.md"
    path.write_text(path.read_text() + "| stray |\n")
    code, out, _ = hook(
        ledger_repo, "pre-tool-use", {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    )
    assert code == 0 and "docs/Failed_Attempts.md" in deny_reason(out)


def test_pre_compact_manual_with_uncommitted_ledgers_exits_2(ledger_repo: Path) -> None:
    run(ledger_repo, "task", "check", "add", "lint")
    code, out, err = hook(
        ledger_repo,
        "pre-compact",
        {"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""},
    )
    assert (code, out) == (2, None)  # refused: no instructions for a summary not made
    assert "commit the ledgers first" in err and "docs/Task.md" in err
    assert not (ledger_repo / ".rehydrate/events.jsonl").exists()


def test_pre_compact_auto_with_uncommitted_ledgers_warns(ledger_repo: Path) -> None:
    run(ledger_repo, "task", "check", "add", "lint")
    code, out, err = hook(
        ledger_repo, "pre-compact", {"hook_event_name": "PreCompact", "trigger": "auto"}
    )
    assert code == 0 and "```resume-manifest" in out  # the summary is still shaped
    assert "automatic compaction over uncommitted ledger changes in docs/Task.md" in err
    assert json.loads((ledger_repo / WARNING_FILE).read_text())["paths"] == ["docs/Task.md"]


def test_pre_compact_clean_records_the_compaction_event(ledger_repo: Path) -> None:
    code, out, err = hook(
        ledger_repo, "pre-compact", {"hook_event_name": "PreCompact", "trigger": "manual"}
    )
    assert (code, err) == (0, "") and "C-001 (MUST NOT)" in out
    events = [
        json.loads(line)
        for line in (ledger_repo / ".rehydrate/events.jsonl").read_text().splitlines()
    ]
    assert [e["event"] for e in events] == ["context_compaction"]
    assert not (ledger_repo / WARNING_FILE).exists()


def test_stop_blocks_once_while_ledgers_are_uncommitted(ledger_repo: Path) -> None:
    assert hook(ledger_repo, "stop", {"hook_event_name": "Stop", "stop_hook_active": False}) == (
        0,
        None,
        "",
    )
    run(ledger_repo, "fail", "add", "--tried", "`x`", "--failure", "y", "--workaround", "z")
    code, out, _ = hook(ledger_repo, "stop", {"hook_event_name": "Stop", "stop_hook_active": False})
    assert code == 0 and out["decision"] == "block"
    assert "docs/Failed_Attempts.md" in out["reason"] and "git commit" in out["reason"]
    code, out, err = hook(
        ledger_repo, "stop", {"hook_event_name": "Stop", "stop_hook_active": True}
    )
    assert (code, out) == (0, None) and "not blocking again" in err


def test_stop_blocks_on_a_broken_ledger(ledger_repo: Path) -> None:
    write(ledger_repo, "docs/Spec.md", "<<<<<<< HEAD\n")
    commit(ledger_repo, "broken")
    _, out, _ = hook(ledger_repo, "stop", {"hook_event_name": "Stop"})
    assert out["decision"] == "block" and "docs/Spec.md" in out["reason"]


def test_hooks_run_as_real_processes(ledger_repo: Path) -> None:
    event = json.dumps({**COMMON, "hook_event_name": "SessionStart", "source": "startup"})
    result = run_subprocess(ledger_repo, "hook", "claude", "session-start", input=event)
    assert result.code == 0
    assert len(json.loads(result.out)["hookSpecificOutput"]["additionalContext"]) < 10000
    bash = json.dumps(
        {
            **COMMON,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "go test -tags=musl ./..."},
        }
    )
    denied = run_subprocess(ledger_repo, "hook", "claude", "pre-tool-use", input=bash)
    assert denied.code == 0 and "deny" in denied.out


def test_init_claude_merges_settings_and_is_idempotent(repo: Path) -> None:
    user = {
        "model": "opus",
        "permissions": {"allow": ["Bash(ls)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt"}]}]
        },
    }
    write(repo, ".claude/settings.json", json.dumps(user))
    assert run(repo, "init", "--claude", "--no-hook").code == 0
    first = (repo / ".claude/settings.json").read_text()
    settings = json.loads(first)
    assert settings["model"] == "opus" and settings["permissions"] == user["permissions"]
    assert settings["hooks"]["PreToolUse"][0] == user["hooks"]["PreToolUse"][0]
    assert settings["hooks"]["PreToolUse"][1] == {
        "matcher": "*",
        "hooks": [{"type": "command", "command": hook_command("pre-tool-use")}],
    }
    failure = hook_command("post-tool-use-failure")
    assert settings["hooks"]["PostToolUseFailure"] == [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": failure}]}
    ]
    for event, name in (
        ("SessionStart", "session-start"),
        ("SubagentStart", "subagent-start"),
        ("PreCompact", "pre-compact"),
        ("PostCompact", "post-compact"),
        ("Stop", "stop"),
    ):
        assert settings["hooks"][event] == [
            {"hooks": [{"type": "command", "command": hook_command(name)}]}
        ]
    claude_md = (repo / "CLAUDE.md").read_text()
    assert claude_md.count("<!-- rehydrate:begin -->") == 1
    assert "rehydrate fail add" in claude_md and "rehydrate check-command" in claude_md
    assert run(repo, "init", "--claude", "--no-hook").code == 0
    assert (repo / ".claude/settings.json").read_text() == first
    assert (repo / "CLAUDE.md").read_text() == claude_md


def test_init_claude_never_overwrites_invalid_settings(repo: Path) -> None:
    write(repo, ".claude/settings.json", "{ not json")
    result = run(repo, "init", "--claude", "--no-hook")
    assert result.code == 2 and "settings_invalid" in result.err
    assert (repo / ".claude/settings.json").read_text() == "{ not json"


def test_merge_settings_keeps_an_existing_rehydrate_hook() -> None:
    settings, changed = merge_settings({})
    again, changed_again = merge_settings(settings)
    assert changed and not changed_again and again == settings
