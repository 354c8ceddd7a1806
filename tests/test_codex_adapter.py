"""Codex CLI: the adapter on Codex 0.171's event JSON (the committed samples), its cap in
bytes, the rollout reading, the hooks.json merge, the trust hashes and doctor."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, run, write
from rehydrate.agents import codex, codex_install
from rehydrate.agents.codex_install import HOOKS_FILE, handler_hash, trust, untrusted

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "docs" / "integrations" / "samples" / "codex"
PYTHON = "/venv/bin/python"


def sample(name: str, **changes: Any) -> str:
    data = json.loads((SAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    return json.dumps({**data, **changes})


def hook(repo: Path, name: str, raw: str) -> tuple[int, Any, str]:
    result = run(repo, "hook", "codex", name, input=raw)
    out = json.loads(result.out) if result.out.strip() else None
    return result.code, out, result.err


@pytest.fixture
def project(ledger_repo: Path) -> Path:
    shutil.copy(SAMPLES / "rollout.jsonl", ledger_repo / "rollout.jsonl")
    return ledger_repo


def context_of(out: Any) -> str:
    specific = out["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    text = specific["additionalContext"]
    assert len(text.encode("utf-8")) <= codex.CONTEXT_LIMIT
    return str(text)


def deny_reason(out: Any) -> str:
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "deny"
    return str(specific["permissionDecisionReason"])


# The samples, each fed to its hook.


def test_session_start_sample_injects_the_core(project: Path) -> None:
    code, out, _ = hook(project, "session-start", sample("session-start"))
    text = context_of(out)
    assert code == 0 and "F-001" in text and "C-001" in text
    assert (project / ".rehydrate" / "codex-session-prompt.md").exists()


def test_pre_tool_use_sample_denies_the_multi_line_repeat(project: Path) -> None:
    code, out, _ = hook(project, "pre-tool-use", sample("pre-tool-use"))
    assert code == 0 and "F-001" in deny_reason(out)


def test_pre_tool_use_allows_another_command(project: Path) -> None:
    raw = sample("pre-tool-use", tool_input={"command": "go vet ./..."})
    assert hook(project, "pre-tool-use", raw)[1] is None


def test_pre_tool_use_allows_a_close_command_with_the_row_as_context(project: Path) -> None:
    """Codex carries PreToolUse additionalContext with an allowed call (openai/codex#20692)."""
    raw = sample("pre-tool-use", tool_input={"command": "go test ./..."})
    code, out, _ = hook(project, "pre-tool-use", raw)
    specific = out["hookSpecificOutput"]
    assert code == 0 and "permissionDecision" not in specific
    assert "close to failed attempt F-001" in specific["additionalContext"]


def test_pre_tool_use_refuses_shell_while_the_failures_ledger_is_broken(project: Path) -> None:
    write(project, "docs/Failed_Attempts.md", "---\nledger: failures\n---\n| broken")
    reason = deny_reason(hook(project, "pre-tool-use", sample("pre-tool-use"))[1])
    assert "cannot read the failed-attempts ledger" in reason
    other = sample("pre-tool-use", tool_name="apply_patch", tool_input={"patch": "x"})
    assert hook(project, "pre-tool-use", other)[1] is None  # the agent can mend it


def test_post_tool_use_sample_captures_the_failed_command(project: Path) -> None:
    code, out, _ = hook(project, "post-tool-use", sample("post-tool-use"))
    pending = json.loads((project / ".rehydrate" / "pending-failures.json").read_text())
    assert code == 0 and [p["command"] for p in pending["failures"]] == ["ls /nonexistent"]
    assert "Exit code 2" in pending["failures"][0]["error"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PostToolUse"


def test_post_tool_use_of_a_command_that_succeeded_captures_nothing(project: Path) -> None:
    rollout = project / "rollout.jsonl"
    rollout.write_text(rollout.read_text().replace('"exit_code":2', '"exit_code":0'))
    assert hook(project, "post-tool-use", sample("post-tool-use"))[1] is None
    assert not (project / ".rehydrate" / "pending-failures.json").exists()


def test_post_compact_sample_reads_the_summary_from_the_rollout(project: Path) -> None:
    code, _, err = hook(project, "post-compact", sample("post-compact"))
    verdict = json.loads((project / ".rehydrate" / "codex-postcompact.json").read_text())
    assert code == 0 and verdict["summary"] == "unfaithful"
    assert {r["id"] for r in verdict["reasons"]} >= {"C-001"}
    _, out, _ = hook(project, "session-start", sample("session-start", source="compact"))
    assert "UNFAITHFUL" in context_of(out)  # shown by the start that follows


def test_post_compact_without_a_compacted_line_is_no_summary(project: Path) -> None:
    (project / "rollout.jsonl").write_text("")
    hook(project, "post-compact", sample("post-compact"))
    verdict = json.loads((project / ".rehydrate" / "codex-postcompact.json").read_text())
    assert [r["code"] for r in verdict["reasons"]] == ["summary_missing"]


def test_stop_sample_blocks_once_over_uncommitted_ledgers(project: Path) -> None:
    assert hook(project, "stop", sample("stop"))[1] is None  # clean: let through
    with (project / "docs" / "Task.md").open("a", encoding="utf-8") as out:
        out.write("\n")
    _, out, _ = hook(project, "stop", sample("stop"))
    assert out["decision"] == "block" and "docs/Task.md" in out["reason"]
    assert hook(project, "stop", sample("stop", stop_hook_active=True))[1] is None


def test_malformed_event_fails_open_with_a_message(project: Path) -> None:
    code, out, err = hook(project, "pre-tool-use", "not json")
    assert code == 0 and out is None and "not JSON" in err


# The cap, in bytes.


def test_a_large_non_ascii_context_fits_in_bytes_with_the_failure_kept(project: Path) -> None:
    rows = "\n".join(
        f"| C-{i:03d} | garder la façade numéro {i} intacte ✓ | SHOULD | test |"
        for i in range(100, 400)
    )
    spec = (project / "docs" / "Spec.md").read_text(encoding="utf-8")
    marker = "| C-001 |"
    line = next(x for x in spec.splitlines() if x.startswith(marker))
    (project / "docs" / "Spec.md").write_text(spec.replace(line, line + "\n" + rows))
    commit(project, "big spec")
    text = context_of(hook(project, "session-start", sample("session-start"))[1])
    assert "F-001" in text
    assert len(text.encode("utf-16-le")) // 2 < len(text.encode("utf-8"))  # bytes bind


# The rollout, read from its end.


def test_rollout_line_cut_by_the_window_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    big = json.dumps({"type": "compacted", "payload": {"message": "x" * 5000}})
    small = json.dumps({"type": "compacted", "payload": {"message": "late"}})
    path.write_text(big + "\n" + small + "\n")
    assert codex.compacted_summary(str(path)) == "late"
    assert codex.rollout_lines(str(path), '"compacted"', limit=3000)[0]["payload"] == {
        "message": "late"
    }
    path.write_text(big + "\n")
    assert codex.rollout_lines(str(path), '"compacted"', limit=3000) == []


def test_exit_code_falls_back_to_the_function_output(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    output = {
        "type": "function_call_output",
        "call_id": "c1",
        "output": "Process exited with code 7",
    }
    path.write_text(json.dumps({"type": "response_item", "payload": output}) + "\n")
    assert codex.exit_code(str(path), "c1") == 7
    assert codex.exit_code(str(path), "c2") is None
    assert codex.exit_code(str(tmp_path / "missing"), "c1") is None


# .codex/hooks.json and the trust hashes.


def test_install_merges_keeps_the_users_hooks_and_is_idempotent(repo: Path) -> None:
    mine = {"type": "command", "command": "echo mine"}
    (repo / ".codex").mkdir()
    (repo / HOOKS_FILE).write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [mine]}]}, "keep": 1}), encoding="utf-8"
    )
    [first] = codex_install.install_agent(repo, PYTHON)
    data = json.loads((repo / HOOKS_FILE).read_text())
    assert first.what == "updated" and data["keep"] == 1
    assert data["hooks"]["Stop"][0]["hooks"] == [mine]
    assert set(data["hooks"]) == set(codex_install.HOOKS)
    assert codex_install.install_agent(repo, PYTHON)[0].what == "unchanged"
    before = (repo / HOOKS_FILE).read_bytes()
    codex_install.install_agent(repo, "/moved/bin/python")  # git config only
    assert (repo / HOOKS_FILE).read_bytes() == before
    assert PYTHON not in before.decode() and "/moved/bin/python" not in before.decode()


def test_install_refuses_a_hooks_file_that_is_not_an_object(repo: Path) -> None:
    (repo / ".codex").mkdir()
    (repo / HOOKS_FILE).write_text("[]", encoding="utf-8")
    with pytest.raises(Exception, match="not a JSON object"):
        codex_install.install_agent(repo, PYTHON)


def test_handler_hash_matches_codex_normalisation() -> None:
    # A hash Codex itself wrote into a user's config.toml (the handler below, with a
    # timeout of 10): normalised with async false, keys sorted, compact JSON.
    handler = {
        "type": "command",
        "command": "bash '/Users/esh2n/.codex/herdr-agent-state.sh' session",
        "timeout": 10,
    }
    assert (
        handler_hash("SessionStart", None, handler)
        == "sha256:34637d171b45f4595a9a8f510e6091670f0e98e4f14c6581b6a4fd947cc49cd5"
    )
    assert handler_hash("SessionStart", "startup", handler) != handler_hash(
        "SessionStart", None, handler
    )


def test_trust_writes_the_entries_once_and_keeps_the_rest(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    mine = 'model = "o9"\n\n[mcp_servers.x]\ncommand = "x"\n'
    (home / "config.toml").write_text(mine, encoding="utf-8")
    codex_install.install_agent(repo, PYTHON)
    changed, written = trust(repo, home)
    text = (home / "config.toml").read_text()
    assert changed and len(written) == 6 and text.startswith(mine)
    import tomllib

    parsed = tomllib.loads(text)
    assert not untrusted(repo, parsed) and codex_install.project_trusted(parsed, repo)
    assert trust(repo, home) == (False, [])
    codex_install.install_agent(repo, "/moved/bin/python")  # same commands: same hashes
    assert not untrusted(repo, parsed)
    data = json.loads((repo / HOOKS_FILE).read_text())
    stop = data["hooks"]["Stop"][-1]["hooks"][0]
    stop["command"] = "/old/bin/python -m rehydrate hook codex stop"  # an older line
    (repo / HOOKS_FILE).write_text(json.dumps(data), encoding="utf-8")
    codex_install.install_agent(repo, PYTHON)  # rewritten: back to the trusted hash
    assert not untrusted(repo, parsed)
    (repo / HOOKS_FILE).write_text(json.dumps(data), encoding="utf-8")
    assert len(untrusted(repo, parsed)) == 1
    changed, written = trust(repo, home)
    again = (home / "config.toml").read_text()
    assert changed and len(written) == 1 and again.count("[hooks.state.") == 6  # in place


def test_trust_without_our_hooks_says_what_to_run(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no rehydrate hooks") as caught:
        trust(repo, tmp_path)
    assert getattr(caught.value, "fix", None) == "rehydrate init --agent codex"


# init and doctor.


def test_init_agent_codex_wires_and_says_the_trust_step(repo: Path) -> None:
    result = run(repo, "init", "--agent", "codex")
    assert result.code == 0 and "rehydrate hook codex trust" in result.err
    assert (repo / HOOKS_FILE).exists()
    again = run(repo, "init", "--agent", "codex", "--agent", "codex")
    assert "unchanged .codex/hooks.json" in again.err


def test_init_claude_flag_and_agent_claude_are_the_same(repo: Path) -> None:
    assert run(repo, "init", "--claude").code == 0
    before = (repo / ".claude" / "settings.json").read_text()
    result = run(repo, "init", "--agent", "claude")
    assert "unchanged .claude/settings.json" in result.err
    assert (repo / ".claude" / "settings.json").read_text() == before


def test_init_refuses_an_unknown_agent(repo: Path) -> None:
    result = run(repo, "init", "--agent", "notepad")
    assert result.code != 0 and "notepad" in result.err


def _doctor(repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("CODEX_HOME", str(home))
    result = run(repo, "doctor", "--json")
    return {f["code"]: f for f in json.loads(result.out)["findings"] if f["integration"] == "codex"}


def test_doctor_finds_untrusted_then_trusted_hooks(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    home = tmp_path / "codex-home"
    run(repo, "init", "--agent", "codex")
    found = _doctor(repo, home, monkeypatch)
    assert set(found) == {"codex_project_untrusted", "codex_hooks_untrusted"}
    assert found["codex_hooks_untrusted"]["fix"] == "rehydrate hook codex trust"
    assert run(repo, "hook", "codex", "trust").code == 0
    assert _doctor(repo, home, monkeypatch) == {}
    data = json.loads((repo / HOOKS_FILE).read_text())
    data["hooks"]["Stop"][0]["hooks"][0]["command"] = (
        f"{sys.executable}x -m rehydrate hook codex stop"
    )
    (repo / HOOKS_FILE).write_text(json.dumps(data))
    found = _doctor(repo, home, monkeypatch)
    assert set(found) == {
        "codex_hooks_untrusted",
        "codex_hook_interpreter_broken",
        "launch_unsafe",  # an old line: no -I
        "launch_machine_path",  # and a machine path in a file every clone shares
    }


def test_doctor_finds_a_missing_event(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(repo, "init", "--agent", "codex")
    data = json.loads((repo / HOOKS_FILE).read_text())
    del data["hooks"]["PreToolUse"]
    (repo / HOOKS_FILE).write_text(json.dumps(data))
    found = _doctor(repo, tmp_path, monkeypatch)
    assert "pre-tool-use" in found["codex_event_missing"]["message"]


def test_documented_sample_files_are_the_ones_the_docs_name() -> None:
    doc = (ROOT / "docs" / "integrations" / "codex.md").read_text(encoding="utf-8")
    for name in ("session-start", "pre-tool-use", "post-tool-use", "post-compact"):
        assert f"{name}.json" in doc and (SAMPLES / f"{name}.json").is_file()
