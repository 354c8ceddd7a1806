"""OpenCode and Copilot CLI: their adapters against the JSON their hooks get
(docs/integrations/samples/), their installers, and their doctor checks."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, git, run, scaffold, write
from rehydrate.agents import copilot, opencode
from rehydrate.agents.copilot_install import BEGIN, END, INSTRUCTIONS_FILE
from rehydrate.agents.copilot_install import install_agent as install_copilot
from rehydrate.agents.opencode_install import install_agent as install_opencode
from rehydrate.agents.opencode_install import plugin_python, plugin_text
from rehydrate.doctor import run as doctor
from rehydrate.errors import RehydrateError
from rehydrate.git import find_repo
from rehydrate.launchline import portable_argv

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "docs" / "integrations" / "samples"
REPEAT = "go test -tags=musl ./..."


def sample(runtime: str, name: str) -> dict[str, Any]:
    data = json.loads((SAMPLES / runtime / f"{name}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and data["cwd"] == "."
    return data


def hook(repo: Path, runtime: str, name: str, event: dict[str, Any]) -> Any:
    result = run(repo, "hook", runtime, name, input=json.dumps(event))
    assert result.code == 0, result.err
    return json.loads(result.out) if result.out.strip() else None


@pytest.mark.parametrize(
    "runtime, events",
    [("opencode", opencode.EVENTS), ("copilot", copilot.EVENTS)],
)
def test_every_event_has_a_sample_that_runs(
    ledger_repo: Path, runtime: str, events: tuple[str, ...]
) -> None:
    assert sorted(p.stem for p in (SAMPLES / runtime).glob("*.json")) == sorted(events)
    for name in events:
        hook(ledger_repo, runtime, name, sample(runtime, name))


# OpenCode


def test_opencode_system_is_the_core(ledger_repo: Path) -> None:
    out = hook(ledger_repo, "opencode", "system", sample("opencode", "system"))
    assert "Session source: startup" in out["system"] and "F-001" in out["system"]


def test_opencode_compacting_names_what_the_summary_must_keep(ledger_repo: Path) -> None:
    out = hook(ledger_repo, "opencode", "compacting", sample("opencode", "compacting"))
    assert "C-001" in out["context"] and "resume manifest" in out["context"]


def test_opencode_after_a_compaction_the_summary_is_verified(ledger_repo: Path) -> None:
    event = {**sample("opencode", "system"), "source": "compact", "summary": "we said hello"}
    out = hook(ledger_repo, "opencode", "system", event)
    assert "Session source: compact" in out["system"]
    assert "UNFAITHFUL" in out["system"] and "constraint_dropped C-001" in out["system"]


@pytest.mark.parametrize(
    "command, denied",
    [
        pytest.param(REPEAT, True, id="repeat"),
        pytest.param(f"touch m\n{REPEAT}", True, id="multi-line"),
        pytest.param("go test ./...", False, id="twin"),
    ],
)
def test_opencode_bash_denied_and_its_twin_allowed(
    ledger_repo: Path, command: str, denied: bool
) -> None:
    out = hook(
        ledger_repo,
        "opencode",
        "tool-before",
        {**sample("opencode", "tool-before"), "command": command},
    )
    assert ("F-001" in out.get("deny", "")) is denied


def test_opencode_a_broken_ledger_denies_bash_only(ledger_repo: Path) -> None:
    path = ledger_repo / "docs" / "Failed_Attempts.md"
    path.write_text(path.read_text(encoding="utf-8") + "| F-BAD | `x` |\n", encoding="utf-8")
    event = {**sample("opencode", "tool-before"), "command": "echo hi"}
    assert "docs/Failed_Attempts.md" in hook(ledger_repo, "opencode", "tool-before", event)["deny"]
    other = {**event, "tool": "edit"}
    assert "deny" not in hook(ledger_repo, "opencode", "tool-before", other)


def test_opencode_a_failed_bash_is_captured_and_a_passing_one_is_not(ledger_repo: Path) -> None:
    out = hook(ledger_repo, "opencode", "tool-after", sample("opencode", "tool-after"))
    assert "pending failure 1" in out["context"]
    ok = {**sample("opencode", "tool-after"), "exit": 0}
    assert "context" not in hook(ledger_repo, "opencode", "tool-after", ok)


def test_opencode_idle_continues_once_over_uncommitted_ledgers(ledger_repo: Path) -> None:
    event = sample("opencode", "idle")
    assert "prompt" not in hook(ledger_repo, "opencode", "idle", event)
    write(ledger_repo, "docs/Spec.md", "\nLearned: more.\n")
    assert "docs/Spec.md" in hook(ledger_repo, "opencode", "idle", event)["prompt"]
    active = {**event, "stop_hook_active": True}
    assert "prompt" not in hook(ledger_repo, "opencode", "idle", active)


def test_opencode_install_is_idempotent_and_refuses_a_foreign_plugin(repo: Path) -> None:
    python = '/opt/my venv/bin/py"thon'
    assert [i.what for i in install_opencode(repo, python)] == ["created"]
    text = (repo / opencode.PLUGIN_FILE).read_text(encoding="utf-8")
    assert plugin_python(text) == "" and text == plugin_text() and python not in text
    assert [i.what for i in install_opencode(repo, python)] == ["unchanged"]
    # another interpreter changes git config only; an older plugin of ours is rewritten
    assert [i.what for i in install_opencode(repo, sys.executable)] == ["unchanged"]
    old = text.replace("const LAUNCH = ", 'const PYTHON = "/old/python"\nconst OLD = ')
    write(repo, opencode.PLUGIN_FILE, old)
    assert [i.what for i in install_opencode(repo, sys.executable)] == ["updated"]
    write(repo, opencode.PLUGIN_FILE, "export const Mine = async () => ({})\n")
    with pytest.raises(RehydrateError) as caught:
        install_opencode(repo, sys.executable)
    assert caught.value.file == opencode.PLUGIN_FILE and "move" in (caught.value.fix or "")


def test_opencode_plugin_is_valid_javascript(repo: Path, tmp_path: Path) -> None:
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("no node executable")
    path = tmp_path / "rehydrate.mjs"
    path.write_text(plugin_text(), encoding="utf-8")
    done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _codes(repo: Path, name: str, **env: str) -> tuple[str, list[str]]:
    report = doctor(find_repo(repo), {**os.environ, **env})
    state = {i.name: i.state for i in report.integrations}[name]
    return state, [f.code for f in report.findings if f.integration == name]


def test_doctor_checks_the_opencode_plugin(ledger_repo: Path) -> None:
    assert _codes(ledger_repo, "opencode") == ("absent", [])
    install_opencode(ledger_repo, sys.executable)
    assert _codes(ledger_repo, "opencode") == ("ok", [])
    path = ledger_repo / opencode.PLUGIN_FILE
    path.write_text(path.read_text(encoding="utf-8") + "// edited\n", encoding="utf-8")
    assert _codes(ledger_repo, "opencode")[1] == ["opencode_plugin_stale"]
    install_opencode(ledger_repo, str(ledger_repo / "gone" / "python"))
    assert _codes(ledger_repo, "opencode")[1] == ["launch_python_broken"]  # git config's
    old = plugin_text().replace("const LAUNCH = ", 'const PYTHON = "/gone/python"\nconst OLD = ')
    path.write_text(old, encoding="utf-8")  # an older plugin: a machine path, no -I
    assert _codes(ledger_repo, "opencode")[1] == [
        "opencode_interpreter_broken",
        "launch_unsafe",
        "launch_machine_path",
        "opencode_plugin_stale",
    ]


# Copilot CLI


def test_copilot_the_sample_repeat_is_denied(ledger_repo: Path) -> None:
    out = hook(ledger_repo, "copilot", "pre-tool-use", sample("copilot", "pre-tool-use"))
    assert out["permissionDecision"] == "deny" and "F-001" in out["permissionDecisionReason"]
    twin = sample("copilot", "pre-tool-use")
    twin["toolArgs"]["command"] = "go test ./..."
    assert hook(ledger_repo, "copilot", "pre-tool-use", twin) is None


def test_copilot_a_failed_command_is_captured(ledger_repo: Path) -> None:
    out = hook(ledger_repo, "copilot", "post-tool-use", sample("copilot", "post-tool-use"))
    assert "pending failure 1" in out["additionalContext"]
    ok = sample("copilot", "post-tool-use")
    ok["toolResult"]["textResultForLlm"] = "fine\n<shellId: 0 completed with exit code 0>"
    assert hook(ledger_repo, "copilot", "post-tool-use", ok) is None


def test_copilot_agent_stop_blocks_once(ledger_repo: Path) -> None:
    event = sample("copilot", "agent-stop")
    assert hook(ledger_repo, "copilot", "agent-stop", event) is None
    write(ledger_repo, "docs/Task.md", "\nmore\n")
    out = hook(ledger_repo, "copilot", "agent-stop", event)
    assert out["decision"] == "block" and "docs/Task.md" in out["reason"]
    assert hook(ledger_repo, "copilot", "agent-stop", {**event, "stop_hook_active": True}) is None


def test_copilot_install_merges_hooks_and_one_instructions_section(repo: Path) -> None:
    scaffold(repo)  # opted in: the core file is written only where rehydrate is in use
    write(
        repo,
        copilot.HOOKS_FILE,
        json.dumps({"version": 1, "hooks": {"sessionEnd": [{"type": "command", "bash": "mine"}]}}),
    )
    write(repo, INSTRUCTIONS_FILE, "# Team rules\n\nUse tabs.\n")
    python = "/opt/my venv/bin/python"
    done = install_copilot(repo, python)
    assert [i.what for i in done] == ["updated", "updated", "created"]
    assert done[2].path == copilot.CORE_FILE
    assert git(repo, "status", "--porcelain", "--", copilot.CORE_FILE).stdout == ""  # excluded
    data = json.loads((repo / copilot.HOOKS_FILE).read_text(encoding="utf-8"))
    assert data["hooks"]["sessionEnd"][0] == {"type": "command", "bash": "mine"}
    for event, name in copilot.SETTINGS_HOOKS.items():
        (entry,) = [e for e in data["hooks"][event] if e["bash"] != "mine"]
        assert shlex.split(entry["bash"]) == portable_argv("hook", "copilot", name)
    said = (repo / INSTRUCTIONS_FILE).read_text(encoding="utf-8")
    assert said.startswith("# Team rules\n\nUse tabs.\n") and said.count(BEGIN) == 1
    assert [i.what for i in install_copilot(repo, python)] == ["unchanged"] * 3
    edited = said.replace("Before acting", "First") + "\nMore of ours.\n"
    (repo / INSTRUCTIONS_FILE).write_text(edited, encoding="utf-8")
    install_copilot(repo, python)
    again = (repo / INSTRUCTIONS_FILE).read_text(encoding="utf-8")
    assert again.count(BEGIN) == 1 and again.count(END) == 1
    assert "Before acting" in again and again.endswith("More of ours.\n")


def test_doctor_checks_copilot_hooks_section_and_trust(ledger_repo: Path) -> None:
    assert _codes(ledger_repo, "copilot") == ("absent", [])
    install_copilot(ledger_repo, sys.executable)
    assert _codes(ledger_repo, "copilot")[1] == ["copilot_folder_untrusted"]
    home = Path(os.environ["HOME"]) / ".copilot"
    home.mkdir(exist_ok=True)
    config = "// managed\n" + json.dumps({"trusted_folders": [str(ledger_repo)]})
    (home / "config.json").write_text(config, encoding="utf-8")
    assert _codes(ledger_repo, "copilot") == ("ok", [])
    (ledger_repo / INSTRUCTIONS_FILE).write_text("# ours\n", encoding="utf-8")
    assert _codes(ledger_repo, "copilot")[1] == ["copilot_instructions_missing"]


def test_copilot_and_opencode_hooks_leave_the_work_tree_clean(ledger_repo: Path) -> None:
    install_copilot(ledger_repo, sys.executable)
    install_opencode(ledger_repo, sys.executable)
    commit(ledger_repo, "wire")
    for runtime, events in (("opencode", opencode.EVENTS), ("copilot", copilot.EVENTS)):
        for name in events:
            hook(ledger_repo, runtime, name, sample(runtime, name))
    assert git(ledger_repo, "status", "--porcelain").stdout == ""
