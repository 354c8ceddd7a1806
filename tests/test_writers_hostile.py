"""Writers against a hostile work tree: symlink flips of the ledger's directory while
writers run, and writers SIGKILLed mid-write. Real processes, real git, bounded loops."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import run_subprocess
from rehydrate.config import load_config
from rehydrate.errors import RehydrateError
from rehydrate.git import find_repo
from rehydrate.ledgers import parse_ledger
from rehydrate.ledgers.atomicfile import write_in_repo
from rehydrate.writers.ledger import write
from rehydrate.writers.operations import add_row

LEDGER = "docs/Failed_Attempts.md"
FLIP_WRITES = 60  # today's code lands a row outside within 6-36 writes
KILLED_WRITERS = 12


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_symlink_flip_of_the_ledger_directory_never_lands_a_byte_outside(
    ledger_repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    shutil.copytree(ledger_repo / "docs", outside)
    before_outside = _snapshot(outside)
    docs, parked = ledger_repo / "docs", ledger_repo / "docs.real"
    stop = threading.Event()
    flips = [0]
    trouble: list[BaseException] = []

    def flipper() -> None:
        try:
            while not stop.is_set():
                os.rename(docs, parked)
                os.symlink(outside, docs)
                time.sleep(random.uniform(0, 0.002))
                os.unlink(docs)
                os.rename(parked, docs)
                flips[0] += 1
                time.sleep(random.uniform(0, 0.002))
        except BaseException as exc:  # reported below: a dead flipper proves nothing
            trouble.append(exc)

    repo = find_repo(str(ledger_repo))
    config = load_config(ledger_repo)
    written, refused = [], 0
    thread = threading.Thread(target=flipper)
    thread.start()
    deadline = time.monotonic() + 30
    try:
        for n in range(FLIP_WRITES):
            if time.monotonic() > deadline:
                break
            try:
                result = write(
                    repo,
                    config,
                    add_row(
                        "failures",
                        "fail add",
                        "failures",
                        {"tried": f"`flip {n}`", "failure": "f", "workaround": "w"},
                    ),
                )
                written.append(result.item_id)
            except (RehydrateError, OSError):
                refused += 1  # refused (symlink) or missing (mid-flip): never redirected
    finally:
        stop.set()
        thread.join()
    assert not trouble, trouble
    assert flips[0] > 0 and written, (flips, written, refused)
    assert _snapshot(outside) == before_outside
    ledger = parse_ledger("failures", LEDGER, (ledger_repo / LEDGER).read_bytes())
    assert set(written) <= {r.id for r in ledger.section("failures")}


def test_write_in_repo_refuses_a_symlinked_directory(ledger_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (ledger_repo / "link").symlink_to(outside)
    with pytest.raises(RehydrateError) as info:
        write_in_repo(ledger_repo, "link/x.md", b"x")
    assert info.value.code == "path_outside_repo"
    assert list(outside.iterdir()) == []


def test_writer_refuses_a_symlinked_ledger_directory(ledger_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    shutil.move(str(ledger_repo / "docs"), outside)
    (ledger_repo / "docs").symlink_to(outside)
    before = _snapshot(outside)
    result = run_subprocess(
        ledger_repo, "fail", "add", "--tried", "a", "--failure", "b", "--workaround", "c"
    )
    assert result.code == 2, result.err
    assert "path_outside_repo" in result.err and "Traceback" not in result.err
    assert _snapshot(outside) == before


def test_writers_killed_mid_write_never_block_or_tear(ledger_repo: Path) -> None:
    rng = random.Random(13)
    env = {**os.environ, "REHYDRATE_LOCK_TIMEOUT": "10"}
    cmd = [
        sys.executable,
        "-m",
        "rehydrate",
        "fail",
        "add",
        "--failure",
        "f",
        "--workaround",
        "w",
        "--tried",
    ]
    started = time.monotonic()
    subprocess.run(
        [*cmd, "`timing`"],
        cwd=ledger_repo,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    took = time.monotonic() - started  # kill somewhere inside a writer's own run time
    killed = 0
    for n in range(KILLED_WRITERS):
        victims = [
            subprocess.Popen(
                [*cmd, f"`victim {n}.{k}`"],
                cwd=ledger_repo,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for k in range(2)
        ]
        time.sleep(rng.uniform(0.1, 0.9) * took)  # import, parse, lock, write: in there
        for victim in victims:
            if victim.poll() is None:
                victim.send_signal(signal.SIGKILL)
                killed += 1
            victim.wait()
        data = (ledger_repo / LEDGER).read_bytes()
        parse_ledger("failures", LEDGER, data)  # old or new, never torn
        after = run_subprocess(
            ledger_repo,
            "fail",
            "add",
            "--tried",
            f"`next {n}`",
            "--failure",
            "f",
            "--workaround",
            "w",
            env={"REHYDRATE_LOCK_TIMEOUT": "2"},
        )
        assert after.code == 0, after.err  # no stale lock left behind
    assert killed > 0
    assert not list((ledger_repo / "docs").glob(".*.tmp"))
