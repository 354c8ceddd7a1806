"""``guard.rules``: the revision step rule, which only git-heavy tests reached before
(``scripts/mutation.py`` found its mutants alive). Pure: ``judge_change`` on states built
here, no git.

Each refusal has its legitimate twin next to it that passes.
"""

from __future__ import annotations

from rehydrate.config import Config
from rehydrate.guard.judge import ABSENT, Context, Parser, Side, judge_change
from rehydrate.guard.rules import FIXES, MAX_REVISION_STEP
from test_guard import TASK

PATH = "docs/Task.md"
FIX = FIXES["revision_step_too_large"].replace("MAX_REVISION_STEP", str(MAX_REVISION_STEP))


def task(revision: int) -> Side:
    assert "revision: 3\n" in TASK
    return Side.of(TASK.replace("revision: 3\n", f"revision: {revision}\n").encode())


def found(old: Side, new: Side) -> list[tuple[object, ...]]:
    context = Context("task", PATH, Parser(Config()))
    return [
        (v.code, v.path, v.line, v.item_id, v.message, v.fix)
        for v in judge_change(old, new, context)
    ]


def test_a_revision_step_larger_than_the_limit_is_refused() -> None:
    assert MAX_REVISION_STEP == 10_000
    assert found(task(3), task(3 + MAX_REVISION_STEP + 1)) == [
        (
            "revision_step_too_large",
            PATH,
            1,
            None,
            "revision jumped from 3 to 10004, more than 10000 in one change",
            FIX,
        )
    ]
    assert found(task(3), task(3 + MAX_REVISION_STEP)) == []  # the limit itself passes


def test_a_large_revision_reached_in_small_steps_passes() -> None:
    """The step counts, not the sum: 9,999 after 3 is a step of 9,996."""
    assert found(task(3), task(9_999)) == []
    assert found(task(9_999), task(12_000)) == []


def test_a_new_task_ledger_starts_at_most_at_the_limit() -> None:
    assert found(ABSENT, task(MAX_REVISION_STEP + 1)) == [
        (
            "revision_step_too_large",
            PATH,
            1,
            None,
            "revision jumped from 0 to 10001, more than 10000 in one change (a new Task.md "
            "starts at most there)",
            FIX,
        )
    ]
    assert found(ABSENT, task(MAX_REVISION_STEP)) == []
    assert "10000" in FIX and "MAX_REVISION_STEP" not in FIX
