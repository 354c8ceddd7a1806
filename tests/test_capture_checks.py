"""Capture tells a failed *approach* from a failing *check* (issue 26 item 3), in every
runtime that shows tool results: a test run reporting failing tests is not proposed as
a failed attempt; a failed approach is, with the lines that say what failed; and
``fail add`` refuses placeholders and warns when it records the test command."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, run, scaffold
from rehydrate.agents.captured import PENDING_FILE, failure_line
from rehydrate.agents.events import HookResult
from rehydrate.agents.outcomes import failing_check, salient

PYTEST_RED = """\
============================= test session starts ==============================
collected 2 items

tests/test_a.py .F                                                       [100%]

=================================== FAILURES ===================================
    def test_b():
>       assert 1 == 2
E       assert 1 == 2
tests/test_a.py:5: AssertionError
=========================== short test summary info ============================
FAILED tests/test_a.py::test_b - assert 1 == 2
========================= 1 failed, 1 passed in 0.03s ==========================
"""
NO_PYTEST = "/usr/bin/python3: No module named pytest\n"

CHECKS = [
    pytest.param("python -m pytest -q -p no:xdist", PYTEST_RED, id="pytest"),
    pytest.param("go test ./...", "--- FAIL: TestX (0.00s)\nFAIL\nFAIL\tm/x\t0.1s\n", id="go"),
    pytest.param("cargo test", "test result: FAILED. 3 passed; 1 failed;\n", id="cargo"),
    pytest.param("npm test", "Tests:       1 failed, 4 passed, 5 total\n", id="npm-jest"),
    pytest.param("cd web && npx jest --ci 2>&1 | tail -5", "Tests: 2 failed\n", id="jest"),
    pytest.param("make test", "2 failed, 10 passed\nmake: *** [test] Error 1\n", id="make"),
    pytest.param("npx mocha", "  3 passing\n  1 failing\n", id="mocha"),
]
APPROACHES = [
    # a test command that fails for another reason: the approach failed
    pytest.param("python -m pytest -q", NO_PYTEST, "No module named pytest", id="no-pytest"),
    pytest.param("go test -tags=musl ./...", "ld: error 22\n", "ld: error 22", id="linker"),
    # not a test run, though its output says "failed"
    pytest.param("make deploy", "2 failed uploads\nError 1\n", "2 failed uploads", id="deploy"),
    pytest.param(
        "ls /nonexistent",
        "ls: cannot access '/nonexistent': No such file or directory",
        "No such file or directory",
        id="ls",
    ),
]


@pytest.mark.parametrize(("command", "output"), CHECKS)
def test_a_red_test_run_is_a_failing_check(command: str, output: str) -> None:
    assert failing_check(command, "Exit code 1\n" + output)


@pytest.mark.parametrize(("command", "output", "said"), APPROACHES)
def test_a_failed_approach_is_no_check(command: str, output: str, said: str) -> None:
    assert not failing_check(command, "Exit code 1\n" + output)
    assert said in failure_line("Exit code 1\n" + output)


def test_the_failure_text_says_what_failed_not_the_progress_bar() -> None:
    line = failure_line("Exit code 1\n" + PYTEST_RED)
    assert "[100%]" not in line and "assert 1 == 2" in line
    assert salient("Exit code 1\n.F [100%]\n") == []
    assert failure_line("Exit code 1\n.F                [100%]\n") == "Exit code 1"
    trace = 'Traceback (most recent call last):\n  File "x.py"\nModuleNotFoundError: foo\n'
    assert failure_line(trace) == "ModuleNotFoundError: foo"


def _events(cwd: str, command: str, output: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each runtime's after-tool hook that shows the result of a failed shell command."""
    return {
        "claude": (
            "post-tool-use-failure",
            {
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "error": f"Exit code 1\n{output}",
                "cwd": cwd,
            },
        ),
        "gemini": (
            "after-tool",
            {
                "tool_name": "run_shell_command",
                "tool_input": {"command": command},
                "tool_response": {"llmContent": f"{output}\nExit Code: 1\n"},
                "cwd": cwd,
            },
        ),
        "opencode": (
            "tool-after",
            {"tool": "bash", "command": command, "exit": 1, "output": output, "cwd": cwd},
        ),
        "copilot": (
            "post-tool-use",
            {
                "toolName": "bash",
                "toolArgs": {"command": command},
                "toolResult": {
                    "resultType": "failure",
                    "textResultForLlm": f"{output}\n<shellId: 1 completed with exit code 1>",
                },
                "cwd": cwd,
            },
        ),
        "cline": (
            "post-tool-use",
            {
                "postToolUse": {
                    "toolName": "execute_command",
                    "parameters": {"command": command},
                    "success": False,
                    "result": f"Exit code 1\n{output}",
                },
                "workspaceRoots": [cwd],
            },
        ),
    }


def _hook(runtime: str) -> Callable[[str, str], HookResult]:
    hook: Callable[[str, str], HookResult] = importlib.import_module(
        f"rehydrate.agents.{runtime}"
    ).run_hook
    return hook


def _pending(repo: Path) -> list[dict[str, Any]]:
    path = repo / PENDING_FILE
    if not path.exists():
        return []
    failures: list[dict[str, Any]] = json.loads(path.read_text())["failures"]
    return failures


@pytest.mark.parametrize("runtime", ["claude", "gemini", "opencode", "copilot", "cline"])
def test_every_runtime_captures_an_approach_and_not_a_check(repo: Path, runtime: str) -> None:
    scaffold(repo)
    commit(repo, "ledgers")
    name, event = _events(str(repo), "python -m pytest -q", PYTEST_RED)[runtime]
    result = _hook(runtime)(name, json.dumps(event))
    assert _pending(repo) == [] and "failing check" in (result.message or ""), result
    name, event = _events(str(repo), "python -m pytest -q", NO_PYTEST)[runtime]
    result = _hook(runtime)(name, json.dumps(event))
    pending = _pending(repo)
    assert [p["command"] for p in pending] == ["python -m pytest -q"], result
    listed = run(repo, "fail", "pending")
    assert "No module named pytest" in listed.out


PLACEHOLDERS = [
    "WHAT TO DO INSTEAD",
    "what to do instead",
    "<WHAT TO DO INSTEAD>",
    "TODO",
    "todo: later",
    "TBD",
    "...",
    "…",
    "?",
    "-",
    "   ",
    "<fill in>",
]


@pytest.fixture
def fail_repo(repo: Path) -> Path:
    scaffold(repo)
    commit(repo, "ledgers")
    return repo


@pytest.mark.parametrize("workaround", PLACEHOLDERS)
def test_fail_add_refuses_a_placeholder_workaround(fail_repo: Path, workaround: str) -> None:
    before = (fail_repo / "docs/Failed_Attempts.md").read_bytes()
    result = run(
        fail_repo, "fail", "add", "--tried", "`make x`", "--failure", "boom",
        "--workaround", workaround,
    )  # fmt: skip
    assert result.code == 2, result.err
    assert "placeholder_value" in result.err or "empty_value" in result.err
    assert "--workaround" in result.err
    assert (fail_repo / "docs/Failed_Attempts.md").read_bytes() == before


@pytest.mark.parametrize(
    "workaround",
    [
        "use `make todo-list` instead",
        "TODO list: run `make gen` first, then build the docs",
        "run it with --no-cache ... then retry",
        "pin left-pad to 1.3",
        "none",  # says something: there is no workaround
        "N/A",
    ],
)
def test_fail_add_takes_a_real_workaround_that_mentions_the_words(
    fail_repo: Path, workaround: str
) -> None:
    result = run(
        fail_repo, "fail", "add", "--tried", "`make x`", "--failure", "boom",
        "--workaround", workaround,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "warning" not in result.err


def test_fail_add_refuses_a_placeholder_failure(fail_repo: Path) -> None:
    result = run(
        fail_repo, "fail", "add", "--tried", "`make x`", "--failure", "TODO",
        "--workaround", "run make y",
    )  # fmt: skip
    assert result.code == 2 and "placeholder_value" in result.err and "--failure" in result.err


def test_fail_add_warns_when_it_records_the_test_command(fail_repo: Path) -> None:
    result = run(
        fail_repo, "fail", "add", "--tried", "`python -m pytest -q -p no:xdist`",
        "--failure", "ImportError in conftest", "--workaround", "install the test extra first",
    )  # fmt: skip
    assert result.code == 0
    assert "warning: `python -m pytest -q -p no:xdist` runs the tests" in result.err
