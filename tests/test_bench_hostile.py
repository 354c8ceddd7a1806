"""benchmarks/bench_hostile.py at a small size, so CI runs it (the 2 s bar on 1 MB lines
is the benchmark's; here: every placement and command, no crash, no hang)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
import bench_hostile  # noqa: E402

from rehydrate.prompt.fences import fence  # noqa: E402
from rehydrate.redact import redact  # noqa: E402


def test_the_hostile_benchmark_runs_every_placement_and_command() -> None:
    lines: list[str] = []
    misses = bench_hostile.run(
        20_000,
        20.0,
        ["pwd", "backtick"],
        list(bench_hostile.PLACEMENTS),
        list(bench_hostile.COMMANDS),
        echo=lines.append,
    )
    assert misses == []
    assert lines[-1].startswith("slowest:")


@pytest.mark.parametrize("name", list(bench_hostile.TOKENS))
def test_every_hostile_token_is_redacted_and_fenced(name: str) -> None:
    """Every token of the benchmark, 100 KB of it, through the redactor and the fence
    (in-process: a super-linear scan would make this test take minutes, not ms)."""
    line = bench_hostile._line(bench_hostile.TOKENS[name], 100_000)
    assert fence(line).count("\n~~~~") >= 1
    assert len(redact(line)) > 0
