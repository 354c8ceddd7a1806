"""The pure parts of ``rehydrate run``: prompt delivery, limits, usage lines, the progress
table, the verdict order, the transcript tail and the session index format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conftest import example_ledger
from rehydrate.agents.contextuse import LIMIT_ENV, SESSION_ENV, check_context, transcript_tokens
from rehydrate.continuity import sessions
from rehydrate.errors import EXIT_BLOCKED, EXIT_INTERRUPTED, EXIT_OK, EXIT_REFUSED, RehydrateError
from rehydrate.ledgers import parse_ledger
from rehydrate.run.judge import Judgement, is_done, progress
from rehydrate.run.launch import Ending, delivery
from rehydrate.run.options import RunOptions, context_tokens
from rehydrate.run.usage import Usage
from rehydrate.run.verdict import decide_session


@pytest.mark.parametrize(
    "command, argv, piped",
    [
        pytest.param(["agent", "-p"], ["agent", "-p"], True, id="stdin"),
        pytest.param(["agent", "{prompt}"], ["agent", "PROMPT"], False, id="prompt"),
        pytest.param(
            ["agent", "--file={prompt_file}"], ["agent", "--file=/p.md"], False, id="file"
        ),
        pytest.param(["{prompt}"], ["{prompt}"], True, id="program-is-not-substituted"),
        pytest.param(["a", "x{prompt}y"], ["a", "xPROMPTy"], False, id="inside-an-argument"),
    ],
)
def test_delivery(command: list[str], argv: list[str], piped: bool) -> None:
    assert delivery(command, "PROMPT", Path("/p.md")) == (argv, piped)


def test_delivery_does_not_substitute_inside_the_prompt() -> None:
    argv, _ = delivery(["a", "{prompt}", "{prompt_file}"], "see {prompt_file}", Path("/p.md"))
    assert argv == ["a", "see {prompt_file}", "/p.md"]


@pytest.mark.parametrize(
    "text, tokens", [("50%", 100_000), ("100%", 200_000), ("12.5%", 25_000), ("90000", 90_000)]
)
def test_context_tokens(text: str, tokens: int) -> None:
    assert context_tokens(text, 200_000) == tokens


@pytest.mark.parametrize("text", ["0", "0%", "101%", "-1", "half", "", "50 %%"])
def test_context_tokens_refuses(text: str) -> None:
    with pytest.raises(RehydrateError, match="--context-limit"):
        context_tokens(text, 200_000)


def _lines(*objs: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


def test_usage_reads_claude_stream_json_in_any_chunking() -> None:
    data = b"plain output\n" + _lines(
        {"type": "assistant", "message": {"usage": {"input_tokens": 10, "output_tokens": 5}}},
        {
            "type": "assistant",
            "parent_tool_use_id": "toolu_1",  # a subagent's: not this context
            "message": {"usage": {"input_tokens": 99999}},
        },
        {"type": "assistant", "message": {"usage": {"cache_read_input_tokens": 40}}},
        {"type": "result", "total_cost_usd": 0.25},
    )
    for step in (1, 7, len(data)):
        usage = Usage()
        for start in range(0, len(data), step):
            usage.feed(data[start : start + step])
        usage.close()
        assert (usage.cost_usd, usage.context_peak) == (0.25, 40)


@pytest.mark.parametrize(
    "line", [b'{"total_cost_usd": "1"}', b'{"total_cost_usd": true}', b"{not json", b"[1]"]
)
def test_usage_ignores_what_is_not_a_report(line: bytes) -> None:
    usage = Usage()
    usage.feed(line + b"\n")
    assert usage.cost_usd is None and usage.context_peak is None


P1 = "| P1 | Example: reproduce the bug with a failing test |"
X1 = "| X-001 | Example: the full test suite passes |"
O1 = "| O-001 | Example: tell the reviewer about the schema change | open |"
TASK_AFTER = {
    "next action": (
        "Example: write the failing test for the bug described in the objective",
        "run it",
    ),
    "phases": (f"{P1} todo |", f"{P1} doing |"),
    "checks": (f"{X1} open |", f"{X1} passed |"),
    "obligation added": (O1, f"{O1}\n| O-002 | more work | open |"),
}


def _ledgers(task: str | None = None, failures: str | None = None) -> dict[str, Any]:
    texts = {kind: example_ledger(kind) for kind in ("spec", "task", "failures")}
    if task is not None:
        texts["task"] = task
    if failures is not None:
        texts["failures"] = failures
    return {k: parse_ledger(k, f"docs/{k}.md", t.encode()) for k, t in texts.items()}


def _task(old: str, new: str) -> str:
    text = example_ledger("task").replace("revision: 1", "revision: 2")
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize(
    "change, moved",
    [
        pytest.param("next action", ["next action changed"], id="next-action"),
        pytest.param("phases", ["P1 todo->doing"], id="phase"),
        pytest.param("checks", ["X-001 open->passed"], id="check"),
        pytest.param("obligation added", [], id="adding-work-is-not-progress"),
    ],
)
def test_progress_table(change: str, moved: list[str]) -> None:
    before = _ledgers()
    after = _ledgers(task=_task(*TASK_AFTER[change]))
    assert list(progress(before, after)) == moved


def test_a_recorded_failure_is_progress() -> None:
    failures = example_ledger("failures").replace(
        "| F-001 |", "| F-002 | `make x` | no rule | use make y |\n| F-001 |"
    )
    assert progress(_ledgers(), _ledgers(failures=failures)) == ("F-002 recorded",)


def test_done_needs_a_check_and_every_check_passed() -> None:
    assert not is_done(_ledgers())
    assert is_done(_ledgers(task=_task(*TASK_AFTER["checks"])))
    no_checks = _task("| X-001 | Example: the full test suite passes | open |\n", "")
    assert not is_done(_ledgers(task=no_checks))  # nothing to pass is not done


def _judgement(**fields: Any) -> Judgement:
    base: dict[str, Any] = {
        "head_after": "b",
        "commits": 1,
        "violations": (),
        "uncommitted": (),
        "progress": (),
        "done": False,
        "blocked": (),
    }
    return Judgement(**{**base, **fields})


VIOLATION = object()
OPTIONS = RunOptions(("agent",), max_cost=None)


@pytest.mark.parametrize(
    "judged, ended_by, verdict, code",
    [
        pytest.param(
            {"violations": (VIOLATION,), "done": True},
            "interrupted",
            "interrupted",
            EXIT_INTERRUPTED,
            id="ctrl-c-first",
        ),
        pytest.param(
            {"violations": (VIOLATION,), "done": True, "blocked": ("E-1",)},
            "exited",
            "violation",
            EXIT_REFUSED,
            id="violation-before-blocked",
        ),
        pytest.param(
            {"blocked": ("E-1",), "done": True},
            "exited",
            "blocked",
            EXIT_BLOCKED,
            id="blocked-before-done",
        ),
        pytest.param({"done": True}, "max_minutes", "done", EXIT_OK, id="done-before-a-limit"),
        pytest.param({"progress": ("x",)}, "max_minutes", "limit", EXIT_REFUSED, id="limit"),
        pytest.param({"progress": ("x",)}, "exited", "continue", None, id="go-on"),
        pytest.param(
            {"progress": ("x",)}, "context_limit", "continue", None, id="context-limit-goes-on"
        ),
    ],
)
def test_verdict_order(judged: dict[str, Any], ended_by: str, verdict: str, code: int) -> None:
    got = decide_session(
        OPTIONS._replace(max_minutes=1.0), 1, _judgement(**judged), Ending(0, ended_by), 0, 0.0,
        False, None,
    )  # fmt: skip
    assert (got.verdict, got.code) == (verdict, code)


def test_stall_counts_and_resets() -> None:
    idle = _judgement()
    first = decide_session(OPTIONS, 1, idle, Ending(0, "exited"), 0, 0.0, False, None)
    assert (first.verdict, first.stalled) == ("continue", 1)
    second = decide_session(OPTIONS, 2, idle, Ending(0, "exited"), 1, 0.0, False, None)
    assert (second.verdict, second.code) == ("stalled", EXIT_REFUSED)
    moved = decide_session(
        OPTIONS, 2, _judgement(progress=("x",)), Ending(0, "exited"), 1, 0.0, False, None
    )
    assert moved.stalled == 0 and moved.code is None
    reverted = decide_session(
        OPTIONS, 2, _judgement(progress=("x",), violations=(VIOLATION,)), Ending(0, "exited"),
        0, 0.0, True, None,
    )  # fmt: skip
    assert (reverted.verdict, reverted.stalled, reverted.code) == ("reverted", 1, None)


def test_cost_adds_up_to_the_limit() -> None:
    options = OPTIONS._replace(max_cost=1.0)
    moved = _judgement(progress=("x",))
    under = decide_session(options, 1, moved, Ending(0, "exited"), 0, 0.5, False, 0.4)
    assert under.code is None and under.cost == pytest.approx(0.9)
    over = decide_session(options, 2, moved, Ending(0, "exited"), 0, 0.9, False, 0.2)
    assert over.code == EXIT_REFUSED and "--max-cost 1" in over.message
    unknown = decide_session(options, 1, moved, Ending(0, "exited"), 0, 0.0, False, None)
    assert unknown.code == EXIT_REFUSED and "reported no cost" in unknown.message


def _transcript(path: Path, *entries: Any, tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in entries) + tail)
    return path


def _assistant(tokens: int, **extra: Any) -> dict[str, Any]:
    return {"type": "assistant", "message": {"usage": {"input_tokens": tokens}}, **extra}


def test_transcript_tokens_reads_the_latest_main_thread_usage(tmp_path: Path) -> None:
    path = _transcript(
        tmp_path / "t.jsonl",
        _assistant(10),
        {"type": "user", "message": {"content": "x" * 1000}},
        _assistant(500),
        _assistant(90000, isSidechain=True),  # a subagent
        tail=b'{"type": "assistant", "message": {"usa',  # being written
    )
    assert transcript_tokens(path) == 500
    assert transcript_tokens(tmp_path / "missing.jsonl") is None


def test_transcript_tokens_reads_only_the_tail(tmp_path: Path) -> None:
    path = _transcript(tmp_path / "t.jsonl", _assistant(777), {"pad": "x" * 4096})
    assert transcript_tokens(path, tail=100) is None
    assert transcript_tokens(path, tail=10_000) == 777


def test_check_context_tells_once_per_session(tmp_path: Path) -> None:
    (tmp_path / ".rehydrate").mkdir()
    path = str(_transcript(tmp_path / "t.jsonl", _assistant(150)))
    env = {LIMIT_ENV: "100", SESSION_ENV: "4"}
    assert check_context(tmp_path, path, {}) is None  # not inside rehydrate run
    assert check_context(tmp_path, path, {**env, LIMIT_ENV: "200"}) is None  # under it
    told = check_context(tmp_path, path, env)
    assert told is not None and told.action == "refuse"
    assert "update the ledgers and commit, the session ends after this" in told.text
    assert check_context(tmp_path, path, env) is None  # once
    assert check_context(tmp_path, path, {**env, SESSION_ENV: "5"}) is not None  # next session
    note = json.loads((tmp_path / ".rehydrate/run-context.json").read_text())
    assert (note["session"], note["tokens"], note["limit"]) == ("5", 150, 100)


def _record(number: int, **fields: Any) -> sessions.SessionRecord:
    base: dict[str, Any] = {
        "number": number,
        "start": "2026-01-01T00:00:00Z",
        "end": "2026-01-01T00:01:00Z",
        "agent": "claude",
        "exit": 0,
        "ended_by": "exited",
        "head_before": "a",
        "head_after": "b",
        "commits": 1,
        "progress": ("X-001 open->passed",),
        "guard": "pass",
        "violations": (),
        "uncommitted": (),
        "committed_ledgers": None,
        "cost_usd": 0.5,
        "context_peak": 1200,
        "verdict": "done",
        "log": ".rehydrate/sessions/1.log",
    }
    return sessions.SessionRecord(**{**base, **fields})


def test_index_round_trip_skips_what_it_did_not_write(tmp_path: Path) -> None:
    sessions.append(tmp_path, _record(1))
    with (tmp_path / sessions.INDEX).open("a") as handle:
        handle.write('{"schema": "rehydrate/run-session-v1", "number": 2}\n')  # fields missing
        handle.write("not json\n")
        handle.write(json.dumps({**_record(3).to_json(), "progress": "x"}) + "\n")
    sessions.append(tmp_path, _record(4, verdict="continue"))
    index = sessions.read_index(tmp_path)
    assert [r.number for r in index] == [1, 4]
    assert index.skipped == 3 and index.next_number == 5
    assert index[0] == _record(1)
    line = (tmp_path / sessions.INDEX).read_text().splitlines()[0]
    assert list(json.loads(line)) == sorted(json.loads(line))  # keys sorted: deterministic


@pytest.mark.parametrize(
    "field", ["start", "agent", "verdict", "log", "progress", "violations", "uncommitted"]
)
def test_an_index_line_with_a_lone_surrogate_is_skipped(repo: Path, field: str) -> None:
    """JSON's \\ud800 parses into a lone surrogate, which no output can encode: the line
    is unreadable (skipped, counted), and status and run --status still answer (they
    exited 70)."""
    from conftest import commit, run, scaffold

    scaffold(repo)
    commit(repo, "ledgers")
    sessions.append(repo, _record(1))
    bad = _record(2).to_json()
    bad[field] = ["X-1 \ud800"] if isinstance(bad[field], list) else "x\udcff"
    with (repo / sessions.INDEX).open("a") as handle:
        handle.write(json.dumps(bad) + "\n")
    index = sessions.read_index(repo)
    assert [r.number for r in index] == [1] and index.skipped == 1
    for args in (
        ("status",),
        ("status", "--json"),
        ("run", "--status"),
        ("run", "--status", "--json"),
    ):
        result = run(repo, *args)
        assert result.code == 0 and "internal error" not in result.err, (args, result)


def test_index_refuses_a_symlinked_folder(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / ".rehydrate").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError, match="symlink"):
        sessions.append(tmp_path, _record(1))
    assert not (tmp_path / "elsewhere" / "sessions").exists()


def test_summary_line() -> None:
    line = sessions.summary_line(_record(7, progress=("a", "b", "c", "d", "e")))
    assert line == textwrap.dedent(
        "#7 2026-01-01T00:00:00Z done (exited, exit 0, 1 commit, guard pass $0.50 ctx 1200): "
        "a, b, c, d (+1)"
    )


def test_live_line_on_a_terminal_and_plain_lines_elsewhere(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rehydrate.cli.run import LiveDisplay

    for tty in (True, False):
        display = LiveDisplay(tty)
        display.started(3, 1, OPTIONS, "write the test")
        display.tick(5.0, ())
        display.tick(5.2, ())
        display.tick(65.0, ("X-001 open->passed",))
        display.tick(66.0, ("X-001 open->passed",))
        display.clear()
        err = capsys.readouterr().err
        assert "session 1/10 (#3) started; next: write the test" in err
        line = "[session 1/10 (#3) 01:05] next: write the test | changed: X-001 open->passed"
        if tty:
            assert err.count("\r\x1b[K[session") == 3  # redrawn only when it changed
            assert line in err
        else:
            assert err.splitlines()[1:] == [line]  # one plain line per change, no \r


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl")
def test_end_descendants_reaches_a_setsid_grandchild(tmp_path: Path) -> None:
    """In a subprocess that made itself a subreaper: a double-forked, setsid() grandchild
    that ignores SIGTERM is found and ended."""
    code = f"""
import os, signal, subprocess, sys, time
from rehydrate.run.reaper import become_subreaper, descendants, end_descendants
assert become_subreaper()
subprocess.run([sys.executable, "-c", '''
import os, signal, sys, time
if os.fork(): sys.exit(0)
os.setsid()
if os.fork(): os._exit(0)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open({str(tmp_path / "pid")!r}, "w").write(str(os.getpid()))
time.sleep(60)
'''], check=True)
while not os.path.exists({str(tmp_path / "pid")!r}):
    time.sleep(0.01)
pid = int(open({str(tmp_path / "pid")!r}).read())
assert pid in descendants(), descendants()
assert end_descendants(0.2) >= 1
assert descendants() == []
print("ok", pid)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[1])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
