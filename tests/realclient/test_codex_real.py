"""Real Codex CLI (npm, pinned) through rehydrate's hooks, against a scripted Responses API.

Every assertion is on what reached the model (the fake API's request log) or on what
really ran (marker files), never on what a hook printed. The project is set up by the
real ``rehydrate init --agent codex`` and trusted by the real ``rehydrate hook codex
trust``, as a user would.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from codex_harness import (
    CODEX_VERSION,
    codex_home,
    install_codex,
    make_project,
    run_codex,
    trust,
)
from fake_openai_responses import FakeResponses, Logged, shell, text
from harness import FAILURES, SPEC, TASK
from npm_client import VENV_BIN

pytestmark = pytest.mark.realclient

NEXT_ACTION = "run the scripted session against the fake model API"
REPEAT = "go test -tags=musl ./..."


@pytest.fixture(scope="session")
def codex() -> Path:
    return install_codex()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = make_project(tmp_path)
    trust(repo)
    return repo


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Any]:
    """``api(turns, **options)`` starts a fake Responses API that stops with the test."""
    servers: list[FakeResponses] = []

    def start(*turns: list[dict[str, Any]], **options: Any) -> FakeResponses:
        log = tmp_path / f"requests-{len(servers)}.jsonl"
        server = FakeResponses(list(turns), log_file=log, **options).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def developer_texts(request: Logged) -> list[str]:
    """The developer messages of a request (where Codex puts a hook's additionalContext)."""
    found = []
    for item in request.inputs():
        if item.get("type") == "message" and item.get("role") == "developer":
            for part in item.get("content") or []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    found.append(part["text"])
    return found


def rehydrate_contexts(request: Logged) -> list[str]:
    return [t for t in developer_texts(request) if "F-RC7" in t or "rehydrate" in t]


def test_codex_is_the_pinned_version(codex: Path) -> None:
    out = subprocess.run(
        [str(codex), "--version"], capture_output=True, text=True, timeout=30, check=True
    ).stdout
    assert out.split()[-1] == CODEX_VERSION


def test_ledger_context_reaches_the_first_model_request(
    codex: Path, project: Path, api: Any
) -> None:
    fake = api([text("hello")])
    session = run_codex(codex, project, fake)
    assert session.returncode == 0, session.stderr
    first = fake.turn_requests()[0]
    contexts = rehydrate_contexts(first)
    assert len(contexts) == 1, "the core is injected exactly once"
    for needle in ("C-RC1", "C-RC2", "F-RC7", "use default build tags", NEXT_ACTION):
        assert needle in contexts[0], needle
    assert "truncated" not in contexts[0]


def test_untrusted_hooks_do_not_run_and_doctor_says_so(
    codex: Path, tmp_path: Path, api: Any
) -> None:
    repo = make_project(tmp_path)
    fake = api([shell(f"touch marker && {REPEAT}")], [text("ok")])
    session = run_codex(codex, repo, fake)
    assert session.returncode == 0, session.stderr
    assert not rehydrate_contexts(fake.turn_requests()[0])  # Codex skipped our hooks
    assert (repo / "marker").exists()  # and the repeat ran: that is what trust prevents
    report = subprocess.run(
        [str(Path(__import__("sys").executable)), "-m", "rehydrate", "doctor", "--json"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "CODEX_HOME": str(codex_home(repo))},
        check=False,
    )
    found = json.loads(report.stdout)
    codes = {f["code"] for f in found["findings"] if f["integration"] == "codex"}
    assert "codex_hooks_untrusted" in codes, found


def test_bypass_flag_runs_untrusted_hooks(codex: Path, tmp_path: Path, api: Any) -> None:
    repo = make_project(tmp_path)
    fake = api([text("hello")])
    session = run_codex(codex, repo, fake, extra=["--dangerously-bypass-hook-trust"])
    assert session.returncode == 0, session.stderr
    assert rehydrate_contexts(fake.turn_requests()[0])


def test_repeat_of_a_failed_attempt_is_denied(codex: Path, project: Path, api: Any) -> None:
    fake = api([shell(f"touch marker && {REPEAT}")], [text("understood")])
    session = run_codex(codex, project, fake)
    assert session.returncode == 0, session.stderr
    assert not (project / "marker").exists()
    outputs = fake.turn_requests()[1].tool_outputs()
    assert any("F-RC7" in o and "use default build tags" in o for o in outputs), outputs


def test_an_allowed_command_runs(codex: Path, project: Path, api: Any) -> None:
    allowed = "touch marker && echo ran; go test -tags=netgo ./... || true"
    fake = api([shell(allowed)], [shell(f"touch m9; {REPEAT}")], [text("ok")])
    session = run_codex(codex, project, fake)
    assert session.returncode == 0, session.stderr
    assert (project / "marker").exists()
    turns = fake.turn_requests()
    assert not any("F-RC7" in o for o in turns[1].tool_outputs())
    # the hook was live for this session's shell calls: the next one, a repeat, is denied
    assert not (project / "m9").exists()
    assert any("F-RC7" in o for o in turns[2].tool_outputs())


def test_a_close_command_runs_and_the_row_reaches_the_model(
    codex: Path, project: Path, api: Any
) -> None:
    """Another tag than F-RC7's: it runs, and Codex carries the row to the model with the
    allowed call (PreToolUse additionalContext, openai/codex#20692; issue 28)."""
    fake = api([shell("touch marker && go test -tags=netgo ./... || true")], [text("ok")])
    session = run_codex(codex, project, fake)
    assert session.returncode == 0, session.stderr
    assert (project / "marker").exists()
    said = fake.turn_requests()[1].text()
    assert "close to failed attempt F-RC7" in said and "use default build tags" in said


def test_newline_separated_repeat_is_denied(codex: Path, project: Path, api: Any) -> None:
    fake = api([shell(f"touch m2\n{REPEAT}")], [text("ok")])
    run_codex(codex, project, fake)
    assert not (project / "m2").exists()
    assert any("F-RC7" in o for o in fake.turn_requests()[1].tool_outputs())


def test_broken_ledger_refuses_shell_commands(codex: Path, project: Path, api: Any) -> None:
    (project / "docs" / "Failed_Attempts.md").write_text("---\nledger: failures\n---\n| broken")
    fake = api([shell("touch marker && echo hi")], [text("ok")])
    run_codex(codex, project, fake)
    assert not (project / "marker").exists()
    outputs = fake.turn_requests()[1].tool_outputs()
    assert any("cannot read the failed-attempts ledger" in o for o in outputs), outputs


def test_stop_blocks_once_over_uncommitted_ledgers(codex: Path, project: Path, api: Any) -> None:
    with (project / "docs" / "Task.md").open("a", encoding="utf-8") as out:
        out.write("\n")
    fake = api([text("first stop")], [text("second stop")])
    session = run_codex(codex, project, fake)
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    assert len(turns) == 2, "the stop was blocked exactly once"
    said = json.dumps(turns[1].inputs()[-1])
    assert "Ledger changes are not committed" in said and "docs/Task.md" in said


def test_a_failed_command_is_captured_before_stop(codex: Path, project: Path, api: Any) -> None:
    fake = api([shell("ls /nonexistent-rc-dir")], [text("first stop")], [text("second")])
    run_codex(codex, project, fake)
    pending = json.loads((project / ".rehydrate" / "pending-failures.json").read_text())
    assert [p["command"] for p in pending["failures"]] == ["ls /nonexistent-rc-dir"]
    said = json.dumps(fake.turn_requests()[-1].inputs()[-1])
    assert "ls /nonexistent-rc-dir" in said  # the stop was held for it


def _pending(project: Path) -> list[object]:
    path = project / ".rehydrate" / "pending-failures.json"
    if not path.exists():
        return []
    failures = json.loads(path.read_text(encoding="utf-8"))["failures"]
    assert isinstance(failures, list)
    return failures


RED_TEST = "printf 'def test_red():\\n    assert 1 == 2\\n' > test_red.py && "


def test_a_red_test_run_is_a_failing_check_and_not_captured(
    codex: Path, project: Path, api: Any
) -> None:
    """Issue 28 item 4, through Codex: a test run that reports a failing test is the check
    doing its job (red before green), so nothing is proposed as a failed approach and the
    stop is not held for it. Codex's PostToolUse reads the exit code from its rollout."""
    red = RED_TEST + f"{VENV_BIN / 'python'} -m pytest -q -p no:cacheprovider test_red.py"
    fake = api([shell(red)], [text("red, as expected")], [text("second stop")])
    session = run_codex(codex, project, fake, "run the test")
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    assert "1 failed" in json.dumps(turns[1].inputs())  # the run really failed
    assert len(turns) == 2, "Stop held the session over a failing check"
    assert _pending(project) == []


def test_a_test_command_that_fails_otherwise_is_captured(
    codex: Path, project: Path, api: Any
) -> None:
    """The twin: the same test command failing for another reason (an option pytest does
    not know) is a failed approach, captured and held before the stop."""
    wrong = RED_TEST + f"{VENV_BIN / 'python'} -m pytest --no-such-option test_red.py"
    fake = api([shell(wrong)], [text("first stop")], [text("second stop")])
    session = run_codex(codex, project, fake, "run the test")
    assert session.returncode == 0, session.stderr
    commands = [p["command"] for p in _pending(project) if isinstance(p, dict)]
    assert commands == [wrong]
    assert len(fake.turn_requests()) == 3, "the stop was held for the captured failure"


def test_auto_compaction_is_verified_and_the_core_reinjected(
    codex: Path, project: Path, api: Any
) -> None:
    fake = api(
        [shell("echo one")],
        [shell("echo two")],  # answered with large usage: Codex compacts before going on
        [text("after compaction")],
        input_tokens=[10, 50000, 10],
        summary="The user asked for one command; it ran. Nothing is pending.",
    )
    session = run_codex(codex, project, fake, auto_compact=20000)
    assert session.returncode == 0, session.stderr
    assert fake.compact_requests(), "Codex compacted"
    after = fake.turn_requests()[-1]
    contexts = rehydrate_contexts(after)
    assert len(contexts) == 1, "re-injected once after the compaction"
    assert "F-RC7" in contexts[0] and NEXT_ACTION in contexts[0]
    # the summary dropped the constraints: the verdict, read from the rollout, says so
    assert "UNFAITHFUL" in contexts[0] and "C-RC1" in contexts[0]


def test_resume_injects_the_core_again_once(codex: Path, project: Path, api: Any) -> None:
    first = api([text("first session")])
    assert run_codex(codex, project, first).returncode == 0
    second = api([text("resumed")])
    session = run_codex(codex, project, second, "go on", resume=True)
    assert session.returncode == 0, session.stderr
    said = " ".join(rehydrate_contexts(second.turn_requests()[0]))
    assert said.count("Session source: resume") == 1  # the resumed start, once
    assert said.count("Session source: startup") == 1  # the first one, kept in the history


def test_hooks_run_without_rehydrate_on_path(codex: Path, project: Path, api: Any) -> None:
    fake = api([shell(f"touch marker && {REPEAT}")], [text("ok")])
    run_codex(codex, project, fake, with_rehydrate=False)
    assert rehydrate_contexts(fake.turn_requests()[0])
    assert not (project / "marker").exists()


def _big_spec(rows: int) -> str:
    lines = [
        f"| C-B{i:03d} | keep the Ünïcödé façade number {i} ✓ intact | SHOULD | big |"
        for i in range(rows)
    ]
    table = "\n".join(lines)
    return SPEC.replace(
        "| C-RC2 | keep every test under one minute | MUST | realclient |",
        "| C-RC2 | keep every test under one minute | MUST | realclient |\n"
        + textwrap.indent(table, "    "),
    )


def test_a_large_context_fits_codex_cap_with_the_failure_kept(
    codex: Path, tmp_path: Path, api: Any
) -> None:
    repo = make_project(tmp_path, spec=_big_spec(200), task=TASK, failures=FAILURES)
    trust(repo)
    fake = api([text("hello")])
    run_codex(codex, repo, fake)
    contexts = rehydrate_contexts(fake.turn_requests()[0])
    assert len(contexts) == 1
    context = contexts[0]
    assert "F-RC7" in context and "use default build tags" in context  # nothing lost
    assert "truncated" not in context
    assert len(context.encode("utf-8")) <= 10000


def test_doctor_is_clean_after_trust(project: Path) -> None:
    import os
    import sys

    report = subprocess.run(
        [sys.executable, "-m", "rehydrate", "doctor", "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "CODEX_HOME": str(codex_home(project))},
        check=False,
    )
    found = json.loads(report.stdout)
    assert not [f for f in found["findings"] if f["integration"] == "codex"], found


def test_trust_is_idempotent(project: Path) -> None:
    before = (codex_home(project) / "config.toml").read_text()
    said = trust(project)
    assert "unchanged" in said
    assert (codex_home(project) / "config.toml").read_text() == before
