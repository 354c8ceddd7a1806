"""Real OpenCode (npm, pinned) through rehydrate's plugin, against a scripted Chat
Completions API. Assertions are on what reached the model and on what really ran."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_chat import FakeChat, text, tool
from npm_client import OPENCODE, install, version_of
from opencode_harness import make_project, run_opencode, serve_session

pytestmark = pytest.mark.realclient

NEXT_ACTION = "run the scripted session against the fake model API"
REPEAT = "go test -tags=musl ./..."


def bash(command: str) -> dict[str, Any]:
    return tool("bash", command=command, description="scripted command")


@pytest.fixture(scope="session")
def opencode() -> Path:
    return install(OPENCODE)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Any]:
    servers: list[FakeChat] = []

    def start(*turns: list[dict[str, Any]], **options: Any) -> FakeChat:
        log = tmp_path / f"requests-{len(servers)}.jsonl"
        server = FakeChat(list(turns), log_file=log, **options).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def test_opencode_is_the_pinned_version(opencode: Path) -> None:
    assert OPENCODE.version in version_of(opencode)


def test_the_core_is_in_every_system_prompt_once(opencode: Path, project: Path, api: Any) -> None:
    fake = api([bash("touch first")], [text("done")])
    session = run_opencode(opencode, project, fake)
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    assert len(turns) == 2
    for request in turns:
        system = request.system()
        assert system.count("Session source: startup") == 1, system[:2000]
        for item in ("C-RC1", "F-RC7", NEXT_ACTION):
            assert item in system
    assert (project / "first").exists()


def test_repeat_of_a_failed_attempt_is_denied(opencode: Path, project: Path, api: Any) -> None:
    fake = api([bash(f"touch marker && {REPEAT}")], [text("understood")])
    run_opencode(opencode, project, fake)
    assert not (project / "marker").exists()
    said = fake.turn_requests()[1].tool_results()
    assert "F-RC7" in said and "use default build tags" in said


def test_an_allowed_command_runs(opencode: Path, project: Path, api: Any) -> None:
    fake = api(
        [bash("touch marker && go test -tags=netgo ./... || true")],
        [bash(f"touch m9; {REPEAT}")],
        [text("ok")],
    )
    run_opencode(opencode, project, fake)
    assert (project / "marker").exists()
    turns = fake.turn_requests()
    assert "This repeats failed attempt" not in turns[1].tool_results()
    # the hook was live for this session's shell calls: the next one, a repeat, is denied
    assert not (project / "m9").exists()
    assert "F-RC7" in turns[2].tool_results()


def test_a_close_command_runs_and_the_row_reaches_the_model(
    opencode: Path, project: Path, api: Any
) -> None:
    """Another tag than F-RC7's: it runs, and the row reaches the model in the tool's
    output (tool.execute.after; tool.execute.before cannot carry context; issue 28)."""
    fake = api([bash("touch marker && go test -tags=netgo ./... || true")], [text("ok")])
    run_opencode(opencode, project, fake)
    assert (project / "marker").exists()
    said = fake.turn_requests()[1].tool_results()
    assert "close to failed attempt F-RC7" in said and "use default build tags" in said
    assert "This repeats failed attempt" not in said


def test_an_unrelated_command_gets_no_advice(opencode: Path, project: Path, api: Any) -> None:
    fake = api([bash("touch marker && go vet ./... || true")], [text("ok")])
    run_opencode(opencode, project, fake)
    assert (project / "marker").exists()
    assert "F-RC7" not in fake.turn_requests()[1].tool_results()


def test_newline_separated_repeat_is_denied(opencode: Path, project: Path, api: Any) -> None:
    fake = api([bash(f"touch m2\n{REPEAT}")], [text("ok")])
    run_opencode(opencode, project, fake)
    assert not (project / "m2").exists()
    assert "F-RC7" in fake.turn_requests()[1].tool_results()


def test_a_broken_ledger_refuses_shell_commands(opencode: Path, project: Path, api: Any) -> None:
    ledger = project / "docs" / "Failed_Attempts.md"
    ledger.write_text(ledger.read_text(encoding="utf-8") + "| F-BAD | `x` |\n", encoding="utf-8")
    fake = api([bash("touch m3")], [text("ok")])
    run_opencode(opencode, project, fake)
    assert not (project / "m3").exists()
    said = fake.turn_requests()[1].tool_results()
    assert "docs/Failed_Attempts.md" in said and "rehydrate cannot read" in said


def test_a_failed_command_is_captured(opencode: Path, project: Path, api: Any) -> None:
    fake = api([bash("ls /nonexistent-rehydrate-dir")], [text("that failed")])
    run_opencode(opencode, project, fake)
    said = fake.turn_requests()[1].tool_results()
    assert "pending failure 1" in said and "rehydrate fail dismiss 1" in said


def test_compaction_is_shaped_and_the_core_survives(
    opencode: Path, project: Path, api: Any
) -> None:
    # The first reply reports a prompt over the model's context: OpenCode compacts.
    fake = api(
        [bash("touch before")],
        [text("first done")],
        [text("after compaction")],
        prompt_tokens=[10, 99_000, 10],
    )
    session = run_opencode(opencode, project, fake)
    assert session.returncode == 0, session.stderr
    shaped = [r for r in fake.requests if "resume manifest" in r.text()]
    assert shaped, [r.kind for r in fake.requests]
    assert "C-RC1" in shaped[0].text()
    after = [r for r in fake.turn_requests() if r.index > shaped[0].index]
    assert after, [r.kind for r in fake.requests]
    system = after[0].system()
    assert system.count("Session source: compact") == 1, system[:2000]
    # the plugin read the summary back (the fake's "done"): checked by IDs, not "missing"
    assert "Compaction summary check (ids): UNFAITHFUL" in system
    for item in ("C-RC1", "F-RC7", NEXT_ACTION):
        assert item in system


def test_opencode_run_cannot_hold_the_stop(opencode: Path, project: Path, api: Any) -> None:
    # `opencode run` exits at the first idle: the continuation never runs (docs say so)
    fake = api([bash("echo 'Learned: x.' >> docs/Spec.md")], [text("noted")], [text("more")])
    run_opencode(opencode, project, fake)
    assert len(fake.turn_requests()) == 2


def test_under_serve_the_idle_session_continues_once(
    opencode: Path, project: Path, api: Any
) -> None:
    fake = api([bash("echo 'Learned: x.' >> docs/Spec.md")], [text("noted")], [text("still not")])
    serve_session(opencode, project, fake, "go", turns=3)
    turns = fake.turn_requests()
    assert len(turns) == 3, [r.kind for r in fake.requests]  # continued once, then let stop
    last = json.dumps(turns[2].messages()[-1], ensure_ascii=False)
    assert "docs/Spec.md" in last and "not committed" in last
