"""Every crash the fuzzers found, replayed: each file under ``regressions/<surface>/`` is
one input that once exited 70 (or might have). Adding a case is adding a file.

Surfaces: ``verify`` (a summary or bare manifest), ``config`` (``*.rehydrate.toml`` /
``*.pyproject.toml``), ``ledger-<kind>`` (a ledger file), ``hook-<event>`` (Claude Code
hook stdin), ``envelope`` (``check --envelope``). A sample also runs as a real process.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fuzzing import LEDGERS, REGRESSIONS, checked, make_repo, oracle

from conftest import run_subprocess

# Inputs that once hung or crashed and are now well-formed ledgers: read, exit 0, fast.
VALID_NOW = frozenset({"ledger-spec/heading-backtracking.md"})


def _cases() -> list[object]:
    out = []
    for path in sorted(REGRESSIONS.glob("*/*")):
        out.append(pytest.param(path, id=f"{path.parent.name}/{path.name}"))
    return out


def _place(repo: Path, case: Path) -> tuple[list[str], str | None, tuple[int, ...]]:
    """Put ``case`` where its surface reads it; return (args, stdin, allowed exit codes)."""
    surface = case.parent.name
    if surface == "verify":
        shutil.copyfile(case, repo / "summary.md")
        return ["verify", "summary.md", "--json"], None, (1,)
    if surface == "config":
        name = ".rehydrate.toml" if case.name.endswith(".rehydrate.toml") else "pyproject.toml"
        shutil.copyfile(case, repo / name)
        return ["state"], None, (2,)
    if surface.startswith("ledger-"):
        shutil.copyfile(case, repo / LEDGERS[surface.removeprefix("ledger-")])
        return ["state"], None, (2,)
    if surface.startswith("hook-"):
        return (
            ["hook", "claude", surface.removeprefix("hook-")],
            case.read_text(encoding="utf-8"),
            (0, 2),
        )
    if surface == "envelope":
        shutil.copyfile(case, repo / "envelope.json")
        return ["check", "--envelope", "envelope.json", "--json"], None, (2,)
    raise AssertionError(f"unknown regression surface {surface}")


@pytest.mark.parametrize("case", _cases())
def test_regression_is_an_error_not_a_crash(tmp_path: Path, case: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    args, stdin, allowed = _place(repo, case)
    if f"{case.parent.name}/{case.name}" in VALID_NOW:
        allowed = (0,)
    result = checked(repo, *args, input=stdin, allowed=allowed)
    if result.code == 2 and args[0] not in ("hook", "check"):
        shown = case.parent.name.removeprefix("ledger-")
        assert "rehydrate:" in result.err and (
            LEDGERS.get(shown, "") in result.err or ".toml" in result.err
        ), result.err


_SUBPROCESS_SAMPLE = [
    "verify/tag-bool-maybe.yaml",
    "config/tool-int.rehydrate.toml",
    "config/tool-string.pyproject.toml",
    "hook-pre-compact/nul-cwd.json",
    "ledger-failures/front-matter-control-char.md",
]


@pytest.mark.parametrize("key", _SUBPROCESS_SAMPLE)
def test_regression_sample_as_a_real_process(tmp_path: Path, key: str) -> None:
    repo = make_repo(tmp_path / "repo")
    args, stdin, allowed = _place(repo, REGRESSIONS / key)
    result = run_subprocess(repo, *args, input=stdin)
    assert result.code in allowed, (result.code, result.err)
    oracle(tuple(args), result)  # stdout too: a hook's internal error is in its JSON
