"""Merge-driver speed: two 10,000-row failure ledgers through `rehydrate merge-driver`.

Usage: python benchmarks/bench_merge.py [--rows 10000] [--added 1000] [--rounds 9]
Base holds rows - added rows; ours and theirs each append ``added`` rows, so both
sides are ``rows`` long. Shapes: branch-safe IDs (no collision: the common case
once ``id_scheme = "branch-safe"``) and sequential IDs (every appended ID
collides, so every one of theirs is renumbered), both with ours committed
through the pre-commit guard first, as in a real merge (the guard remembers
the ledger blobs it parsed, so the driver does not parse HEAD's ledger again);
and, for information, ours unknown to the guard (parsed in full). Target: <= 3x
`python -c "import click"` (medians of interleaved runs, same process; both with
a bytecode cache, as an installed package has one).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import IMPORT_CLICK, REHYDRATE, git, interleaved, proc, report

HEAD = (
    "---\nledger: failures\n---\n# Failed attempts\n\n"
    "| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n"
)
TAIL = "\n## Retired\n\n| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"


def rows(ids: list[str], side: str) -> str:
    return "".join(
        f"| {i} | `make build FLAGS=-O{n % 4}` {side} attempt {n} | linker error "
        f"{n} in step {n % 17} | use the default flags (run {n}) |\n"
        for n, i in enumerate(ids)
    )


def files(folder: Path, total: int, added: int, tagged: bool) -> tuple[Path, Path, Path]:
    common = [f"F-{n:05d}" for n in range(1, total - added + 1)]
    new = list(range(total - added + 1, total + 1))
    ours = [f"F-{n:05d}" + ("-aaaaa" if tagged else "") for n in new]
    theirs = [f"F-{n:05d}" + ("-bbbbb" if tagged else "") for n in new]
    base = HEAD + rows(common, "base")
    paths = []
    for name, body in (
        ("O", base),
        ("A", base + rows(ours, "ours")),
        ("B", base + rows(theirs, "theirs")),
    ):
        path = folder / name
        path.write_text(body + TAIL, encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1], paths[2]


def driver(repo: Path, base: Path, ours: Path, theirs: Path) -> object:
    """One driver run on a fresh copy of %A (the driver writes its result into it)."""
    work = ours.with_name("A.work")
    run = proc(
        [*REHYDRATE, "merge-driver", str(base), str(work), str(theirs), "docs/Failed_Attempts.md"],
        repo,
    )

    def call() -> None:
        shutil.copyfile(ours, work)
        run()

    return call


def commit_through_guard(repo: Path, base: Path, ours: Path) -> None:
    """What happened before the merge: base committed, then ours committed with the
    pre-commit hook (``guard --staged``), which remembers the ledger blobs it parsed."""
    ledger = repo / "docs/Failed_Attempts.md"
    shutil.copyfile(base, ledger)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "base")
    shutil.copyfile(ours, ledger)
    git(repo, "add", "-A")
    subprocess.run([*REHYDRATE, "guard", "--staged"], cwd=repo, check=True, capture_output=True)
    git(repo, "commit", "-q", "--no-verify", "-m", "ours")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--added", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rehydrate-bench-merge-") as tmp:
        # As installed packages run: with a bytecode cache (kept out of the source tree).
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        repo = Path(tmp) / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        subprocess.run([*REHYDRATE, "init", "--no-hook"], cwd=repo, check=True, capture_output=True)
        shapes = {}
        for shape in ("tagged", "sequential", "cold"):
            folder = Path(tmp) / shape
            folder.mkdir()
            shapes[shape] = files(folder, args.rows, args.added, shape != "sequential")
            if shape == "cold":  # ours never went through this repository's guard
                path = shapes[shape][1]
                path.write_text(path.read_text().replace("ours attempt", "ours' attempt"))
            else:
                commit_through_guard(repo, *shapes[shape][:2])
        commands = {
            "python -c 'import click'": proc(IMPORT_CLICK, repo),
            f"driver, branch-safe IDs, {args.rows} rows each": driver(repo, *shapes["tagged"]),
            f"driver, sequential IDs, {args.added} renumbered": driver(repo, *shapes["sequential"]),
            "driver, ours not seen by the guard (parsed)": driver(repo, *shapes["cold"]),
        }
        medians = interleaved(commands, rounds=args.rounds)
        ok = report(
            "merge-driver on two 10,000-row ledgers",
            medians,
            "python -c 'import click'",
            {name: 3.0 for name in list(commands)[1:3]},
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
