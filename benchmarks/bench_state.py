"""`rehydrate state` on big ledgers, as ratios against `import click` and `git cat-file`.

Usage: python benchmarks/bench_state.py [--rows 10000] [--big 100000] [--rounds 11]
Targets (issue 2): whole command <= 4x `python -c "import click"`; per-row parse cost at
the big size within 1.5x of that at the normal size.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import IMPORT_CLICK, REHYDRATE, failure_rows, interleaved, make_repo, proc, report


def parse_seconds(rows: int, rounds: int) -> float:
    """Median in-process parse time of a failure ledger with ``rows`` rows.

    Garbage collection is tuned as in the CLI process (``rehydrate.cli.entry``).
    """
    import gc

    from rehydrate.ledgers import parse_ledger

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)

    data = (
        "# Failed attempts\n\n| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n"
        + failure_rows(0, rows)
    ).encode()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        parse_ledger("failures", "f.md", data)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--big", type=int, default=100000)
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo", args.rows)
        blob = proc(["git", "cat-file", "-p", "HEAD:docs/Failed_Attempts.md"], repo)
        medians = interleaved(
            {
                'python -c "import click"': proc(IMPORT_CLICK, repo),
                "git cat-file (same blob)": blob,
                f"rehydrate state ({args.rows} rows)": proc([*REHYDRATE, "state"], repo),
                f"rehydrate state --rev HEAD ({args.rows} rows)": proc(
                    [*REHYDRATE, "state", "--rev", "HEAD"], repo
                ),
                'python -c "import rehydrate.cli"': proc(
                    [sys.executable, "-c", "import rehydrate.cli"], repo
                ),
            },
            rounds=args.rounds,
        )
        ok = report(
            "rehydrate state",
            medians,
            'python -c "import click"',
            {
                f"rehydrate state ({args.rows} rows)": 4.0,
                f"rehydrate state --rev HEAD ({args.rows} rows)": 4.0,
                'python -c "import rehydrate.cli"': 1.5,
            },
        )
    small = parse_seconds(args.rows, max(3, args.rounds // 2)) / args.rows
    big = parse_seconds(args.big, 3) / args.big
    ratio = big / small
    print(
        f"\nparse cost per row: {small * 1e6:.2f} us at {args.rows}, {big * 1e6:.2f} us at "
        f"{args.big}: {ratio:.2f}x  target <= 1.5x  {'ok' if ratio <= 1.5 else 'MISSED'}"
    )
    return 0 if ok and ratio <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
