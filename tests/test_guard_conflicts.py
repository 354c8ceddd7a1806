"""A merge commit's conflicting items (pure): the one accepted resolution, and a refusal,
naming the item and `rehydrate merge resolve`, for everything else."""

from __future__ import annotations

import pytest

from rehydrate.guard.conflicts import names, single_value_findings
from rehydrate.guard.excuses import excuse_merge
from rehydrate.guard.rules import FIXES, Violation, check_ledger
from rehydrate.ledgers import Context, Ledger, parse_ledger
from rehydrate.merge.resolve import Names, resolve_ledger

PATHS = {"spec": "docs/Spec.md", "task": "docs/Task.md"}
DECISIONS = (
    "| ID | Question | Status | Decision | Owner | Due | Source |\n|---|---|---|---|---|---|---|\n"
)
RETIRED = "\n## Retired\n\n| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"

OPEN = "| D-001 | Which cache? | open | | ann | 2030-01-01 | |"
REDIS = "| D-001 | Which cache? | decided | Redis | ann | 2030-01-01 | ADR-1 |"
MEMCACHED = "| D-001 | Which cache? | decided | Memcached | ann | 2030-01-01 | ADR-2 |"
COPY = "| D-002 | Which cache? | decided | Memcached | ann | 2030-01-01 | ADR-2 |"
COPY_OF_REDIS = "| D-002 | Which cache? | decided | Redis | ann | 2030-01-01 | ADR-1 |"
QUESTION = (
    "| D-003 | D-001 was decided Redis on main and Memcached on feature (D-002) | open "
    "| | | | merge |"
)
GONE = "| D-002 | merge conflict on D-001 | 2026-01-01 | D-001 |"


def spec(*rows: str, retired: tuple[str, ...] = ()) -> bytes:
    body = "".join(r + "\n" for r in rows)
    gone = "".join(r + "\n" for r in retired)
    return (
        "---\nledger: spec\n---\n# Spec\n\n## Decisions\n\n" + DECISIONS + body + RETIRED + gone
    ).encode()


TASK_HEAD = "---\nledger: task\ntask: T-1\nrevision: {rev}\nobjective: {objective}\n---\n# Task\n\n"


def task(
    *,
    rev: int,
    next_action: str = "Write the test",
    writes: tuple[str, ...] = ("| E-001 | tag v1 | pending | k-1 | |",),
    approvals: tuple[str, ...] = ("| A-001 | one deploy | granted |",),
    obligations: tuple[str, ...] = (),
    retired: tuple[str, ...] = (),
    objective: str = "Ship it",
) -> bytes:
    def rows(items: tuple[str, ...]) -> str:
        return "".join(r + "\n" for r in items)

    return (
        TASK_HEAD.format(rev=rev, objective=objective)
        + f"## Next action\n\n{next_action}\n\n"
        + "## Obligations\n\n| ID | Obligation | Status |\n|---|---|---|\n"
        + rows(obligations)
        + "\n## External writes\n\n| ID | Operation | Status | Idempotency key | Evidence |\n"
        + "|---|---|---|---|---|\n"
        + rows(writes)
        + "\n## Approvals\n\n| ID | Scope | Status |\n|---|---|---|\n"
        + rows(approvals)
        + RETIRED
        + rows(retired)
    ).encode()


def parse(kind: str, data: bytes) -> Ledger:
    return parse_ledger(kind, PATHS[kind], data)


def verdict(kind: str, base: bytes, ours: bytes, theirs: bytes, merged: bytes) -> list[Violation]:
    """What the guard says of a merge commit (as the hook and the range check do)."""
    b, o, t, m = (parse(kind, x) for x in (base, ours, theirs, merged))
    found: list[Violation] = []
    for parent, other in ((o, t), (t, o)):
        found += excuse_merge(check_ledger(kind, parent, m), parent, m, [other], [b])
    return found + single_value_findings(m, [o, t], [b])


BASE, OURS, THEIRS = spec(OPEN), spec(REDIS), spec(MEMCACHED)

DECISION_CASES = [
    # (id, merged, the codes the guard gives; [] = accepted)
    pytest.param(spec(REDIS, COPY, QUESTION, retired=(GONE,)), [], id="take-ours-recorded"),
    pytest.param(
        spec(MEMCACHED, COPY_OF_REDIS, QUESTION, retired=(GONE,)), [], id="take-theirs-recorded"
    ),
    pytest.param(
        spec(REDIS, COPY, QUESTION.replace("(D-002)", "(D-002.)"), retired=(GONE,)),
        [],
        id="question-with-punctuation",
    ),
    pytest.param(
        spec(REDIS.replace("Redis", "Postgres"), COPY, QUESTION, retired=(GONE,)),
        ["merge_third_value", "merge_third_value"],
        id="third-value",
    ),
    pytest.param(spec(OPEN), ["merge_third_value", "merge_third_value"], id="back-to-base"),
    pytest.param(spec(REDIS), ["merge_side_dropped"], id="silent-drop"),
    pytest.param(
        spec(REDIS, COPY.replace("Memcached", "Memcache"), QUESTION, retired=(GONE,)),
        ["merge_side_dropped"],
        id="copy-not-exact",
    ),
    pytest.param(spec(REDIS, COPY, QUESTION), ["merge_copy_not_retired"], id="copy-in-force"),
    pytest.param(
        spec(REDIS, COPY, QUESTION, retired=(GONE.replace("| D-001 |", "| |"),)),
        ["merge_copy_not_retired"],
        id="copy-retired-without-replaced-by",
    ),
    pytest.param(spec(REDIS, COPY, retired=(GONE,)), ["merge_question_missing"], id="no-question"),
    pytest.param(
        spec(REDIS, COPY, QUESTION.replace("(D-002)", ""), retired=(GONE,)),
        ["merge_question_missing"],
        id="question-not-naming-the-copy",
    ),
    pytest.param(
        spec(
            REDIS,
            COPY,
            QUESTION.replace("| open | | | | merge |", "| decided | Redis | | | merge |"),
            retired=(GONE,),
        ),
        ["merge_question_missing"],
        id="question-already-decided",
    ),
    pytest.param(
        spec(REDIS, COPY, QUESTION, retired=(GONE, "| D-003 | noise | 2026-01-01 | |")),
        ["merge_question_missing"],
        id="question-retired",
    ),
]


@pytest.mark.parametrize(("merged", "codes"), DECISION_CASES)
def test_a_decision_decided_differently_on_each_side(merged: bytes, codes: list[str]) -> None:
    found = verdict("spec", BASE, OURS, THEIRS, merged)
    assert sorted(v.code for v in found) == sorted(codes), [str(v) for v in found]
    for violation in found:
        text = str(violation)
        assert text.startswith("docs/Spec.md:") and violation.item_id == "D-001"
        assert "rehydrate merge resolve D-001 --take ours" in violation.fix
        assert violation.code in FIXES


def test_a_copy_under_an_id_a_parent_holds_is_not_a_record() -> None:
    # theirs also added D-002 (another question): a "copy" under that ID records nothing
    theirs = spec(MEMCACHED, "| D-002 | Which queue? | open | | | | |")
    merged = spec(REDIS, "| D-002 | Which queue? | open | | | | |", QUESTION)
    assert [v.code for v in verdict("spec", BASE, OURS, theirs, merged)] == ["merge_side_dropped"]


def test_renumbering_rows_added_on_both_sides_stays_excused() -> None:
    """Not a conflict: D-002 is new on both sides (no base had it), the driver renumbers."""
    ours = spec(OPEN, "| D-002 | Which queue? | open | | | | |")
    theirs = spec(OPEN, "| D-002 | Which broker? | open | | | | |")
    merged = spec(
        OPEN, "| D-002 | Which queue? | open | | | | |", "| D-003 | Which broker? | open | | | | |"
    )
    assert verdict("spec", BASE, ours, theirs, merged) == []


def test_renumbering_does_not_excuse_a_conflicting_item_left_in_force() -> None:
    """The renumbering excuse needs an ID no base had: a conflict copied but not retired is
    a second decision in force, not a renumbered row."""
    merged = spec(REDIS, COPY)
    assert [v.code for v in verdict("spec", BASE, OURS, THEIRS, merged)] == [
        "merge_copy_not_retired"
    ]


def test_compatible_changes_are_no_conflict() -> None:
    ours = spec(OPEN.replace("| ann |", "| bob |"))
    theirs = spec(OPEN.replace("2030-01-01", "2031-01-01"))
    merged = spec(OPEN.replace("| ann |", "| bob |").replace("2030-01-01", "2031-01-01"))
    assert verdict("spec", BASE, ours, theirs, merged) == []


# External writes: settled differently on each side.

CONFIRMED = "| E-001 | tag v1 | confirmed | k-1 | tag exists |"
NOT_APPLIED = "| E-001 | tag v1 | not_applied | k-1 | no tag |"
UNKNOWN = "| E-001 | tag v1 | unknown | k-1 | |"
W_COPY = "| E-002 | tag v1 | not_applied | k-1 | no tag |"
W_GONE = "| E-002 | merge conflict on E-001 | 2026-01-01 | E-001 |"
W_QUESTION = (
    "| E-003 | reconcile E-001: confirmed on main, not_applied on feature (E-002) | unknown "
    "| k-1 | |"
)
O_QUESTION = "| O-001 | reconcile E-001: confirmed on main, not_applied on feature (E-002) | open |"


@pytest.mark.parametrize(
    ("theirs_write", "merged", "codes"),
    [
        pytest.param(
            NOT_APPLIED,
            task(rev=3, writes=(CONFIRMED, W_COPY, W_QUESTION), retired=(W_GONE,)),
            [],
            id="settled-twice-recorded",
        ),
        pytest.param(
            UNKNOWN,
            task(
                rev=3,
                writes=(CONFIRMED, "| E-002 | tag v1 | unknown | k-1 | |", W_QUESTION),
                retired=(W_GONE,),
            ),
            [],
            id="unknown-copy-retired-its-doubt-carried-by-the-question",
        ),
        pytest.param(
            NOT_APPLIED,
            task(rev=3, writes=(CONFIRMED,)),
            ["merge_side_dropped"],
            id="silent-drop",
        ),
        pytest.param(
            NOT_APPLIED,
            task(rev=3, writes=(CONFIRMED, W_COPY), obligations=(O_QUESTION,), retired=(W_GONE,)),
            ["merge_question_missing"],
            id="question-not-an-unknown-write",
        ),
        pytest.param(
            NOT_APPLIED,
            task(rev=3, writes=(CONFIRMED.replace("tag exists", "both"), W_COPY, W_QUESTION)),
            ["merge_third_value", "merge_third_value"],
            id="third-evidence",
        ),
    ],
)
def test_a_write_settled_differently_on_each_side(
    theirs_write: str, merged: bytes, codes: list[str]
) -> None:
    base, ours, theirs = (
        task(rev=1),
        task(rev=2, writes=(CONFIRMED,)),
        task(rev=2, writes=(theirs_write,)),
    )
    found = verdict("task", base, ours, theirs, merged)
    assert sorted(v.code for v in found) == sorted(codes), [str(v) for v in found]
    assert all("rehydrate merge resolve E-001" in v.fix for v in found)


def test_an_unknown_copy_retired_without_its_question_stays_refused() -> None:
    # ours confirmed it without evidence (allowed from pending), theirs saw it unknown
    confirmed = "| E-001 | tag v1 | confirmed | k-1 | |"
    base, ours = task(rev=1), task(rev=2, writes=(confirmed,))
    theirs = task(rev=2, writes=(UNKNOWN,))
    merged = task(
        rev=3, writes=(confirmed, "| E-002 | tag v1 | unknown | k-1 | |"), retired=(W_GONE,)
    )
    codes = sorted(v.code for v in verdict("task", base, ours, theirs, merged))
    assert codes == ["merge_question_missing", "retired_unknown_write", "retired_unknown_write"]
    asked = task(
        rev=3,
        writes=(confirmed, "| E-002 | tag v1 | unknown | k-1 | |", W_QUESTION),
        retired=(W_GONE,),
    )
    assert verdict("task", base, ours, theirs, asked) == []


def test_an_approval_ended_differently_on_each_side() -> None:
    base, ours = task(rev=1), task(rev=2, approvals=("| A-001 | one deploy | consumed |",))
    theirs = task(rev=2, approvals=("| A-001 | one deploy | revoked |",))
    copy = "| A-002 | one deploy | revoked |"
    gone = "| A-002 | merge conflict on A-001 | 2026-01-01 | A-001 |"
    asked = "| O-001 | reconcile A-001: consumed on main, revoked on feature (A-002) | open |"
    kept = "| A-001 | one deploy | consumed |"
    accepted = task(rev=3, approvals=(kept, copy), obligations=(asked,), retired=(gone,))
    assert verdict("task", base, ours, theirs, accepted) == []
    dropped = task(rev=3, approvals=(kept,))
    assert [v.code for v in verdict("task", base, ours, theirs, dropped)] == ["merge_side_dropped"]


# Task's single values: the next action and the objective.

LINT, FORMAT = "Run the linter", "Run the formatter"
QUOTED = f"| O-001 | the next action on feature was: {FORMAT} | open |"


@pytest.mark.parametrize(
    ("merged", "codes"),
    [
        pytest.param(task(rev=3, next_action=LINT, obligations=(QUOTED,)), [], id="ours-quoted"),
        pytest.param(
            task(
                rev=3,
                next_action=FORMAT,
                obligations=(f"| O-001 | the next action on main was: {LINT} | open |",),
            ),
            [],
            id="theirs-quoted",
        ),
        pytest.param(task(rev=3, next_action=LINT), ["merge_side_dropped"], id="silent-drop"),
        pytest.param(
            task(rev=3, next_action="Run both", obligations=(QUOTED,)),
            ["merge_third_value"],
            id="third-value",
        ),
        pytest.param(
            task(rev=3, next_action=LINT, obligations=("| O-001 | do the formatting | open |",)),
            ["merge_side_dropped"],
            id="paraphrased",
        ),
        pytest.param(
            task(rev=3, next_action=LINT, obligations=(QUOTED.replace("open", "done"),)),
            ["merge_side_dropped"],
            id="recorded-as-done",
        ),
    ],
)
def test_two_next_actions(merged: bytes, codes: list[str]) -> None:
    base = task(rev=1)
    ours, theirs = task(rev=2, next_action=LINT), task(rev=2, next_action=FORMAT)
    found = verdict("task", base, ours, theirs, merged)
    assert [v.code for v in found] == codes
    assert all("rehydrate merge resolve next-action" in v.fix for v in found)


def test_one_side_changing_the_next_action_is_no_conflict() -> None:
    base, ours, theirs = task(rev=1), task(rev=2, next_action=LINT), task(rev=2)
    assert verdict("task", base, ours, theirs, task(rev=3, next_action=LINT)) == []
    # ...but dropping that one change silently is refused too
    assert [v.code for v in verdict("task", base, ours, theirs, task(rev=3))] == [
        "merge_side_dropped"
    ]


def test_two_objectives() -> None:
    base = task(rev=1)
    ours, theirs = task(rev=2, objective="Ship v1"), task(rev=2, objective="Ship v2")
    quoted = "| O-001 | the objective on feature was: Ship v2 | open |"
    assert (
        verdict("task", base, ours, theirs, task(rev=3, objective="Ship v1", obligations=(quoted,)))
        == []
    )
    assert [
        v.code for v in verdict("task", base, ours, theirs, task(rev=3, objective="Ship v1"))
    ] == ["merge_side_dropped"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("D-001 and D-002", True),
        ("(D-002.)", True),
        ("D-0021", False),
        ("XD-002", False),
        ("d-002", False),
    ],
)
def test_names_reads_ids_as_words(text: str, found: bool) -> None:
    assert names(text, "D-002") is found


# What `merge resolve` writes is exactly what the guard accepts (both ways, every kind).

CTX = {kind: Context(path, {}, {}, 1 << 20) for kind, path in PATHS.items()}
FEATURE = Names("main", "feature", "2026-01-01")


@pytest.mark.parametrize("take", ["ours", "theirs"])
@pytest.mark.parametrize(
    ("kind", "base", "ours", "theirs", "target"),
    [
        pytest.param("spec", BASE, OURS, THEIRS, "D-001", id="decision"),
        pytest.param(
            "task",
            task(rev=1),
            task(rev=2, writes=(CONFIRMED,)),
            task(rev=2, writes=(NOT_APPLIED,)),
            "E-001",
            id="write",
        ),
        pytest.param(
            "task",
            task(rev=1),
            task(rev=2, writes=(CONFIRMED,)),
            task(rev=2, writes=(UNKNOWN,)),
            "E-001",
            id="write-unknown",
        ),
        pytest.param(
            "task",
            task(rev=1),
            task(rev=2, approvals=("| A-001 | one deploy | consumed |",)),
            task(rev=2, approvals=("| A-001 | one deploy | expired |",)),
            "A-001",
            id="approval",
        ),
        pytest.param(
            "task",
            task(rev=1),
            task(rev=2, next_action=LINT),
            task(rev=2, next_action=FORMAT),
            "next-action",
            id="next-action",
        ),
        pytest.param(
            "task",
            task(rev=1),
            task(rev=2, objective="Ship v1"),
            task(rev=2, objective="Ship v2"),
            "objective",
            id="objective",
        ),
    ],
)
def test_resolve_writes_what_the_guard_accepts(
    kind: str, base: bytes, ours: bytes, theirs: bytes, target: str, take: str
) -> None:
    from rehydrate.git.changes import merge_file

    resolution = resolve_ledger(
        kind, base, ours, theirs, CTX[kind], {target: take}, names=FEATURE, merge_text=merge_file
    )
    assert resolution.result.conflicts == []
    assert verdict(kind, base, ours, theirs, resolution.result.data) == []
    (recorded,) = resolution.recorded
    merged = parse(kind, resolution.result.data)
    kept = parse(kind, ours if take == "ours" else theirs)
    lost = parse(kind, theirs if take == "ours" else ours)
    question = next(r for r in merged.all_items() if r.id == recorded.question)
    assert question.id not in merged.retired_ids
    if recorded.copy is not None:
        rows = {r.id: r for r in merged.all_items()}
        assert rows[target][2:] == next(r for r in kept.all_items() if r.id == target)[2:]
        assert rows[recorded.copy][2:] == next(r for r in lost.all_items() if r.id == target)[2:]
        (gone,) = [r for r in merged.retired if r.id == recorded.copy]
        assert gone.replaced_by == target and gone.date == "2026-01-01"
        text = " ".join(question.cells().values())
        assert names(text, target) and names(text, recorded.copy)
        assert "main" in text and "feature" in text
