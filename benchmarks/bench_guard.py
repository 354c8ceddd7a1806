"""`rehydrate guard --staged` (the pre-commit hook) as ratios against `import click`.

Usage: python benchmarks/bench_guard.py [--rows 10000] [--constraints 1000]
                                        [--big 100000] [--rounds 11]
Targets (issue 3), on a repository with a 10,000-row failure ledger and 1,000
constraints: no ledger staged <= 1.5x; rows appended <= 2.5x; another edit (one
constraint strengthened) <= 5x; rows appended at 100,000 rows <= 30x. Also shown,
without a target: an edit inside the 10,000-row failure table (a refusal: both
versions are parsed in full) and the same append into a table followed by `## Retired`.
Each repository gets one warm-up run first: the guard remembers which failure-ledger
blobs it parsed (.git/rehydrate/guard-parsed), which is what lets the append fast path
skip parsing the committed version.
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
from _harness import (
    IMPORT_CLICK,
    REHYDRATE,
    failure_rows,
    git,
    interleaved,
    make_repo,
    proc,
    report,
)

FAILURES = "docs/Failed_Attempts.md"
SPEC = "docs/Spec.md"


def _clone(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, symlinks=True)
    return target


def _stage(repo: Path, path: str, text: str) -> None:
    (repo / path).write_text(text, encoding="utf-8")
    git(repo, "add", path)


def scenarios(root: Path, rows: int, constraints: int, big: int) -> dict[str, Path]:
    """One repository per staged situation (all copies of one generated repository)."""
    base = make_repo(root / "base", rows, constraints)
    out: dict[str, Path] = {}
    none = out["no ledger staged"] = _clone(base, root / "none")
    _stage(none, "README.md", "hello\n")
    append = out[f"10 rows appended ({rows} rows)"] = _clone(base, root / "append")
    _stage(append, FAILURES, (append / FAILURES).read_text() + failure_rows(rows, 10))
    edit = out[f"1 constraint strengthened ({constraints})"] = _clone(base, root / "edit")
    text = (edit / SPEC).read_text()
    _stage(edit, SPEC, text.replace("| SHOULD | spec |", "| MUST | spec |", 1))
    retired = _clone(base, root / "retired")
    table = (retired / FAILURES).read_text()
    tail = "\n## Retired\n\n| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
    (retired / FAILURES).write_text(table + tail)
    git(retired, "commit", "-q", "-a", "--no-verify", "-m", "retired section")
    _stage(retired, FAILURES, table + failure_rows(rows, 10) + tail)
    out["10 rows appended, ## Retired below"] = retired
    cell = out[f"1 failure cell edited ({rows} rows)"] = _clone(base, root / "cell")
    _stage(
        cell,
        FAILURES,
        (cell / FAILURES).read_text().replace("linker error 5 ", "linker error five ", 1),
    )
    if big:
        huge = make_repo(root / "big", big, constraints)
        _stage(huge, FAILURES, (huge / FAILURES).read_text() + failure_rows(big, 10))
        out[f"10 rows appended ({big} rows)"] = huge
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--constraints", type=int, default=1000)
    parser.add_argument("--big", type=int, default=100000, help="0 to skip")
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # Measure installed behaviour: bytecode cached (kept outside the source tree).
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        repos = scenarios(Path(tmp), args.rows, args.constraints, args.big)
        commands = {'python -c "import click"': proc(IMPORT_CLICK, Path(tmp))}
        for name, repo in repos.items():
            refused = "edited" in name
            argv = [*REHYDRATE, "guard", "--staged"]
            subprocess.run(argv, cwd=repo, capture_output=True)  # warm-up (see docstring)
            commands[f"guard: {name}"] = proc(argv, repo, ok=(1,) if refused else (0,))
            if name == "no ledger staged" or name.startswith("10 rows appended ("):
                # what the hooks run: the old line (python -m) and the isolated one (-I)
                for label, flags in ((" [python -m]", []), (" [python -I -m, the hook]", ["-I"])):
                    line = [sys.executable, *flags, "-m", "rehydrate", "guard", "--staged"]
                    commands[f"guard: {name}{label}"] = proc(line, repo)
        medians = interleaved(commands, rounds=args.rounds)
        targets = {
            "guard: no ledger staged": 1.5,
            f"guard: 10 rows appended ({args.rows} rows)": 2.5,
            f"guard: 1 constraint strengthened ({args.constraints})": 5.0,
        }
        if args.big:
            targets[f"guard: 10 rows appended ({args.big} rows)"] = 30.0
        ok = report("rehydrate guard --staged", medians, 'python -c "import click"', targets)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
