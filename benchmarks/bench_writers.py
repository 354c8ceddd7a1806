"""Agent-path latency (PreToolUse hook, check-command, fail add) and lost updates.

Usage: python benchmarks/bench_writers.py [--rows 1000] [--rounds 11] [--writers 4]
Targets: the PreToolUse hook and check-command (run before every Bash call) <= 4x
`python -c "import click"`; `fail add` <= 5x. Lost updates: N processes appending 10
rows each by plain read-modify-write + os.replace, against `rehydrate fail add`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import IMPORT_CLICK, REHYDRATE, interleaved, make_repo, proc, report

NAIVE = textwrap.dedent("""
    import os, sys
    path, tag = sys.argv[1], sys.argv[2]
    for n in range(10):
        data = open(path, encoding="utf-8").read()
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(data + f"| N-{tag}-{n} | naive {tag} {n} | x | y |\\n")
        os.replace(tmp, path)
""")


def lost_updates(repo: Path, writers: int) -> tuple[int, int]:
    """(rows lost by naive writers, rows lost by rehydrate fail add), 10 rows per writer."""
    path = repo / "docs/Failed_Attempts.md"
    before = path.read_text().count("\n| ")
    naive = [
        subprocess.Popen([sys.executable, "-c", NAIVE, str(path), str(i)]) for i in range(writers)
    ]
    for child in naive:
        child.wait()
    naive_lost = writers * 10 - (path.read_text().count("\n| ") - before)
    before = path.read_text().count("\n| ")
    script = (
        "import subprocess, sys\nfor n in range(10):\n    subprocess.run([sys.executable, "
        "'-m', 'rehydrate', 'fail', 'add', '--tried', f'w{n}', '--failure', 'x', "
        "'--workaround', 'y'], capture_output=True)\n"
    )
    locked = [subprocess.Popen([sys.executable, "-c", script], cwd=repo) for _ in range(writers)]
    for child in locked:
        child.wait()
    locked_lost = writers * 10 - (path.read_text().count("\n| ") - before)
    return naive_lost, locked_lost


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--writers", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo", args.rows)
        event = json.dumps(
            {
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "go test -tags=musl ./..."},
            }
        ).encode()
        medians = interleaved(
            {
                'python -c "import click"': proc(IMPORT_CLICK, repo),
                f"hook claude pre-tool-use ({args.rows} rows)": proc(
                    [*REHYDRATE, "hook", "claude", "pre-tool-use"], repo, stdin=event
                ),
                f"check-command ({args.rows} rows)": proc(
                    [*REHYDRATE, "check-command", "--", "go", "test", "./..."], repo
                ),
                f"fail add ({args.rows} rows)": proc(
                    [
                        *REHYDRATE,
                        "fail",
                        "add",
                        "--tried",
                        "`x`",
                        "--failure",
                        "y",
                        "--workaround",
                        "z",
                    ],
                    repo,
                ),
            },
            rounds=args.rounds,
        )
        ok = report(
            "agent path",
            medians,
            'python -c "import click"',
            {
                f"hook claude pre-tool-use ({args.rows} rows)": 4.0,
                f"check-command ({args.rows} rows)": 4.0,
                f"fail add ({args.rows} rows)": 5.0,
            },
        )
        naive, locked = lost_updates(repo, args.writers)
        print(
            f"\nlost updates, {args.writers} writers x 10 appends: plain read-modify-write + "
            f"os.replace lost {naive}; rehydrate fail add lost {locked}"
        )
        ok = ok and locked == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
