"""Real Copilot CLI (npm, pinned) headless (``COPILOT_OFFLINE``, a provider at the fake
Chat Completions API) through rehydrate's hooks and instructions section."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_chat import MODEL, FakeChat, text, tool
from harness import write_ledgers
from npm_client import COPILOT, VENV_BIN, install, version_of

from conftest import commit, git

pytestmark = pytest.mark.realclient

REPEAT = "go test -tags=musl ./..."
SECTION_LINE = "rehydrate: this repository's state is in ledgers"


def bash(command: str) -> dict[str, Any]:
    return tool("bash", command=command, description="scripted command")


@pytest.fixture(scope="session")
def copilot() -> Path:
    return install(COPILOT)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "docs").mkdir()
    write_ledgers(repo)  # before init: its core file is built from these ledgers
    subprocess.run(
        [str(VENV_BIN / "rehydrate"), "init", "--agent", "copilot"],
        cwd=repo,
        check=True,
        capture_output=True,
    )
    commit(repo, "ledgers")
    return repo


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Any]:
    servers: list[FakeChat] = []

    def start(*turns: list[dict[str, Any]]) -> FakeChat:
        log = tmp_path / f"requests-{len(servers)}.jsonl"
        server = FakeChat(list(turns), log_file=log).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def run_copilot(copilot: Path, repo: Path, fake: FakeChat, trusted: bool = True) -> str:
    home = repo.parent / "copilot-home"
    (home / ".copilot").mkdir(parents=True, exist_ok=True)
    config = {"trusted_folders": [str(repo)] if trusted else []}
    (home / ".copilot" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": fake.base_url,
        "COPILOT_PROVIDER_API_KEY": "fake-key",
        "COPILOT_MODEL": MODEL,
        **{k: v for k, v in os.environ.items() if k.startswith("GIT_")},
    }
    done = subprocess.run(
        [str(copilot), "-p", "go", "--allow-all-tools"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    (repo.parent / "copilot-output.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
    return done.stdout + done.stderr


def test_copilot_is_the_pinned_version(copilot: Path) -> None:
    assert COPILOT.version in version_of(copilot)


def test_the_core_and_the_section_reach_the_first_request(
    copilot: Path, project: Path, api: Any
) -> None:
    fake = api([text("hello")])
    run_copilot(copilot, project, fake)
    first = fake.turn_requests()[0].text()
    assert SECTION_LINE in first and "docs/Failed_Attempts.md" in first
    for item in ("C-RC1", "F-RC7", "run the scripted session against the fake model API"):
        assert item in first
    assert first.count("Session source: startup") == 1
    assert git(project, "status", "--porcelain").stdout == ""  # the core file is excluded


def test_a_session_end_refreshes_the_core_for_the_next_session(
    copilot: Path, project: Path, api: Any
) -> None:
    row = "| F-RC8 | `make slow` | takes an hour | use make fast |"
    fake = api([bash(f"echo '{row}' >> docs/Failed_Attempts.md")], [text("recorded")])
    run_copilot(copilot, project, fake)
    assert "F-RC8" not in fake.turn_requests()[0].text()
    second = api([text("hello again")])
    run_copilot(copilot, project, second)
    assert "F-RC8" in second.turn_requests()[0].text()


def test_repeat_of_a_failed_attempt_is_denied(copilot: Path, project: Path, api: Any) -> None:
    fake = api([bash(f"touch marker && {REPEAT}")], [text("understood")])
    run_copilot(copilot, project, fake)
    assert not (project / "marker").exists()
    said = fake.turn_requests()[1].tool_results()
    assert "F-RC7" in said and "use default build tags" in said


def test_an_allowed_command_runs(copilot: Path, project: Path, api: Any) -> None:
    fake = api(
        [bash("touch marker && go test -tags=netgo ./... || true")],
        [bash(f"touch m9; {REPEAT}")],
        [text("ok")],
    )
    run_copilot(copilot, project, fake)
    assert (project / "marker").exists()
    turns = fake.turn_requests()
    assert "F-RC7" not in turns[1].tool_results()
    # the hook was live for this session's shell calls: the next one, a repeat, is denied
    assert not (project / "m9").exists()
    assert "F-RC7" in turns[2].tool_results()


def test_newline_separated_repeat_is_denied(copilot: Path, project: Path, api: Any) -> None:
    fake = api([bash(f"touch m2\n{REPEAT}")], [text("ok")])
    run_copilot(copilot, project, fake)
    assert not (project / "m2").exists()
    assert "F-RC7" in fake.turn_requests()[1].tool_results()


def test_a_broken_ledger_refuses_shell_commands(copilot: Path, project: Path, api: Any) -> None:
    ledger = project / "docs" / "Failed_Attempts.md"
    ledger.write_text(ledger.read_text(encoding="utf-8") + "| F-BAD | `x` |\n", encoding="utf-8")
    fake = api([bash("touch m3")], [text("ok")])
    run_copilot(copilot, project, fake)
    assert not (project / "m3").exists()
    assert "docs/Failed_Attempts.md" in fake.turn_requests()[1].tool_results()


def test_an_untrusted_folder_runs_no_repository_hooks(
    copilot: Path, project: Path, api: Any
) -> None:
    fake = api([bash(f"touch marker && {REPEAT}")], [text("ran")])
    run_copilot(copilot, project, fake, trusted=False)
    assert (project / "marker").exists()  # the trust step doctor names


def test_a_failed_command_holds_the_end_of_the_turn_once(
    copilot: Path, project: Path, api: Any
) -> None:
    fake = api([bash("ls /nonexistent-rehydrate-dir")], [text("that failed")], [text("ok")])
    run_copilot(copilot, project, fake)
    pending = json.loads((project / ".rehydrate" / "pending-failures.json").read_text())
    assert [f["command"] for f in pending["failures"]] == ["ls /nonexistent-rehydrate-dir"]
    turns = fake.turn_requests()
    assert len(turns) == 3  # agentStop blocked once: its reason came back as a prompt
    last = json.dumps(turns[2].messages()[-1], ensure_ascii=False)
    assert "rehydrate fail dismiss 1" in last
