"""Issue 24, class 5: a Task revision moves by a bounded step, so one accepted commit can
never freeze the record (``revision: 999999999999999999`` would refuse every later write,
settling an unknown write included). Each refusal has a legitimate twin that passes; the
pure rules decide every row, and a real ``git commit`` through the hook and a range
check the ones marked ``git``."""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial.helpers import (
    BASE,
    PATHS,
    REFUSED,
    clone,
    commit_all,
    commit_tree,
    make_base_repo,
    rev,
    run,
    write_bytes,
)
from rehydrate.guard.rules import MAX_REVISION_STEP
from test_guard import pure_violations

O1 = "| O-1 | tell the reviewer | open |"
MORE = O1 + "\n| O-9 | note the release | open |"
STEP = "revision_step_too_large"

# (revision written, whether a row is added too, refused?)  The base is at revision 3.
CASES = [
    pytest.param("999999999999999999", True, STEP, id="max-18-digits-git"),
    pytest.param("4", True, "", id="twin-plus-one-git"),
    pytest.param(str(3 + MAX_REVISION_STEP + 1), True, STEP, id="one-past-the-bound"),
    pytest.param(str(3 + MAX_REVISION_STEP), True, "", id="twin-exactly-the-bound"),
    pytest.param("12", True, "", id="twin-nine-writes-before-one-commit"),
    pytest.param("100000000000", False, STEP, id="jump-with-nothing-else-changed"),
    pytest.param("1000000000000000000"[:18], True, STEP, id="first-18-digit-power"),
]


@pytest.mark.parametrize(("value", "row", "code"), CASES)
def test_the_revision_step_is_bounded(value: str, row: bool, code: str) -> None:
    edit = [("task", "revision: 3", f"revision: {value}")]
    if row:
        edit.append(("task", O1, MORE))
    codes = {v.code for v in pure_violations(edit)}
    assert (STEP in codes) == bool(code), codes
    assert codes <= {STEP}, codes


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base_repo(tmp_path_factory.mktemp("revstep") / "base")


def _text(value: str) -> str:
    return BASE["task"].replace("revision: 3", f"revision: {value}").replace(O1, MORE)


@pytest.mark.parametrize(
    ("value", "refused"), [("999999999999999999", True), ("4", False)], ids=["max", "twin"]
)
def test_the_hook_and_the_range_bound_the_step(
    base: Path, tmp_path: Path, value: str, refused: bool
) -> None:
    repo = clone(base, tmp_path / "repo")
    write_bytes(repo, PATHS["task"], _text(value))
    done = commit_all(repo, "jump", verify=True)
    assert (done.returncode != 0) == refused, done.stderr
    if refused:
        assert (
            STEP in done.stderr
            and PATHS["task"] in done.stderr
            and "writers add 1" in (done.stderr)
        )
    head = rev(repo)
    sha = commit_tree(repo, {PATHS["task"]: _text(value)}, [head], "jump")
    result = run(repo, "guard", "--range", f"{head}..{sha}")
    assert result.code == (REFUSED if refused else 0), result.err


def test_a_new_task_ledger_cannot_start_at_the_top(base: Path, tmp_path: Path) -> None:
    """A history whose first commit creates Task.md at the top is refused; its twin, a
    first commit at revision 1, passes."""
    repo = clone(base, tmp_path / "repo")
    for value, want in (("999999999999999999", REFUSED), ("1", 0)):
        files = {path: BASE[kind] for kind, path in PATHS.items()}
        files[PATHS["task"]] = BASE["task"].replace("revision: 3", f"revision: {value}")
        sha = commit_tree(repo, dict(files), [], "first commit", base=None)
        result = run(repo, "guard", "--range", sha)
        assert result.code == want, result.err
        assert (STEP in result.err) == bool(want), result.err
