"""``rehydrate doctor`` on real repositories wired by the real ``init``: the clean case, and
each way the wiring breaks (a deleted or moved virtualenv, a missing event, a broken
ledger, a foreign hook, the plugin) with the fix it names, run to prove it fixes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, git, make_venv, run, write
from rehydrate.agents.claude import SETTINGS_HOOKS
from rehydrate.doctor import Report
from rehydrate.doctor import run as doctor
from rehydrate.doctor.hookfile import codes_of
from rehydrate.git import find_repo
from rehydrate.guard.managers import PRE_COMMIT

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
WITH_REHYDRATE = f"{VENV_BIN}:/usr/bin:/bin"  # the test's rehydrate on PATH
WITHOUT = "/usr/bin:/bin"


def check(repo: Path, path: str = WITH_REHYDRATE, **extra: str) -> Report:
    if path == WITHOUT:  # the premise of every "no rehydrate on PATH" case
        assert shutil.which("rehydrate", path=WITHOUT) is None
    return doctor(find_repo(repo), {**os.environ, "PATH": path, **extra})


def codes(report: Report) -> list[str]:
    return [f.code for f in report.findings]


def states(report: Report) -> dict[str, str]:
    return {i.name: i.state for i in report.integrations}


def finding(report: Report, code: str) -> Any:
    (found,) = [f for f in report.findings if f.code == code]
    return found


@pytest.fixture
def wired(repo: Path) -> Path:
    """``rehydrate init --claude`` (hooks, merge driver, settings), ledgers committed."""
    assert run(repo, "init", "--claude").code == 0
    commit(repo, "init")
    return repo


def _python_init(python: Path, repo: Path, *args: str) -> None:
    subprocess.run(
        [str(python), "-m", "rehydrate", "init", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )


def test_clean_wiring_has_no_findings(wired: Path) -> None:
    report = check(wired)
    assert report.ok, report.findings
    assert states(report) == {
        "ledgers": "ok",
        "git-hooks": "ok",
        "merge-driver": "ok",
        "claude-settings": "ok",
        "claude-plugin": "absent",
        "codex": "absent",
        "cursor": "absent",
        "cline": "absent",
        "kiro": "absent",
        "aider": "absent",
        "copilot": "absent",
        "gemini": "absent",
        "opencode": "absent",
        "mcp": "ok",  # init --claude registered rehydrate mcp in .mcp.json
    }
    result = run(wired, "doctor")
    assert result.code == 0 and result.err == ""  # the report is the output (issue 26)
    assert "every installed integration is wired" in result.out


def test_json_report_and_exit_code(wired: Path) -> None:
    (wired / "docs/Task.md").unlink()
    result = run(wired, "doctor", "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert data["schema"] == "rehydrate/doctor-v1" and data["ok"] is False
    assert [f["code"] for f in data["findings"]] == ["ledger_missing"]
    assert data["findings"][0]["file"] == "docs/Task.md"
    assert data["findings"][0]["fix"].startswith("run `rehydrate init`")
    human = run(wired, "doctor")
    assert human.code == 1 and human.err == ""
    assert "ledgers: docs/Task.md: ledger_missing" in human.out and "fix: run" in human.out


def test_doctor_outside_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    assert run(tmp_path, "doctor").code == 2


def test_a_deleted_virtualenv_breaks_the_git_hooks(repo: Path, tmp_path: Path) -> None:
    python = make_venv(tmp_path / "old-env")
    _python_init(python, repo)
    commit(repo, "init")
    assert check(repo).ok
    shutil.rmtree(tmp_path / "old-env")
    report = check(repo)
    assert codes(report) == [
        "hook_interpreter_broken",
        "hook_interpreter_broken",
        "merge_driver_broken",
    ]
    hook = report.findings[0]
    assert hook.file == ".git/hooks/pre-commit" and "does not exist" in hook.message
    assert "every commit is refused" in hook.message  # no PATH fallback (launchline.py)
    assert hook.fix.startswith("rehydrate hook install")
    # Doctor says what git will do, and git does it (a rehydrate on PATH changes nothing).
    write(repo, "notes.txt", "x\n")
    git(repo, "add", "notes.txt")
    done = subprocess.run(
        ["git", "commit", "-qm", "x"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": WITHOUT},
        check=False,
    )
    assert done.returncode != 0 and "rehydrate" in done.stderr
    assert run(repo, "hook", "install").code == 0  # the fix doctor names
    assert check(repo).ok


def test_a_moved_virtualenv_is_found_and_init_rewires_it(repo: Path, tmp_path: Path) -> None:
    old = make_venv(tmp_path / "venv-a")
    _python_init(old, repo, "--claude")
    commit(repo, "init")
    assert check(repo).ok
    (tmp_path / "venv-a").rename(tmp_path / "venv-b")
    new = tmp_path / "venv-b" / "bin" / "python"
    report = check(repo)
    assert codes(report) == [
        "hook_interpreter_broken",
        "hook_interpreter_broken",
        "merge_driver_broken",
        "launch_python_broken",
    ]
    claude = finding(report, "launch_python_broken")
    assert claude.file == ".claude/settings.json" and claude.fix == "rehydrate init --claude"
    assert str(old) in claude.message and "git config rehydrate.python" in claude.message
    assert "SessionStart, SubagentStart, PreToolUse" in claude.message
    before = (repo / ".claude/settings.json").read_bytes()
    _python_init(new, repo, "--claude")  # the fix, from the moved virtualenv
    after = check(repo)
    assert after.ok, after.findings
    assert (repo / ".claude/settings.json").read_bytes() == before  # only git config moved
    settings = json.loads(before)
    commands = [h["command"] for g in settings["hooks"].values() for x in g for h in x["hooks"]]
    assert len(commands) == len(SETTINGS_HOOKS)
    assert all(c.startswith("sh -c ") and str(new) not in c for c in commands)


def test_a_missing_event_is_named_with_its_fix(wired: Path) -> None:
    path = wired / ".claude/settings.json"
    settings = json.loads(path.read_text())
    del settings["hooks"]["Stop"]
    path.write_text(json.dumps(settings))
    report = check(wired)
    assert codes(report) == ["claude_event_missing"]
    missing = report.findings[0]
    assert "Stop" in missing.message and missing.fix == "rehydrate init --claude"
    assert states(report)["claude-settings"] == "broken"
    assert run(wired, "init", "--claude").code == 0
    assert check(wired).ok


def test_a_bare_command_depends_on_path(wired: Path) -> None:
    path = wired / ".claude/settings.json"
    settings = json.loads(path.read_text())
    for groups in settings["hooks"].values():
        for entry in (h for g in groups for h in g["hooks"]):
            entry["command"] = "rehydrate " + " ".join(entry["command"].split()[-3:])
    path.write_text(json.dumps(settings))
    report = check(wired, WITHOUT)
    # without rehydrate on PATH, the .mcp.json server cannot start either
    assert codes(report) == ["claude_hook_bare", "mcp_server_unrunnable"]
    assert "not on this PATH" in report.findings[0].message
    assert "exits 127" in report.findings[0].message


def test_duplicated_and_misplaced_hooks(wired: Path) -> None:
    path = wired / ".claude/settings.json"
    settings = json.loads(path.read_text())
    settings["hooks"]["Stop"].append(settings["hooks"]["Stop"][0])
    settings["hooks"]["PreToolUse"][0]["matcher"] = "Write"
    settings["hooks"]["SessionEnd"] = settings["hooks"]["PostCompact"]
    path.write_text(json.dumps(settings))
    assert codes(check(wired)) == [
        "claude_matcher_wrong",
        "claude_hook_duplicated",
        "claude_hook_misplaced",
    ]


def test_invalid_settings_are_a_finding(wired: Path) -> None:
    write(wired, ".claude/settings.local.json", "{ nope")
    report = check(wired)
    assert codes(report) == ["claude_settings_invalid"]
    assert report.findings[0].file == ".claude/settings.local.json"


@pytest.mark.parametrize(
    ("break_it", "rule"),
    [
        pytest.param(b"| stray |\n", "table_malformed", id="stray-row"),
        pytest.param(b"| F-9 | a | b |\n", "table_malformed", id="short-row"),
        pytest.param(b"\xff", "bad_encoding", id="not-utf8"),
    ],
)
def test_an_unreadable_ledger_is_a_finding(wired: Path, break_it: bytes, rule: str) -> None:
    path = wired / "docs/Failed_Attempts.md"
    path.write_bytes(path.read_bytes() + break_it)
    report = check(wired)
    assert codes(report) == ["ledger_unreadable"]
    found = report.findings[0]
    assert found.file == "docs/Failed_Attempts.md" and found.line is not None
    assert found.message.startswith(f"{rule}: ")
    assert states(report)["ledgers"] == "broken"


def test_an_invalid_configuration_is_a_finding(wired: Path) -> None:
    write(wired, ".rehydrate.toml", "[paths\n")
    report = check(wired)
    assert codes(report) == ["config_invalid"]
    assert report.findings[0].file == ".rehydrate.toml"


def test_merge_driver_unset_and_attributes_missing(wired: Path) -> None:
    git(wired, "config", "--unset", "merge.rehydrate.driver")
    (wired / ".gitattributes").write_text("docs/Spec.md merge=rehydrate\n")
    report = check(wired)
    assert codes(report) == ["merge_driver_unset", "merge_attributes_missing"]
    assert "docs/Task.md, docs/Failed_Attempts.md" in report.findings[1].message
    assert run(wired, "hook", "install").code == 0
    assert check(wired).ok


def test_a_foreign_hook_and_a_hook_git_skips(wired: Path) -> None:
    hooks = wired / ".git" / "hooks"
    (hooks / "pre-commit").write_text('#!/bin/sh\n. "$(dirname "$0")/h"\n')
    (hooks / "pre-commit").chmod(0o755)
    (hooks / "pre-merge-commit").chmod(0o644)
    assert codes(check(wired)) == ["hook_not_ours", "hook_not_executable"]
    assert run(wired, "hook", "install").code == 0  # chains the foreign one, sets +x
    assert check(wired).ok
    (hooks / "pre-commit.rehydrate-chained").chmod(0o644)
    report = check(wired)
    assert codes(report) == ["chained_hook_not_executable"]
    assert report.findings[0].fix == "chmod +x .git/hooks/pre-commit.rehydrate-chained"


def test_the_pre_commit_framework_runs_the_guard(wired: Path) -> None:
    hooks = wired / ".git" / "hooks"
    for hook in ("pre-commit", "pre-merge-commit"):
        (hooks / hook).unlink()
    write(
        wired,
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks:\n  - id: rehydrate-guard\n",
    )
    report = check(wired)
    assert codes(report) == ["hook_missing"]
    assert report.findings[0].fix == PRE_COMMIT.reinstall
    (hooks / "pre-commit").write_text("#!/usr/bin/env bash\n# File generated by pre-commit: x\n")
    (hooks / "pre-commit").chmod(0o755)
    report = check(wired)
    assert report.ok and "pre-commit run pre-commit" in report.integrations[1].detail


# The plugin, as Claude Code 2.1.332's `claude plugin install` records it (the real
# install is in tests/realclient/test_claude_code_real.py).


def install_plugin(home: Path, repo: Path, *, scope: str = "user", enabled: bool = True) -> Path:
    cache = home / ".claude" / "plugins" / "cache" / "rehydrate" / "rehydrate" / "0.1.0"
    for part in (".claude-plugin", "hooks"):
        shutil.copytree(ROOT / part, cache / part)
    record: dict[str, Any] = {"scope": scope, "installPath": str(cache), "version": "0.1.0"}
    if scope != "user":
        record["projectPath"] = str(repo)
    registry = {"version": 2, "plugins": {"rehydrate@rehydrate": [record]}}
    write(home / ".claude", "plugins/installed_plugins.json", json.dumps(registry))
    where = (
        home / ".claude" / "settings.json" if scope == "user" else repo / ".claude/settings.json"
    )
    write(
        where.parent, where.name, json.dumps({"enabledPlugins": {"rehydrate@rehydrate": enabled}})
    )
    return cache


@pytest.fixture
def plain(repo: Path) -> Path:
    """``rehydrate init`` without --claude."""
    assert run(repo, "init").code == 0
    commit(repo, "init")
    return repo


def test_an_installed_plugin_is_checked(plain: Path) -> None:
    home = Path(os.environ["HOME"])
    cache = install_plugin(home, plain)
    report = check(plain)
    assert report.ok and states(report)["claude-plugin"] == "ok"
    assert str(cache) in next(i for i in report.integrations if i.name == "claude-plugin").detail
    missing = check(plain, WITHOUT)  # the launcher would find no rehydrate
    assert codes(missing) == ["claude_plugin_no_rehydrate"]
    python = make_venv(plain.parent / "env")
    assert check(plain, WITHOUT, REHYDRATE_PYTHON=str(python)).ok
    hooks = json.loads((cache / "hooks/hooks.json").read_text())
    del hooks["hooks"]["PreCompact"]
    (cache / "hooks/hooks.json").write_text(json.dumps(hooks))
    outdated = check(plain)
    assert codes(outdated) == ["claude_plugin_outdated"]
    assert "PreCompact" in outdated.findings[0].message
    launcher = cache / "hooks" / "rehydrate-hook"  # an older plugin's launcher: no -I
    launcher.write_text(launcher.read_text().replace(" -I -m rehydrate", " -m rehydrate"))
    unsafe = check(plain)
    assert codes(unsafe) == ["launch_unsafe", "claude_plugin_outdated"]
    assert unsafe.findings[0].fix.startswith("claude plugin update rehydrate@rehydrate")


def test_a_disabled_or_other_projects_plugin_is_no_finding(plain: Path, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    install_plugin(home, tmp_path / "elsewhere", scope="project")
    assert states(check(plain))["claude-plugin"] == "absent"
    shutil.rmtree(home / ".claude")
    install_plugin(home, plain, enabled=False)
    report = check(plain)
    assert report.ok and states(report)["claude-plugin"] == "disabled"


def test_plugin_and_settings_hooks_together_run_twice(plain: Path) -> None:
    install_plugin(Path(os.environ["HOME"]), plain, scope="project")
    assert check(plain).ok
    assert run(plain, "init", "--claude").code == 0
    report = check(plain)
    assert codes(report) == ["claude_hooks_twice"]
    assert "claude plugin disable rehydrate@rehydrate" in report.findings[0].fix


def _row_checked() -> list[str]:
    """The runtimes whose hook file the doctor checks from their row alone (no module of
    their own, doctor/hookfile.row_check) or through it (their module calls it)."""
    from rehydrate.agents.runtimes import RUNTIMES

    folder = ROOT / "src" / "rehydrate" / "doctor"
    return [
        name
        for name, info in RUNTIMES.items()
        if any(not row.check for row in info.doctor)
        or (
            (folder / f"{name}.py").is_file()
            and "row_check(NAME)" in (folder / f"{name}.py").read_text(encoding="utf-8")
        )
    ]


def test_every_finding_code_is_documented() -> None:
    """docs/doctor.md's code table holds exactly the codes the checks can report."""
    import ast
    import re

    source = set()
    for path in (ROOT / "src" / "rehydrate" / "doctor").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if re.fullmatch(
                    r"(hook|launch|chained|merge|claude|ledger|config|codex|cursor|cline|kiro|aider|gemini|opencode|copilot|mcp)_[a-z_]+",
                    node.value,
                ):
                    source.add(node.value)
    source |= {code for name in _row_checked() for code in codes_of(name) if code}
    text = (ROOT / "docs" / "doctor.md").read_text()
    table = text[text.index("## Finding codes") : text.index("## Exit codes")]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", table, re.MULTILINE))
    assert source == documented


def test_one_hook_file_check_for_every_json_hook_runtime() -> None:
    # every runtime whose launch lines sit in a JSON hook file is checked by the one
    # module doctor/hookfile.py; no doctor module keeps a second copy of its checks
    import rehydrate.doctor as doctor_package
    from rehydrate.agents.runtimes import RUNTIMES

    folder = Path(doctor_package.__file__).parent
    json_runtimes = sorted(
        name
        for name, info in RUNTIMES.items()
        if any(f.endswith(".json") for f in info.launch_files) and name != "claude"
    )
    assert json_runtimes == ["codex", "copilot", "cursor", "gemini", "kiro"]
    for name in json_runtimes:  # its own module uses the one check, or its row alone does
        module = folder / f"{name}.py"
        assert name in _row_checked() or "from .hookfile import" in module.read_text("utf-8")
    copies = [
        path.name
        for path in sorted(folder.glob("*.py"))
        if path.name != "hookfile.py"
        and (
            "def event_findings(" in path.read_text(encoding="utf-8")
            or "def program_findings(" in path.read_text(encoding="utf-8")
        )
    ]
    assert copies == []
