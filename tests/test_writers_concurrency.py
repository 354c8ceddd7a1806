"""Writers under concurrency and crashes: real processes, real lock files, SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from conftest import run, run_subprocess
from rehydrate.guard.rules import check_ledger
from rehydrate.ledgers import parse_ledger

LEDGER = "docs/Failed_Attempts.md"


def _appender(repo: Path, tag: str, count: int, results: list[tuple[str, int, str]]) -> None:
    for n in range(count):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "rehydrate",
                "fail",
                "add",
                "--tried",
                f"`run {tag} {n}`",
                "--failure",
                f"failed {tag} {n}",
                "--workaround",
                "none",
            ],
            cwd=repo,
            capture_output=True,
            text=True,
            env={**os.environ, "REHYDRATE_LOCK_TIMEOUT": "30"},
        )
        results.append((tag, proc.returncode, proc.stdout.strip() or proc.stderr))


def test_two_processes_fifty_appends_each_all_land(ledger_repo: Path) -> None:
    original = (ledger_repo / LEDGER).read_bytes()
    results: list[tuple[str, int, str]] = []
    threads = [
        threading.Thread(target=_appender, args=(ledger_repo, tag, 50, results))
        for tag in ("a", "b")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [r for r in results if r[1] != 0]
    assert failed == []
    ids = [r[2] for r in results]
    assert len(ids) == 100 and len(set(ids)) == 100
    final = (ledger_repo / LEDGER).read_bytes()
    old = parse_ledger("failures", LEDGER, original)
    new = parse_ledger("failures", LEDGER, final)
    rows = new.section("failures")
    assert len(rows) == len(old.section("failures")) + 100
    assert {r.id for r in rows} >= set(ids)
    assert {r.tried for r in rows} >= {f"`run {t} {n}`" for t in "ab" for n in range(50)}
    assert check_ledger("failures", old, new) == []
    assert not list((ledger_repo / "docs").glob(".*.tmp"))
    assert _lock_is_free(ledger_repo / ".git/rehydrate/locks" / (LEDGER + ".lock"))


def _lock_is_free(lock: Path) -> bool:
    import fcntl

    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_stale_expect_revision_loses_and_writes_nothing(ledger_repo: Path) -> None:
    first = run(ledger_repo, "task", "obligation", "add", "a", "--expect-revision", "1")
    assert first.code == 0, first.err
    before = (ledger_repo / "docs/Task.md").read_bytes()
    second = run(ledger_repo, "task", "obligation", "add", "b", "--expect-revision", "1")
    assert second.code == 1
    assert "cas_conflict" in second.err and "nothing was written" in second.err
    assert (ledger_repo / "docs/Task.md").read_bytes() == before


_HOLD_LOCK = """
import sys, time
from rehydrate.config import load_config
from rehydrate.git import find_repo
from rehydrate.writers.ledger import write
from rehydrate.writers.operations import Operation

def edit(data, ledger, ctx):
    print("locked", flush=True)
    time.sleep(60)
    raise SystemExit("not reached")

repo = find_repo()
write(repo, load_config(repo.root), Operation("failures", "fail add", edit))
"""

_DIE_BEFORE_REPLACE = """
import os, signal
from rehydrate.config import load_config
from rehydrate.git import find_repo
from rehydrate.writers.ledger import write
from rehydrate.writers.operations import add_row

os.replace = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
repo = find_repo()
write(repo, load_config(repo.root), add_row("failures", "fail add", "failures",
      {"tried": "x", "failure": "y", "workaround": "z"}))
"""


def _child(repo: Path, code: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_writer_killed_holding_the_lock_leaves_old_ledger_and_the_next_writer_proceeds(
    ledger_repo: Path,
) -> None:
    # The lock is a flock: the kernel releases it when its holder dies, so no stale lock.
    before = (ledger_repo / LEDGER).read_bytes()
    child = _child(ledger_repo, _HOLD_LOCK)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "locked"
    busy = run_subprocess(
        ledger_repo,
        "fail",
        "add",
        "--tried",
        "a",
        "--failure",
        "b",
        "--workaround",
        "c",
        env={"REHYDRATE_LOCK_TIMEOUT": "0.2"},
    )
    assert busy.code == 2 and "ledger_locked" in busy.err
    assert f"pid {child.pid}" in busy.err
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert (ledger_repo / LEDGER).read_bytes() == before
    result = run_subprocess(
        ledger_repo,
        "fail",
        "add",
        "--tried",
        "a",
        "--failure",
        "b",
        "--workaround",
        "c",
        env={"REHYDRATE_LOCK_TIMEOUT": "0.3"},
    )
    assert result.code == 0, result.err
    parse_ledger("failures", LEDGER, (ledger_repo / LEDGER).read_bytes())


def test_writer_killed_before_replace_leaves_old_file_and_temp_is_swept(ledger_repo: Path) -> None:
    before = (ledger_repo / LEDGER).read_bytes()
    child = _child(ledger_repo, _DIE_BEFORE_REPLACE)
    child.communicate()
    assert child.returncode == -signal.SIGKILL
    assert (ledger_repo / LEDGER).read_bytes() == before
    strays = list((ledger_repo / "docs").glob(".Failed_Attempts.md.rehydrate-*.tmp"))
    assert len(strays) == 1
    assert b"| x | y | z |" in strays[0].read_bytes()  # complete, but never became the ledger
    result = run(ledger_repo, "fail", "add", "--tried", "a", "--failure", "b", "--workaround", "c")
    assert result.code == 0, result.err
    assert not strays[0].exists()
