"""``rehydrate run --claim`` with real loops on real clones of one bare remote (the server
hook installed): two loops share one task without ever working on the same phase at
once, and together finish it; a holder killed with ``kill -9`` mid-session leaves its
lease to expire, and the other loop takes the phase over and finishes the task."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import git
from coordkit import clone, seed, server

AGENT = """\
import json, os, subprocess, sys, time
log, name = sys.argv[1], sys.argv[2]
item = os.environ["REHYDRATE_CLAIMED_ITEM"]
prompt = sys.stdin.read()
def note(event):
    with open(log, "a") as out:
        out.write(json.dumps({"loop": name, "item": item, "event": event, "t": time.time(),
                              "pid": os.getpid(), "holds": "This session holds the claim on "
                              + item in prompt}) + "\\n")
note("start")
if os.environ.get("HANG_ON") == item:
    time.sleep(600)
time.sleep(0.3)
subprocess.run([sys.executable, "-m", "rehydrate", "task", "phase", "done", item, "--commit"],
               check=True, capture_output=True)
note("end")
"""


def _loop(
    repo: Path, agent: Path, log: Path, name: str, *extra: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rehydrate",
            "run",
            "--claim",
            "--as",
            name,
            "--max-sessions",
            "6",
            "--grace-seconds",
            "1",
            *extra,
            "--",
            sys.executable,
            str(agent),
            str(log),
            name,
        ],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )


def _events(log: Path) -> list[dict[str, object]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def _phases_on_remote(tmp_path: Path, url: str) -> str:
    check = tmp_path / "check"
    git(tmp_path, "clone", "-q", url, str(check))
    text = (check / "docs" / "Task.md").read_text()
    return text[text.index("| ID | Phase") : text.index("## Next action")]


def _world(tmp_path: Path) -> tuple[str, Path, Path, Path, Path]:
    bare = server(tmp_path)
    url = f"file://{bare}"
    seed(tmp_path, bare, url)
    a = clone(url, tmp_path / "a", "ada")
    b = clone(url, tmp_path / "b", "bob")
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    return url, a, b, agent, tmp_path / "events.jsonl"


def test_two_loops_take_turns_and_finish_the_task(tmp_path: Path) -> None:
    url, a, b, agent, log = _world(tmp_path)
    loops = [_loop(a, agent, log, "loop-a"), _loop(b, agent, log, "loop-b")]
    outs = [proc.communicate(timeout=180) for proc in loops]
    for proc, (_, err) in zip(loops, outs, strict=True):
        assert proc.returncode == 0, err
    events = _events(log)
    spans: dict[str, list[tuple[float, float, object]]] = {}
    for start in (e for e in events if e["event"] == "start"):
        end = next(e for e in events if e["event"] == "end" and e["pid"] == start["pid"])
        spans.setdefault(str(start["item"]), []).append((start["t"], end["t"], start["loop"]))  # type: ignore[arg-type]
    assert sorted(spans) == ["P1", "P2", "P3"]
    assert all(len(runs) == 1 for runs in spans.values()), spans  # each phase worked once
    assert all(e["holds"] for e in events if e["event"] == "start")
    assert {loop for runs in spans.values() for *_, loop in runs} == {"loop-a", "loop-b"}
    table = _phases_on_remote(tmp_path, url)
    assert table.count("| done |") == 3, table
    assert git(tmp_path / "server.git", "for-each-ref", "refs/rehydrate/").stdout == ""


def test_a_killed_holder_lease_expires_and_another_loop_takes_over(tmp_path: Path) -> None:
    url, a, b, agent, log = _world(tmp_path)
    first = _loop(a, agent, log, "loop-a", "--ttl", "3s", env={"HANG_ON": "P1"})
    deadline = time.monotonic() + 60
    while not any(e["item"] == "P1" for e in _events(log)):
        assert time.monotonic() < deadline and first.poll() is None, first.communicate()
        time.sleep(0.1)
    hung = next(e for e in _events(log) if e["item"] == "P1")
    os.killpg(first.pid, signal.SIGKILL)  # the loop, mid-session
    os.kill(int(hung["pid"]), signal.SIGKILL)  # type: ignore[call-overload]  # and its agent
    first.communicate()
    second = _loop(b, agent, log, "loop-b", "--ttl", "3s")
    _, err = second.communicate(timeout=180)
    assert second.returncode == 0, err
    p1 = [(e["loop"], e["event"]) for e in _events(log) if e["item"] == "P1"]
    assert p1 == [("loop-a", "start"), ("loop-b", "start"), ("loop-b", "end")], p1
    done = [e for e in _events(log) if e["event"] == "end"]
    assert sorted(str(e["item"]) for e in done) == ["P1", "P2", "P3"]
    assert all(e["loop"] == "loop-b" for e in done)
    assert _phases_on_remote(tmp_path, url).count("| done |") == 3


def test_run_claim_without_a_remote_is_bad_input(ledger_repo: Path) -> None:
    from conftest import run

    result = run(ledger_repo, "run", "--claim", "--", sys.executable, "-c", "pass")
    assert result.code == 2 and "no_remote" in result.err and "--remote" in result.err
