"""The launch lines (launchline.py): read back whatever form, named by doctor when unsafe
or stale, rewritten by ``hook install`` / ``init`` (a second run changes no byte), and
the same words on every clone (issue 26: a team's committed files hold no machine path)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import commit, git, make_venv, run, scaffold
from rehydrate.agents.claude import SETTINGS_HOOKS
from rehydrate.agents.runtimes import RUNTIMES
from rehydrate.doctor import run as doctor
from rehydrate.git import find_repo
from rehydrate.launchline import (
    MISSING_GATE,
    MISSING_OTHER,
    Launch,
    command,
    parse_shell,
    portable,
    problem,
)

ROOT = Path(__file__).resolve().parents[1]
WIRED = [name for name in sorted(RUNTIMES) if RUNTIMES[name].launch_files]


@pytest.mark.parametrize(
    ("line", "kind", "safe"),
    [
        pytest.param(portable("hook", "claude", "stop"), "portable", True, id="portable"),
        pytest.param(command("guard", "--staged"), "isolated", True, id="isolated"),
        pytest.param("/v/bin/python -m rehydrate guard --staged", "unisolated", False, id="old"),
        pytest.param("'/a b/python' -E -s -m rehydrate x", "unisolated", False, id="E-s-only"),
        pytest.param("/v/bin/python -I -E -m rehydrate x", "isolated", False, id="extra-flag"),
        pytest.param("/v/bin/rehydrate hook claude stop", "bare", False, id="console-script"),
        pytest.param("rehydrate guard", "bare", False, id="bare-name"),
    ],
)
def test_every_form_is_read_back_and_judged(line: str, kind: str, safe: bool) -> None:
    launch = parse_shell(line)
    assert launch is not None and launch.kind == kind
    assert (problem(launch) is None) is safe


@pytest.mark.parametrize(
    "line",
    [
        "python -m other stop",
        "/v/bin/python -c 'import rehydrate'",
        "sh -c 'exit 0' rehydrate hook claude stop",  # not our script, whatever $0 says
        "'unbalanced",
        "python -m",
    ],
)
def test_lines_that_are_not_ours_are_not_read_as_ours(line: str) -> None:
    assert parse_shell(line) is None


def test_an_edited_portable_line_is_stale() -> None:
    line = portable("hook", "claude", "pre-tool-use").replace("exit 2", "exit 0")
    launch = parse_shell(line)
    assert launch == Launch("portable", "", ("hook", "claude", "pre-tool-use"), False)
    assert problem(launch) is not None


@pytest.fixture
def wired(repo: Path) -> Path:
    scaffold(repo)
    agents = [arg for name in WIRED for arg in ("--agent", name)]
    assert run(repo, "init", *agents).code == 0
    commit(repo, "init")
    return repo


def _codes(repo: Path) -> list[tuple[str, str, str | None]]:
    report = doctor(find_repo(repo))
    return [(f.integration, f.code, f.file) for f in report.findings]


def _no_trust(found: list[tuple[str, str, str | None]]) -> list[tuple[str, str, str | None]]:
    """Without the runtimes' user-level trust (not what this file tests)."""
    trust = ("codex_project_untrusted", "codex_hooks_untrusted", "gemini_folder_untrusted")
    return [f for f in found if f[1] not in trust and f[1] != "copilot_folder_untrusted"]


def _tracked(repo: Path) -> dict[str, bytes]:
    names = git(repo, "ls-files", "-z").stdout.split("\0")
    return {name: (repo / name).read_bytes() for name in names if name}


def test_old_lines_are_named_then_rewritten_and_a_second_run_changes_nothing(
    wired: Path,
) -> None:
    """An older rehydrate's lines everywhere (python -m, no -I, a machine path in the
    committed files): doctor names each with its fix; ``hook install`` rewrites all of
    them; running it again leaves every byte as it is."""
    old = f"{sys.executable} -m rehydrate"
    for name in ("pre-commit", "pre-merge-commit"):
        hook = wired / ".git" / "hooks" / name
        hook.write_text(hook.read_text().replace(f"{sys.executable} -I -m", f"{sys.executable} -m"))
    git(wired, "config", "merge.rehydrate.driver", f"{old} merge-driver %O %A %B %P")
    settings = wired / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    for groups in data["hooks"].values():
        for entry in (h for g in groups for h in g["hooks"]):
            entry["command"] = f"{old} " + " ".join(shlex.split(entry["command"])[-3:])
    settings.write_text(json.dumps(data, indent=2) + "\n")
    found = _no_trust(_codes(wired))
    assert ("git-hooks", "launch_unsafe", ".git/hooks/pre-commit") in found
    assert ("git-hooks", "launch_unsafe", ".git/hooks/pre-merge-commit") in found
    assert ("merge-driver", "launch_unsafe", "git config merge.rehydrate.driver") in found
    assert ("claude-settings", "launch_unsafe", ".claude/settings.json") in found
    assert ("claude-settings", "launch_machine_path", ".claude/settings.json") in found
    assert run(wired, "hook", "install").code == 0
    assert _no_trust(_codes(wired)) == []
    hooks = {n: (wired / ".git/hooks" / n).read_bytes() for n in ("pre-commit", "pre-merge-commit")}
    files = _tracked(wired)
    assert run(wired, "hook", "install").code == 0
    assert _tracked(wired) == files
    assert {n: (wired / ".git/hooks" / n).read_bytes() for n in hooks} == hooks
    assert run(wired, "init", *[a for n in WIRED for a in ("--agent", n)]).code == 0
    assert _tracked(wired) == files


def test_a_second_clone_with_another_venv_leaves_tracked_files_byte_identical(
    wired: Path, tmp_path: Path
) -> None:
    """Two real virtualenvs at different paths: the teammate's init changes no tracked
    byte, only its own git config; each clone's hooks run its own interpreter."""
    first = _tracked(wired)
    assert not any(sys.executable.encode() in text for text in first.values())
    clone = tmp_path / "teammate"
    git(tmp_path, "clone", "-q", str(wired), str(clone))
    python = make_venv(tmp_path / "bob's venv")
    agents = [a for n in WIRED for a in ("--agent", n)]
    subprocess.run(
        [str(python), "-I", "-m", "rehydrate", "init", *agents],
        cwd=clone,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    assert git(clone, "status", "--porcelain").stdout == ""
    assert _tracked(clone) == first
    assert git(clone, "config", "--get", "rehydrate.python").stdout.strip() == str(python)
    event = {
        "session_id": "s",
        "cwd": str(clone),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "go test -tags=musl ./..."},
    }
    line = json.loads((clone / ".claude/settings.json").read_text())["hooks"]["PreToolUse"]
    done = subprocess.run(
        ["sh", "-c", line[0]["hooks"][0]["command"]],
        cwd=clone,
        input=json.dumps(event),
        capture_output=True,
        text=True,
        check=False,
    )
    assert "F-001" in done.stdout, done.stderr  # bob's interpreter ran it


def test_init_on_a_set_up_repository_says_what_changed(wired: Path) -> None:
    """Issue 26: not "commit the empty ledgers" when only .claude/ changed."""
    (wired / ".claude" / "settings.json").unlink()
    git(wired, "commit", "-qam", "drop the settings", "--no-verify")
    result = run(wired, "init", "--claude")
    assert result.code == 0
    assert "empty ledgers" not in result.err
    assert "commit what changed (git add .claude/settings.json)" in result.err
    again = run(wired, "init", "--claude")
    assert "nothing changed" in again.err and "git add" not in again.err


def test_doctor_md_says_how_many_claude_hooks_init_wires() -> None:
    text = (ROOT / "docs" / "doctor.md").read_text(encoding="utf-8")
    counts = {int(n) for n in __import__("re").findall(r"(\d+) hooks in \.claude/", text)}
    assert counts == {len(SETTINGS_HOOKS)}
    assert ", ".join(SETTINGS_HOOKS) in text


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real Python without rehydrate."""
    path = tmp_path_factory.mktemp("bare") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


@pytest.mark.parametrize(
    ("event", "code"),
    [("pre-tool-use", MISSING_GATE), ("before-tool", MISSING_GATE), ("stop", MISSING_OTHER)],
)
def test_the_portable_line_without_an_interpreter_fails_the_documented_way(
    repo: Path, event: str, code: int, bare_python: Path
) -> None:
    """docs/integrations/native-hook.md, "When rehydrate is missing": unset, gone, a
    folder; then a Python that cannot import rehydrate (the package uninstalled)."""
    line = portable("hook", "claude", event)
    git(repo, "config", "rehydrate.python", str(bare_python))
    done = subprocess.run(["sh", "-c", line], cwd=repo, capture_output=True, text=True)
    assert done.returncode == code and "No module named rehydrate" in done.stderr
    git(repo, "config", "--unset", "rehydrate.python")
    for config in (None, str(repo / "gone" / "python"), str(repo)):  # unset, gone, a folder
        if config:
            git(repo, "config", "rehydrate.python", config)
        done = subprocess.run(
            ["sh", "-c", line], cwd=repo, capture_output=True, text=True, check=False
        )
        assert done.returncode == code and done.stdout == ""
        assert "rehydrate cannot run" in done.stderr and "rehydrate init" in done.stderr
    page = (ROOT / "docs" / "integrations" / "native-hook.md").read_text(encoding="utf-8")
    assert f"exits {MISSING_GATE}" in page and f"exits {MISSING_OTHER}" in page
