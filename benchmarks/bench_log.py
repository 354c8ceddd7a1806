"""Benchmark ``rehydrate log`` on 1,000 ledger-touching commits against same-run baselines.

Builds (with one ``git fast-import``) a history of 1,000 commits, each appending a
failed attempt and moving Task forward every tenth commit, then times interleaved runs
of ``python -c "import click"`` (the baseline), ``git log --raw`` over the ledgers (the
floor: the one git walk log needs) and ``rehydrate log --json``, and prints medians and
ratios. It also counts the git processes ``log`` starts (bounded: it must not grow with
the number of commits).

Usage: python benchmarks/bench_log.py [--commits N] [--rounds N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import IMPORT_CLICK, REHYDRATE, git, interleaved, proc, report  # noqa: E402

FAILURES_HEAD = (
    "---\nledger: failures\n---\n# Failed attempts\n\n"
    "| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n"
)


def task(revision: int, done: int) -> str:
    rows = "".join(
        f"| P{i} | phase {i} | {'done' if i <= done else 'todo'} |\n" for i in range(1, 101)
    )
    return (
        f"---\nledger: task\ntask: T-1\nrevision: {revision}\nobjective: bench\n---\n"
        f"# Task\n\n## Phases\n\n| ID | Phase | Status |\n|---|---|---|\n{rows}\n"
        f"## Next action\n\nFinish phase {done + 1}\n"
    )


def build(repo: Path, commits: int) -> None:
    git(repo, "init", "-q")
    stream: list[bytes] = []

    def blob(path: str, text: str) -> None:
        data = text.encode()
        stream.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    rows = ""
    for i in range(1, commits + 1):
        message = f"attempt {i}".encode()
        stream.append(
            f"commit refs/heads/main\ncommitter B <b@example.com> "
            f"{1767225600 + 60 * i} +0000\ndata {len(message)}\n".encode()
            + message
            + b"\n"
        )
        if i == 1:
            blob("docs/Spec.md", "---\nledger: spec\n---\n# Spec\n")
        rows += f"| F-{i:05d} | `make try-{i}` | failed {i} | do {i} |\n"
        blob("docs/Failed_Attempts.md", FAILURES_HEAD + rows)
        if i % 10 == 1:
            blob("docs/Task.md", task(i, i // 10))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    git(repo, "checkout", "-q", "main")


def count_git_processes(repo: Path) -> int:
    code = (
        "import subprocess, os, sys; n = [0]; P = subprocess.Popen\n"
        "class C(P):\n    def __init__(s, a, *k, **w): n[0] += 1; P.__init__(s, a, *k, **w)\n"
        "subprocess.Popen = C\nfrom rehydrate.cli import main\n"
        "import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['log', '--json'])\nprint(n[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        build(repo, args.commits)
        paths = ["docs/Spec.md", "docs/Task.md", "docs/Failed_Attempts.md"]
        medians = interleaved(
            {
                'python -c "import click"': proc(IMPORT_CLICK, repo),
                "git log --raw (ledgers)": proc(
                    ["git", "log", "--raw", "--no-abbrev", "--", *paths], repo
                ),
                f"rehydrate log --json ({args.commits} commits)": proc(
                    [*REHYDRATE, "log", "--json"], repo
                ),
            },
            rounds=args.rounds,
        )
        report(
            f"rehydrate log on {args.commits} ledger-touching commits",
            medians,
            'python -c "import click"',
        )
        print(f"  git processes started by `rehydrate log`: {count_git_processes(repo)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
