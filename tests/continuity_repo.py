"""A realistic ledger set for the continuity tests (manifest, verify, envelope, check, summary)."""

from __future__ import annotations

from pathlib import Path

from conftest import commit, write

SPEC = """\
---
ledger: spec
---
# Spec

Billing export for the accounts team. Secret-ish prose: staging password is hunter2.

## Constraints

| ID | Rule | Level | Source |
|---|---|---|---|
| C-001 | Do not push to main directly | MUST NOT | user 2026-10-01 |
| C-002 | Every export is idempotent by invoice number | MUST | design review |
| C-003 | Prefer streaming writes over buffering | SHOULD | perf notes |
| C-004 | Do not print customer names in logs | MUST NOT | privacy |
| C-005 | Use the legacy CSV writer | SHOULD | old note |

## Contracts

| ID | Subject | Contract | Source |
|---|---|---|---|
| K-001 | export file | UTF-8 CSV, header row first | spec v1 |

## Decisions

| ID | Question | Status | Decision | Owner | Due | Source |
|---|---|---|---|---|---|---|
| D-001 | Which queue for retries? | open | | alice | 2026-12-01 | |
| D-002 | Compress exports? | decided | gzip | bob | | meeting 2026-10-03 |
| D-003 | Keep exports for 30 or 90 days? | open | | carol | 2026-12-15 | |

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
| C-005 | legacy writer removed | 2026-10-05 | C-003 |
"""

TASK = """\
---
ledger: task
task: T-042
revision: 7
objective: Ship the idempotent billing export without double-charging anyone
---
# Task

## Phases

| ID | Phase | Status |
|---|---|---|
| P1 | Reproduce the double export | done |
| P2 | Add idempotency keys | done |
| P3 | Backfill October invoices | doing |
| P4 | Remove the legacy path | todo |

## Next action

Reconcile E-002 by reading the billing API for key inv-2026-10-backfill

## Obligations

| ID | Obligation | Status |
|---|---|---|
| O-001 | Tell finance about the backfill window | open |
| O-002 | Update the runbook | done |
| O-003 | Rotate the staging token after the backfill | open |

## External writes

| ID | Operation | Status | Idempotency key | Evidence |
|---|---|---|---|---|
| E-001 | POST /exports for September | confirmed | inv-2026-09 | export id 881 |
| E-002 | POST /exports backfill October | unknown | inv-2026-10-backfill | |
| E-003 | Notify finance channel | pending | notify-oct | |

## Approvals

| ID | Scope | Status |
|---|---|---|
| A-001 | One production backfill run | consumed |
| A-002 | Read access to billing replica | granted |
| A-003 | Emergency hotfix window | expired |

## Verified

| ID | Check | Artifact | Blob | Report |
|---|---|---|---|---|

## Completion checks

| ID | Check | Status |
|---|---|---|
| X-001 | Full test suite passes | passed |
| X-002 | October totals match the ledger export | open |

## Rollback

Revert the export commits; delete backfill rows by idempotency key.
"""

FAILURES = """\
---
ledger: failures
---
# Failed attempts

| ID | Tried | Failure | Workaround |
|---|---|---|---|
| F-001 | Retry the backfill POST blindly | risked a double charge | reconcile by key first |
"""


def make_repo(repo: Path, *, task: str = TASK, spec: str = SPEC) -> str:
    """Write and commit the ledgers; return the commit id."""
    write(repo, "docs/Spec.md", spec, dedent=False)
    write(repo, "docs/Task.md", task, dedent=False)
    write(repo, "docs/Failed_Attempts.md", FAILURES, dedent=False)
    return commit(repo, "ledgers")


def settle_unknown(task: str = TASK) -> str:
    """TASK with E-002 reconciled (confirmed with evidence) and the next action moved on."""
    return (
        task.replace(
            "| unknown | inv-2026-10-backfill | |",
            "| confirmed | inv-2026-10-backfill | export id 902 |",
        )
        .replace("revision: 7", "revision: 8")
        .replace(
            "Reconcile E-002 by reading the billing API for key inv-2026-10-backfill",
            "Compare October totals with the ledger export",
        )
    )


def add_obligation(task: str = TASK) -> str:
    """``task`` with one more open obligation and the revision raised."""
    row = "| O-003 | Rotate the staging token after the backfill | open |\n"
    revision = next(line for line in task.splitlines() if line.startswith("revision: "))
    number = int(revision.split()[1])
    return task.replace(row, row + "| O-004 | Archive the backfill logs | open |\n").replace(
        revision, f"revision: {number + 1}"
    )
