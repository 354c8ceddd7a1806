"""``rehydrate demo`` and the worked example it builds (real processes, real commits, real hook)."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git, run, run_subprocess

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("today", ["2026-12-02", "2031-02-28", "2028-03-01"])
def test_the_demo_is_dated_relative_to_today(tmp_path: Path, today: str) -> None:
    """A first run says a decision is one day overdue, not months: the sessions end yesterday."""
    target = tmp_path / "invoices"
    result = run_subprocess(tmp_path, "demo", str(target), env={"REHYDRATE_TODAY": today})
    assert result.code == 0, result.err
    assert "OVERDUE by 1 day" in result.out
    dates = git(target, "log", "--format=%ad", "--date=short").stdout.split()
    last = datetime.date.fromisoformat(today) - datetime.timedelta(days=1)
    assert dates[0] == last.isoformat()
    assert "2026-03-0" not in (target / "docs/Spec.md").read_text()  # every session day moved
    assert "2026-01" in (target / "docs/Task.md").read_text()  # the invoice month is data


def test_demo_builds_the_example_and_shows_status_and_the_prompt(tmp_path: Path) -> None:
    target = tmp_path / "invoices"
    result = run_subprocess(tmp_path, "demo", str(target), env={"REHYDRATE_TODAY": "2026-03-05"})
    assert result.code == 0, result.err
    out = result.out
    assert out.startswith(f"Built {target}\n")
    assert "$ rehydrate status\nTask T-7 (revision 18): Export each month's invoices" in out
    assert "OVERDUE by 1 day" in out
    assert "$ rehydrate prompt | head -40\n# Rehydration prompt\n" in out
    assert "more lines: run `rehydrate prompt`]" in out
    assert f"Try next:\n  cd {target}\n" in out
    assert "\x1b[" not in out  # piped: plain
    log = git(target, "log", "--format=%an %ad %s", "--date=iso-strict").stdout.splitlines()
    assert len(log) == 7
    assert log[-1] == (
        "Coding Agent 2026-03-02T09:00:00+00:00 "
        "Start T-7: export invoices to the archive exactly once"
    )
    assert git(target, "status", "--porcelain").stdout == ""
    hook = (target / ".git/hooks/pre-commit").read_text()
    assert hook.count("guard --staged") == 1 and " -I -m rehydrate guard --staged" in hook
    root = git(target, "rev-list", "--max-parents=0", "HEAD").stdout.strip()
    checked = run(target, "guard", "--range", f"{root}..HEAD")
    assert checked.code == 0, checked.out + checked.err


def test_the_example_is_byte_for_byte_reproducible(tmp_path: Path) -> None:
    from rehydrate.cli.example import build_example

    first = build_example(tmp_path / "a" / "invoices")
    second = build_example(tmp_path / "b" / "invoices")
    assert first.commits == second.commits


def test_the_example_passes_through_every_stage_the_docs_describe(tmp_path: Path) -> None:
    from rehydrate.cli.example import build_example

    example = build_example(tmp_path / "invoices")
    blocked = run(example.root, "check", "--rev", "HEAD~1")
    assert blocked.code == 3  # the unknown upload
    assert run(example.root, "check").code == 0  # reconciled
    refused = run(example.root, "check-command", "--", "pytest", "-k", "duplicate")
    assert refused.code == 1 and "F-001" in refused.out + refused.err


def test_demo_defaults_to_a_new_temporary_directory(tmp_path: Path) -> None:
    result = run_subprocess(tmp_path, "demo", "--prompt-lines", "5", env={"TMPDIR": str(tmp_path)})
    assert result.code == 0, result.err
    built = Path(result.out.splitlines()[0].removeprefix("Built "))
    assert built.parent.parent == tmp_path and built.name == "invoices"
    assert built.parent.name.startswith("rehydrate-demo-")
    assert "$ rehydrate prompt | head -5\n" in result.out


@pytest.mark.parametrize(
    "setup, message",
    [
        pytest.param(
            lambda p: (p.mkdir(), (p / "keep.txt").write_text("x")),
            "exists and is not an empty directory",
            id="non-empty-dir",
        ),
        pytest.param(lambda p: p.write_text("x"), "is a file", id="a-file"),
    ],
)
def test_demo_refuses_a_directory_it_would_clobber(
    tmp_path: Path, setup: object, message: str
) -> None:
    target = tmp_path / "target"
    setup(target)  # type: ignore[operator]
    result = run_subprocess(tmp_path, "demo", str(target))
    assert result.code == 2
    assert message in result.err
    assert "Building" not in result.err
    assert result.out == ""


def test_examples_script_builds_the_same_repository(tmp_path: Path) -> None:
    from rehydrate.cli.example import build_example

    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples/build_example.py"), str(tmp_path / "x")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == str(tmp_path / "x")
    assert tuple(lines[1:]) == build_example(tmp_path / "y").commits


def test_demo_runs_from_an_installed_wheel(tmp_path: Path) -> None:
    """The wheel alone (no source tree) carries everything the demo needs."""
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {built.stderr.strip()[-200:]}")
    [wheel] = wheels.glob("rehydrate-*.whl")
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    where = subprocess.run(
        [sys.executable, "-c", "import rehydrate; print(rehydrate.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(site))  # the wheel, not the source tree
    demo = subprocess.run(
        [sys.executable, "-m", "rehydrate", "demo", str(tmp_path / "d")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert demo.returncode == 0, demo.stderr
    assert "Task T-7" in demo.stdout and "# Rehydration prompt" in demo.stdout
