"""What people see of ``rehydrate run``: the runtimes' JSON streams as readable lines, the
live line fitted to an 80-column terminal (a real PTY), and no terminal escape from a
commit subject or an index line reaching ``log``, ``status`` or ``run --status`` raw."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, git, run_subprocess
from rehydrate.run.stream import Render, render_all
from rehydrate.terminal import cells, fit_width, one_line, printable
from test_run import PASS_CHECK, Loop


@pytest.fixture
def loop(ledger_repo: Path, tmp_path: Path) -> Loop:
    return Loop(ledger_repo, tmp_path)


def _jsonl(*objs: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


HOOK_NOISE = "x" * 50_000  # a SessionStart response that fills a screen raw
CLAUDE = _jsonl(
    {"type": "system", "subtype": "hook_response", "hook_name": "SessionStart:startup",
     "output": HOOK_NOISE, "outcome": "success"},
    {"type": "system", "subtype": "init", "model": "claude-x", "session_id": "s", "tools": []},
    {"type": "assistant", "parent_tool_use_id": None, "message": {"content": [
        {"type": "text", "text": "Reading the ledgers."},
        {"type": "tool_use", "name": "Bash", "input": {"command": "make x"}}]}},
    {"type": "user", "message": {"content": [
        {"type": "tool_result", "is_error": True,
         "content": "rehydrate: F-001 says make x fails"}]}},
    {"type": "stream_event", "event": {"delta": "noise"}},
    {"type": "result", "subtype": "success", "num_turns": 3, "total_cost_usd": 0.25,
     "result": "Done: X-001 passed.",
     "permission_denials": [{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}]},
)  # fmt: skip
CLAUDE_LINES = [
    ". hook SessionStart:startup: success",
    ". session started (model claude-x)",
    "claude: Reading the ledgers.",
    "-> Bash: make x",
    "x rehydrate: F-001 says make x fails",
    "= result: success (3 turns, $0.25)",
    "x denied: Bash: rm -rf /",
    "  Done: X-001 passed.",
]
CODEX = _jsonl(
    {"type": "thread.started", "thread_id": "t"},
    {"type": "turn.started"},
    {"type": "item.started", "item": {"type": "command_execution", "command": "pytest -q"}},
    {"type": "item.completed", "item": {"type": "command_execution", "command": "pytest -q",
     "aggregated_output": "1 failed\nsummary", "exit_code": 1, "status": "failed"}},
    {"type": "item.completed", "item": {"type": "agent_message", "text": "Tests fail."}},
    {"type": "turn.completed", "usage": {"input_tokens": 5}},
)  # fmt: skip
CODEX_LINES = [
    ". session started",
    "-> exec: pytest -q",
    "x exit 1: 1 failed (+1 lines)",
    "codex: Tests fail.",
    "= turn done",
]
GEMINI = _jsonl(
    {"type": "init", "model": "gemini-x", "session_id": "g"},
    {"type": "message", "role": "user", "content": "the prompt"},
    {"type": "message", "role": "assistant", "content": "Looking ", "delta": True},
    {"type": "message", "role": "assistant", "content": "at it.", "delta": True},
    {"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "1",
     "parameters": {"command": "ls"}},
    {"type": "tool_result", "tool_id": "1", "status": "error",
     "error": {"message": "denied by policy"}},
    {"type": "result", "status": "success", "stats": {}},
)  # fmt: skip
GEMINI_LINES = [
    ". session started (model gemini-x)",
    "gemini: Looking at it.",
    "-> run_shell_command: ls",
    "x denied by policy",
    "= result: success",
]


@pytest.mark.parametrize(
    ("stream", "lines"),
    [(CLAUDE, CLAUDE_LINES), (CODEX, CODEX_LINES), (GEMINI, GEMINI_LINES)],
    ids=["claude", "codex", "gemini"],
)
@pytest.mark.parametrize("size", [1, 7, 1 << 20])
def test_streams_render_as_readable_lines_in_any_chunking(
    stream: bytes, lines: list[str], size: int
) -> None:
    view = Render()
    out: list[str] = []
    for start in range(0, len(stream), size):
        out += view.feed(stream[start : start + size])
    assert out + view.close() == lines
    assert all(len(line) <= 240 for line in out)


def test_text_and_foreign_json_pass_through_one_line_each() -> None:
    data = b"plain text\n{not json\n" + _jsonl({"a": 1}) + b"\x1b]0;pwned\x07 title\n\n"
    assert render_all(data) == ["plain text", "{not json", '{"a": 1}', "\\x1b]0;pwned\\x07 title"]


def test_a_long_line_is_cut_and_nesting_does_not_crash() -> None:
    nested = b'{"type":"assistant","message":' * 5000
    (line,) = render_all(nested + b"\n")
    assert len(line) <= 240
    (cut,) = render_all(_jsonl({"type": "assistant", "message": {"content": [
        {"type": "text", "text": "y" * 10_000}]}}))  # fmt: skip
    assert len(cut) <= 240 and cut.endswith("\u2026")


@pytest.mark.parametrize("denials", [5, 1.5, True, "rm -rf /", {"tool_name": "Bash"}, None])
def test_a_result_whose_denials_are_no_list_renders_without_them(denials: object) -> None:
    event = {"type": "result", "subtype": "success", "num_turns": 1, "permission_denials": denials}
    assert render_all(_jsonl(event)) == ["= result: success (1 turns)"]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("fine", "fine"),
        ("a\x1b[2Jb", "a\\x1b[2Jb"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("tab\tnew\nline", "tab\tnew\nline"),
        ("\u202eevil", "\\u202eevil"),
        ("bell\x07\x7f", "bell\\x07\\x7f"),
    ],
)
def test_printable(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert "\n" not in one_line(text)


@pytest.mark.parametrize(
    "text", ["a" * 300, "添加请求头，然后部署到生产环境" * 10, "e\u0301" * 200, "ok"]
)
@pytest.mark.parametrize("columns", [20, 80, 100])
def test_fit_width_never_reaches_the_last_column(text: str, columns: int) -> None:
    fitted = fit_width(text, columns)
    assert sum(cells(c) for c in fitted) <= columns - 1
    assert fitted == text or fitted.endswith("\u2026")


ESCAPE = "\x1b]0;owned\x07\x1b[2J"


def test_escapes_in_a_commit_subject_never_reach_log_raw(ledger_repo: Path) -> None:
    added = run_subprocess(ledger_repo, "fail", "add", "--tried", "`make q`", "--failure",
                           "q fails", "--workaround", "use make r")  # fmt: skip
    assert added.code == 0, added.err
    commit(ledger_repo, f"record q {ESCAPE}")
    out = run_subprocess(ledger_repo, "log").out
    assert "record q \\x1b]0;owned\\x07\\x1b[2J" in out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\u001b" in run_subprocess(ledger_repo, "log", "--json").out  # JSON escapes it


def _hostile_index(repo: Path) -> None:
    line = {
        "schema": "rehydrate/run-session-v1", "number": 1, "start": "2026-01-01T00:00:00Z",
        "end": "2026-01-01T00:01:00Z", "agent": f"agent{ESCAPE}", "exit": 0,
        "ended_by": "exited", "head_before": None, "head_after": None, "commits": 0,
        "progress": [f"X-001 open->passed{ESCAPE}"], "guard": "pass", "violations": [],
        "uncommitted": [], "committed_ledgers": None, "cost_usd": None, "context_peak": None,
        "verdict": "done\x1b[1A\x1b[Kdone", "log": ".rehydrate/sessions/1.log",
    }  # fmt: skip
    folder = repo / ".rehydrate/sessions"
    folder.mkdir(parents=True)
    wrong = {**line, "number": 2, "cost_usd": "abc"}
    nested = '{"a":' * 100_000 + "1" + "}" * 100_000
    (folder / "index.jsonl").write_text(
        "\n".join([json.dumps(line), json.dumps(wrong), nested]) + "\n"
    )


def test_escapes_in_index_lines_never_reach_status_or_run_status_raw(ledger_repo: Path) -> None:
    _hostile_index(ledger_repo)
    shown = run_subprocess(ledger_repo, "run", "--status")
    assert shown.code == 0, shown.err
    assert "\x1b" not in shown.out and "done\\x1b[1A\\x1b[Kdone" in shown.out
    assert "(2 unreadable line(s) in the index skipped)" in shown.out  # wrong type, nesting
    status = run_subprocess(ledger_repo, "status")
    assert status.code == 0, status.err
    assert "\x1b" not in status.out and "X-001 open->passed\\x1b" in status.out


def test_a_stall_shows_a_readable_tail(loop: Loop) -> None:
    call = {"type": "tool_use", "name": "Bash", "input": {"command": "make all " + "z" * 9000}}
    event = {"type": "assistant", "parent_tool_use_id": None, "message": {"content": [call]}}
    idle = [["print", json.dumps(event)], ["print", "plain words"]]
    result = loop.script(idle, idle).run("--stall", "2")
    assert result.code == 1 and "stalled" in result.err, result.err
    assert "output: -> Bash: make all zzz" in result.err
    assert '{"type"' not in result.err


def test_raw_shows_the_stream_as_written(loop: Loop) -> None:
    event = {"type": "result", "subtype": "success", "num_turns": 1, "total_cost_usd": 0.1}
    steps = [["print", json.dumps(event)], *PASS_CHECK]
    rendered = loop.script(steps).run()
    assert rendered.code == 0 and "= result: success (1 turns, $0.10)" in rendered.out
    git(loop.repo, "reset", "-q", "--hard", "HEAD~1")
    (loop.state / "count").unlink()
    raw = loop.run("--raw")
    assert raw.code == 0 and json.dumps(event) in raw.out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux PTY")
def test_the_live_line_fits_an_80_column_pty(loop: Loop) -> None:
    import fcntl
    import pty
    import struct
    import termios

    long_action = "deploy the service to every region " * 8
    assert run_subprocess(loop.repo, "task", "next", long_action.strip()).code == 0
    commit(loop.repo, "a long next action")
    steps = [["print", "working"], ["sleep", 2.5], ["print", "still working"], ["sleep", 1.5],
             *PASS_CHECK]  # fmt: skip
    loop.script(steps)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rehydrate", "run", "--", *loop.command()],
        cwd=loop.repo, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    data = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    assert proc.returncode == 0, data.decode(errors="replace")
    text = data.decode("utf-8")
    draws = [s for s in re.split(r"\r\x1b\[K", text) if s.startswith("[session")]
    assert len(draws) >= 2, text  # the clock moved: redrawn in place
    for draw in draws:
        line = re.split(r"[\r\n]", draw)[0]
        assert sum(cells(c) for c in line) <= 79, line
        assert draw == line or draw[len(line)] == "\r", repr(draw)  # never a newline after it
    assert "still working" in text


def test_render_and_printable_hold_on_any_input() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    events = st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=40),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "type",
                        "subtype",
                        "message",
                        "content",
                        "item",
                        "text",
                        "name",
                        "input",
                        "is_error",
                        "role",
                        "delta",
                        "tool_name",
                        "status",
                    ]
                ),
                inner,
                max_size=5,
            )
        ),  # fmt: skip
        max_leaves=20,
    )
    kinds = st.sampled_from(
        ["assistant", "user", "system", "result", "item.completed", "item.started", "message"]
        + ["tool_use", "tool_result", "init"]
    )
    line = st.one_of(
        st.binary(max_size=200),
        st.builds(
            lambda k, e: json.dumps({"type": k, "message": e, "item": e, "content": e}).encode(),
            kinds,
            events,
        ),  # noqa: E501
    )

    @settings(max_examples=300, deadline=None)
    @given(st.lists(line, max_size=8), st.integers(min_value=1, max_value=50))
    def check(lines: list[bytes], size: int) -> None:
        data = b"\n".join(lines)
        view = Render()
        out: list[str] = []
        for start in range(0, len(data), size):
            out += view.feed(data[start : start + size])
        out += view.close()
        for shown in out:
            assert len(shown) <= 240
            assert printable(shown) == shown and "\n" not in shown

    check()
