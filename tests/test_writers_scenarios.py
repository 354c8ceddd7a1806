"""Every writer verb, as a scenario on ledgers written the way people write them (CRLF, a
BOM, padded and extra columns, prose): only the intended row changes, byte for byte; Task's
revision rises by one; the commit passes the real pre-commit hook and `guard --range`;
and each refusal carries the guard's own code and fix (the same code the hook gives the
same change made by hand), next to a legitimate twin that passes."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import click
import pytest

from conftest import commit, git, run, write
from rehydrate.guard.rules import FIXES
from rehydrate.ledgers import parse_ledger

SPEC = """\
---
ledger: spec
---
# Spec

Prose before the tables stays.

## Constraints

| ID    | Rule                  | Level      | Source | Note |
|-------|-----------------------|------------|--------|------|
| C-007 | keep logs short       | SHOULD     | alice  | keep |
| C-008 | never push to main    | MUST NOT   | bob    |      |
| C-009 | maybe cache responses | MAY        |        |      |

## Contracts

| ID | Subject | Contract | Source | Since |
|---|---|---|---|---|
| K-001 | user IDs | UUIDv7 strings | ADR-3 | 1.0 |

## Decisions

| ID | Question | Status | Decision | Owner | Due | Source | Ticket |
|---|---|---|---|---|---|---|---|
| D-001 | which cache? | open |  | bob | 2030-01-01 |  | T-9 |
| D-002 | which queue? | decided | SQS | ana | 2029-01-01 | ADR-4 |  |

A paragraph between the tables stays too.

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|

Trailing prose.
"""

TASK = """\
---
ledger: task
task: T-9
revision: 41
objective: ship it
---
# Task

## Phases

| ID | Phase        | Status | Estimate |
|----|--------------|--------|----------|
| P1 | reproduce    | done   | 1d       |
| P2 | fix          | doing  | 2d       |
| P3 | release      | todo   | 1d       |

## Next action

- write the failing test

## Obligations

| ID | Obligation | Status | Who |
|---|---|---|---|
| O-001 | tell the reviewer | open | me |

## External writes

| ID | Operation | Status | Idempotency key | Evidence |
|---|---|---|---|---|
| E-001 | create tag | pending | k-1 | |
| E-002 | publish docs | confirmed | k-2 | seen on the site |
| E-003 | upload build | pending | k-3 | |
| E-004 | rotate keys | unknown | k-4 | |

## Approvals

| ID | Scope | Status | Source | Expires |
|---|---|---|---|---|
| A-001 | one deploy | granted | ana in #ops | 2030-01-01 |
| A-002 | one migration | consumed | bob | |

## Verified

| ID | Check | Artifact | Blob | Report |
|---|---|---|---|---|

## Completion checks

| ID | Check | Status |
|---|---|---|
| X-001 | suite passes | open |

## Rollback

revert the commits
"""

FAILURES = """\
---
ledger: failures
---
# Failed attempts

> Append only.

| ID | Tried | Failure | Workaround | Seen on |
|----|-------|---------|------------|---------|
| F-009 | `go test -tags=musl ./...` | linker crash | use default tags | mac |

Notes after the table stay.

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
"""

PATHS = {"spec": "docs/Spec.md", "task": "docs/Task.md", "failures": "docs/Failed_Attempts.md"}
KIND_OF = {path: kind for kind, path in PATHS.items()}


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


@pytest.fixture
def ledgers(repo: Path) -> Path:
    """BOM + CRLF ledgers with extra columns and prose, committed; then the real hook."""
    write(repo, PATHS["spec"], "\ufeff" + _crlf(SPEC), dedent=False)
    write(repo, PATHS["task"], _crlf(TASK), dedent=False)
    write(repo, PATHS["failures"], _crlf(FAILURES), dedent=False)
    write(repo, "src/app.py", "print('hi')\n")
    commit(repo, "styled ledgers")
    assert run(repo, "hook", "install").code == 0  # every commit from here on is guarded
    return repo


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _changes(before: bytes, after: bytes) -> tuple[list[bytes], list[bytes]]:
    """(removed lines, added lines), each with its own line ending."""
    old, new = _lines(before), _lines(after)
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new).get_opcodes():
        if tag in ("replace", "delete"):
            removed += old[i1:i2]
        if tag in ("replace", "insert"):
            added += new[j1:j2]
    return removed, added


# (argv, ledger path, printed ID, lines removed, lines added): every verb, once.
VERBS = [
    pytest.param(
        ("spec", "constraint", "add", "--level", "MUST", "--rule", "sign releases"),
        "docs/Spec.md",
        "C-010",
        [],
        [b"| C-010 | sign releases | MUST |  |  |\r\n"],
        id="spec-constraint-add",
    ),
    pytest.param(
        ("spec", "constraint", "strengthen", "C-007", "--level", "must"),
        "docs/Spec.md",
        "C-007",
        [b"| C-007 | keep logs short       | SHOULD     | alice  | keep |\r\n"],
        [b"| C-007 | keep logs short       | MUST       | alice  | keep |\r\n"],
        id="spec-constraint-strengthen",
    ),
    pytest.param(
        ("spec", "constraint", "strengthen", "C-009", "--level", "SHOULD NOT"),
        "docs/Spec.md",
        "C-009",
        [b"| C-009 | maybe cache responses | MAY        |        |      |\r\n"],
        [b"| C-009 | maybe cache responses | SHOULD NOT |        |      |\r\n"],
        id="spec-constraint-strengthen-from-may",
    ),
    pytest.param(
        (
            "spec",
            "contract",
            "add",
            "--subject",
            "order IDs",
            "--contract",
            "ULID",
            "--source",
            "x",
        ),
        "docs/Spec.md",
        "K-002",
        [],
        [b"| K-002 | order IDs | ULID | x |  |\r\n"],
        id="spec-contract-add",
    ),
    pytest.param(
        (
            "spec",
            "decision",
            "add",
            "--question",
            "retry budget?",
            "--owner",
            "cy",
            "--due",
            "2031",
        ),
        "docs/Spec.md",
        "D-003",
        [],
        [b"| D-003 | retry budget? | open |  | cy | 2031 |  |  |\r\n"],
        id="spec-decision-add",
    ),
    pytest.param(
        ("spec", "decision", "assign", "D-001", "--owner", "dee", "--due", "2030-02-02"),
        "docs/Spec.md",
        "D-001",
        [b"| D-001 | which cache? | open |  | bob | 2030-01-01 |  | T-9 |\r\n"],
        [b"| D-001 | which cache? | open |  | dee | 2030-02-02 |  | T-9 |\r\n"],
        id="spec-decision-assign",
    ),
    pytest.param(
        ("spec", "decision", "decide", "D-001", "--decision", "redis", "--source", "ADR-5"),
        "docs/Spec.md",
        "D-001",
        [b"| D-001 | which cache? | open |  | bob | 2030-01-01 |  | T-9 |\r\n"],
        [b"| D-001 | which cache? | decided | redis | bob | 2030-01-01 | ADR-5 | T-9 |\r\n"],
        id="spec-decision-decide",
    ),
    pytest.param(
        ("spec", "decide", "D-001", "--decision", "redis", "--source", "ADR-5"),
        "docs/Spec.md",
        "D-001",
        [b"| D-001 | which cache? | open |  | bob | 2030-01-01 |  | T-9 |\r\n"],
        [b"| D-001 | which cache? | decided | redis | bob | 2030-01-01 | ADR-5 | T-9 |\r\n"],
        id="spec-decide-alias",
    ),
    pytest.param(
        ("retire", "C-008", "--reason", "moved to CI", "--date", "2026-02-03"),
        "docs/Spec.md",
        "C-008",
        [],
        [b"| C-008 | moved to CI | 2026-02-03 |  |\r\n"],
        id="retire-finds-spec",
    ),
    pytest.param(
        (
            "retire",
            "C-007",
            "--reason",
            "superseded",
            "--replaced-by",
            "K-001",
            "--date",
            "2026-02-03",
        ),
        "docs/Spec.md",
        "C-007",
        [],
        [b"| C-007 | superseded | 2026-02-03 | K-001 |\r\n"],
        id="retire-replaced-by-an-existing-item",
    ),
    pytest.param(
        ("spec", "retire", "O-001", "--reason", "dropped", "--date", "2026-02-03"),
        "docs/Task.md",
        "O-001",
        [],
        [
            b"\r\n",
            b"## Retired\r\n",
            b"\r\n",
            b"| ID | Reason | Date | Replaced by |\r\n",
            b"|---|---|---|---|\r\n",
            b"| O-001 | dropped | 2026-02-03 |  |\r\n",
        ],
        id="spec-retire-alias-finds-task",
    ),
    pytest.param(
        ("task", "objective", "ship it: all of it"),
        "docs/Task.md",
        "objective",
        [b"objective: ship it\r\n"],
        [b"objective: 'ship it: all of it'\r\n"],
        id="task-objective-quoted-when-yaml-needs-it",
    ),
    pytest.param(
        ("task", "objective", "ship the fix"),
        "docs/Task.md",
        "objective",
        [b"objective: ship it\r\n"],
        [b"objective: ship the fix\r\n"],
        id="task-objective-plain",
    ),
    pytest.param(
        ("task", "next", "run the failing test"),
        "docs/Task.md",
        "next action",
        [b"- write the failing test\r\n"],
        [b"- run the failing test\r\n"],
        id="task-next",
    ),
    pytest.param(
        ("task", "phase", "add", "--phase", "write docs"),
        "docs/Task.md",
        "P4",
        [],
        [b"| P4 | write docs | todo |  |\r\n"],
        id="task-phase-add-last",
    ),
    pytest.param(
        ("task", "phase", "add", "--phase", "review", "--before", "P3"),
        "docs/Task.md",
        "P4",
        [],
        [b"| P4 | review | todo |  |\r\n"],
        id="task-phase-add-before-a-todo-phase",
    ),
    pytest.param(
        ("task", "phase", "start", "P3"),
        "docs/Task.md",
        "P3",
        [b"| P3 | release      | todo   | 1d       |\r\n"],
        [b"| P3 | release      | doing  | 1d       |\r\n"],
        id="task-phase-start",
    ),
    pytest.param(
        ("task", "phase", "done", "P2"),
        "docs/Task.md",
        "P2",
        [b"| P2 | fix          | doing  | 2d       |\r\n"],
        [b"| P2 | fix          | done   | 2d       |\r\n"],
        id="task-phase-done",
    ),
    pytest.param(
        ("task", "phase", "P3", "done"),
        "docs/Task.md",
        "P3",
        [b"| P3 | release      | todo   | 1d       |\r\n"],
        [b"| P3 | release      | done   | 1d       |\r\n"],
        id="task-phase-ID-STATUS-the-older-spelling",
    ),
    pytest.param(
        ("task", "phase", "move", "P3", "doing"),
        "docs/Task.md",
        "P3",
        [b"| P3 | release      | todo   | 1d       |\r\n"],
        [b"| P3 | release      | doing  | 1d       |\r\n"],
        id="task-phase-move",
    ),
    pytest.param(
        ("task", "obligation", "add", "update the changelog"),
        "docs/Task.md",
        "O-002",
        [],
        [b"| O-002 | update the changelog | open |  |\r\n"],
        id="task-obligation-add",
    ),
    pytest.param(
        ("task", "obligation", "done", "O-001"),
        "docs/Task.md",
        "O-001",
        [b"| O-001 | tell the reviewer | open | me |\r\n"],
        [b"| O-001 | tell the reviewer | done | me |\r\n"],
        id="task-obligation-done",
    ),
    pytest.param(
        ("task", "write", "add", "--operation", "publish 1.2", "--idempotency-key", "pub-12"),
        "docs/Task.md",
        "E-005",
        [],
        [b"| E-005 | publish 1.2 | pending | pub-12 |  |\r\n"],
        id="task-write-add",
    ),
    pytest.param(
        ("task", "write", "unknown", "E-001"),
        "docs/Task.md",
        "E-001",
        [b"| E-001 | create tag | pending | k-1 | |\r\n"],
        [b"| E-001 | create tag | unknown | k-1 | |\r\n"],
        id="task-write-unknown",
    ),
    pytest.param(
        ("task", "write", "settle", "E-001", "--status", "not_applied", "--evidence", "no tag"),
        "docs/Task.md",
        "E-001",
        [b"| E-001 | create tag | pending | k-1 | |\r\n"],
        [b"| E-001 | create tag | not_applied | k-1 | no tag |\r\n"],
        id="task-write-settle",
    ),
    pytest.param(
        ("task", "approval", "add", "--scope", "one rollback", "--source", "ana, #ops, 2026-02-03"),
        "docs/Task.md",
        "A-003",
        [],
        [b"| A-003 | one rollback | granted | ana, #ops, 2026-02-03 |  |\r\n"],
        id="task-approval-add",
    ),
    pytest.param(
        ("task", "approval", "consume", "A-001"),
        "docs/Task.md",
        "A-001",
        [b"| A-001 | one deploy | granted | ana in #ops | 2030-01-01 |\r\n"],
        [b"| A-001 | one deploy | consumed | ana in #ops | 2030-01-01 |\r\n"],
        id="task-approval-consume",
    ),
    pytest.param(
        ("task", "approval", "expire", "A-001"),
        "docs/Task.md",
        "A-001",
        [b"| A-001 | one deploy | granted | ana in #ops | 2030-01-01 |\r\n"],
        [b"| A-001 | one deploy | expired | ana in #ops | 2030-01-01 |\r\n"],
        id="task-approval-expire",
    ),
    pytest.param(
        ("task", "approval", "revoke", "A-001"),
        "docs/Task.md",
        "A-001",
        [b"| A-001 | one deploy | granted | ana in #ops | 2030-01-01 |\r\n"],
        [b"| A-001 | one deploy | revoked | ana in #ops | 2030-01-01 |\r\n"],
        id="task-approval-revoke",
    ),
    pytest.param(
        ("task", "check", "add", "docs build"),
        "docs/Task.md",
        "X-002",
        [],
        [b"| X-002 | docs build | open |\r\n"],
        id="task-check-add",
    ),
    pytest.param(
        ("task", "check", "pass", "X-001"),
        "docs/Task.md",
        "X-001",
        [b"| X-001 | suite passes | open |\r\n"],
        [b"| X-001 | suite passes | passed |\r\n"],
        id="task-check-pass",
    ),
    pytest.param(
        ("task", "verified", "add", "--check", "unit", "--artifact", "src/app.py"),
        "docs/Task.md",
        "V-001",
        [],
        [b"| V-001 | unit | src/app.py | BLOB |  |\r\n"],
        id="task-verified-add",
    ),
    pytest.param(
        ("fail", "add", "--tried", "`cargo build`", "--failure", "oom", "--workaround", "CI"),
        "docs/Failed_Attempts.md",
        "F-010",
        [],
        [b"| F-010 | `cargo build` | oom | CI |  |\r\n"],
        id="fail-add",
    ),
    pytest.param(
        ("fail", "retire", "F-009", "--reason", "fixed upstream", "--date", "2026-02-03"),
        "docs/Failed_Attempts.md",
        "F-009",
        [],
        [b"| F-009 | fixed upstream | 2026-02-03 |  |\r\n"],
        id="fail-retire",
    ),
    pytest.param(
        (
            "retire",
            "E-003",
            "--reason",
            "never run",
            "--date",
            "2026-02-03",
            "--expect-revision",
            "41",
        ),
        "docs/Task.md",
        "E-003",
        [],
        [
            b"\r\n",
            b"## Retired\r\n",
            b"\r\n",
            b"| ID | Reason | Date | Replaced by |\r\n",
            b"|---|---|---|---|\r\n",
            b"| E-003 | never run | 2026-02-03 |  |\r\n",
        ],
        id="retire-a-pending-write-with-expect-revision",
    ),
]


@pytest.mark.parametrize(("args", "path", "item_id", "removed", "added"), VERBS)
def test_each_writer_changes_only_its_row_and_passes_the_guard(
    ledgers: Path,
    args: tuple[str, ...],
    path: str,
    item_id: str,
    removed: list[bytes],
    added: list[bytes],
) -> None:
    base = git(ledgers, "rev-parse", "HEAD").stdout.strip()
    before = {p: (ledgers / p).read_bytes() for p in PATHS.values()}
    blob = git(ledgers, "hash-object", path).stdout.strip()
    result = run(ledgers, *args, "--expect-blob", blob[:10], "--commit", "--json")
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert (out["schema"], out["id"], out["path"], out["blob_before"]) == (
        "rehydrate/write-v1",
        item_id,
        path,
        blob,
    )
    artifact = git(ledgers, "hash-object", "src/app.py").stdout.strip()
    added = [line.replace(b"BLOB", artifact.encode()) for line in added]
    after = (ledgers / path).read_bytes()
    if path == PATHS["task"]:  # every Task write raises revision by exactly one
        removed, added = [b"revision: 41\r\n", *removed], [b"revision: 42\r\n", *added]
        assert out["revision"] == 42
    else:
        assert out["revision"] is None
    assert _changes(before[path], after) == (removed, added)
    assert after.startswith(b"\xef\xbb\xbf") == before[path].startswith(b"\xef\xbb\xbf")
    for other, data in before.items():  # no other ledger moved
        if other != path:
            assert (ledgers / other).read_bytes() == data
    assert git(ledgers, "show", "--name-only", "--format=", "HEAD").stdout.split() == [path]
    assert out["commit"] == git(ledgers, "rev-parse", "HEAD").stdout.strip()
    guarded = run(ledgers, "guard", "--range", f"{base}..HEAD")
    assert guarded.code == 0, guarded.err


def test_a_todo_phase_inserted_above_keeps_the_other_rows_in_order(ledgers: Path) -> None:
    assert run(ledgers, "task", "phase", "add", "--phase", "review", "--before", "P3").code == 0
    assert run(ledgers, "task", "phase", "add", "--phase", "docs", "--before", "P3").code == 0
    state = json.loads(run(ledgers, "state", "--json").out)
    phases = [p["id"] for p in state["ledgers"]["task"]["items"]["phases"]]
    assert phases == ["P1", "P2", "P4", "P5", "P3"]
    commit(ledgers, "two phases")  # the hook's phase_reordered rule has nothing to say
    assert run(ledgers, "guard", "--range", "HEAD~1..HEAD").code == 0


# (argv, exit code, the code on stderr, a hand edit (ledger, old text, new text) the hook
# refuses with the same code (None: a writer's own rule), the legitimate twin that passes).
REFUSALS = [
    pytest.param(
        ("spec", "constraint", "strengthen", "C-008", "--level", "SHOULD NOT"),
        1,
        "level_weakened",
        ("spec", "| MUST NOT   | bob", "| SHOULD NOT | bob"),
        ("spec", "constraint", "strengthen", "C-007", "--level", "MUST"),
        id="strengthen-weaker",
    ),
    pytest.param(
        ("spec", "constraint", "strengthen", "C-007", "--level", "SHOULD NOT"),
        1,
        "level_rewritten",
        ("spec", "| SHOULD     | alice", "| SHOULD NOT | alice"),
        ("spec", "constraint", "strengthen", "C-007", "--level", "MUST"),
        id="strengthen-opposite-polarity",
    ),
    pytest.param(
        ("spec", "constraint", "strengthen", "C-008", "--level", "MUST NOT"),
        1,
        "no_change",
        None,
        ("spec", "constraint", "strengthen", "C-009", "--level", "MUST NOT"),
        id="strengthen-to-the-same-level",
    ),
    pytest.param(
        ("spec", "decision", "assign", "D-002", "--owner", "zed"),
        1,
        "immutable_cell_changed",
        ("spec", "| SQS | ana |", "| SQS | zed |"),
        ("spec", "decision", "assign", "D-001", "--owner", "zed"),
        id="assign-a-decided-decision",
    ),
    pytest.param(
        ("spec", "decision", "assign", "D-001"),
        2,
        "usage",
        None,
        ("spec", "decision", "assign", "D-001", "--due", "2031-01-01"),
        id="assign-nothing",
    ),
    pytest.param(
        ("spec", "decision", "decide", "D-002", "--decision", "Kafka", "--source", "me"),
        1,
        "immutable_cell_changed",
        ("spec", "| decided | SQS |", "| decided | Kafka |"),
        ("spec", "decision", "decide", "D-001", "--decision", "Kafka", "--source", "me"),
        id="decide-a-decided-decision-differently",
    ),
    pytest.param(
        ("task", "phase", "start", "P1"),
        1,
        "status_moved_backwards",
        ("task", "| P1 | reproduce    | done ", "| P1 | reproduce    | doing"),
        ("task", "phase", "start", "P3"),
        id="phase-backwards",
    ),
    pytest.param(
        ("task", "phase", "add", "--phase", "late", "--before", "P2"),
        2,
        "phase_not_todo",
        None,
        ("task", "phase", "add", "--phase", "late", "--before", "P3"),
        id="phase-above-a-started-phase",
    ),
    pytest.param(
        ("task", "approval", "consume", "A-002"),
        1,
        "no_change",
        None,
        ("task", "approval", "consume", "A-001"),
        id="consume-twice",
    ),
    pytest.param(
        ("task", "approval", "expire", "A-002"),
        1,
        "status_move_not_allowed",
        ("task", "| one migration | consumed |", "| one migration | expired |"),
        ("task", "approval", "expire", "A-001"),
        id="expire-a-consumed-approval",
    ),
    pytest.param(
        ("task", "write", "unknown", "E-002"),
        1,
        "settled_write_changed",
        ("task", "| publish docs | confirmed |", "| publish docs | unknown |"),
        ("task", "write", "unknown", "E-001"),
        id="unknown-after-settled",
    ),
    pytest.param(
        ("task", "write", "settle", "E-002", "--status", "not_applied", "--evidence", "x"),
        1,
        "settled_write_changed",
        ("task", "| publish docs | confirmed |", "| publish docs | not_applied |"),
        ("task", "write", "settle", "E-001", "--status", "not_applied", "--evidence", "x"),
        id="settle-twice",
    ),
    pytest.param(
        ("retire", "E-004", "--reason", "gave up"),
        1,
        "retired_unknown_write",
        (
            "task",
            "revert the commits\r\n",
            "revert the commits\r\n\r\n## Retired\r\n\r\n| ID | Reason | Date | Replaced by |\r\n"
            "|---|---|---|---|\r\n| E-004 | gave up | 2026-01-01 | |\r\n",
        ),
        ("task", "write", "settle", "E-004", "--status", "confirmed", "--evidence", "keys seen"),
        id="retire-an-unknown-write",
    ),
    pytest.param(
        ("task", "next", "fix it; then push"),
        1,
        "next_action_not_single",
        ("task", "- write the failing test", "- fix it; then push"),
        ("task", "next", "fix it"),
        id="next-action-chained",
    ),
    pytest.param(
        ("task", "objective", "ship\u200bit"),
        2,
        "bad_value",
        None,
        ("task", "objective", "ship it now"),
        id="objective-invisible-character",
    ),
    pytest.param(
        ("task", "objective", "ship it"),
        1,
        "no_change",
        None,
        ("task", "objective", "ship it today"),
        id="objective-unchanged",
    ),
    pytest.param(
        ("retire", "C-007", "--reason", "r", "--replaced-by", "C-007"),
        2,
        "replaced_by_self",
        None,
        ("retire", "C-007", "--reason", "r", "--replaced-by", "C-008"),
        id="retire-replaced-by-itself",
    ),
    pytest.param(
        ("retire", "C-007", "--reason", "r", "--replaced-by", "C-404"),
        2,
        "replaced_by_unknown",
        None,
        ("retire", "C-007", "--reason", "r", "--replaced-by", "F-009"),
        id="retire-replaced-by-nothing",
    ),
    pytest.param(
        ("retire", "Z-1", "--reason", "r"),
        2,
        "unknown_id",
        None,
        ("retire", "X-001", "--reason", "r"),
        id="retire-unknown-id",
    ),
    pytest.param(
        ("retire", "C-007", "--reason", "r", "--expect-revision", "41"),
        2,
        "usage",
        None,
        ("retire", "O-001", "--reason", "r", "--expect-revision", "41"),
        id="expect-revision-on-a-spec-item",
    ),
]


@pytest.mark.parametrize(("args", "code", "rule", "by_hand", "twin"), REFUSALS)
def test_each_refusal_carries_the_guard_code_and_its_twin_passes(
    ledgers: Path,
    args: tuple[str, ...],
    code: int,
    rule: str,
    by_hand: tuple[str, str, str] | None,
    twin: tuple[str, ...],
) -> None:
    before = {p: (ledgers / p).read_bytes() for p in PATHS.values()}
    result = run(ledgers, *args)
    assert (result.code, result.out) == (code, ""), result.err
    assert f"{rule}:" in result.err
    if rule in FIXES:  # a guard rule: its own fix comes with it
        assert FIXES[rule] in result.err
    for path, data in before.items():
        assert (ledgers / path).read_bytes() == data, f"{path} was written"
    if by_hand is not None:  # the hook refuses the same change made in an editor
        kind, old, new = by_hand
        path = PATHS[kind]
        text = before[path].decode("utf-8")
        assert old in text, old
        edited = text.replace(old, new, 1).replace("revision: 41", "revision: 42")
        (ledgers / path).write_bytes(edited.encode("utf-8"))
        git(ledgers, "add", path)
        hook = git(ledgers, "commit", "-q", "-m", "by hand", check=False)
        assert hook.returncode != 0 and f"{rule} " in hook.stderr, hook.stderr
        git(ledgers, "reset", "-q", "--hard")
    base = git(ledgers, "rev-parse", "HEAD").stdout.strip()
    passed = run(ledgers, *twin, "--commit")
    assert passed.code == 0, passed.err
    guarded = run(ledgers, "guard", "--range", f"{base}..HEAD")
    assert guarded.code == 0, guarded.err


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_approval_add_adds_the_source_column_itself_byte_exact(repo: Path, eol: str) -> None:
    """The contract's own columns (ID | Scope | Status): the writer adds Source; every row
    gains one empty cell, every other byte (padding, CRLF, prose) is as it was."""
    table = (
        "| ID    | Scope        | Status  |",
        "|-------|--------------|---------|",
        "| A-001 | one rollback | granted |   ",
    )
    task = "---\nledger: task\nrevision: 3\n---\n# Task\n\n## Approvals\n\n" + "\n".join(table)
    task += "\n\nProse after the table.\n"
    write(repo, PATHS["task"], task.replace("\n", eol), dedent=False)
    commit(repo, "the contract's columns")
    added = run(
        repo, "task", "approval", "add", "--scope", "one deploy", "--source", "ana", "--commit"
    )
    assert (added.code, added.out) == (0, "A-002\n"), added.err
    after = (repo / PATHS["task"]).read_bytes()
    grown = (
        table[0] + " Source |",
        table[1] + "---|",
        "| A-001 | one rollback | granted |  |   ",
        "| A-002 | one deploy | granted | ana |",
    )
    expected = task.replace("revision: 3", "revision: 4").replace(
        "\n".join(table), "\n".join(grown)
    )
    expected = expected.replace("\n", eol).encode()
    assert after == expected
    assert run(repo, "guard", "--range", "HEAD~1..HEAD").code == 0


def test_decision_assign_adds_a_missing_owner_column(repo: Path) -> None:
    spec = (
        "---\nledger: spec\n---\n# Spec\n\n## Decisions\n\n"
        "| ID | Question | Status |\n|---|---|---|\n| D-001 | Which bucket? | open |\n"
    )
    write(repo, PATHS["spec"], spec, dedent=False)
    commit(repo, "decisions without owner")
    assigned = run(repo, "spec", "decision", "assign", "D-001", "--owner", "Maya", "--commit")
    assert assigned.code == 0, assigned.err
    text = (repo / PATHS["spec"]).read_text()
    assert (
        "| ID | Question | Status | Owner |\n|---|---|---|---|\n"
        "| D-001 | Which bucket? | open | Maya |" in text
    )


def test_approval_add_creates_the_table_with_a_source_column(repo: Path) -> None:
    write(repo, PATHS["task"], "---\nledger: task\nrevision: 1\n---\n# Task\n")
    commit(repo, "bare task")
    added = run(repo, "task", "approval", "add", "--scope", "one deploy", "--source", "ana")
    assert added.code == 0, added.err
    text = (repo / PATHS["task"]).read_text()
    assert "| ID | Scope | Status | Source |\n|---|---|---|---|\n| A-001 | one deploy" in text


def test_objective_is_added_when_the_front_matter_has_none(repo: Path) -> None:
    write(repo, PATHS["task"], "---\nledger: task\nrevision: 1\n---\n# Task\n")
    commit(repo, "bare task")
    assert run(repo, "task", "objective", "# ship: 'it'").code == 0
    data = (repo / PATHS["task"]).read_text()
    assert data.startswith("---\nledger: task\nrevision: 2\nobjective: '# ship: ''it'''\n---\n")
    assert parse_ledger("task", PATHS["task"], data.encode()).objective == "# ship: 'it'"


def test_an_objective_written_over_several_lines_is_replaced_whole(repo: Path) -> None:
    write(repo, PATHS["task"], "---\nrevision: 1\nobjective: >-\n  ship\n  it\nledger: task\n---\n")
    commit(repo, "folded objective")
    assert run(repo, "task", "objective", "ship the fix").code == 0
    data = (repo / PATHS["task"]).read_text()
    assert data == "---\nrevision: 2\nobjective: ship the fix\nledger: task\n---\n"


# Commands under the writer groups that write no ledger (the failures the agent hooks
# captured live in .rehydrate/pending-failures.json): no CAS, no --commit.
NOT_LEDGER_WRITERS = {("fail", "pending"), ("fail", "dismiss")}


def _writers() -> list[tuple[tuple[str, ...], click.Command]]:
    from rehydrate.cli import cli

    ctx = click.Context(cli)
    found = []

    def walk(command: click.Command, path: tuple[str, ...]) -> None:
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=path[-1], parent=ctx)
            for name in command.list_commands(sub_ctx):
                sub = command.get_command(sub_ctx, name)
                assert sub is not None
                walk(sub, (*path, name))
        elif path not in NOT_LEDGER_WRITERS:
            found.append((path, command))

    for name in ("fail", "spec", "task", "retire"):
        command = cli.get_command(ctx, name)
        assert command is not None
        walk(command, (name,))
    return found


@pytest.mark.parametrize(
    ("path", "command"), [pytest.param(p, c, id=" ".join(p)) for p, c in _writers()]
)
def test_every_writer_takes_json_expect_blob_commit_and_expect_revision_where_it_applies(
    path: tuple[str, ...], command: click.Command
) -> None:
    options = {name for param in command.params for name in getattr(param, "opts", ())}
    assert {"--json", "--expect-blob", "--commit"} <= options, path
    applies = path[0] == "task" or path[-1] == "retire" and path[0] != "fail"
    assert ("--expect-revision" in options) == applies, path


def test_fail_add_help_offers_no_expect_revision(ledgers: Path) -> None:
    shown = run(ledgers, "fail", "add", "--help")
    assert shown.code == 0 and "--expect-blob" in shown.out
    assert "--expect-revision" not in shown.out
    assert "--expect-revision" in run(ledgers, "task", "check", "add", "--help").out
