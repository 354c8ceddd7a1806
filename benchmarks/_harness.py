"""Shared benchmark helpers: generated ledgers, interleaved timing, ratios.

Speed goals are ratios against a baseline measured in the same run (never
absolute times, never in the test suite).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
}


def _entry_point() -> list[str]:
    """The installed ``rehydrate`` script beside this interpreter (what users run); else -m."""
    script = Path(sys.executable).with_name("rehydrate")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "rehydrate"]


REHYDRATE = _entry_point()

# Cache bytecode as on a user's machine: some sandboxes set PYTHONDONTWRITEBYTECODE, which
# would make every timed run recompile rehydrate's modules. Child processes inherit this.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ.setdefault("PYTHONPYCACHEPREFIX", tempfile.mkdtemp(prefix="rehydrate-bench-pyc-"))
IMPORT_CLICK = [sys.executable, "-c", "import click"]
BARE = [sys.executable, "-c", "pass"]  # the interpreter's own start-up


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
    ).stdout


def failure_rows(start: int, count: int) -> str:
    return "".join(
        f"| F-{i:06d} | `make build FLAGS=-O{i % 4}` attempt {i} | linker error {i} in step "
        f"{i % 17} | use the default flags (see run {i}) |\n"
        for i in range(start, start + count)
    )


def constraint_rows(count: int) -> str:
    levels = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
    return "".join(
        f"| C-{i:05d} | rule number {i} about module {i % 37} | {levels[i % 5]} | spec |\n"
        for i in range(count)
    )


def make_repo(path: Path, failures: int, constraints: int = 10) -> Path:
    """A committed repository with big ledgers (made by `rehydrate init`, then filled)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    subprocess.run([*REHYDRATE, "init", "--no-hook"], cwd=path, check=False, capture_output=True)
    if not (path / "docs/Spec.md").exists():
        subprocess.run([*REHYDRATE, "init"], cwd=path, check=True, capture_output=True)
    (path / "docs/Failed_Attempts.md").write_text(
        "# Failed attempts\n\n| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n"
        + failure_rows(0, failures),
        encoding="utf-8",
    )
    (path / "docs/Spec.md").write_text(
        "# Spec\n\n## Constraints\n\n| ID | Rule | Level | Source |\n|---|---|---|---|\n"
        + constraint_rows(constraints),
        encoding="utf-8",
    )
    git(path, "add", "-A")
    git(path, "commit", "-q", "--no-verify", "-m", "big ledgers")
    return path


def interleaved(commands: dict[str, Callable[[], object]], rounds: int = 11) -> dict[str, float]:
    """Median seconds per command, running the commands in turn each round."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for func in commands.values():  # warm-up: caches, bytecode
        func()
    for _ in range(rounds):
        for name, func in commands.items():
            start = time.perf_counter()
            func()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def proc(
    argv: Sequence[str], cwd: Path, stdin: bytes | None = None, ok: Sequence[int] = (0,)
) -> Callable[[], None]:
    def run() -> None:
        result = subprocess.run(list(argv), cwd=cwd, input=stdin, capture_output=True)
        if result.returncode not in ok:
            raise SystemExit(
                f"{' '.join(argv)} exited {result.returncode}: {result.stderr.decode()[-500:]}"
            )

    return run


def report(
    title: str, medians: dict[str, float], baseline: str, targets: dict[str, float] | None = None
) -> bool:
    """Print medians and ratios; return False when a target ratio is missed."""
    base = medians[baseline]
    ok = True
    print(f"\n{title}")
    for name, value in medians.items():
        ratio = value / base
        target = (targets or {}).get(name)
        verdict = ""
        if target is not None:
            verdict = f"  target <= {target:g}x  {'ok' if ratio <= target else 'MISSED'}"
            ok = ok and ratio <= target
        print(f"  {name:<48} {value * 1000:8.1f} ms  {ratio:6.2f}x{verdict}")
    return ok
