"""Gemini CLI: its adapter against the real event JSON (docs/integrations/samples/gemini,
captured from Gemini CLI 0.61.0), its settings installer, and its doctor check."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, git, run, write
from rehydrate.agents.gemini import CONTEXT_FILE, EVENTS, SETTINGS_FILE, SETTINGS_HOOKS
from rehydrate.agents.gemini_install import install_agent, merge_settings
from rehydrate.doctor import run as doctor
from rehydrate.git import find_repo
from rehydrate.launchline import portable_argv

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "docs" / "integrations" / "samples" / "gemini"
REPEAT = "go test -tags=musl ./..."


@pytest.fixture(autouse=True)
def _no_project_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_PROJECT_DIR", raising=False)
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)


def sample(name: str) -> dict[str, Any]:
    data = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def hook(repo: Path, name: str, event: dict[str, Any]) -> tuple[int, Any, str]:
    result = run(repo, "hook", "gemini", name, input=json.dumps(event))
    out = json.loads(result.out) if result.out.strip() else None
    if out is not None:
        assert result.out.count("\n") == 1
    return result.code, out, result.err


def shell(command: str) -> dict[str, Any]:
    return {**sample("before-tool"), "tool_input": {"command": command, "description": "x"}}


def test_every_event_has_a_real_sample() -> None:
    assert sorted(p.stem for p in SAMPLES.glob("*.json")) == sorted(EVENTS)
    for name in EVENTS:
        assert sample(name)["cwd"] == "."


@pytest.mark.parametrize("name", EVENTS)
def test_every_sample_answers_in_gemini_conventions(ledger_repo: Path, name: str) -> None:
    code, out, _ = hook(ledger_repo, name, sample(name))
    assert code == 0
    assert out is None or set(out) <= {"decision", "reason", "hookSpecificOutput"}


def test_the_sample_repeat_is_denied_naming_the_row(ledger_repo: Path) -> None:
    event = sample("before-tool")
    assert event["tool_input"]["command"].endswith(REPEAT)
    code, out, _ = hook(ledger_repo, "before-tool", event)
    assert code == 0 and out["decision"] == "deny"
    assert "F-001" in out["reason"] and "use the default build tags" in out["reason"]


@pytest.mark.parametrize(
    "command, denied",
    [
        pytest.param(REPEAT, True, id="repeat"),
        pytest.param(f"echo start\n{REPEAT}", True, id="multi-line"),
        pytest.param("go test -tags=netgo ./...", False, id="other-tags"),
        pytest.param("echo hello", False, id="unrelated"),
    ],
)
def test_shell_commands_denied_and_their_twins_allowed(
    ledger_repo: Path, command: str, denied: bool
) -> None:
    code, out, _ = hook(ledger_repo, "before-tool", shell(command))
    assert code == 0
    assert (out is not None and out["decision"] == "deny") is denied


def test_a_broken_ledger_denies_every_shell_command(ledger_repo: Path) -> None:
    path = ledger_repo / "docs" / "Failed_Attempts.md"
    path.write_text(path.read_text(encoding="utf-8") + "| F-BAD | `x` |\n", encoding="utf-8")
    _, out, _ = hook(ledger_repo, "before-tool", shell("echo hello"))
    assert out["decision"] == "deny" and "docs/Failed_Attempts.md" in out["reason"]
    other = {**sample("before-tool"), "tool_name": "read_file", "tool_input": {"path": "x"}}
    assert hook(ledger_repo, "before-tool", other)[1] is None  # the agent can mend it


def test_an_internal_error_denies_the_shell_command(
    ledger_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rehydrate.agents.tools as tools

    def broken(*args: object) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(tools, "check_tool_call", broken)
    _, out, _ = hook(ledger_repo, "before-tool", shell("echo hello"))
    assert out["decision"] == "deny" and "internal error" in out["reason"]
    assert SETTINGS_FILE in out["reason"]


def _first(out: Any) -> str:
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "BeforeModel"
    (message,) = specific["llm_request"]["messages"]
    assert message["role"] == "user"
    return str(message["content"])


def test_before_model_puts_the_core_before_the_first_message(ledger_repo: Path) -> None:
    event = sample("before-model")
    original = event["llm_request"]["messages"][0]["content"]
    assert hook(ledger_repo, "session-start", sample("session-start"))[0] == 0
    _, out, _ = hook(ledger_repo, "before-model", event)
    first = _first(out)
    assert first.endswith("\n\n" + original)
    assert "Session source: startup" in first and "F-001" in first
    # the next request of the session gets the same core, read back, not rebuilt
    stored = (ledger_repo / CONTEXT_FILE).read_text(encoding="utf-8")
    assert _first(hook(ledger_repo, "before-model", event)[1]) == first
    assert (ledger_repo / CONTEXT_FILE).read_text(encoding="utf-8") == stored


def test_a_request_that_holds_the_core_already_is_left_alone(ledger_repo: Path) -> None:
    event = sample("before-model")
    hook(ledger_repo, "session-start", sample("session-start"))
    stored = json.loads((ledger_repo / CONTEXT_FILE).read_text(encoding="utf-8"))
    event["llm_request"]["messages"][0]["content"] = stored["text"] + "\n\ngo"
    assert hook(ledger_repo, "before-model", event)[1] is None


def test_a_subagents_conversation_gets_the_subagent_core_and_no_verdict(
    ledger_repo: Path,
) -> None:
    event = sample("before-model")
    main = _first(hook(ledger_repo, "before-model", event)[1])
    other = json.loads(json.dumps(event))
    other["llm_request"]["messages"][0]["content"] = "You are the codebase investigator."
    sub = _first(hook(ledger_repo, "before-model", other)[1])
    assert "you are a subagent" in sub and "Compaction summary check" not in sub
    assert _first(hook(ledger_repo, "before-model", event)[1]) == main  # kept per conversation


def test_after_a_compression_the_summary_is_verified_and_the_core_rebuilt(
    ledger_repo: Path,
) -> None:
    event = sample("before-model")
    hook(ledger_repo, "before-model", event)
    summary = "<state_snapshot>the user said hello</state_snapshot>"
    event["llm_request"]["messages"] = [
        {"role": "user", "content": summary},
        {"role": "model", "content": "Got it. Thanks for the additional context!"},
    ]
    first = _first(hook(ledger_repo, "before-model", event)[1])
    assert first.endswith(summary) and "Session source: compact" in first
    assert "Compaction summary check" in first and "UNFAITHFUL" in first
    assert "C-001" in first  # the constraint the summary dropped, back in the core


def test_a_faithful_summary_is_said_to_be(ledger_repo: Path) -> None:
    from rehydrate.agents.compaction import summary_instructions
    from rehydrate.agents.core import open_project
    from rehydrate.agents.gemini import RUNTIME

    event = sample("before-model")
    hook(ledger_repo, "before-model", event)
    instructions = summary_instructions(open_project(str(ledger_repo)), RUNTIME)
    manifest = instructions[instructions.index("```") :]
    event["llm_request"]["messages"][0]["content"] = (
        f"<state_snapshot>\n{manifest}\n</state_snapshot>"
    )
    first = _first(hook(ledger_repo, "before-model", event)[1])
    assert "faithful; every checked item is present" in first


def test_a_failed_command_is_captured_and_its_twin_is_not(ledger_repo: Path) -> None:
    event = sample("after-tool")
    assert "Exit Code: 2" in event["tool_response"]["llmContent"]
    _, out, _ = hook(ledger_repo, "after-tool", event)
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "pending failure 1" in context and "rehydrate fail dismiss 1" in context
    ok = json.loads(json.dumps(event))
    ok["tool_response"]["llmContent"] = "Output: fine\nExit Code: 0\n"
    assert hook(ledger_repo, "after-tool", ok)[1] is None


def _after(command: str, output: str, code: int) -> dict[str, Any]:
    event = sample("after-tool")
    llm = f"<untrusted_context>\nOutput: {output}\nExit Code: {code}\n</untrusted_context>"
    return {**event, "tool_input": {"command": command}, "tool_response": {"llmContent": llm}}


@pytest.mark.parametrize(
    "command, code, close, captured",
    [
        pytest.param("go test -tags=netgo ./...", 0, True, False, id="close-and-passed"),
        pytest.param("go test -tags=netgo ./...", 1, True, True, id="close-and-failed"),
        pytest.param("go vet ./...", 0, False, False, id="unrelated"),
        pytest.param("go vet ./...", 1, False, True, id="unrelated-failed"),
    ],
)
def test_after_tool_names_the_close_row_with_the_result(
    ledger_repo: Path, command: str, code: int, close: bool, captured: bool
) -> None:
    """BeforeTool cannot carry context with an allowed call, AfterTool can: the advice on
    a command close to a failed attempt reaches the model with the tool's result."""
    _, out, _ = hook(ledger_repo, "after-tool", _after(command, "x: error 3", code))
    context = out["hookSpecificOutput"]["additionalContext"] if out else ""
    assert ("close to failed attempt F-001" in context) is close
    assert ("use the default build tags" in context) is close
    assert ("pending failure 1" in context) is captured
    assert "This repeats failed attempt" not in context


def test_after_tool_advice_is_silent_on_a_broken_ledger(ledger_repo: Path) -> None:
    """The ledger broke after the call was allowed: no advice, no crash (BeforeTool refuses
    the next shell command)."""
    path = ledger_repo / "docs" / "Failed_Attempts.md"
    path.write_text(path.read_text(encoding="utf-8") + "| F-BAD | `x` |\n", encoding="utf-8")
    code, out, _ = hook(ledger_repo, "after-tool", _after("go test -tags=netgo ./...", "", 0))
    assert code == 0 and out is None


def test_the_end_of_the_turn_is_denied_once_over_uncommitted_ledgers(ledger_repo: Path) -> None:
    event = sample("after-agent")
    assert hook(ledger_repo, "after-agent", event)[1] is None  # clean: let through
    write(ledger_repo, "docs/Spec.md", "\nLearned: more.\n")
    _, out, _ = hook(ledger_repo, "after-agent", event)
    assert out["decision"] == "deny" and "docs/Spec.md" in out["reason"]
    assert hook(ledger_repo, "after-agent", {**event, "stop_hook_active": True})[1] is None


def test_install_merges_keeps_the_users_keys_and_is_idempotent(repo: Path) -> None:
    user = {
        "theme": "dark",
        "hooks": {
            "BeforeTool": [
                {"matcher": "write_file", "hooks": [{"type": "command", "command": "mine"}]}
            ]
        },
    }
    write(repo, SETTINGS_FILE, json.dumps(user))
    python = "/opt/my venv/bin/python"
    (done,) = install_agent(repo, python)
    assert done.what == "updated" and "GEMINI_CLI_TRUST_WORKSPACE" in done.note
    settings = json.loads((repo / SETTINGS_FILE).read_text(encoding="utf-8"))
    assert settings["theme"] == "dark"
    assert settings["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == "mine"
    assert "PostCompact" not in settings["hooks"] and "PreCompress" not in settings["hooks"]
    for event, (matcher, name) in SETTINGS_HOOKS.items():
        (group,) = [g for g in settings["hooks"][event] if g.get("matcher") == matcher]
        (ours,) = group["hooks"]
        assert shlex.split(ours["command"]) == portable_argv("hook", "gemini", name)
    assert [i.what for i in install_agent(repo, python)] == ["unchanged"]
    before = (repo / SETTINGS_FILE).read_bytes()
    install_agent(repo, "/elsewhere/python")  # a moved virtualenv: only git config changes
    assert (repo / SETTINGS_FILE).read_bytes() == before
    assert python not in before.decode() and "/elsewhere/python" not in before.decode()
    assert git(repo, "config", "--get", "rehydrate.python").stdout.strip() == "/elsewhere/python"


def test_install_refuses_settings_it_cannot_merge(repo: Path) -> None:
    from rehydrate.errors import RehydrateError

    write(repo, SETTINGS_FILE, '{"hooks": []}')
    with pytest.raises(RehydrateError) as caught:
        install_agent(repo, sys.executable)
    assert caught.value.file == SETTINGS_FILE and caught.value.fix
    assert merge_settings({"hooks": {}})[1] is True  # the twin merges


def _doctor(repo: Path, **env: str) -> tuple[dict[str, str], list[str]]:
    report = doctor(find_repo(repo), {**os.environ, **env})
    state = {i.name: i.state for i in report.integrations}
    return state, [f.code for f in report.findings if f.integration == "gemini"]


def test_doctor_sees_gemini_wiring_trust_and_a_stale_interpreter(ledger_repo: Path) -> None:
    assert _doctor(ledger_repo)[0]["gemini"] == "absent"
    install_agent(ledger_repo, sys.executable)
    state, found = _doctor(ledger_repo, GEMINI_CLI_TRUST_WORKSPACE="true")
    assert state["gemini"] == "ok" and found == []
    assert _doctor(ledger_repo)[1] == ["gemini_folder_untrusted"]
    home = Path(os.environ["HOME"]) / ".gemini"
    home.mkdir(exist_ok=True)
    trusted = {str(ledger_repo.parent): "TRUST_PARENT"}
    (home / "trustedFolders.json").write_text(json.dumps(trusted), encoding="utf-8")
    assert _doctor(ledger_repo)[1] == []
    install_agent(ledger_repo, str(ledger_repo / "gone" / "python"))
    assert _doctor(ledger_repo)[1] == ["launch_python_broken"]  # git config's interpreter


def test_doctor_names_a_missing_event_and_postcompact(ledger_repo: Path) -> None:
    install_agent(ledger_repo, sys.executable)
    settings = json.loads((ledger_repo / SETTINGS_FILE).read_text(encoding="utf-8"))
    del settings["hooks"]["AfterAgent"]
    settings["hooks"]["PostCompact"] = []
    (ledger_repo / SETTINGS_FILE).write_text(json.dumps(settings), encoding="utf-8")
    found = _doctor(ledger_repo, GEMINI_CLI_TRUST_WORKSPACE="true")[1]
    assert found == ["gemini_event_missing", "gemini_unknown_event"]


def test_hooks_leave_the_work_tree_clean(ledger_repo: Path) -> None:
    install_agent(ledger_repo, sys.executable)
    commit(ledger_repo, "wire gemini")
    for name in EVENTS:
        hook(ledger_repo, name, sample(name))
    assert git(ledger_repo, "status", "--porcelain").stdout == ""
