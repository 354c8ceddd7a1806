"""Invariant 8, the bound: ``revision`` is a plain bounded decimal integer. A 5,000-digit
one (past Python's int/str conversion limit) is bad input for the commands that read
the ledger (exit 2) and a refusal for the guard (exit 1) — never an internal error (70).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial.helpers import (
    BAD_INPUT,
    BASE,
    PATHS,
    REFUSED,
    commit_tree,
    git,
    make_base_repo,
    rev,
    run,
    write_bytes,
)

HUGE = (
    BASE["task"]
    .replace("revision: 3", "revision: " + "9" * 5000)
    .replace("Some prose about the task.", "Other prose about the task.")
)
LARGE = BASE["task"].replace("revision: 3", "revision: " + "9" * 400)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = make_base_repo(tmp_path_factory.mktemp("revision") / "base")
    write_bytes(path, PATHS["task"], HUGE)
    return path


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("state",), id="state"),
        pytest.param(("state", "--json"), id="state-json"),
        pytest.param(("state", "--worktree"), id="state-worktree"),
        pytest.param(("prompt", "--worktree"), id="prompt-worktree"),
        pytest.param(("manifest", "--worktree"), id="manifest-worktree"),
        pytest.param(("status",), id="status"),
    ],
)
def test_a_5000_digit_revision_is_bad_input(repo: Path, args: tuple[str, ...]) -> None:
    result = run(repo, *args)
    assert result.code == BAD_INPUT, f"exit {result.code}:\n{result.err}"
    assert PATHS["task"] in result.err


def test_a_5000_digit_revision_is_refused_by_the_hook_mode(repo: Path) -> None:
    git(repo, "add", PATHS["task"])
    try:
        result = run(repo, "guard", "--staged")
    finally:
        git(repo, "reset", "-q", "--", PATHS["task"])
    assert result.code == REFUSED, f"exit {result.code}:\n{result.err}"
    assert PATHS["task"] in result.err


def test_a_5000_digit_revision_is_refused_by_the_range(repo: Path) -> None:
    head = rev(repo)
    sha = commit_tree(repo, {PATHS["task"]: HUGE}, [head], "huge revision")
    result = run(repo, "guard", "--range", f"{head}..{sha}")
    assert result.code == REFUSED, f"exit {result.code}:\n{result.err}"
    assert PATHS["task"] in result.err


def test_a_400_digit_revision_is_never_an_internal_error(repo: Path) -> None:
    """Below Python's conversion limit but far past any sane bound: a verdict, not 70."""
    head = rev(repo)
    sha = commit_tree(repo, {PATHS["task"]: LARGE}, [head], "large revision")
    result = run(repo, "guard", "--range", f"{head}..{sha}")
    assert result.code in (0, REFUSED), f"exit {result.code}:\n{result.err}"
