"""Benchmark ``rehydrate prompt`` on a large repository against same-run baselines.

Builds a scratch repository with a 10,000-row failure ledger and a last commit of
5,000 changed lines, then times interleaved runs of:

- ``python -c "import click"`` (the baseline: the cost of starting a click CLI),
- ``git show HEAD`` (the floor: one git process reading the commit),
- ``rehydrate prompt`` (a real ``python -m rehydrate`` process),
- ``load_state`` alone (imports + the shared ledger parser), to show its share,

and prints the medians and the ratios. Target: prompt <= 3x the baseline.

Usage: python benchmarks/bench_prompt.py [--runs N] [--rows N] [--diff-lines N] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import REHYDRATE  # noqa: E402

# Bytecode caching as on a user's machine (this sandbox sets PYTHONDONTWRITEBYTECODE,
# which would charge every run for compiling every module); pycs go to a scratch prefix.
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
}


LOAD_STATE = (
    "from rehydrate.config import load_config; from rehydrate.git import find_repo; "
    "from rehydrate.state import Source, load_state; r = find_repo(); "
    "load_state(r, load_config(r.root), Source('rev', 'HEAD'))"
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=ENV)


def build_repo(root: Path, rows: int, diff_lines: int) -> Path:
    """A repository whose ledgers and last commit are as large as the issue asks."""
    repo = root / "bench-repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    subprocess.run(
        [sys.executable, "-m", "rehydrate", "init"],
        cwd=repo,
        check=True,
        capture_output=True,
        env=ENV,
    )
    lines = [
        "---",
        "ledger: failures",
        "---",
        "# Failed attempts",
        "",
        "| ID | Tried | Failure | Workaround |",
        "|---|---|---|---|",
    ]
    for i in range(1, rows + 1):
        lines.append(
            f"| F-{i:05d} | `make build FLAG_{i}=on` with cache dir /tmp/c{i} | "
            f"linker error {i % 97}: undefined symbol sym_{i} in libfoo.a | "
            f"use FLAG_{i}=off and rebuild the cache |"
        )
    (repo / "docs" / "Failed_Attempts.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "ledgers")
    source = "\n".join(
        f"def function_{i}(value):\n    return value * {i}  # line {i}"
        for i in range(diff_lines // 2)
    )
    (repo / "src").mkdir()
    (repo / "src" / "big.py").write_text(source + "\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a 5,000-line change")
    return repo


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--diff-lines", type=int, default=5_000)
    parser.add_argument("--keep", action="store_true", help="keep the scratch repository")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-prompt-"))
    ENV["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    try:
        repo = build_repo(root, args.rows, args.diff_lines)
        commands = {
            "import click": [sys.executable, "-c", "import click"],
            "git show HEAD": ["git", "show", "HEAD"],
            "rehydrate prompt": [*REHYDRATE, "prompt"],
            # what the shared parser costs alone (imports + load_state), for the report
            "load_state only": [sys.executable, "-c", LOAD_STATE],
        }
        for cmd in commands.values():  # warm the page cache and the bytecode cache
            timed(cmd, repo)
            timed(cmd, repo)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):  # interleaved, so drift hits every command alike
            for name, cmd in commands.items():
                times[name].append(timed(cmd, repo))
        medians = {name: statistics.median(values) for name, values in times.items()}
        size = len(
            subprocess.run(
                commands["rehydrate prompt"], cwd=repo, capture_output=True, env=ENV
            ).stdout
        )
        print(
            f"repo: {args.rows} failure rows, last commit {args.diff_lines} lines; "
            f"prompt {size} bytes; {args.runs} interleaved runs"
        )
        for name, value in medians.items():
            print(f"  {name:<18} median {value * 1000:8.1f} ms")
        base = medians["import click"]
        ratio = medians["rehydrate prompt"] / base
        print(f"  prompt / import click  = {ratio:.2f}x (target <= 3x)")
        floor = medians["rehydrate prompt"] / medians["git show HEAD"]
        print(f"  prompt / git show HEAD = {floor:.2f}x (floor)")
        print(
            f"  load_state only / import click = {medians['load_state only'] / base:.2f}x "
            "(the shared parser's share)"
        )
        if args.keep:
            print(f"  kept: {repo}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
