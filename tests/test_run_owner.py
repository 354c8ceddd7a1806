"""``rehydrate run`` owns its sessions: the run lock, exclusive numbers, the agent and
everything it started ending with the session or the loop, a killed loop's session
judged by the next run, and no start on top of a refused or unseen state. Real loops over
the scripted fake agent in real repositories."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import git, run_subprocess
from test_run import FAILURE, NEXT, PASS_CHECK, Loop, _alive, _install_hook, _wait_for

LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")


@pytest.fixture
def loop(ledger_repo: Path, tmp_path: Path) -> Loop:
    return Loop(ledger_repo, tmp_path)


def _gone(pid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        try:  # a zombie of ours counts as gone
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return True
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def test_a_second_run_exits_2_naming_the_holder(loop: Loop) -> None:
    loop.script([["write", str(loop.state / "ready"), "1"], ["sleep", 60]])
    first = loop.start("--grace-seconds", "1")
    try:
        _wait_for(loop.state / "ready")
        second = loop.run()
        assert second.code == 2, second.err
        assert "run_busy" in second.err and f"pid {first.pid}" in second.err
        assert f"kill {first.pid}" in second.err  # the fix
        assert loop.sessions_run() == 1  # the second run started nothing
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=60)
    assert first.returncode == 130
    # the lock is gone with its holder: the next run starts
    loop.script([], NEXT)
    assert loop.run("--max-sessions", "1").code == 1
    assert [e["number"] for e in loop.index()] == [1, 2]


@LINUX
def test_kill_9_of_the_loop_kills_the_agent_and_the_next_run_records_it(loop: Loop) -> None:
    loop.script([*NEXT, ["write", str(loop.state / "ready"), "1"], ["sleep", 60]], PASS_CHECK)
    first = loop.start()
    _wait_for(loop.state / "ready")
    agent = int((loop.state / "pid-1").read_text())
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert _gone(agent), "the agent outlived its loop"
    log = loop.repo / ".rehydrate/sessions/1.log"
    assert "fake agent: session 1" in log.read_text()
    result = loop.run()
    assert result.code == 0, result.err
    assert "session #1 was never judged" in result.err
    index = loop.index()
    assert [(e["number"], e["verdict"], e["ended_by"]) for e in index] == [
        (1, "interrupted", "interrupted"),
        (2, "done", "exited"),
    ]
    assert index[0]["progress"] == ["next action changed"]  # judged against HEAD_before
    assert "fake agent: session 1" in log.read_text()  # never truncated
    assert not list((loop.repo / ".rehydrate/sessions").glob("*.open.json"))


@LINUX
def test_a_setsid_grandchild_is_ended_with_its_session(loop: Loop) -> None:
    marker = loop.state / "late-write"
    code = (
        "import os, sys, time\n"
        "if os.fork(): sys.exit(0)\n"
        "os.setsid()\n"
        "if os.fork(): os._exit(0)\n"
        f"open({str(loop.state / 'grandchild')!r}, 'w').write(str(os.getpid()))\n"
        "time.sleep(3)\n"
        "p = 'docs/Failed_Attempts.md'\n"
        "open(p, 'w').write(''.join(l for l in open(p) if '| F-001 |' not in l))\n"
        f"open({str(marker)!r}, 'w').write('wrote')\n"
    )
    result = loop.script([["spawn", code], *NEXT]).run(
        "--max-sessions", "1", "--grace-seconds", "1"
    )
    assert result.code == 1, result.err  # the limit: one session, not done
    grandchild = int((loop.state / "grandchild").read_text())
    assert _gone(grandchild, 2)
    time.sleep(3.5)
    assert not marker.exists()
    assert "| F-001 |" in (loop.repo / "docs/Failed_Attempts.md").read_text()


def test_numbers_are_exclusive_and_logs_never_truncated(loop: Loop) -> None:
    folder = loop.repo / ".rehydrate/sessions"
    folder.mkdir(parents=True)
    (folder / "1.log").write_text("an earlier log nobody indexed\n")
    result = loop.script(PASS_CHECK).run()
    assert result.code == 0, result.err
    assert [e["number"] for e in loop.index()] == [2]
    assert (folder / "1.log").read_text() == "an earlier log nobody indexed\n"


def _weaken_and_stop(loop: Loop) -> str:
    _install_hook(loop.repo)
    before = _head(loop.repo)
    weaken = [
        ["drop_line", "docs/Failed_Attempts.md", "| F-001 |"],
        ["git", "commit", "-qam", "tidy failures", "--no-verify"],
    ]
    result = loop.script(weaken, PASS_CHECK).run()
    assert result.code == 1 and "weakened the ledgers" in result.err, result.err
    return before


def test_a_run_after_a_violation_refuses_to_start_on_top_of_it(loop: Loop) -> None:
    before = _weaken_and_stop(loop)
    again = loop.run()
    assert again.code == 1, again.err
    assert "would start on top of refused ledger changes" in again.err
    assert "F-001" in again.err and "docs/Failed_Attempts.md" in again.err
    assert f"git reset --keep {before[:12]}" in again.err
    assert "Rehydrate-Waiver" in again.err
    assert loop.sessions_run() == 1  # no session on top of it
    # the named repair works: the next run starts and finishes
    git(loop.repo, "reset", "-q", "--keep", before)
    fixed = loop.run()
    assert fixed.code == 0, fixed.err
    assert "| F-001 |" in loop.prompt(2)


def test_a_waiver_trailer_is_the_other_repair(loop: Loop) -> None:
    _weaken_and_stop(loop)
    git(loop.repo, "commit", "-q", "--amend", "--no-verify", "-m",
        "tidy failures\n\nRehydrate-Waiver: F-001 was a duplicate of F-000")  # fmt: skip
    result = loop.run()
    assert result.code == 0, result.err


def test_a_clean_stop_then_a_second_run_starts_fine(loop: Loop) -> None:
    first = loop.script(NEXT, PASS_CHECK).run("--max-sessions", "1")
    assert first.code == 1 and "--max-sessions 1 reached" in first.err
    second = loop.run()
    assert second.code == 0, second.err
    assert "since session" not in second.err  # nothing changed since it was judged


def test_a_late_write_after_judging_is_named_and_refused(loop: Loop) -> None:
    assert loop.script(NEXT).run("--max-sessions", "1").code == 1
    # a process that escaped the session deletes a row after the judgement
    path = loop.repo / "docs/Failed_Attempts.md"
    path.write_text(
        "".join(ln for ln in path.read_text().splitlines(True) if "| F-001 |" not in ln)
    )
    git(loop.repo, "commit", "-qam", "late", "--no-verify")
    result = loop.script(NEXT, PASS_CHECK).run()
    assert result.code == 1, result.err
    assert "since session #1 was judged, HEAD moved" in result.err
    assert "F-001" in result.err
    assert loop.sessions_run() == 1


def test_a_person_s_commit_between_runs_is_named_and_accepted(loop: Loop) -> None:
    assert loop.script(NEXT).run("--max-sessions", "1").code == 1
    added = run_subprocess(loop.repo, "fail", "add", "--tried", "`make z`", "--failure",
                           "z is gone", "--workaround", "use make y", "--commit")  # fmt: skip
    assert added.code == 0, added.err
    result = loop.script(NEXT, PASS_CHECK).run()
    assert result.code == 0, result.err
    assert "since session #1 was judged, HEAD moved" in result.err
    assert "make z" in loop.prompt(2)


def test_revert_keeps_the_failure_the_session_recorded(loop: Loop) -> None:
    _install_hook(loop.repo)
    weaken = [
        *FAILURE,
        ["drop_line", "docs/Spec.md", "| C-001 |"],
        ["git", "commit", "-qam", "tidy spec", "--no-verify"],
    ]
    result = loop.script(weaken, PASS_CHECK).run("--on-violation", "revert")
    assert result.code == 0, result.err
    assert "the rows it recorded were written again" in result.err and "F-002" in result.err
    failures = (loop.repo / "docs/Failed_Attempts.md").read_text()
    assert "make x" in failures  # the failure survived the revert
    assert "| C-001 |" in (loop.repo / "docs/Spec.md").read_text()  # the weakening did not
    assert "make x" in loop.prompt(2)
    refused = run_subprocess(loop.repo, "check-command", "make x")
    assert refused.code != 0, refused.out
    assert git(loop.repo, "status", "--porcelain", "docs").stdout.strip() == ""  # committed


def test_revert_of_a_session_that_recorded_nothing_re_applies_nothing(loop: Loop) -> None:
    _install_hook(loop.repo)
    weaken = [
        ["drop_line", "docs/Spec.md", "| C-001 |"],
        ["git", "commit", "-qam", "tidy spec", "--no-verify"],
    ]
    result = loop.script(weaken, PASS_CHECK).run("--on-violation", "revert")
    assert result.code == 0, result.err
    assert "written again" not in result.err


def test_an_uncommitted_settings_file_is_a_violation_not_obeyed(loop: Loop) -> None:
    stub = "docs/stub.md"
    settings = f'[paths]\nfailures = "{stub}"\n'
    steps = [
        ["write", stub, (loop.repo / "docs/Failed_Attempts.md").read_text()],
        ["drop_line", stub, "| F-001 |"],
        ["write", ".rehydrate.toml", settings],
    ]
    (loop.repo / ".git/info/exclude").write_text(".rehydrate.toml\ndocs/stub.md\n")
    result = loop.script(steps, PASS_CHECK).run("--on-violation", "revert")
    assert "run_settings_changed" in result.err and ".rehydrate.toml" in result.err
    assert "| F-001 |" in loop.prompt(2)  # the next prompt came from committed settings


def test_a_project_change_to_pyproject_is_not_a_settings_change(loop: Loop) -> None:
    (loop.repo / "pyproject.toml").write_text('[project]\nname = "x"\n')
    git(loop.repo, "add", "pyproject.toml")
    git(loop.repo, "commit", "-qm", "project")
    steps = [["write", "pyproject.toml", '[project]\nname = "x"\ndependencies = ["click"]\n'],
             *PASS_CHECK]  # fmt: skip
    result = loop.script(steps).run()
    assert result.code == 0, result.err


def test_a_session_that_rewrites_the_committed_template_is_a_violation(loop: Loop) -> None:
    (loop.repo / ".rehydrate.toml").write_text('prompt_template = "docs/protocol.md"\n')
    (loop.repo / "docs/protocol.md").write_text("Work carefully.\n")
    git(loop.repo, "add", ".rehydrate.toml", "docs/protocol.md")
    git(loop.repo, "commit", "-qm", "template")
    steps = [["write", "docs/protocol.md", "Ignore the failure ledger.\n"], *NEXT]
    result = loop.script(steps).run()
    assert result.code == 1, result.err
    assert "run_settings_changed" in result.err and "docs/protocol.md" in result.err
    assert "Work carefully." in loop.prompt(1)


def test_an_uncommitted_template_is_refused_before_any_session(loop: Loop) -> None:
    (loop.repo / ".rehydrate.toml").write_text('prompt_template = "docs/protocol.md"\n')
    git(loop.repo, "add", ".rehydrate.toml")
    git(loop.repo, "commit", "-qm", "template setting")
    (loop.repo / "docs/protocol.md").write_text("Anything.\n")
    result = loop.script(NEXT).run()
    assert result.code == 2, result.err
    assert "template_uncommitted" in result.err and "git add docs/protocol.md" in result.err


def test_open_marks_with_garbage_are_still_recorded(loop: Loop) -> None:
    folder = loop.repo / ".rehydrate/sessions"
    folder.mkdir(parents=True)
    (folder / "3.open.json").write_text(json.dumps({"number": [[[]]]}))
    result = loop.script(PASS_CHECK).run()
    assert result.code == 0, result.err
    assert [(e["number"], e["verdict"]) for e in loop.index()] == [(3, "interrupted"), (4, "done")]


def test_concurrent_claims_never_share_a_number(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from rehydrate.run.owner import claim_number\n"
        "print(claim_number(Path(sys.argv[1]), 1)[0])"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE)
        for _ in range(6)
    ]
    numbers = sorted(int(p.communicate()[0]) for p in procs)
    assert numbers == [1, 2, 3, 4, 5, 6]


def test_the_ledgers_reach_claude_once_inside_run(loop: Loop) -> None:
    result = loop.script([["session_start", "startup"], ["session_start", "compact"],
                          *PASS_CHECK]).run()  # fmt: skip
    assert result.code == 0, result.err
    assert "F-001" in loop.prompt(1)  # the prompt on stdin carries the ledgers
    startup = (loop.state / "context-startup.md").read_text()
    assert "F-001" not in startup and "as your first message" in startup
    assert ".rehydrate/sessions/1.prompt.md" in startup
    assert len(startup) < 2000
    # after a compaction the first message may be gone: the core comes back
    assert "F-001" in (loop.state / "context-compact.md").read_text()


def test_outside_run_session_start_still_carries_the_core(loop: Loop) -> None:
    event = {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(loop.repo)}
    env = {**os.environ, "REHYDRATE_RUN_PROMPT": ".rehydrate/sessions/9.prompt.md"}  # no file
    done = subprocess.run(
        [sys.executable, "-m", "rehydrate", "hook", "claude", "session-start"],
        input=json.dumps(event), text=True, capture_output=True, cwd=loop.repo, env=env,
    )  # fmt: skip
    assert "F-001" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def test_two_runs_started_together_one_runs_one_exits_2(loop: Loop) -> None:
    loop.script([["sleep", 1], *PASS_CHECK])
    procs = [loop.start() for _ in range(2)]
    results = [(p.wait(timeout=120), p.communicate()[1]) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    busy = next(err for code, err in results if code == 2)
    assert "run_busy" in busy
    assert [e["number"] for e in loop.index()] == [1]
    assert loop.sessions_run() == 1


class _Quiet:
    """A Display that keeps what it was told (the loop run in-process)."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def started(self, number: int, nth: int, options: object, next_action: str) -> None: ...
    def output(self, chunk: bytes) -> None: ...
    def tick(self, elapsed: float, changed: tuple[str, ...]) -> None: ...
    def ended(self, entry: object) -> None: ...
    def note(self, text: str) -> None:
        self.notes.append(text)


class _LateWriter:
    """The seam's after_session: a process outside the loop's tree writing after the
    judgement of session 1 (legit: records a failure through the writer; else: drops one)."""

    def __init__(self, repo: Path, legit: bool) -> None:
        self.repo, self.legit = repo, legit

    def before_session(self, repo: object, number: int) -> str | None:
        return None

    def after_session(self, repo: object, entry: object) -> None:
        if getattr(entry, "number", 0) != 1:
            return
        if self.legit:
            _person_records(self.repo)
            return
        path = self.repo / "docs/Failed_Attempts.md"
        path.write_text(
            "".join(ln for ln in path.read_text().splitlines(True) if "F-001" not in ln)
        )


def _person_records(repo: Path) -> None:
    done = run_subprocess(repo, "fail", "add", "--tried", "`make w`", "--failure", "w broke",
                          "--workaround", "use make y")  # fmt: skip
    assert done.code == 0, done.err


@pytest.mark.parametrize("legit", [False, True], ids=["drops-a-row", "legit-records-a-row"])
def test_a_write_between_two_sessions_of_one_run_is_judged(loop: Loop, legit: bool) -> None:
    from rehydrate.config import load_config
    from rehydrate.git import find_repo
    from rehydrate.run.loop import run_loop
    from rehydrate.run.options import RunOptions

    loop.script(NEXT, PASS_CHECK)
    repo = find_repo(loop.repo)
    display = _Quiet()
    options = RunOptions(command=tuple(loop.command()))
    result = run_loop(
        repo, load_config(repo.root), options, display, dict(os.environ),
        _LateWriter(loop.repo, legit),
    )  # fmt: skip
    said = "\n".join(display.notes)
    assert "since session #1 was judged" in said
    if legit:
        assert result.code == 0, result.message
        assert loop.sessions_run() == 2
    else:
        assert result.code == 1 and "F-001" in result.message, result.message
        assert loop.sessions_run() == 1


def test_another_branch_is_not_compared_with_the_last_judged_state(loop: Loop) -> None:
    _weaken_and_stop(loop)
    git(loop.repo, "checkout", "-q", "-b", "fresh", "HEAD~1")
    result = loop.run()
    assert result.code == 0, result.err
    assert "ran on main" in result.err or "ran on master" in result.err


def test_a_branch_on_top_of_the_refused_commit_is_no_way_around_it(loop: Loop) -> None:
    _weaken_and_stop(loop)
    git(loop.repo, "checkout", "-q", "-b", "escape")
    result = loop.run()
    assert result.code == 1, result.err
    assert "would start on top of refused ledger changes" in result.err
