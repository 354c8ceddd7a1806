"""Judge a session from the ledgers only: did it break them, did it move them, is the
task done or blocked.

* The guard runs over the session's commits (``HEAD_before..HEAD_after``, every commit
  against each parent, as ``rehydrate guard --range``) and over the ledger changes left
  uncommitted, as the pre-commit hook would judge them staged. A ``Rehydrate-Waiver:``
  trailer a session wrote itself is no excuse here: its violations count.
* Progress is a table of moves between the parsed ledgers before and after (``PROGRESS``):
  a new next action, a phase moved, an obligation or check closed, a failure or a
  decision recorded, an external write recorded or settled. Adding checks or
  obligations, retiring items and editing prose are not progress.
* Done: every active completion check passed (and there is at least one). Blocked: an
  external write's outcome is unknown (the continuity decision).
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import git
from ..config import Config
from ..continuity.decision import BLOCKED_ON_RECONCILIATION, decide
from ..diff import ADDED, CHANGED, diff_ledger
from ..errors import LedgerParseError
from ..ledgers import KINDS, Ledger
from ..records import NamedTuple
from ..state import Source, load_state, uncommitted_ledgers
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..guard.rules import Violation

STATUS = "status"
# (ledger kind, section) -> the changes that are progress: ADDED (a new row) and/or
# STATUS (a row's status moved; the guard has already refused the backward moves).
PROGRESS: Mapping[tuple[str, str], frozenset[str]] = {
    ("task", "phases"): frozenset({STATUS}),
    ("task", "obligations"): frozenset({STATUS}),
    ("task", "completion checks"): frozenset({STATUS}),
    ("task", "external writes"): frozenset({ADDED, STATUS}),
    ("task", "verified"): frozenset({ADDED}),
    ("failures", "failures"): frozenset({ADDED}),
    ("spec", "decisions"): frozenset({ADDED, STATUS}),
}
NEXT_ACTION = "next action changed"


class Snapshot(NamedTuple):
    """The work tree's ledgers at one moment, and HEAD."""

    head: str | None
    ledgers: Mapping[str, Ledger]


def snapshot(repo: git.Repo, config: Config) -> Snapshot:
    """HEAD and the parsed work-tree ledgers (a ledger that cannot be read raises)."""
    state = load_state(repo, config, Source("worktree"))
    return Snapshot(state.head, state.ledgers)


def progress(before: Mapping[str, Ledger], after: Mapping[str, Ledger]) -> tuple[str, ...]:
    """The moves from ``before`` to ``after`` that count as progress, in ledger order."""
    items: list[str] = []
    for kind in KINDS:
        diff = diff_ledger(before.get(kind), after.get(kind))
        if kind == "task" and diff.next_action is not None:
            items.append(NEXT_ACTION)
        for change in diff.items:
            counted = PROGRESS.get((kind, change.section), frozenset())
            if change.kind == ADDED and ADDED in counted:
                items.append(f"{change.item_id} recorded")
            elif change.kind == CHANGED and STATUS in counted:
                moved = change.moved("status")
                if moved is not None:
                    items.append(f"{change.item_id} {moved[0]}->{moved[1]}")
    return tuple(items)


def is_done(ledgers: Mapping[str, Ledger]) -> bool:
    checks = ledgers["task"].active("completion checks")
    return bool(checks) and all(c.status == "passed" for c in checks)


def blocked_writes(ledgers: Mapping[str, Ledger]) -> tuple[str, ...]:
    """The external writes to reconcile, each as ``ID (operation, key K)`` for the message."""
    decision = decide(ledgers)
    if decision.decision != BLOCKED_ON_RECONCILIATION:
        return ()
    rows = {w.id: w for w in ledgers["task"].section("external writes")}
    out = []
    for reason in decision.reasons:
        write = rows.get(reason.id or "")
        if write is None:
            continue
        key = f", key {write.idempotency_key}" if write.idempotency_key else ""
        out.append(f"{write.id} ({write.operation}{key})")
    return tuple(out)


class Judgement(NamedTuple):
    head_after: str | None
    commits: int
    violations: tuple[Violation, ...]
    uncommitted: tuple[str, ...]
    progress: tuple[str, ...]
    done: bool
    blocked: tuple[str, ...]  # external writes whose outcome is unknown


def guard_session(
    repo: git.Repo, config: Config, before: str, after: str, uncommitted: tuple[str, ...]
) -> tuple[Violation, ...]:
    """The guard's refusals over ``before..after`` and the uncommitted ledger changes."""
    from ..git.sessions import worktree_index
    from ..guard.range import check_range, resolve_range
    from ..guard.staged import check_staged

    found: list[Violation] = []
    if before != after:
        report = check_range(repo, resolve_range(repo, f"{before}..{after}"), fallback=config)
        found += report.violations
        found += [v for waived in report.waived for v in waived.violations]
    if uncommitted:
        with worktree_index(repo, uncommitted):
            found += check_staged(repo, config).violations
    return tuple(found)


def judge(repo: git.Repo, config: Config, before: Snapshot) -> Judgement:
    """Judge the session that started at ``before``, from the repository as it is now."""
    from ..git.sessions import count_between

    after_head = git.head(repo)
    uncommitted = tuple(uncommitted_ledgers(repo, config))
    if before.head is None or after_head is None:
        from ..errors import GitError

        raise GitError(
            "HEAD has no commit after the session",
            code="head_lost",
            fix="check out the branch the run started on (git reflog shows it)",
        )
    violations = guard_session(repo, config, before.head, after_head, uncommitted)
    try:
        after = snapshot(repo, config)
    except LedgerParseError as exc:
        if not violations:
            from ..guard.staged import parse_violation

            violations = (parse_violation(exc, exc.file or "ledger"),)
        return Judgement(
            after_head,
            count_between(repo, before.head, after_head),
            violations,
            uncommitted,
            (),
            False,
            (),
        )
    return Judgement(
        after_head,
        count_between(repo, before.head, after_head),
        violations,
        uncommitted,
        progress(before.ledgers, after.ledgers),
        is_done(after.ledgers),
        blocked_writes(after.ledgers),
    )
