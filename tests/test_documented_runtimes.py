"""Cursor, Cline, Kiro CLI and Aider: no client runs here, so each adapter is tested
against its runtime's documented event JSON (the committed samples) and answer shapes,
and each installer against a second run and the user's own settings."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import run, write
from rehydrate.agents import aider_install, cline, cursor, kiro
from rehydrate.agents.runtimes import ACTIONS, RUNTIMES, installer

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "docs" / "integrations" / "samples"
PYTHON = "/venv/bin/python"


def sample(runtime: str, name: str, **changes: Any) -> str:
    data = json.loads((SAMPLES / runtime / f"{name}.json").read_text(encoding="utf-8"))
    return json.dumps({**data, **changes})


def hook(repo: Path, runtime: str, name: str, raw: str) -> tuple[int, Any, str]:
    result = run(repo, "hook", runtime, name, input=raw)
    out = json.loads(result.out) if result.out.strip().startswith("{") else result.out
    return result.code, out, result.err


def break_failures(repo: Path) -> None:
    write(repo, "docs/Failed_Attempts.md", "---\nledger: failures\n---\n| broken")


# The registry.


def test_every_runtime_says_every_action_and_why_not() -> None:
    assert list(RUNTIMES) == sorted(RUNTIMES)
    for name, info in RUNTIMES.items():
        assert info.name == name and set(info.support) == set(ACTIONS)
        assert (ROOT / info.doc).is_file(), info.doc
        assert info.tested in ("real client", "documented JSON")
        assert all(s.why for s in info.support.values() if not s.ok), name
        assert callable(installer(name))


# Cursor.


def test_cursor_session_start_answers_additional_context(ledger_repo: Path) -> None:
    code, out, _ = hook(ledger_repo, "cursor", "session-start", sample("cursor", "session-start"))
    assert code == 0 and set(out) == {"additional_context"} and "F-001" in out["additional_context"]
    assert len(out["additional_context"]) <= cursor.RUNTIME.cap.limit


def test_cursor_denies_a_repeat_and_allows_another_command(ledger_repo: Path) -> None:
    raw = sample("cursor", "before-shell-execution")
    _, out, _ = hook(ledger_repo, "cursor", "before-shell-execution", raw)
    assert out["permission"] == "deny" and "F-001" in out["agent_message"]
    assert out["user_message"] == out["agent_message"]
    other = sample("cursor", "before-shell-execution", command="go test ./...")
    assert hook(ledger_repo, "cursor", "before-shell-execution", other)[1] == {
        "permission": "allow"
    }


def test_cursor_denies_every_command_while_the_ledger_is_broken(ledger_repo: Path) -> None:
    break_failures(ledger_repo)
    other = sample("cursor", "before-shell-execution", command="echo hi")
    out = hook(ledger_repo, "cursor", "before-shell-execution", other)[1]
    assert (
        out["permission"] == "deny"
        and "cannot read the failed-attempts ledger" in out["agent_message"]
    )


def test_cursor_stop_follows_up_once(ledger_repo: Path) -> None:
    assert hook(ledger_repo, "cursor", "stop", sample("cursor", "stop"))[1] == {}
    write(ledger_repo, "docs/Task.md", (ledger_repo / "docs/Task.md").read_text() + "\n")
    out = hook(ledger_repo, "cursor", "stop", sample("cursor", "stop"))[1]
    assert "docs/Task.md" in out["followup_message"]
    assert hook(ledger_repo, "cursor", "stop", sample("cursor", "stop", loop_count=1))[1] == {}


def test_cursor_install_merges_flat_entries_and_keeps_a_rule_of_yours(repo: Path) -> None:
    mine = {"command": "./mine.sh"}
    write(repo, ".cursor/hooks.json", json.dumps({"version": 1, "hooks": {"stop": [mine]}}))
    write(repo, cursor.RULE_FILE, "my own rule\n")
    done = {i.path: i for i in cursor.install_agent(repo, PYTHON)}
    data = json.loads((repo / ".cursor/hooks.json").read_text())
    assert data["hooks"]["stop"][0] == mine and len(data["hooks"]["stop"]) == 2
    assert data["version"] == 1 and set(data["hooks"]) == set(cursor.HOOKS)
    assert done[cursor.RULE_FILE].note and (repo / cursor.RULE_FILE).read_text() == "my own rule\n"
    assert all(i.what == "unchanged" for i in cursor.install_agent(repo, PYTHON))


def test_cursor_fresh_install_writes_the_always_applied_rule(repo: Path) -> None:
    cursor.install_agent(repo, PYTHON)
    rule = (repo / cursor.RULE_FILE).read_text()
    assert "alwaysApply: true" in rule and "docs/Failed_Attempts.md" in rule


# Cline.


def test_cline_task_start_and_resume_modify_the_context(ledger_repo: Path) -> None:
    _, out, _ = hook(ledger_repo, "cline", "task-start", sample("cline", "task-start"))
    assert out["cancel"] is False and "F-001" in out["contextModification"]
    resumed = sample("cline", "task-start", hookName="TaskResume")
    _, out, _ = hook(ledger_repo, "cline", "task-resume", resumed)
    assert "Session source: resume" in out["contextModification"]


def test_cline_cancels_a_repeat_and_lets_other_tools_through(ledger_repo: Path) -> None:
    _, out, _ = hook(ledger_repo, "cline", "pre-tool-use", sample("cline", "pre-tool-use"))
    assert out["cancel"] is True and "F-001" in out["errorMessage"]
    read = sample(
        "cline", "pre-tool-use", preToolUse={"toolName": "read_file", "parameters": {"path": "x"}}
    )
    break_failures(ledger_repo)
    assert hook(ledger_repo, "cline", "pre-tool-use", read)[1] == {"cancel": False}
    shell = sample(
        "cline",
        "pre-tool-use",
        preToolUse={"toolName": "execute_command", "parameters": {"command": "ls"}},
    )
    assert hook(ledger_repo, "cline", "pre-tool-use", shell)[1]["cancel"] is True


def test_cline_captures_a_failed_command_only(ledger_repo: Path) -> None:
    _, out, _ = hook(ledger_repo, "cline", "post-tool-use", sample("cline", "post-tool-use"))
    pending = json.loads((ledger_repo / ".rehydrate/pending-failures.json").read_text())
    assert [p["command"] for p in pending["failures"]] == ["ls /nonexistent"]
    assert "ls /nonexistent" in out["contextModification"]
    worked = json.loads(sample("cline", "post-tool-use"))
    worked["postToolUse"].update(success=True, parameters={"command": "true"})
    assert hook(ledger_repo, "cline", "post-tool-use", json.dumps(worked))[1] == {"cancel": False}


def test_cline_install_writes_executable_scripts_and_keeps_yours(repo: Path) -> None:
    write(repo, ".clinerules/hooks/TaskResume", "#!/bin/sh\necho mine\n")
    done = {i.path: i for i in cline.install_agent(repo, PYTHON)}
    start = repo / ".clinerules/hooks/TaskStart"
    assert os.access(start, os.X_OK) and "hook cline task-start" in start.read_text()
    assert done[".clinerules/hooks/TaskResume"].note
    assert (repo / ".clinerules/hooks/TaskResume").read_text() == "#!/bin/sh\necho mine\n"
    assert all(i.what == "unchanged" for i in cline.install_agent(repo, PYTHON))
    before = start.read_bytes()
    moved = {i.path: i.what for i in cline.install_agent(repo, "/moved/python")}
    assert moved[".clinerules/hooks/TaskStart"] == "unchanged"  # no machine path in it
    assert start.read_bytes() == before and "/moved/python" not in start.read_text()
    start.write_text("#!/bin/sh\n# rehydrate: old\nexec /old/python -m rehydrate hook cline x\n")
    assert {i.path: i.what for i in cline.install_agent(repo, PYTHON)}[
        str(start.relative_to(repo))
    ] == "updated"  # an older file of ours is rewritten
    assert start.read_bytes() == before


# Kiro CLI.


def test_kiro_agent_spawn_prints_the_core(ledger_repo: Path) -> None:
    code, out, _ = hook(ledger_repo, "kiro", "agent-spawn", sample("kiro", "agent-spawn"))
    assert code == 0 and isinstance(out, str) and "F-001" in out


def test_kiro_blocks_a_repeat_with_exit_2(ledger_repo: Path) -> None:
    code, out, err = hook(ledger_repo, "kiro", "pre-tool-use", sample("kiro", "pre-tool-use"))
    assert code == kiro.BLOCKED and "F-001" in err and not out
    other = sample("kiro", "pre-tool-use", tool_input={"command": "go test ./..."})
    assert hook(ledger_repo, "kiro", "pre-tool-use", other)[0] == 0
    write_tool = sample("kiro", "pre-tool-use", tool_name="fs_write", tool_input={"path": "x"})
    break_failures(ledger_repo)
    assert hook(ledger_repo, "kiro", "pre-tool-use", write_tool)[0] == 0
    assert hook(ledger_repo, "kiro", "pre-tool-use", other)[0] == kiro.BLOCKED


def test_kiro_install_is_its_own_agent_and_idempotent(repo: Path) -> None:
    [first] = kiro.install_agent(repo, PYTHON)
    data = json.loads((repo / kiro.AGENT_FILE).read_text())
    assert first.what == "created" and data["tools"] == ["*"]
    assert data["hooks"]["preToolUse"][0]["matcher"] == "*"
    assert kiro.install_agent(repo, PYTHON)[0].what == "unchanged"


# Aider.


def test_aider_config_reads_the_ledgers_and_verifies_commits(repo: Path) -> None:
    write(repo, ".aider.conf.yml", "model: sonnet\nread: CONVENTIONS.md\n")
    [done] = aider_install.install_agent(repo, PYTHON)
    from rehydrate.ledgers import yamlsafe

    data = yamlsafe.load((repo / ".aider.conf.yml").read_text(), typed=True)
    assert done.what == "updated" and data["model"] == "sonnet"
    assert data["read"] == [
        "CONVENTIONS.md",
        "docs/Spec.md",
        "docs/Task.md",
        "docs/Failed_Attempts.md",
    ]
    assert data["git-commit-verify"] is True
    assert aider_install.install_agent(repo, PYTHON)[0].what == "unchanged"


def test_aider_refuses_a_config_that_is_not_a_mapping(repo: Path) -> None:
    write(repo, ".aider.conf.yml", "- a list\n")
    with pytest.raises(Exception, match="not a mapping"):
        aider_install.install_agent(repo, PYTHON)


# doctor, for each.


def _findings(repo: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for f in json.loads(run(repo, "doctor", "--json").out)["findings"]:
        found.setdefault(f["integration"], []).append(f["code"])
    return found


def test_doctor_sees_each_documented_runtime_break(repo: Path) -> None:
    import sys

    for name in ("cursor", "cline", "kiro", "aider"):
        installer(name)(repo, sys.executable)
    clean = _findings(repo)
    assert not {k: v for k, v in clean.items() if k in ("cursor", "cline", "kiro", "aider")}
    data = json.loads((repo / ".cursor/hooks.json").read_text())
    del data["hooks"]["stop"]
    (repo / ".cursor/hooks.json").write_text(json.dumps(data))
    os.chmod(repo / ".clinerules/hooks/TaskStart", 0o644)
    agent = json.loads((repo / kiro.AGENT_FILE).read_text())
    agent["hooks"]["agentSpawn"][0]["command"] = "/gone/python -m rehydrate hook kiro agent-spawn"
    (repo / kiro.AGENT_FILE).write_text(json.dumps(agent))
    write(repo, ".aider.conf.yml", "read: docs/Spec.md\ngit-commit-verify: false\n")
    found = _findings(repo)
    assert found["cursor"] == ["cursor_event_missing"]
    assert found["cline"] == ["cline_hook_not_executable"]
    assert found["kiro"] == [
        "kiro_hook_interpreter_broken",
        "launch_unsafe",  # no -I
        "launch_machine_path",  # in a file every clone shares
    ]
    assert sorted(found["aider"]) == ["aider_commit_verify_off", "aider_ledger_not_read"]


@pytest.mark.parametrize("runtime", ["cursor", "cline", "kiro"])
def test_each_sample_is_named_in_its_runtime_page(runtime: str) -> None:
    page = (ROOT / "docs" / "integrations" / f"{runtime}.md").read_text(encoding="utf-8")
    for path in (SAMPLES / runtime).glob("*.json"):
        assert f"samples/{runtime}/{path.name}" in page
