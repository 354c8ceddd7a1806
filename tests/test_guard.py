"""The guard's rules, pure: ledger texts in, violations out (no git).

``REFUSED`` and ``ALLOWED`` are the adversarial and legitimate tables; each case is
one line and is also checked against real commits in test_guard_git.py.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from rehydrate.config import Config
from rehydrate.git import hash_blob
from rehydrate.guard.fastpath import append_only
from rehydrate.guard.judge import Context, Parser, Side, judge_change
from rehydrate.guard.rules import FIXES, RULES, Violation, check_ledger
from rehydrate.ledgers import parse_ledger

PATHS = {"spec": "docs/Spec.md", "task": "docs/Task.md", "failures": "docs/Failed_Attempts.md"}

SPEC = textwrap.dedent("""\
    ---
    ledger: spec
    ---
    # Spec

    What this task must respect.

    ## Constraints

    | ID | Rule | Level | Source |
    |---|---|---|---|
    | C-001 | do not push to main | MUST NOT | team |
    | C-002 | run the linter | SHOULD | team |
    | C-003 | use tabs | MAY | team |
    | C-004 | write tests first | MUST | team |
    | C-005 | avoid globals | SHOULD NOT | team |

    ## Contracts

    | ID | Subject | Contract | Source |
    |---|---|---|---|
    | K-001 | user ids | UUIDv7 strings | api.md |

    ## Decisions

    | ID | Question | Status | Decision | Owner | Due | Source |
    |---|---|---|---|---|---|---|
    | D-001 | which database? | open | | alice | 2030-01-01 | |
    | D-002 | which queue? | decided | rabbitmq | bob | 2029-01-01 | adr-2 |

    ## Retired

    | ID | Reason | Date | Replaced by |
    |---|---|---|---|
    """)

TASK = textwrap.dedent("""\
    ---
    ledger: task
    task: T-1
    revision: 3
    objective: ship the fix
    ---
    # Task

    Some prose about the task.

    ## Phases

    | ID | Phase | Status |
    |---|---|---|
    | P1 | reproduce | done |
    | P2 | fix | doing |
    | P3 | release | todo |

    ## Next action

    write the failing test

    ## Obligations

    | ID | Obligation | Status |
    |---|---|---|
    | O-1 | tell the reviewer | open |

    ## External writes

    | ID | Operation | Status | Idempotency key | Evidence |
    |---|---|---|---|---|
    | E-1 | create tag | unknown | key-1 | |
    | E-2 | upload asset | pending | key-2 | |
    | E-3 | send mail | confirmed | key-3 | mail log 12 |

    ## Approvals

    | ID | Scope | Status |
    |---|---|---|
    | A-1 | deploy staging | consumed |
    | A-2 | deploy prod | granted |

    ## Completion checks

    | ID | Check | Status |
    |---|---|---|
    | CC-1 | tests pass | open |

    ## Retired

    | ID | Reason | Date | Replaced by |
    |---|---|---|---|
    """)

FAILURES = textwrap.dedent("""\
    ---
    ledger: failures
    ---
    # Failed attempts

    | ID | Tried | Failure | Workaround |
    |---|---|---|---|
    | F-001 | go test -tags=musl | linker crash | default tags |
    | F-002 | pip install -e . | resolver loop | use uv |
    | F-003 | make all | timeout | make -j4 |

    ## Retired

    | ID | Reason | Date | Replaced by |
    |---|---|---|---|
    | F-003 | fixed upstream | 2026-01-01 | |
    """)

BASE = {"spec": SPEC, "task": TASK, "failures": FAILURES}
F2 = "| F-002 | pip install -e . | resolver loop | use uv |\n"
REV = ("task", "revision: 3", "revision: 4")

# An edit is a list of (kind, old text, new text) replacements on the base ledgers, or
# a special file operation (DELETE, RENAME, SYMLINK) on one ledger.
Edit = list[tuple[str, str, str]]
DELETE, RENAME, SYMLINK = "<delete>", "<rename>", "<symlink>"


def p(edit: Edit, code: str, id: str) -> object:
    return pytest.param(edit, code, id=id)


REFUSED = [
    p([("failures", F2, "")], "row_deleted", "delete-failure-row"),
    p(
        [("failures", "go test -tags=musl", "go test -tags=glibc")],
        "immutable_cell_changed",
        "edit-failure-tried",
    ),
    p(
        [("failures", "linker crash", "linker panic")],
        "immutable_cell_changed",
        "edit-failure-failure",
    ),
    p(
        [("failures", "default tags", "static tags")],
        "immutable_cell_changed",
        "edit-failure-workaround",
    ),
    p(
        [("failures", "linker crash", "linker cr\u0430sh")],
        "immutable_cell_changed",
        "homoglyph-cyrillic-a",
    ),
    p(
        [("failures", "linker crash", "linker\u200bcrash")],
        "ledger_unparseable",
        "zero-width-space",
    ),
    p([("failures", "| F-001 |", "| F-010 |")], "row_deleted", "rename-an-id"),
    p(
        [("spec", "| write tests first | MUST |", "| write tests first | SHOULD |")],
        "level_weakened",
        "must-to-should",
    ),
    p(
        [("spec", "| write tests first | MUST |", "| write tests first | MUST NOT |")],
        "level_rewritten",
        "must-to-must-not",
    ),
    p(
        [("spec", "| avoid globals | SHOULD NOT |", "| avoid globals | SHOULD |")],
        "level_rewritten",
        "should-not-to-should",
    ),
    p(
        [("spec", "| do not push to main | MUST NOT |", "| do not push to main | MAY |")],
        "level_weakened",
        "must-not-to-may",
    ),
    p(
        [("spec", "| C-002 | run the linter | SHOULD | team |\n", "")],
        "row_deleted",
        "delete-constraint",
    ),
    p(
        [
            ("spec", "| C-002 | run the linter | SHOULD | team |\n", ""),
            ("task", "Some prose about the task.", "Some prose.\n\nC-002 run the linter (SHOULD)"),
            REV,
        ],
        "row_deleted",
        "move-constraint-to-another-ledger",
    ),
    p(
        [("spec", "do not push to main", "do not push to main on Fridays")],
        "immutable_cell_changed",
        "edit-constraint-rule",
    ),
    p(
        [
            (
                "spec",
                "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n",
                "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
                "| C-002 | | 2026-02-01 | |\n",
            )
        ],
        "retire_without_reason",
        "retire-without-reason",
    ),
    p([("spec", "UUIDv7 strings", "UUIDv4 strings")], "immutable_cell_changed", "edit-contract"),
    p(
        [("spec", "| decided | rabbitmq |", "| open | rabbitmq |")],
        "status_moved_backwards",
        "decided-to-open",
    ),
    p(
        [("spec", "| open | | alice |", "| decided | | alice |")],
        "decided_without_decision",
        "open-to-decided-without-decision",
    ),
    p(
        [("spec", "| decided | rabbitmq |", "| decided | kafka |")],
        "immutable_cell_changed",
        "edit-decided-row",
    ),
    p(
        [("spec", "which database?", "which cache?")],
        "immutable_cell_changed",
        "edit-open-question",
    ),
    p(
        [("task", "| unknown | key-1 | |", "| confirmed | key-1 | |"), REV],
        "unknown_write_settled_without_evidence",
        "unknown-to-confirmed-without-evidence",
    ),
    p(
        [("task", "| E-1 | create tag | unknown | key-1 | |\n", ""), REV],
        "unknown_write_dropped",
        "drop-unknown-write",
    ),
    p(
        [
            (
                "task",
                "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n",
                "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
                "| E-1 | gone | 2026-02-01 | |\n",
            ),
            REV,
        ],
        "retired_unknown_write",
        "retire-unknown-write",
    ),
    p(
        [("task", "| unknown | key-1 |", "| pending | key-1 |"), REV],
        "status_moved_backwards",
        "unknown-to-pending",
    ),
    p(
        [("task", "| confirmed | key-3 |", "| not_applied | key-3 |"), REV],
        "settled_write_changed",
        "settled-write-changed",
    ),
    p(
        [("task", "| deploy staging | consumed |", "| deploy staging | granted |"), REV],
        "approval_reopened",
        "regrant-consumed-approval",
    ),
    p(
        [("task", "| CC-1 | tests pass | open |\n", ""), REV],
        "row_deleted",
        "remove-completion-check",
    ),
    p(
        [("task", "| O-1 | tell the reviewer | open |\n", ""), REV],
        "row_deleted",
        "remove-obligation",
    ),
    p(
        [("task", "write the failing test", "write the failing unit test")],
        "revision_not_increased",
        "task-change-without-revision",
    ),
    p(
        [("task", "Some prose about the task.", "Other prose about the task.")],
        "revision_not_increased",
        "task-prose-only-without-revision",
    ),
    p([("task", "revision: 3", "revision: 2")], "revision_not_increased", "revision-decrease"),
    p(
        [("task", "write the failing test", "write the failing test && run it"), REV],
        "next_action_not_single",
        "next-action-and-and",
    ),
    p(
        [("task", "write the failing test", "write the failing test; run it"), REV],
        "next_action_not_single",
        "next-action-semicolon",
    ),
    p(
        [("task", "write the failing test", "write the failing test then run it"), REV],
        "next_action_not_single",
        "next-action-then",
    ),
    p(
        [("task", "write the failing test", "write the failing test\nrun it"), REV],
        "next_action_not_single",
        "next-action-newline",
    ),
    p(
        [("task", "write the failing test", "失敗するテストを書く、その後実行する"), REV],
        "next_action_not_single",
        "next-action-sonogo",
    ),
    p(
        [("task", "| P1 | reproduce | done |", "| P1 | reproduce | doing |"), REV],
        "status_moved_backwards",
        "phase-done-to-doing",
    ),
    p(
        [
            (
                "task",
                "| P2 | fix | doing |\n| P3 | release | todo |",
                "| P3 | release | todo |\n| P2 | fix | doing |",
            ),
            REV,
        ],
        "phase_reordered",
        "reorder-phases",
    ),
    p(
        [("task", "| O-1 | tell the reviewer | open |", "| O-1 | tell the reviewer | done |")],
        "revision_not_increased",
        "allowed-move-without-revision",
    ),
    p([("failures", "| F-003 | fixed upstream | 2026-01-01 | |\n", "")], "unretired", "unretire"),
    p(
        [("failures", "fixed upstream", "fixed upstream in 2.0")],
        "immutable_cell_changed",
        "edit-retirement-reason",
    ),
    p(
        [
            (
                "failures",
                "| F-001 | go test -tags=musl | linker crash | default tags |",
                "| F-001 | go test -tags=musl | linker crash |",
            )
        ],
        "ledger_unparseable",
        "row-with-wrong-cell-count",
    ),
    p(
        [("failures", F2, "<<<<<<< HEAD\n" + F2 + "=======\n>>>>>>> other\n")],
        "ledger_unparseable",
        "conflict-markers",
    ),
    p([("failures", "linker crash", "linker\0crash")], "ledger_unparseable", "nul-byte"),
    p([("failures", DELETE, "")], "ledger_deleted", "delete-ledger"),
    p([("spec", RENAME, "docs/Spec-old.md")], "ledger_renamed", "rename-ledger"),
    p([("task", SYMLINK, "")], "ledger_not_regular_file", "ledger-as-symlink"),
]

ALLOWED = [
    p(
        [("failures", F2, F2 + "| F-004 | cargo build | oom | add swap |\n")],
        "",
        "append-failure-row",
    ),
    p(
        [
            (
                "failures",
                "| F-003 | make all",
                "| F-004 | cargo build | oom | add swap |\n| F-003 | make all",
            )
        ],
        "",
        "append-failure-row-mid-table",
    ),
    p(
        [("failures", F2, F2 + "| F-004 | a | b | c |\n| F-005 | d | e | f |\n")],
        "",
        "append-two-failure-rows",
    ),
    p([("spec", "| run the linter | SHOULD |", "| run the linter | MUST |")], "", "should-to-must"),
    p([("spec", "| use tabs | MAY |", "| use tabs | MUST NOT |")], "", "may-to-must-not"),
    p(
        [("spec", "| avoid globals | SHOULD NOT |", "| avoid globals | MUST NOT |")],
        "",
        "should-not-to-must-not",
    ),
    p(
        [
            (
                "spec",
                "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n",
                "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
                "| C-002 | replaced by C-006 | 2026-02-01 | C-006 |\n",
            ),
            (
                "spec",
                "| C-005 | avoid globals | SHOULD NOT | team |\n",
                "| C-005 | avoid globals | SHOULD NOT | team |\n"
                "| C-006 | run ruff | MUST | team |\n",
            ),
        ],
        "",
        "retire-with-reason",
    ),
    p(
        [
            (
                "spec",
                "| open | | alice | 2030-01-01 | |",
                "| decided | postgres | alice | 2030-01-01 | adr-3 |",
            )
        ],
        "",
        "open-to-decided-with-decision-and-source",
    ),
    p(
        [("spec", "| open | | alice | 2030-01-01 |", "| open | | carol | 2031-06-01 |")],
        "",
        "owner-due-change-while-open",
    ),
    p(
        [
            ("task", "| P2 | fix | doing |", "| P2 | fix | done |"),
            ("task", "| P3 | release | todo |", "| P3 | release | done |"),
            ("task", "| O-1 | tell the reviewer | open |", "| O-1 | tell the reviewer | done |"),
            ("task", "| pending | key-2 |", "| unknown | key-2 |"),
            ("task", "| unknown | key-1 | |", "| confirmed | key-1 | tag v1 exists on registry |"),
            ("task", "| deploy prod | granted |", "| deploy prod | consumed |"),
            ("task", "| CC-1 | tests pass | open |", "| CC-1 | tests pass | passed |"),
            REV,
        ],
        "",
        "allowed-status-moves",
    ),
    p(
        [
            ("task", "| P3 | release | todo |", "| P3 | release | doing |"),
            ("task", "| unknown | key-1 | |", "| not_applied | key-1 | registry has no tag |"),
            ("task", "| pending | key-2 |", "| confirmed | key-2 |"),
            REV,
        ],
        "",
        "more-allowed-status-moves",
    ),
    p(
        [("spec", "\n", "\r\n"), ("task", "\n", "\r\n"), ("failures", "\n", "\r\n")],
        "",
        "crlf-conversion",
    ),
    p(
        [
            ("task", "---\nledger: task", "\ufeff---\nledger: task"),
            ("spec", "---\nledger: spec", "\ufeff---\nledger: spec"),
        ],
        "",
        "bom-added",
    ),
    p(
        [
            ("failures", "| F-001 | go test -tags=musl |", "|   F-001   |  go test -tags=musl\t|"),
            ("spec", "| C-001 | do not push to main |", "|C-001|do  not push to main|"),
        ],
        "",
        "whitespace-only-cell-padding",
    ),
    p(
        [
            (
                "spec",
                "| C-001 | do not push to main | MUST NOT | team |\n"
                "| C-002 | run the linter | SHOULD | team |",
                "| C-002 | run the linter | SHOULD | team |\n"
                "| C-001 | do not push to main | MUST NOT | team |",
            ),
            (
                "failures",
                F2 + "| F-003 | make all | timeout | make -j4 |\n",
                "| F-003 | make all | timeout | make -j4 |\n" + F2,
            ),
        ],
        "",
        "reorder-unordered-rows",
    ),
    p(
        [("spec", "What this task must respect.", "What this task must respect, always.")],
        "",
        "edit-spec-prose",
    ),
    p(
        [("task", "Some prose about the task.", "Better prose about the task."), REV],
        "",
        "edit-task-prose-with-revision",
    ),
    p(
        [
            (
                "task",
                "| P3 | release | todo |",
                "| P3 | release | todo |\n| P4 | announce | todo |",
            ),
            ("task", "write the failing test", "announce the release"),
            REV,
        ],
        "",
        "add-phase-and-change-next-action",
    ),
    p([("task", "revision: 3", "revision: 10")], "", "revision-jump-alone"),
]


def apply(edit: Edit, base: dict[str, str] | None = None) -> dict[str, str]:
    """The base texts with the text replacements of ``edit`` applied (file ops ignored)."""
    texts = dict(base or BASE)
    for kind, old, new in edit:
        if old in (DELETE, RENAME, SYMLINK):
            continue
        assert old in texts[kind], (kind, old)
        texts[kind] = texts[kind].replace(old, new)
    return texts


def parse(kind: str, text: str) -> object:
    return parse_ledger(kind, PATHS[kind], text.encode("utf-8"))


def pure_violations(edit: Edit) -> list[Violation]:
    """Run the case through ``judge_change`` (which calls ``check_ledger``): no git."""
    new = apply(edit)
    parser = Parser(Config())
    found: list[Violation] = []
    for kind, text in BASE.items():
        old_bytes, new_bytes = text.encode(), new[kind].encode()
        ops = {o: n for k, o, n in edit if k == kind and o in (DELETE, RENAME, SYMLINK)}
        new_mode = "100644"
        renamed: Callable[[], str | None] | None = None
        if DELETE in ops or RENAME in ops:
            new_mode, new_bytes = "000000", b""
            target = ops.get(RENAME)
            renamed = (lambda t=target: t) if target else None
        elif SYMLINK in ops:
            new_mode, new_bytes = "120000", b"elsewhere.md"
        if new_bytes == old_bytes and new_mode == "100644":
            continue
        old_id, new_id = hash_blob(old_bytes), hash_blob(new_bytes)
        if new_mode == "000000":
            new_id = "0" * 40
        old_side = Side("100644", old_id, old_bytes)
        new_side = Side(new_mode, new_id, None if new_mode == "000000" else new_bytes)
        context = Context(kind, PATHS[kind], parser, renamed_to=renamed)
        found.extend(judge_change(old_side, new_side, context))
    return found


@pytest.mark.parametrize(("edit", "code"), REFUSED)
def test_guard_refuses(edit: Edit, code: str) -> None:
    found = pure_violations(edit)
    assert {v.code for v in found} == {code}, [str(v) for v in found]


@pytest.mark.parametrize(("edit", "code"), ALLOWED)
def test_guard_allows(edit: Edit, code: str) -> None:
    assert pure_violations(edit) == []


# What the rules' refusals in REFUSED say: code, line, item ID and message (by case id).
SAID = {
    "delete-failure-row": [
        ("row_deleted", None, "F-002", "failures row deleted (it was at line 9 of the old version)")
    ],
    "edit-failure-tried": [
        (
            "immutable_cell_changed",
            8,
            "F-001",
            "cell 'tried' changed: 'go test -tags=musl' -> 'go test -tags=glibc'",
        )
    ],
    "homoglyph-cyrillic-a": [
        (
            "immutable_cell_changed",
            8,
            "F-001",
            "cell 'failure' changed: 'linker crash' -> 'linker cr\u0430sh'"
            " (character 10: U+0061 -> U+0430)",
        )
    ],
    "rename-an-id": [
        ("row_deleted", None, "F-001", "failures row deleted (it was at line 8 of the old version)")
    ],
    "must-to-should": [("level_weakened", 15, "C-004", "level changed MUST -> SHOULD")],
    "must-to-must-not": [("level_rewritten", 15, "C-004", "level changed MUST -> MUST NOT")],
    "should-not-to-should": [
        ("level_rewritten", 16, "C-005", "level changed SHOULD NOT -> SHOULD")
    ],
    "must-not-to-may": [("level_weakened", 12, "C-001", "level changed MUST NOT -> MAY")],
    "delete-constraint": [
        (
            "row_deleted",
            None,
            "C-002",
            "constraints row deleted (it was at line 13 of the old version)",
        )
    ],
    "edit-constraint-rule": [
        (
            "immutable_cell_changed",
            12,
            "C-001",
            "cell 'rule' changed: 'do not push to main' -> 'do not push to main on Fridays'",
        )
    ],
    "edit-contract": [
        (
            "immutable_cell_changed",
            22,
            "K-001",
            "cell 'contract' changed: 'UUIDv7 strings' -> 'UUIDv4 strings'",
        )
    ],
    "decided-to-open": [("status_moved_backwards", 29, "D-002", "status moved decided -> open")],
    "open-to-decided-without-decision": [
        (
            "decided_without_decision",
            28,
            "D-001",
            "status moved open -> decided with decision, source empty",
        )
    ],
    "edit-decided-row": [
        ("immutable_cell_changed", 29, "D-002", "cell 'decision' changed: 'rabbitmq' -> 'kafka'")
    ],
    "unknown-to-confirmed-without-evidence": [
        (
            "unknown_write_settled_without_evidence",
            33,
            "E-1",
            "status moved unknown -> confirmed with evidence empty",
        )
    ],
    "drop-unknown-write": [
        (
            "unknown_write_dropped",
            None,
            "E-1",
            "external writes row deleted (it was at line 33 of the old version)",
        )
    ],
    "retire-unknown-write": [
        (
            "retired_unknown_write",
            54,
            "E-1",
            "retiring a unknown external writes row settles it silently",
        )
    ],
    "unknown-to-pending": [
        ("status_moved_backwards", 33, "E-1", "status moved unknown -> pending")
    ],
    "settled-write-changed": [
        ("settled_write_changed", 35, "E-3", "status moved confirmed -> not_applied")
    ],
    "regrant-consumed-approval": [
        ("approval_reopened", 41, "A-1", "status moved consumed -> granted")
    ],
    "remove-completion-check": [
        (
            "row_deleted",
            None,
            "CC-1",
            "completion checks row deleted (it was at line 48 of the old version)",
        )
    ],
    "remove-obligation": [
        (
            "row_deleted",
            None,
            "O-1",
            "obligations row deleted (it was at line 27 of the old version)",
        )
    ],
    "task-change-without-revision": [
        ("revision_not_increased", 1, None, "Task.md changed but revision stayed at 3")
    ],
    "revision-decrease": [("revision_not_increased", 1, None, "revision decreased from 3 to 2")],
    "phase-done-to-doing": [("status_moved_backwards", 15, "P1", "status moved done -> doing")],
    "reorder-phases": [("phase_reordered", 15, None, "the rows of phases changed their order")],
    "unretire": [
        ("unretired", 10, "F-003", "the Retired row was removed, which puts the item back in force")
    ],
    "edit-retirement-reason": [
        ("immutable_cell_changed", 16, "F-003", "the Retired row changed (reason)")
    ],
}


@pytest.mark.parametrize(("edit", "code"), [c for c in REFUSED if c.id in SAID])
def test_guard_refusals_say_where_and_what(
    request: pytest.FixtureRequest, edit: Edit, code: str
) -> None:
    found = pure_violations(edit)
    assert all(v.fix == FIXES[v.code] for v in found)
    said = sorted((v.code, v.line, v.item_id, v.message) for v in found)
    assert said == SAID[request.node.callspec.id]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        pytest.param(
            [
                ("task", "| O-1 | tell the reviewer | open |\n", ""),
                (
                    "task",
                    "| CC-1 | tests pass | open |",
                    "| CC-1 | tests pass | open |\n| O-1 | tell the reviewer | open |",
                ),
                REV,
            ],
            [
                (
                    "immutable_cell_changed",
                    48,
                    "O-1",
                    "cell 'check' changed: '' -> 'tell the reviewer'",
                ),
                (
                    "immutable_cell_changed",
                    48,
                    "O-1",
                    "cell 'obligation' changed: 'tell the reviewer' -> ''",
                ),
                (
                    "immutable_cell_changed",
                    48,
                    "O-1",
                    "row moved from section 'obligations' -> 'completion checks'",
                ),
            ],
            id="row-moved-to-another-section",
        ),
        pytest.param(
            [
                (
                    "failures",
                    "| F-003 | fixed upstream | 2026-01-01 |",
                    "| F-003 | fixed | 2026-02-01 |",
                )
            ],
            [("immutable_cell_changed", 16, "F-003", "the Retired row changed (reason, date)")],
            id="retirement-changed-twice",
        ),
        pytest.param(
            [
                (
                    "spec",
                    "| open | | alice | 2030-01-01 | |",
                    "| open | | bob | 2030-01-01 | adr-9 |",
                )
            ],
            [("immutable_cell_changed", 28, "D-001", "cell 'source' changed: '' -> 'adr-9'")],
            id="free-owner-then-fixed-source",
        ),
        pytest.param(
            [("spec", "| decided | rabbitmq | bob |", "| open | kafka | carol |")],
            [
                (
                    "immutable_cell_changed",
                    29,
                    "D-002",
                    "cell 'decision' changed: 'rabbitmq' -> 'kafka'",
                ),
                ("immutable_cell_changed", 29, "D-002", "cell 'owner' changed: 'bob' -> 'carol'"),
                ("status_moved_backwards", 29, "D-002", "status moved decided -> open"),
            ],
            id="status-and-later-cells",
        ),
        pytest.param(
            [
                ("task", "| P2 | fix | doing |", "| P2 | fix | done |"),
                ("task", "revision: 3", "revision: 3"),
            ],
            [("revision_not_increased", 1, None, "Task.md changed but revision stayed at 3")],
            id="allowed-move-same-revision",
        ),
    ],
)
def test_every_change_in_a_row_is_judged(edit: Edit, said: list[object]) -> None:
    found = pure_violations(edit)
    assert sorted((v.code, v.line, v.item_id, v.message) for v in found) == said


@pytest.mark.parametrize(
    ("violation", "text", "json"),
    [
        pytest.param(
            Violation("row_deleted", "docs/T.md", None, None, "gone", "put it back"),
            "docs/T.md: row_deleted \u2014 gone; put it back",
            {
                "code": "row_deleted",
                "path": "docs/T.md",
                "line": None,
                "id": None,
                "message": "gone",
                "fix": "put it back",
                "commit": None,
            },
            id="no-line-no-id",
        ),
        pytest.param(
            Violation(
                "id_reused", "docs/T.md", 7, "F-1", "again", "new ID", commit="0123456789abcdef0123"
            ),
            "docs/T.md:7: id_reused F-1 \u2014 again; new ID (commit 0123456789ab)",
            {
                "code": "id_reused",
                "path": "docs/T.md",
                "line": 7,
                "id": "F-1",
                "message": "again",
                "fix": "new ID",
                "commit": "0123456789abcdef0123",
            },
            id="line-id-and-commit",
        ),
    ],
)
def test_violation_text_and_json(violation: Violation, text: str, json: dict[str, object]) -> None:
    assert str(violation) == text
    assert violation.to_json() == json


def test_base_ledgers_parse_and_creation_is_allowed() -> None:
    for kind, text in BASE.items():
        assert check_ledger(kind, None, parse(kind, text)) == []


def test_violation_str_names_path_line_code_id_and_fix() -> None:
    new = apply([("spec", "| write tests first | MUST |", "| write tests first | SHOULD |")])
    (violation,) = check_ledger("spec", parse("spec", SPEC), parse("spec", new["spec"]))
    text = str(violation)
    assert text.startswith("docs/Spec.md:15: level_weakened C-004 \u2014 ")
    assert "; " + FIXES["level_weakened"] in text
    assert violation.to_json()["code"] == "level_weakened"


def test_homoglyph_message_names_the_code_points() -> None:
    new = apply([("failures", "linker crash", "linker cr\u0430sh")])
    (violation,) = check_ledger(
        "failures", parse("failures", FAILURES), parse("failures", new["failures"])
    )
    assert "U+0061 -> U+0430" in violation.message


def test_reserved_id_cannot_come_back() -> None:
    new = apply([("failures", F2, F2 + "| F-009 | x | y | z |\n")])
    found = check_ledger(
        "failures",
        parse("failures", FAILURES),
        parse("failures", new["failures"]),
        reserved_ids=frozenset({"F-009"}),
    )
    assert [(v.code, v.line, v.item_id, v.message) for v in found] == [
        ("id_reused", 10, "F-009", "this ID was used before (and deleted); it cannot come back")
    ]


def test_every_code_has_a_fix_and_rules_cover_every_kind() -> None:
    assert set(RULES) == {"spec", "task", "failures"}
    assert all(FIXES.values())


def test_parse_error_keeps_its_own_code_and_line() -> None:
    new = apply([("failures", "| F-002 | pip", "| F-002 | pip \u202e")])
    found = pure_violations([("failures", "| F-002 | pip", "| F-002 | pip \u202e")])
    assert new["failures"] != FAILURES
    (violation,) = found
    assert violation.code == "ledger_unparseable"
    assert "forbidden_character" in violation.message and violation.line == 9


APPEND = FAILURES.replace(F2, F2 + "| F-004 | cargo build | oom | add swap |\n")


@pytest.mark.parametrize(
    ("new", "fast"),
    [
        pytest.param(APPEND, True, id="row-after-table-row"),
        pytest.param(
            FAILURES.replace("| F-001", "| F-000 | a | b | c |\n| F-001"),
            True,
            id="row-first-in-table",
        ),
        pytest.param(FAILURES.replace(F2, F2 + "| F-001 | a | b | c |\n"), False, id="dup-id"),
        pytest.param(
            FAILURES.replace(F2, F2 + "| F-003 | a | b | c |\n"), False, id="id-of-retired-row"
        ),
        pytest.param(FAILURES.replace(F2, F2 + "| F-004 | a | b |\n"), False, id="short-row"),
        pytest.param(FAILURES.replace(F2, F2 + "| F-004 | a | | c |\n"), False, id="empty-cell"),
        pytest.param(
            FAILURES.replace(F2, F2 + "| F-004 | a\u200b | b | c |\n"), False, id="forbidden-char"
        ),
        pytest.param(FAILURES + "| F-004 | a | b | c |\n", False, id="into-retired-table"),
        pytest.param(
            FAILURES.replace("# Failed attempts\n", "# Failed attempts\nmore prose\n"),
            False,
            id="prose-not-a-row",
        ),
        pytest.param(FAILURES.replace(F2, F2 + "|||||||\n"), False, id="conflict-marker-row"),
    ],
)
def test_append_only_fast_path(new: str, fast: bool) -> None:
    assert append_only(FAILURES.encode(), new.encode(), Config()) is fast
    if fast:  # whatever the fast path accepts, the full parse accepts too
        assert check_ledger("failures", parse("failures", FAILURES), parse("failures", new)) == []


FAILURE_ONLY = [
    c
    for c in REFUSED + ALLOWED
    if {k for k, o, n in c.values[0]} == {"failures"}
    and not any(o in (DELETE, RENAME, SYMLINK) for _, o, n in c.values[0])
]


# Failure-ledger edits the fast path cannot prove cheaply: it declines, the full parse decides.
FAST_PATH_DECLINES = frozenset(
    {
        "zero-width-space",
        "unretire",
        "edit-retirement-reason",
        "row-with-wrong-cell-count",
        "conflict-markers",
        "nul-byte",
    }
)


@pytest.mark.parametrize(("edit", "code"), FAILURE_ONLY)
def test_table_edit_fast_path_agrees_with_full_parse(
    request: pytest.FixtureRequest, edit: Edit, code: str
) -> None:
    from rehydrate.guard.fastpath import table_edit

    new = apply(edit)["failures"]
    fast = table_edit(FAILURES.encode(), new.encode(), Config(), PATHS["failures"])
    case = request.node.callspec.id
    if case in FAST_PATH_DECLINES:
        assert fast is None
        return
    assert fast is not None
    full = pure_violations(edit)
    assert sorted((v.code, v.item_id, v.line) for v in fast) == sorted(
        (v.code, v.item_id, v.line) for v in full
    )


@pytest.mark.parametrize(
    ("new", "codes"),
    [
        pytest.param(
            FAILURES.replace("linker crash", "linker cr\u0430sh"),
            ["immutable_cell_changed"],
            id="homoglyph",
        ),
        pytest.param(FAILURES.replace(F2, ""), ["row_deleted"], id="deleted-row"),
        pytest.param(
            FAILURES.replace(F2, "| F-002 | pip install | resolver loop | use uv |\n"),
            ["immutable_cell_changed"],
            id="edited-row",
        ),
        pytest.param(
            FAILURES.replace("| F-001 | go test", "|  F-001 |   go test"), [], id="padding"
        ),
    ],
)
def test_table_edit_decides_without_parsing(new: str, codes: list[str]) -> None:
    from rehydrate.guard.fastpath import table_edit

    fast = table_edit(FAILURES.encode(), new.encode(), Config(), PATHS["failures"])
    assert fast is not None and [v.code for v in fast] == codes
