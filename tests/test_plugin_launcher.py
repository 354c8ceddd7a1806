"""The plugin's launcher (hooks/rehydrate-hook), run by a real sh as Claude Code runs it:
it finds rehydrate three ways, and without one it fails closed per event, never 127."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GIT_ENV, make_venv

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "hooks" / "rehydrate-hook"
VENV_BIN = Path(sys.executable).parent
NOT_FOUND = "rehydrate is not installed where Claude Code runs its hooks"


def launch(
    repo: Path, event: str, data: dict[str, object], path: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", str(LAUNCHER), "hook", "claude", event],
        cwd=repo,
        input=json.dumps({"session_id": "s", "cwd": str(repo), **data}),
        capture_output=True,
        text=True,
        env={"PATH": path, "HOME": os.environ["HOME"], **GIT_ENV, **env},
        check=False,
    )


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PATH folder with git and cat, and a python3 that cannot import rehydrate."""
    folder = tmp_path_factory.mktemp("bin")
    for tool in ("git", "cat"):
        found = shutil.which(tool)
        assert found
        (folder / tool).symlink_to(found)
    bare = make_bare_venv(tmp_path_factory.mktemp("bare") / "env")
    (folder / "python3").symlink_to(bare)
    return folder


def make_bare_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def _context(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


def test_rehydrate_on_path_runs_the_hook(ledger_repo: Path, tools: Path) -> None:
    done = launch(ledger_repo, "session-start", {"source": "startup"}, f"{VENV_BIN}:{tools}")
    assert "Session source: startup" in _context(done)


def test_a_python3_that_has_rehydrate_runs_the_hook(
    ledger_repo: Path, tools: Path, tmp_path: Path
) -> None:
    python = make_venv(tmp_path / "env")
    assert not (python.parent / "rehydrate").exists()  # no entry point: only `-m`
    done = launch(ledger_repo, "session-start", {"source": "startup"}, f"{python.parent}:{tools}")
    assert "Session source: startup" in _context(done)


def test_rehydrate_python_wins(ledger_repo: Path, tools: Path, tmp_path: Path) -> None:
    python = make_venv(tmp_path / "env with space")
    done = launch(
        ledger_repo, "session-start", {"source": "resume"}, str(tools), REHYDRATE_PYTHON=str(python)
    )
    assert "Session source: resume" in _context(done)


@pytest.mark.parametrize(
    ("event", "data", "code"),
    [
        pytest.param("pre-tool-use", {"tool_name": "Bash"}, 2, id="pre-tool-use-refused"),
        pytest.param("stop", {"stop_hook_active": False}, 2, id="stop-blocked-once"),
        pytest.param("stop", {"stop_hook_active": True}, 1, id="stop-then-let-go"),
        pytest.param("pre-compact", {"trigger": "manual"}, 2, id="manual-compact-refused"),
        pytest.param("pre-compact", {"trigger": "auto"}, 1, id="auto-compact-goes-on"),
        pytest.param("post-compact", {"trigger": "auto"}, 1, id="post-compact-shown"),
    ],
)
def test_without_rehydrate_each_event_fails_closed(
    ledger_repo: Path, tools: Path, event: str, data: dict[str, object], code: int
) -> None:
    done = launch(ledger_repo, event, data, str(tools), REHYDRATE_PYTHON="/nonexistent/python")
    assert done.returncode == code, done.stderr
    assert NOT_FOUND in done.stderr and "rehydrate doctor" in done.stderr
    assert done.stdout == ""


def test_without_rehydrate_other_tools_go_on(ledger_repo: Path, tools: Path) -> None:
    """PreToolUse hooks every tool (the compaction hold); only a shell command needs the
    failed-attempt check, so only it is refused."""
    done = launch(ledger_repo, "pre-tool-use", {"tool_name": "Read"}, str(tools))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_without_rehydrate_session_start_tells_the_model(ledger_repo: Path, tools: Path) -> None:
    done = launch(ledger_repo, "session-start", {"source": "startup"}, str(tools))
    assert done.returncode == 0  # stdout of an exit-0 SessionStart reaches the model
    assert NOT_FOUND in done.stdout and "were NOT loaded" in done.stdout
    assert "docs/Failed_Attempts.md" in done.stdout


def test_the_launcher_is_executable_in_git() -> None:
    """Claude Code copies the plugin; hooks.json runs it through sh, but keep +x too."""
    done = subprocess.run(
        ["git", "ls-files", "-s", "hooks/rehydrate-hook"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith("100755 "), done.stdout


@pytest.mark.parametrize(
    "setup",
    [
        pytest.param("none", id="no-ledgers-no-config"),
        pytest.param("outside", id="outside-any-repository"),
    ],
)
def test_without_rehydrate_a_project_that_has_not_opted_in_is_left_alone(
    tmp_path: Path, tools: Path, setup: str
) -> None:
    """Issue 26: a user-scope plugin must not refuse `ls` in an unrelated repository
    because rehydrate is missing; where the project opted in, it still fails closed."""
    where = tmp_path / "elsewhere"
    where.mkdir()
    if setup == "none":
        subprocess.run(["git", "init", "-q"], cwd=where, check=True)
    env = {"REHYDRATE_PYTHON": "/nonexistent/python"}
    for event, data in (("pre-tool-use", {"tool_name": "Bash"}), ("stop", {})):
        done = launch(where, event, data, str(tools), **env)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), event
    if setup == "none":  # the twin: the same repository, opted in by its configuration
        (where / "pyproject.toml").write_text('[tool.rehydrate]\nledger_dir = "docs"\n')
        done = launch(where, "pre-tool-use", {"tool_name": "Bash"}, str(tools), **env)
        assert done.returncode == 2 and NOT_FOUND in done.stderr


def test_the_launcher_finds_the_console_scripts_interpreter(
    ledger_repo: Path, tools: Path, tmp_path: Path
) -> None:
    """pipx / uv tool put only the console script on PATH: the launcher runs the Python of
    its #! line isolated, never the script itself (it would honour PYTHONPATH)."""
    folder = tmp_path / "onpath"
    folder.mkdir()
    (folder / "rehydrate").symlink_to(VENV_BIN / "rehydrate")
    (ledger_repo / "click.py").write_text("import os; os._exit(0)\n")
    done = launch(
        ledger_repo,
        "pre-tool-use",
        {"tool_name": "Bash", "tool_input": {"command": "go test -tags=musl ./..."}},
        f"{folder}:{tools}",
        PYTHONPATH=".",
    )
    assert "F-001" in done.stdout, done.stderr


def test_a_python_without_rehydrate_refuses_a_command_instead_of_exit_1(
    ledger_repo: Path, tools: Path
) -> None:
    """REHYDRATE_PYTHON (or git config's) names a Python whose rehydrate was uninstalled:
    its exit 1 ("No module named rehydrate") would let the command run; it is refused."""
    bare = str(tools / "python3")
    done = launch(
        ledger_repo, "pre-tool-use", {"tool_name": "Bash"}, str(tools), REHYDRATE_PYTHON=bare
    )
    assert done.returncode == 2 and "No module named rehydrate" in done.stderr
    done = launch(ledger_repo, "stop", {}, str(tools), REHYDRATE_PYTHON=bare)
    assert done.returncode == 1  # elsewhere: shown, never a stop held again and again
