"""What a judged session means for the run (pure): go on, or stop with which exit code.

In order: Ctrl-C (130) · a violation (1, unless reverted on request) · blocked on
reconciliation (3) · done (0) · a time or cost limit (1) · a stall (1) · go on. A reverted
session counts as one without progress.
"""

from __future__ import annotations

from ..continuity import sessions as record
from ..errors import EXIT_BLOCKED, EXIT_INTERRUPTED, EXIT_OK, EXIT_REFUSED
from ..records import NamedTuple
from .judge import Judgement
from .launch import Ending
from .options import RunOptions


class Verdict(NamedTuple):
    verdict: str  # the record's verdict (continuity.sessions)
    code: int | None  # the run's exit code; None: start the next session
    reason: str  # done | blocked | violation | stalled | limit | interrupted | ""
    message: str
    stalled: int  # sessions in a row without progress, this one included
    cost: float  # the run's cost so far


def _violations(judgement: Judgement) -> str:
    return "\n".join(f"  {v}" for v in judgement.violations)


def decide_session(
    options: RunOptions,
    number: int,
    judgement: Judgement,
    ending: Ending,
    stalled: int,
    cost: float,
    reverted: bool,
    session_cost: float | None,
) -> Verdict:
    """The verdict on session ``number``; ``stalled`` and ``cost``: the run's before it;
    ``session_cost``: what the agent reported for this session (None: nothing)."""
    cost += session_cost or 0.0
    stalled = 0 if judgement.progress and not reverted else stalled + 1

    def stop(verdict: str, code: int, reason: str, message: str) -> Verdict:
        return Verdict(verdict, code, reason, message, stalled, cost)

    count = len(judgement.violations)
    if ending.ended_by == record.INTERRUPTED:
        return stop(
            record.STOPPED,
            EXIT_INTERRUPTED,
            "interrupted",
            f"interrupted: session #{number} was ended (SIGTERM, then SIGKILL after "
            f"{options.grace_seconds:g} s); the ledgers are whole, rerun to resume",
        )
    if reverted:
        return _limits(options, number, ending, stalled, cost, reverted)
    if count:
        return stop(
            record.VIOLATION,
            EXIT_REFUSED,
            "violation",
            f"violation: session #{number} weakened the ledgers ({count} refusal"
            f"{'s' * (count != 1)}; nothing was reverted, --on-violation revert would):\n"
            + _violations(judgement),
        )
    if judgement.blocked:
        return stop(
            record.BLOCKED,
            EXIT_BLOCKED,
            "blocked",
            f"blocked_on_reconciliation after session #{number}: the outcome of external "
            f"write {', '.join(judgement.blocked)} is unknown; reconcile it by reading "
            "(never by retrying), then `rehydrate task write settle`",
        )
    if judgement.done:
        return stop(
            record.DONE,
            EXIT_OK,
            "done",
            f"done after session #{number}: every completion check passed",
        )
    if options.max_cost is not None and session_cost is None:
        return stop(
            record.LIMIT,
            EXIT_REFUSED,
            "limit",
            f"limit: --max-cost {options.max_cost:g} cannot be kept: session #{number} "
            "reported no cost (claude: pass --output-format stream-json or json)",
        )
    return _limits(options, number, ending, stalled, cost, reverted)


def _limits(
    options: RunOptions, number: int, ending: Ending, stalled: int, cost: float, reverted: bool
) -> Verdict:
    going = record.REVERTED if reverted else record.CONTINUE
    if ending.ended_by in (record.SESSION_TIME, record.TOTAL_TIME):
        flag = (
            f"--max-minutes {options.max_minutes:g}"
            if ending.ended_by == record.SESSION_TIME
            else f"--max-total-minutes {options.max_total_minutes:g}"
        )
        return Verdict(
            record.LIMIT,
            EXIT_REFUSED,
            "limit",
            f"limit: {flag} reached in session #{number}, which was ended; rerun to continue",
            stalled,
            cost,
        )
    if options.max_cost is not None and cost >= options.max_cost:
        return Verdict(
            record.LIMIT,
            EXIT_REFUSED,
            "limit",
            f"limit: --max-cost {options.max_cost:g} reached after session #{number} "
            f"(${cost:.2f} so far)",
            stalled,
            cost,
        )
    if stalled >= options.stall:
        return Verdict(
            record.STALLED,
            EXIT_REFUSED,
            "stalled",
            f"stalled: no ledger progress in the last {stalled} session"
            f"{'s' * (stalled != 1)} (through #{number}; --stall {options.stall})",
            stalled,
            cost,
        )
    return Verdict(going, None, "", "", stalled, cost)
