"""`rehydrate check` / `verify` / `manifest` as ratios against `import click` (same run).

Usage: python benchmarks/bench_check.py [--rows 1000] [--rounds 11]
Target (issue 4 item 5 / issue 5): `check` cheap enough for a hook before every session —
<= 3x `python -c "import click"` on a repository with --rows failure rows.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import IMPORT_CLICK, REHYDRATE, interleaved, make_repo, proc, report


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo", args.rows)
        manifest = subprocess.run(
            [*REHYDRATE, "manifest", "--fenced"], cwd=repo, check=True, capture_output=True
        ).stdout
        (repo / "summary.md").write_bytes(b"# Summary\n\n" + manifest)
        medians = interleaved(
            {
                'python -c "import click"': proc(IMPORT_CLICK, repo),
                f"rehydrate check ({args.rows} rows)": proc([*REHYDRATE, "check"], repo, ok=(0, 3)),
                f"rehydrate check --json ({args.rows} rows)": proc(
                    [*REHYDRATE, "check", "--json"], repo, ok=(0, 3)
                ),
                f"rehydrate verify summary.md ({args.rows} rows)": proc(
                    [*REHYDRATE, "verify", "summary.md"], repo
                ),
                f"rehydrate manifest ({args.rows} rows)": proc([*REHYDRATE, "manifest"], repo),
            },
            rounds=args.rounds,
        )
        ok = report(
            "rehydrate check / verify / manifest",
            medians,
            'python -c "import click"',
            {f"rehydrate check ({args.rows} rows)": 3.0},
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
