"""``rehydrate run``: real loops over a scripted fake agent (tests/fake_agent.py, copied
into tmp_path and run by the loop as a real process) in real repositories."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import Result, commit, git, run_subprocess

AGENT = Path(__file__).with_name("fake_agent.py")
INDEX = ".rehydrate/sessions/index.jsonl"
TIMESTAMPS = ("start", "end")

PASS_CHECK = [["rehydrate", "task", "check", "pass", "X-001"], ["git", "commit", "-qam", "pass"]]
NEXT = [["rehydrate", "task", "next", "run the suite"], ["git", "commit", "-qam", "next"]]
FAILURE = [
    ["rehydrate", "fail", "add", "--tried", "`make x`", "--failure", "no rule", "--workaround",
     "use make y"],
    ["git", "commit", "-qam", "record a failure"],
]  # fmt: skip
PHASE = [["rehydrate", "task", "phase", "start", "P1"], ["git", "commit", "-qam", "start P1"]]
IDLE = [["print", "thinking about it"], ["print", "tried `make all`, it did not work"]]


class Loop:
    """A repository with the example ledgers, the fake agent and its script."""

    def __init__(self, repo: Path, tmp_path: Path) -> None:
        self.repo = repo
        self.state = tmp_path / "agent-state"
        self.state.mkdir()
        self.agent = tmp_path / "agent.py"
        shutil.copyfile(AGENT, self.agent)
        self.agent.chmod(0o755)

    def script(self, *sessions: list[list[Any]]) -> Loop:
        (self.state / "script.json").write_text(json.dumps(list(sessions)))
        return self

    def command(self, mode: str = "stdin") -> list[str]:
        extra = {"stdin": [], "arg": ["{prompt}"], "file": ["{prompt_file}"]}[mode]
        return [sys.executable, str(self.agent), str(self.state), mode, *extra]

    def run(self, *options: str, mode: str = "stdin") -> Result:
        return run_subprocess(self.repo, "run", *options, "--", *self.command(mode))

    def start(self, *options: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "rehydrate", "run", *options, "--", *self.command()],
            cwd=self.repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def sessions_run(self) -> int:
        counter = self.state / "count"
        return int(counter.read_text()) if counter.exists() else 0

    def prompt(self, number: int) -> str:
        return (self.state / f"prompt-{number}.md").read_text(encoding="utf-8")

    def index(self) -> list[dict[str, Any]]:
        path = self.repo / INDEX
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def loop(ledger_repo: Path, tmp_path: Path) -> Loop:
    return Loop(ledger_repo, tmp_path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_for(path: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def test_done_after_three_sessions(loop: Loop) -> None:
    result = loop.script(NEXT, FAILURE, PASS_CHECK).run()
    assert result.code == 0, result.err
    assert "done after session #3" in result.err
    assert loop.sessions_run() == 3
    index = loop.index()
    assert [e["verdict"] for e in index] == ["continue", "continue", "done"]
    assert [e["progress"] for e in index] == [
        ["next action changed"],
        ["F-002 recorded"],
        ["X-001 open->passed"],
    ]
    assert all(e["guard"] == "pass" and e["commits"] == 1 for e in index)
    # each session starts from what the one before committed
    assert "run the suite" in loop.prompt(2)
    assert "make x" in loop.prompt(3)
    assert (loop.repo / ".rehydrate/sessions/1.log").read_text().startswith("fake agent: session 1")


def test_already_done_starts_no_session(loop: Loop) -> None:
    git(loop.repo, "config", "user.name", "x")
    loop.script()
    run_subprocess(loop.repo, "task", "check", "pass", "X-001", "--commit")
    result = loop.run()
    assert result.code == 0, result.err
    assert loop.sessions_run() == 0
    assert "every completion check passed" in result.err


@pytest.mark.parametrize("mode", ["stdin", "arg", "file"])
def test_prompt_delivery(loop: Loop, mode: str) -> None:
    result = loop.script(PASS_CHECK).run(mode=mode)
    assert result.code == 0, result.err
    saved = (loop.repo / ".rehydrate/sessions/1.prompt.md").read_text(encoding="utf-8")
    assert loop.prompt(1) == saved
    assert "rehydrate-checksum/v1:sha256:" in saved
    assert "Example: write the failing test" in saved


def test_blocked_write_exits_3_and_starts_no_further_session(loop: Loop) -> None:
    unknown = [
        ["rehydrate", "task", "write", "unknown", "E-001"],
        ["git", "commit", "-qam", "upload outcome unknown"],
    ]
    result = loop.script(unknown, PASS_CHECK).run()
    assert result.code == 3, result.err
    assert "E-001" in result.err and "blocked_on_reconciliation" in result.err
    assert loop.sessions_run() == 1
    assert loop.index()[-1]["verdict"] == "blocked"
    again = loop.run()  # resumed: still blocked, and no session is started on it
    assert again.code == 3
    assert loop.sessions_run() == 1


def test_settled_write_is_progress_not_a_block(loop: Loop) -> None:
    settle = [
        [
            "rehydrate",
            "task",
            "write",
            "settle",
            "E-001",
            "--status",
            "confirmed",
            "--evidence",
            "tag v1",
        ],
        ["git", "commit", "-qam", "settled"],
    ]
    result = loop.script(settle, PASS_CHECK).run()
    assert result.code == 0, result.err
    assert loop.index()[0]["progress"] == ["E-001 pending->confirmed"]


def _install_hook(repo: Path) -> None:
    assert run_subprocess(repo, "hook", "install").code == 0


def test_weakening_session_stops_with_the_violation_named(loop: Loop) -> None:
    _install_hook(loop.repo)
    weaken = [
        ["drop_line", "docs/Failed_Attempts.md", "| F-001 |"],
        ["git", "commit", "-qam", "tidy failures", "--no-verify"],
    ]
    result = loop.script(weaken, PASS_CHECK).run()
    assert result.code == 1, result.err
    assert "violation: session #1 weakened the ledgers" in result.err
    assert "F-001" in result.err and "docs/Failed_Attempts.md" in result.err
    assert loop.sessions_run() == 1
    entry = loop.index()[0]
    assert entry["guard"] == "refused" and entry["verdict"] == "violation"
    assert any("F-001" in v for v in entry["violations"])
    # nothing reverted without asking
    assert "| F-001 |" not in (loop.repo / "docs/Failed_Attempts.md").read_text()


def test_uncommitted_weakening_is_judged_as_if_staged(loop: Loop) -> None:
    weaken = [["drop_line", "docs/Spec.md", "| C-001 |"]]
    result = loop.script(weaken).run()
    assert result.code == 1, result.err
    assert "C-001" in result.err
    assert loop.index()[0]["uncommitted"] == ["docs/Spec.md"]
    assert git(loop.repo, "status", "--porcelain").stdout.strip() == "M docs/Spec.md"


def test_revert_on_request_keeps_the_commits_and_other_work(loop: Loop) -> None:
    _install_hook(loop.repo)
    before = git(loop.repo, "rev-parse", "HEAD").stdout.strip()
    weaken = [
        ["write", "notes.txt", "my own work\n"],
        ["drop_line", "docs/Failed_Attempts.md", "| F-001 |"],
        ["git", "commit", "-qam", "tidy failures", "--no-verify"],
    ]
    result = loop.script(weaken, PASS_CHECK).run("--on-violation", "revert")
    assert result.code == 0, result.err
    assert "reverted to" in result.err
    kept = git(loop.repo, "rev-parse", "refs/rehydrate/run/session-1").stdout.strip()
    assert git(loop.repo, "rev-parse", "HEAD~1").stdout.strip() == before
    assert kept != before
    assert (loop.repo / "notes.txt").read_text() == "my own work\n"  # untracked: kept
    assert "| F-001 |" in (loop.repo / "docs/Failed_Attempts.md").read_text()
    assert [e["verdict"] for e in loop.index()] == ["reverted", "done"]


def test_stall_shows_what_was_attempted_and_unrecorded_failures(loop: Loop) -> None:
    from rehydrate.agents.captured import capture
    from rehydrate.agents.core import open_project

    capture(open_project(str(loop.repo)), "make all", "Exit code 2\nno rule to make all")
    result = loop.script(IDLE, IDLE, PASS_CHECK).run()
    assert result.code == 1, result.err
    assert "stalled: no ledger progress in the last 2 sessions" in result.err
    assert "session #1" in result.err and "session #2" in result.err
    assert "tried `make all`, it did not work" in result.err
    assert "pending failure 1: `make all`" in result.err
    assert loop.sessions_run() == 2


def test_stall_counts_sessions_in_a_row(loop: Loop) -> None:
    result = loop.script(IDLE, NEXT, IDLE, PHASE, PASS_CHECK).run("--stall", "2")
    assert result.code == 0, result.err
    assert loop.sessions_run() == 5


def test_max_sessions(loop: Loop) -> None:
    result = loop.script(NEXT, FAILURE, PASS_CHECK).run("--max-sessions", "2")
    assert result.code == 1, result.err
    assert "--max-sessions 2 reached after session #2" in result.err
    assert loop.sessions_run() == 2


def test_max_minutes_ends_the_session(loop: Loop) -> None:
    slow = [["rehydrate", "task", "next", "wait"], ["git", "commit", "-qam", "n"], ["sleep", 60]]
    started = time.monotonic()
    result = loop.script(slow).run("--max-minutes", "0.05", "--grace-seconds", "1")
    assert time.monotonic() - started < 30
    assert result.code == 1, result.err
    assert "--max-minutes 0.05 reached in session #1" in result.err
    entry = loop.index()[0]
    assert entry["ended_by"] == "max_minutes" and entry["progress"] == ["next action changed"]
    assert not _alive(int((loop.state / "pid-1").read_text()))


def test_max_total_minutes(loop: Loop) -> None:
    slow = [["sleep", 60]]
    result = loop.script(slow).run("--max-total-minutes", "0.05", "--grace-seconds", "1")
    assert result.code == 1, result.err
    assert "--max-total-minutes 0.05 reached" in result.err
    assert loop.index()[0]["ended_by"] == "max_total_minutes"


def test_max_cost(loop: Loop) -> None:
    costly = [*NEXT, ["cost", 0.3]]
    again = [*FAILURE, ["cost", 0.3]]
    result = loop.script(costly, again, PASS_CHECK).run("--max-cost", "0.5")
    assert result.code == 1, result.err
    assert "--max-cost 0.5 reached after session #2 ($0.60 so far)" in result.err
    assert [e["cost_usd"] for e in loop.index()] == [0.3, 0.3]


def test_max_cost_without_reported_cost_stops(loop: Loop) -> None:
    result = loop.script(NEXT, PASS_CHECK).run("--max-cost", "5")
    assert result.code == 1, result.err
    assert "reported no cost" in result.err
    assert loop.sessions_run() == 1


def _interrupt(loop: Loop, *options: str) -> tuple[subprocess.Popen[str], float]:
    proc = loop.start("--grace-seconds", "2", *options)
    _wait_for(loop.state / "ready")
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    return proc, time.monotonic() - started


@pytest.mark.parametrize("stubborn", [False, True], ids=["sigterm", "needs-sigkill"])
def test_ctrl_c_exits_130_with_nothing_torn(loop: Loop, stubborn: bool) -> None:
    steps: list[list[Any]] = [*NEXT, ["write", str(loop.state / "ready"), "1"], ["sleep", 60]]
    if stubborn:
        steps.insert(0, ["ignore_sigterm"])
    loop.script(steps, PASS_CHECK)
    proc, took = _interrupt(loop)
    assert proc.returncode == 130, proc.stderr.read() if proc.stderr else ""
    pid = int((loop.state / "pid-1").read_text())
    assert not _alive(pid)
    assert (took >= 2) is stubborn  # SIGKILL only after the grace period
    entry = loop.index()[0]
    assert entry["verdict"] == "interrupted" and entry["ended_by"] == "interrupted"
    assert entry["progress"] == ["next action changed"]
    assert run_subprocess(loop.repo, "state").code == 0  # every ledger parses
    assert run_subprocess(loop.repo, "guard", "--range", "HEAD~1..HEAD").code == 0
    resumed = loop.run()
    assert resumed.code == 0, resumed.err
    assert [e["number"] for e in loop.index()] == [1, 2]


def test_commit_ledgers(loop: Loop) -> None:
    uncommitted = [["rehydrate", "task", "next", "left uncommitted"]]
    result = loop.script(uncommitted).run("--max-sessions", "1")
    assert result.code == 1
    assert "left ledger changes uncommitted: docs/Task.md" in result.err
    assert loop.index()[0]["uncommitted"] == ["docs/Task.md"]
    git(loop.repo, "checkout", "--", "docs/Task.md")
    (loop.state / "count").unlink()
    result = loop.run("--max-sessions", "1", "--commit-ledgers")
    entry = loop.index()[1]
    assert entry["uncommitted"] == [] and entry["committed_ledgers"]
    assert git(loop.repo, "rev-parse", "HEAD").stdout.strip() == entry["committed_ledgers"]
    assert git(loop.repo, "status", "--porcelain", "docs").stdout == ""


def _without_timestamps(index: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in TIMESTAMPS} for e in index]


def test_index_is_deterministic_but_for_timestamps(tmp_path: Path) -> None:
    from conftest import scaffold

    indexes = []
    for name in ("one", "two"):
        repo = tmp_path / name / "repo"
        repo.mkdir(parents=True)
        git(repo, "init", "-q")
        scaffold(repo)
        commit(repo, "init ledgers")
        loop = Loop(repo, tmp_path / name)
        loop.script(NEXT, IDLE, FAILURE, PASS_CHECK).run()
        indexes.append(_without_timestamps(loop.index()))
    assert indexes[0] == indexes[1]
    assert len(indexes[0]) == 4


def test_status_shows_the_last_sessions(loop: Loop) -> None:
    assert loop.script(NEXT, PASS_CHECK).run().code == 0
    status = run_subprocess(loop.repo, "run", "--status")
    assert status.code == 0
    lines = status.out.splitlines()
    assert lines[0].startswith("#1 ") and "next action changed" in lines[0]
    assert lines[1].startswith("#2 ") and " done " in lines[1]
    data = json.loads(run_subprocess(loop.repo, "run", "--status", "--json").out)
    assert data["schema"] == "rehydrate/run-status-v1"
    assert [s["verdict"] for s in data["sessions"]] == ["continue", "done"]
    screen = run_subprocess(loop.repo, "status").out
    assert "Last sessions" in screen and "X-001 open->passed" in screen
    view = json.loads(run_subprocess(loop.repo, "status", "--json").out)
    assert [s["number"] for s in view["last_sessions"]] == [1, 2]


def test_no_command_is_a_usage_error(loop: Loop) -> None:
    result = run_subprocess(loop.repo, "run")
    assert result.code == 2
    assert "no agent command given" in result.err


def test_unknown_agent_is_a_usage_error(loop: Loop) -> None:
    result = run_subprocess(loop.repo, "run", "--", "no-such-agent-xyz")
    assert result.code == 2
    assert "no-such-agent-xyz" in result.err


def test_context_limit_tells_the_agent_then_ends_the_session(loop: Loop) -> None:
    over = [
        ["context_hook", 120000],
        *NEXT,
        ["sleep", 60],  # the loop ends it: the ledgers are committed
    ]
    started = time.monotonic()
    result = loop.script(over, PASS_CHECK).run("--context-limit", "50%", "--grace-seconds", "1")
    assert time.monotonic() - started < 40
    assert result.code == 0, result.err
    first = loop.index()[0]
    assert first["ended_by"] == "context_limit" and first["context_peak"] == 120000
    log = (loop.repo / ".rehydrate/sessions/1.log").read_text()
    assert "update the ledgers and commit, the session ends after this" in log
    assert '"permissionDecision": "deny"' in log


def test_context_below_the_limit_goes_on(loop: Loop) -> None:
    under = [["context_hook", 90000], *NEXT]
    result = loop.script(under, PASS_CHECK).run("--context-limit", "50%")
    assert result.code == 0, result.err
    first = loop.index()[0]
    assert first["ended_by"] == "exited"
    assert "hook said: \n" in (loop.repo / ".rehydrate/sessions/1.log").read_text() + "\n"


@pytest.mark.parametrize("text", ["0%", "150%", "abc", "-5"])
def test_bad_context_limit(loop: Loop, text: str) -> None:
    result = loop.script().run("--context-limit", text)
    assert result.code == 2
    assert "--context-limit" in result.err


def test_a_second_ctrl_c_skips_the_grace(loop: Loop) -> None:
    steps = [["ignore_sigterm"], ["write", str(loop.state / "ready"), "1"], ["sleep", 60]]
    proc = loop.script(steps).start("--grace-seconds", "40")
    _wait_for(loop.state / "ready")
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    assert proc.returncode == 130
    assert time.monotonic() - started < 20
    assert not _alive(int((loop.state / "pid-1").read_text()))
    assert loop.index()[0]["verdict"] == "interrupted"


def test_sigterm_to_the_run_is_an_interrupt_too(loop: Loop) -> None:
    steps = [["write", str(loop.state / "ready"), "1"], ["sleep", 60]]
    proc = loop.script(steps).start("--grace-seconds", "2")
    _wait_for(loop.state / "ready")
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert proc.returncode == 130
    assert not _alive(int((loop.state / "pid-1").read_text()))
    assert loop.index()[0]["ended_by"] == "interrupted"


def test_leftover_processes_of_the_group_are_ended(loop: Loop) -> None:
    marker = loop.state / "orphan-pid"
    orphan = (
        "import os, subprocess, sys; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(marker)!r}, 'w').write(str(p.pid))"
    )
    steps = [["spawn", orphan], *PASS_CHECK]
    result = loop.script(steps).run("--grace-seconds", "1")
    assert result.code == 0, result.err
    pid = int(marker.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)


def test_json_goes_with_status(loop: Loop) -> None:
    result = loop.script().run("--json")
    assert result.code == 2 and "--json goes with --status" in result.err


def test_uncommitted_ledgers_before_the_run_are_named(loop: Loop) -> None:
    run_subprocess(loop.repo, "task", "next", "started by hand")
    result = loop.script(PASS_CHECK).run()
    assert result.code == 0, result.err
    assert "docs/Task.md differ from HEAD before the first session" in result.err


def test_end_at_phase_starts_a_fresh_session_after_a_committed_phase(loop: Loop) -> None:
    phase = [
        ["rehydrate", "task", "phase", "done", "P1"],
        ["git", "commit", "-qam", "P1 done"],
        ["sleep", 60],  # the loop ends it: the phase is done and committed
    ]
    started = time.monotonic()
    result = loop.script(phase, PASS_CHECK).run("--end-at-phase", "--grace-seconds", "1")
    assert time.monotonic() - started < 40
    assert result.code == 0, result.err
    first = loop.index()[0]
    assert (first["ended_by"], first["progress"]) == ("phase_done", ["P1 todo->done"])


def test_without_end_at_phase_a_done_phase_does_not_end_the_session(loop: Loop) -> None:
    phase = [
        ["rehydrate", "task", "phase", "done", "P1"],
        ["git", "commit", "-qam", "P1 done"],
        ["sleep", 2],
        *PASS_CHECK,
    ]
    result = loop.script(phase).run()
    assert result.code == 0, result.err
    assert loop.index()[0]["ended_by"] == "exited"


def test_ctrl_c_during_ledger_writes_leaves_every_ledger_whole(loop: Loop) -> None:
    writes = [
        ["rehydrate", "fail", "add", "--tried", f"`step {n}`", "--failure", "x" * 2000,
         "--workaround", "y"]
        for n in range(40)
    ]  # fmt: skip
    loop.script([["write", str(loop.state / "ready"), "1"], *writes])
    proc = loop.start("--grace-seconds", "5")
    _wait_for(loop.state / "ready")
    time.sleep(1.0)  # some writes done, one likely under way
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert proc.returncode == 130
    assert not _alive(int((loop.state / "pid-1").read_text()))
    state = run_subprocess(loop.repo, "state", "--worktree", "--json")
    assert state.code == 0, state.err  # every ledger parses
    failures = json.loads(state.out)["ledgers"]["failures"]
    assert failures  # parsed, whole
    git(loop.repo, "add", "docs")
    staged = run_subprocess(loop.repo, "guard", "--staged")  # the rows written are whole
    assert staged.code == 0, staged.err
    leftovers = [p.name for p in (loop.repo / "docs").iterdir() if p.name.startswith(".")]
    assert all(".tmp" not in name for name in leftovers), leftovers
    assert loop.index()[0]["verdict"] == "interrupted"
