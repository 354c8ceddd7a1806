"""Claim latency and sync throughput against a real bare remote with the server hook.

Usage: python benchmarks/bench_claims.py [--writers 10] [--rounds 5] [--daemon]
Measures, against `python -c "import click"` in the same run:
  * one uncontended `rehydrate claim` (and `release`) over file:// (or git://, --daemon);
  * a race of WRITERS claims of one item: wall time until all have answered, and that
    exactly one won;
  * WRITERS clones that each record a failure and `rehydrate sync` at once: wall time
    until all pushed, pushes per second, and the attempts they needed.
Not a timed test: figures go to docs/parallel-agents.md.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _harness import GIT_ENV, IMPORT_CLICK, REHYDRATE

os.environ.update(GIT_ENV)


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def _timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writers", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--daemon", action="store_true", help="serve over git daemon")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rehydrate-bench-claims-"))
    home = tmp / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    os.environ["HOME"] = str(home)
    from coordkit import clone, seed, server

    bare = server(tmp)
    daemon = None
    url = f"file://{bare}"
    if args.daemon:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        daemon = subprocess.Popen(
            [
                "git",
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--enable=receive-pack",
                "--listen=127.0.0.1",
                f"--port={port}",
                f"--base-path={tmp}",
                str(tmp),
            ],
            stderr=subprocess.DEVNULL,
        )
        url = f"git://127.0.0.1:{port}/server.git"
        time.sleep(0.5)
    try:
        seed(tmp, bare, url)
        clones = [clone(url, tmp / f"c{n}", f"w{n}") for n in range(args.writers)]
        click = statistics.median(_timed(IMPORT_CLICK, tmp) for _ in range(args.rounds))
        claim, release = [], []
        for _ in range(args.rounds):
            claim.append(_timed([*REHYDRATE, "claim", "P1", "--as", "bench"], clones[0]))
            release.append(_timed([*REHYDRATE, "release", "P1", "--as", "bench"], clones[0]))
        race, winners = [], []
        for n in range(args.rounds):
            start = time.perf_counter()
            procs = [
                subprocess.Popen(
                    [*REHYDRATE, "claim", f"P{1 + n % 3}", "--as", f"r{k}"],
                    cwd=clones[k],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for k in range(args.writers)
            ]
            codes = [p.wait() for p in procs]
            race.append(time.perf_counter() - start)
            winners.append(codes.count(0))
            for k in range(args.writers):
                subprocess.run(
                    [*REHYDRATE, "release", f"P{1 + n % 3}", "--as", f"r{k}"],
                    cwd=clones[k],
                    capture_output=True,
                )
        for k, repo in enumerate(clones):
            subprocess.run(
                [
                    *REHYDRATE,
                    "fail",
                    "add",
                    "--tried",
                    f"`bench-{k}`",
                    "--failure",
                    "x",
                    "--workaround",
                    "y",
                    "--commit",
                ],
                cwd=repo,
                check=True,
                capture_output=True,
            )
        start = time.perf_counter()
        procs = [
            subprocess.Popen(
                [*REHYDRATE, "sync", "--json"],
                cwd=repo,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            for repo in clones
        ]
        import json

        outs = [json.loads(p.communicate()[0]) for p in procs]
        wall = time.perf_counter() - start
        rows = _git(bare, "show", "main:docs/Failed_Attempts.md").count("`bench-")
        print(f"python -c 'import click': {click * 1000:.0f} ms")
        print(
            f"claim (uncontended, {'git daemon' if daemon else 'file://'}): "
            f"{statistics.median(claim) * 1000:.0f} ms = {statistics.median(claim) / click:.1f}x"
        )
        print(
            f"release: {statistics.median(release) * 1000:.0f} ms = "
            f"{statistics.median(release) / click:.1f}x"
        )
        print(
            f"race of {args.writers} claims: median {statistics.median(race):.2f} s until all "
            f"answered; winners per round {winners}"
        )
        print(
            f"{args.writers} concurrent syncs: {wall:.1f} s, "
            f"{args.writers / wall:.2f} pushes/s, attempts {sorted(o['attempts'] for o in outs)}, "
            f"outcomes {sorted({o['outcome'] for o in outs})}, rows on the remote {rows}"
        )
    finally:
        if daemon is not None:
            daemon.terminate()
            daemon.wait()


if __name__ == "__main__":
    main()
