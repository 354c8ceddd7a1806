"""A runtime is a row: an imaginary runtime with ordinary JSON hooks (Claude Code's shape),
defined here as one ``RUNTIMES`` row and nothing else (no adapter module, no installer,
no doctor module), is installed, answers its hooks through ``rehydrate hook`` and is
checked by ``rehydrate doctor``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import run
from rehydrate.agents import runtimes
from rehydrate.agents.runtimes import (
    HOLD,
    REFUSE,
    Doctor,
    HookFile,
    Hooks,
    Layout,
    RuntimeInfo,
    Support,
)

FAILED = "go test -tags=musl ./..."  # F-001 of the example ledgers
FILE = ".acme/hooks.json"
ROW = RuntimeInfo(
    name="acme",
    title="Acme",
    installer="",  # the row's hook file merged
    doc="docs/integrations/runtimes.md",
    version="1.0",
    tested="documented JSON",
    support={action: Support(True, "") for action in runtimes.ACTIONS},
    launch_files=(FILE,),
    hooks=Hooks(
        title="Acme",
        help="Acme hooks: session-start, pre-tool-use, stop.",
        events={
            "session-start": "Give the capped core.",
            "pre-tool-use": "Deny a repeated failed attempt.",
            "stop": "Hold the stop once.",
        },
        unread={"pre-tool-use": "tool call allowed unchecked"},
        fail={"pre-tool-use": REFUSE, "stop": HOLD},
        actions={"session-start": "start", "pre-tool-use": "tool", "stop": "stop"},
    ),
    hook_file=HookFile(
        FILE,
        Layout("acme", grouped=True, extra={"type": "command"}),
        {
            "SessionStart": (None, "session-start", {}),
            "PreToolUse": ("*", "pre-tool-use", {}),
            "Stop": (None, "stop", {}),
        },
    ),
    doctor=(Doctor(),),
)


@pytest.fixture
def acme(monkeypatch: pytest.MonkeyPatch) -> RuntimeInfo:
    """The row, in the table (and in the tables built from it when rehydrate was imported:
    the hook groups and the doctor's checks)."""
    import rehydrate.doctor as doctor
    from rehydrate.cli.hook import SUBCOMMANDS

    monkeypatch.setitem(runtimes.RUNTIMES, "acme", ROW)
    monkeypatch.setitem(SUBCOMMANDS, "acme", "_hook_adapter:runtime_group")
    checks = [doctor._runtime_check(ROW, row) for row in ROW.doctor]
    monkeypatch.setattr(doctor, "CHECKS", (*doctor.CHECKS, *checks))
    return ROW


def hook(repo: Path, event: str, data: dict[str, object]) -> tuple[int, object, str]:
    result = run(repo, "hook", "acme", event, input=json.dumps({"cwd": str(repo), **data}))
    out = json.loads(result.out) if result.out.strip() else None
    return result.code, out, result.err


def test_the_row_installs_its_hook_file(ledger_repo: Path, acme: RuntimeInfo) -> None:
    install = runtimes.installer("acme")
    assert [i.what for i in install(ledger_repo, sys.executable)] == ["created"]
    data = json.loads((ledger_repo / FILE).read_text(encoding="utf-8"))
    assert list(data["hooks"]) == ["SessionStart", "PreToolUse", "Stop"]
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "*"
    assert "hook acme pre-tool-use" in data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert [i.what for i in install(ledger_repo, sys.executable)] == ["unchanged"]
    assert "acme" in runtimes.wired_runtimes(ledger_repo)  # hook install refreshes it


def test_the_row_answers_its_hooks(ledger_repo: Path, acme: RuntimeInfo) -> None:
    code, out, _ = hook(ledger_repo, "session-start", {"source": "startup"})
    assert code == 0 and isinstance(out, dict)
    assert "F-001" in out["hookSpecificOutput"]["additionalContext"]
    repeat = {"tool_name": "Bash", "tool_input": {"command": FAILED}}
    code, out, _ = hook(ledger_repo, "pre-tool-use", repeat)
    assert isinstance(out, dict) and out["hookSpecificOutput"]["permissionDecision"] == "deny"
    twin = {"tool_name": "Bash", "tool_input": {"command": "go test ./..."}}
    assert hook(ledger_repo, "pre-tool-use", twin)[:2] == (0, None)  # the legitimate twin
    code, out, err = hook(ledger_repo, "pre-tool-use", {"tool_input": "no JSON object"})
    assert (code, out) == (0, None)
    assert run(ledger_repo, "hook", "acme", "pre-tool-use", input="{").err.endswith(
        "; tool call allowed unchecked\n"
    )


def test_the_row_fails_closed_by_its_rule(
    ledger_repo: Path, acme: RuntimeInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rehydrate.agents import tools

    def broken(*_args: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(tools, "check_tool_call", broken)
    repeat = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    code, out, _ = hook(ledger_repo, "pre-tool-use", repeat)
    assert isinstance(out, dict)
    reason = out["hookSpecificOutput"]["permissionDecisionReason"]
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "internal error in the Acme pre-tool-use hook" in reason and FILE in reason


def test_the_row_is_checked_by_the_doctor(ledger_repo: Path, acme: RuntimeInfo) -> None:
    from rehydrate.doctor import run as doctor
    from rehydrate.git import find_repo

    def state() -> tuple[str, list[str]]:
        report = doctor(find_repo(ledger_repo))
        status = next(i for i in report.integrations if i.name == "acme")
        return status.state, [f.code for f in report.findings if f.integration == "acme"]

    assert state() == ("absent", [])
    runtimes.installer("acme")(ledger_repo, sys.executable)
    assert state() == ("ok", [])
    data = json.loads((ledger_repo / FILE).read_text(encoding="utf-8"))
    del data["hooks"]["Stop"]
    (ledger_repo / FILE).write_text(json.dumps(data), encoding="utf-8")
    assert state() == ("broken", ["acme_event_missing"])
