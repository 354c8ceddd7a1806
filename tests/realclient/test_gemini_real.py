"""Real Gemini CLI (npm, pinned) through rehydrate's hooks, against a scripted Gemini API.

Every assertion is on what reached the model (the fake API's request log) or on what
really ran (marker files), never on what a hook printed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_gemini import FakeGemini, Logged, shell, text
from gemini_harness import make_project, run_gemini
from npm_client import GEMINI, install, version_of

from conftest import git

pytestmark = pytest.mark.realclient

NEXT_ACTION = "run the scripted session against the fake model API"
STARTUP = "Session source: startup"
REPEAT = "go test -tags=musl ./..."


@pytest.fixture(scope="session")
def gemini() -> Path:
    return install(GEMINI)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Any]:
    servers: list[FakeGemini] = []

    def start(*turns: list[dict[str, Any]], **options: Any) -> FakeGemini:
        log = tmp_path / f"requests-{len(servers)}.jsonl"
        server = FakeGemini(list(turns), log_file=log, **options).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def responses(request: Logged) -> str:
    return json.dumps(request.function_responses(), ensure_ascii=False)


def test_gemini_cli_is_the_pinned_version(gemini: Path) -> None:
    assert GEMINI.version in version_of(gemini)


def test_the_core_reaches_every_request_once(gemini: Path, project: Path, api: Any) -> None:
    fake = api([shell("touch first")], [text("done")])
    session = run_gemini(gemini, project, fake)
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    assert len(turns) == 2
    for request in turns:
        said = request.text()
        assert said.count(STARTUP) == 1, said[:3000]
        for item in ("C-RC1", "F-RC7", NEXT_ACTION):
            assert item in said
    assert (project / "first").exists()
    # the settings really loaded: no warning about an invalid hook event (PostCompact)
    assert "PostCompact" not in session.stderr


def test_repeat_of_a_failed_attempt_is_denied(gemini: Path, project: Path, api: Any) -> None:
    fake = api([shell(f"touch marker && {REPEAT}")], [text("understood")])
    run_gemini(gemini, project, fake)
    assert not (project / "marker").exists()
    said = responses(fake.turn_requests()[1])
    assert "F-RC7" in said and "use default build tags" in said


def test_an_allowed_command_runs(gemini: Path, project: Path, api: Any) -> None:
    fake = api(
        [shell("touch marker && go test -tags=netgo ./... || true")],
        [shell(f"touch m9; {REPEAT}")],
        [text("ok")],
    )
    run_gemini(gemini, project, fake)
    assert (project / "marker").exists()
    turns = fake.turn_requests()
    assert "This repeats failed attempt" not in responses(turns[1])
    # the hook was live for this session's shell calls: the next one, a repeat, is denied
    assert not (project / "m9").exists()
    assert "F-RC7" in responses(turns[2])


def test_a_close_command_runs_and_the_row_reaches_the_model(
    gemini: Path, project: Path, api: Any
) -> None:
    """Another tag than F-RC7's: it runs, and the row reaches the model with the tool's
    result (AfterTool additionalContext; BeforeTool cannot carry context; issue 28)."""
    fake = api([shell("touch marker && go test -tags=netgo ./... || true")], [text("ok")])
    session = run_gemini(gemini, project, fake)
    assert session.returncode == 0, session.stderr
    assert (project / "marker").exists()
    said = responses(fake.turn_requests()[1])
    assert "close to failed attempt F-RC7" in said and "use default build tags" in said
    assert "This repeats failed attempt" not in said


def test_an_unrelated_command_gets_no_advice(gemini: Path, project: Path, api: Any) -> None:
    fake = api([shell("touch marker && go vet ./... || true")], [text("ok")])
    run_gemini(gemini, project, fake)
    assert (project / "marker").exists()
    assert "F-RC7" not in responses(fake.turn_requests()[1])


def test_newline_separated_repeat_is_denied(gemini: Path, project: Path, api: Any) -> None:
    fake = api([shell(f"touch m2\n{REPEAT}")], [text("ok")])
    run_gemini(gemini, project, fake)
    assert not (project / "m2").exists()
    assert "F-RC7" in responses(fake.turn_requests()[1])


def test_a_broken_ledger_refuses_shell_commands(gemini: Path, project: Path, api: Any) -> None:
    ledger = project / "docs" / "Failed_Attempts.md"
    ledger.write_text(ledger.read_text(encoding="utf-8") + "| F-BAD | `x` |\n", encoding="utf-8")
    fake = api([shell("touch m3")], [text("ok")])
    run_gemini(gemini, project, fake)
    assert not (project / "m3").exists()
    said = responses(fake.turn_requests()[1])
    assert "docs/Failed_Attempts.md" in said and "rehydrate cannot read" in said


def test_a_failed_command_holds_the_end_of_the_turn_once(
    gemini: Path, project: Path, api: Any
) -> None:
    fake = api([shell("ls /nonexistent-rehydrate-dir")], [text("that failed")], [text("ok")])
    session = run_gemini(gemini, project, fake)
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    assert "pending failure 1" in responses(turns[1])  # AfterTool's context, with the result
    assert len(turns) == 3  # the end of the turn was denied once: one more request
    last = json.dumps(turns[2].contents()[-1], ensure_ascii=False)
    assert "ls /nonexistent-rehydrate-dir" in last and "rehydrate fail dismiss 1" in last


def test_uncommitted_ledgers_hold_the_end_of_the_turn(
    gemini: Path, project: Path, api: Any
) -> None:
    fake = api(
        [shell("echo 'Learned: the cache needs a warm-up.' >> docs/Spec.md")],
        [text("noted")],
        [text("ok")],
    )
    run_gemini(gemini, project, fake)
    turns = fake.turn_requests()
    assert len(turns) == 3
    last = json.dumps(turns[2].contents()[-1], ensure_ascii=False)
    assert "docs/Spec.md" in last and "not committed" in last


def test_after_a_compression_the_core_is_rebuilt_once(
    gemini: Path, project: Path, api: Any
) -> None:
    # A failed command holds the end of the turn; the reply before it reports a huge
    # prompt, so the re-prompt compresses the history first.
    fake = api(
        [shell("ls /nonexistent-rehydrate-dir")],
        [text("that failed")],
        [text("after compression")],
        prompt_tokens=[10, 10, 900_000, 10],
    )
    session = run_gemini(gemini, project, fake)
    assert session.returncode == 0, session.stderr
    kinds = [r.kind for r in fake.requests]
    assert "compress" in kinds, kinds
    after = fake.turn_requests()[-1]
    said = after.text()
    assert "state_snapshot" in said  # the summary is in the history now
    assert said.count("Session source: compact") == 1, said[:3000]
    assert STARTUP not in said
    assert "Compaction summary check" in said  # the verdict on the summary
    for item in ("C-RC1", "F-RC7", NEXT_ACTION):
        assert item in said


def test_git_status_is_clean_after_a_session(gemini: Path, project: Path, api: Any) -> None:
    fake = api([text("hello")])
    run_gemini(gemini, project, fake)
    # .gemini/settings.json is the harness's (its hooks run through the tracing shim)
    status = git(project, "status", "--porcelain", "--", ".", ":!.gemini/settings.json").stdout
    assert status == "", status


def test_a_resumed_session_gets_the_core_once(gemini: Path, project: Path, api: Any) -> None:
    first = api([text("first answer")])
    assert run_gemini(gemini, project, first).returncode == 0
    fake = api([text("resumed answer")])
    session = run_gemini(gemini, project, fake, "go on", ["--resume", "latest"])
    assert session.returncode == 0, session.stderr
    said = fake.turn_requests()[0].text()
    assert "first answer" in said  # the earlier conversation is there
    assert said.count("Session source: resume") == 1, said[:3000]
    assert STARTUP not in said
