"""Invariant 6: a verdict is never lost. The exit code is the verdict's even when the
reader of stdout (or stderr) has gone away: ``set -o pipefail; rehydrate … | true`` is
the verdict, not 0, 120 or 141 — with a real pipe, via ``bash -c``, and with outputs
both small (they fit the pipe buffer) and large (the writer hits EPIPE for sure).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from adversarial.helpers import (
    BASE,
    PATHS,
    REFUSED,
    commit_tree,
    git,
    make_base_repo,
    rev,
)
from adversarial.histories import F2

MANY = 400  # failure rows: the refusal of deleting them all is well over 64 KiB


def _many_rows() -> str:
    rows = "".join(
        f"| F-{i:05d} | attempt number {i} with some words | it broke | do the other thing {i} |\n"
        for i in range(100, 100 + MANY)
    )
    return BASE["failures"].replace(F2, F2 + rows)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    repo = make_base_repo(tmp_path_factory.mktemp("verdict") / "base")
    base = rev(repo)
    small = commit_tree(
        repo, {PATHS["failures"]: BASE["failures"].replace(F2, "")}, [base], "drop F-002"
    )
    big_base = commit_tree(repo, {PATHS["failures"]: _many_rows()}, [base], "many rows")
    big = commit_tree(repo, {PATHS["failures"]: BASE["failures"]}, [big_base], "drop them all")
    git(repo, "update-ref", "refs/heads/many", big_base)
    (repo / "summary.md").write_text("# Summary\n\nAll fine, nothing to see.\n")
    return {"repo": repo, "base": base, "small": small, "big_base": big_base, "big": big}


PY = shlex.quote(sys.executable)


def _bash(repo: Path, script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", "set -o pipefail\n" + script],
        cwd=repo,
        text=True,
        capture_output=True,
        timeout=120,
    )


COMMANDS = {
    "guard-range-json-small": ("guard --range {base}..{small} --json", REFUSED),
    "guard-range-json-large": ("guard --range {big_base}..{big} --json", REFUSED),
    "guard-range-human-large": ("guard --range {big_base}..{big}", REFUSED),
    "verify-json": ("verify summary.md --json", 1),
    "check-json-blocked": ("check --json", 3),
    "check-command": ("check-command -- go test -tags=musl", 1),
}

READERS = {
    "pipe-true": "{cmd} | true",
    "pipe-head-c0": "{cmd} | head -c0",
    "stdout-closed": "{cmd} >&-",
    "stdout-dev-full": "{cmd} >/dev/full",
    "stderr-closed": "{cmd} 2>&-",
}


_PLAIN: dict[str, int] = {}


def _cases() -> list[object]:
    out = []
    for cname, (cmd, code) in COMMANDS.items():
        for rname, reader in READERS.items():
            if rname.startswith("stderr") and "json" in cname and "large" not in cname:
                continue
            out.append(pytest.param(cmd, reader, code, id=f"{cname}-{rname}"))
    return out


@pytest.mark.parametrize(("cmd", "reader", "code"), _cases())
def test_the_exit_code_is_the_verdict_whoever_reads(
    world: dict[str, object], cmd: str, reader: str, code: int
) -> None:
    line = f"{PY} -m rehydrate " + cmd.format(**world)
    if line not in _PLAIN:  # the verdict with a reader that reads everything, once
        _PLAIN[line] = _bash(world["repo"], line + " >/dev/null 2>&1").returncode  # type: ignore[arg-type]
    assert _PLAIN[line] == code, f"unpiped: exit {_PLAIN[line]}, expected {code}"
    proc = _bash(world["repo"], reader.format(cmd=line))  # type: ignore[arg-type]
    assert proc.returncode == code, (
        f"the verdict was lost: exit {proc.returncode}, expected {code}\n{proc.stderr[-2000:]}"
    )
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("reader", ["| head -1", "| head -c0", "| true"])
def test_log_into_a_closed_reader_stays_quiet_and_0(world: dict[str, object], reader: str) -> None:
    repo = world["repo"]
    git(repo, "checkout", "-q", "many")  # type: ignore[arg-type]
    try:
        proc = _bash(repo, f"{PY} -m rehydrate log {reader}")  # type: ignore[arg-type]
    finally:
        git(repo, "checkout", "-q", "main")  # type: ignore[arg-type]
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr == "", proc.stderr[-2000:]


@pytest.mark.parametrize("reader", ["| true", "| head -c0"])
def test_legit_passing_guard_into_a_closed_reader_is_0(
    world: dict[str, object], reader: str
) -> None:
    line = f"{PY} -m rehydrate guard --range {world['base']}..{world['big_base']} --json"
    proc = _bash(world["repo"], f"{line} {reader}")  # type: ignore[arg-type]
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize(
    ("cmd", "code", "said"),
    [
        pytest.param("guard --range {base}..{big_base} --json", 0, "output_lost", id="passing"),
        pytest.param("guard --range {base}..{small} --json", REFUSED, "output_lost", id="refused"),
        pytest.param("state", 2, "io_error", id="no-verdict-output-is-the-product"),
    ],
)
def test_a_full_stdout_keeps_the_verdict_and_says_the_output_was_lost(
    world: dict[str, object], cmd: str, code: int, said: str
) -> None:
    line = f"{PY} -m rehydrate " + cmd.format(**world)
    proc = _bash(world["repo"], f"{line} >/dev/full")  # type: ignore[arg-type]
    assert proc.returncode == code, proc.stderr[-2000:]
    assert said in proc.stderr and "Traceback" not in proc.stderr
