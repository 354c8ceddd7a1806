"""``rehydrate run -- claude -p …``: real Claude Code sessions in the loop, against the fake
Messages API. Assertions are on what reached the model and on the run's record."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import FakeAnthropic, bash, text
from harness import SESSION_TIMEOUT, _environment, install_claude, make_project

from conftest import commit, git

pytestmark = pytest.mark.realclient

SECOND_ACTION = "pass completion check X-001 in the second session"
SESSION_ONE = f"rehydrate task next '{SECOND_ACTION}' && git commit -qam 'session 1: next action'"
SESSION_TWO = "rehydrate task check pass X-001 && git commit -qam 'session 2: X-001 passed'"
RECORDED = "git commit --allow-empty -qm 'session 1: state recorded'"  # state as it stands


@pytest.fixture(scope="module")
def claude() -> Path:
    return install_claude()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = make_project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "rehydrate", "task", "check", "add", "the loop reaches done"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "X-001", done.stdout
    commit(repo, "completion check")
    return repo


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeAnthropic]:
    turns = [[bash(SESSION_ONE)], [text("recorded")], [bash(SESSION_TWO)], [text("passed")]]
    with FakeAnthropic(turns, log_file=tmp_path / "requests-0.jsonl") as server:
        yield server


def _run(project: Path, claude: Path, fake: FakeAnthropic, *options: str) -> Any:
    command = [
        sys.executable,
        "-m",
        "rehydrate",
        "run",
        *options,
        "--",
        str(claude),
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--allowedTools",
        "Bash",
    ]
    return subprocess.run(
        command,
        cwd=project,
        env=_environment(project, fake),
        capture_output=True,
        text=True,
        timeout=SESSION_TIMEOUT * 3,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _index(project: Path) -> list[dict[str, Any]]:
    lines = (project / ".rehydrate/sessions/index.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_two_claude_sessions_the_second_from_what_the_first_committed(
    claude: Path, project: Path, fake: FakeAnthropic
) -> None:
    done = _run(project, claude, fake, "--max-sessions", "3")
    assert done.returncode == 0, done.stderr
    assert "done after session #2" in done.stderr
    index = _index(project)
    assert [e["verdict"] for e in index] == ["continue", "done"]
    assert index[0]["progress"] == ["next action changed"]
    assert index[1]["progress"] == ["X-001 open->passed"]
    assert all(e["guard"] == "pass" and e["commits"] == 1 for e in index)
    # claude's stream-json result reports cost; its assistant messages report usage
    assert all(isinstance(e["cost_usd"], float) for e in index)
    assert all(e["context_peak"] for e in index)
    turns = fake.turn_requests()
    assert len(turns) == 4
    first, second = turns[0].text(), turns[2].text()
    assert SECOND_ACTION not in first
    # the second session's first request: rehydrated from the first session's commit
    assert SECOND_ACTION in second
    head = git(project, "rev-parse", "HEAD~1").stdout.strip()
    assert head == index[0]["head_after"] == index[1]["head_before"]
    assert head[:12] in second
    assert "rehydrate-checksum/v1:sha256:" in second
    # the ledgers reach the model once: the stdin prompt carries them, the SessionStart
    # hook (wired by init --claude) only points at the prompt the loop delivered
    for request in (first, second):
        assert request.count("never push to the main branch directly") == 1  # C-RC1
        assert "as your first message" in request
    # no permission flag was added: the command line is the user's
    log = (project / ".rehydrate/sessions/1.log").read_text()
    assert '"type":"result"' in log.replace(" ", "")


def _last_command(messages: list[dict[str, Any]]) -> str | None:
    for message in reversed(messages):
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                return str(block["input"]["command"])
    return None


def _route(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A model that obeys: told to record its state, it does so (and then waits)."""
    messages = list(body.get("messages") or [])
    content = messages[-1].get("content") if messages else None
    results = (
        [b for b in content or [] if isinstance(b, dict) and b.get("type") == "tool_result"]
        if isinstance(content, list)
        else []
    )
    last = _last_command(messages)
    if not results:  # which session: what its prompt (the first message) says is next
        prompt = json.dumps(messages[:1])  # not a later message quoting SESSION_ONE's command
        return [bash(SESSION_TWO if SECOND_ACTION in prompt else SESSION_ONE)]
    if results[-1].get("is_error") and "session ends after this" in json.dumps(results[-1]):
        # record and commit, as told: SESSION_ONE when it was the call refused; else it ran
        # and committed already (the hook reads the usage from Claude Code's transcript,
        # which may not hold the message that called SESSION_ONE yet: a hook that starts
        # faster tells on the next call), and what is left to record is a commit of the
        # state as it stands
        return [bash(SESSION_ONE if last == SESSION_ONE else RECORDED)]
    if last in (SESSION_ONE, RECORDED):  # then waits, as the first branch says
        # a plain `sleep 30` is refused by Claude Code itself ("Blocked: standalone sleep")
        return [bash("python3 -c 'import time; time.sleep(30)'", "wait for the loop to end it")]
    return [text("passed")]


def test_context_limit_ends_a_claude_session_after_it_recorded_its_state(
    claude: Path, project: Path, tmp_path: Path
) -> None:
    with FakeAnthropic(
        [], log_file=tmp_path / "requests-1.jsonl", route=_route, input_tokens=[120000] * 3 + [10]
    ) as fake:
        done = _run(project, claude, fake, "--context-limit", "50%", "--grace-seconds", "2")
    assert done.returncode == 0, done.stderr
    index = _index(project)
    assert index[0]["ended_by"] == "context_limit", done.stderr
    assert index[0]["context_peak"] >= 120000
    assert index[0]["progress"] == ["next action changed"]
    assert index[-1]["verdict"] == "done"
    # the model was told, through the PreToolUse hook, to record its state and stop
    told = [r for r in fake.turn_requests() if "session ends after this" in r.text()]
    assert told
    assert "update the ledgers and commit" in told[0].text()
