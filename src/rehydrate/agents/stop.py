"""Hold the stop: the session goes on once while something would be lost by stopping.

Blocked while ledger changes are uncommitted, a ledger cannot be read, captured
failures are neither recorded nor dismissed, or a compaction verdict has not been shown
yet. Never twice in a row: when the runtime says the session already goes on because
of a stop hook, the stop is let through, so it cannot loop.
"""

from __future__ import annotations

from ..errors import GitError, RehydrateError
from ..quote import error
from .compaction import held_text
from .core import (
    BLOCK,
    Outcome,
    Project,
    Runtime,
    commit_hint,
    flagged_hint,
    open_project,
    settings_hint,
    uncommitted_ledgers,
)
from .judging import NotOptedIn
from .store import PROMPT, claim, holds_of


def check_stop(
    where: str, runtime: Runtime, continuing: bool, session: str | None = None
) -> Outcome:
    """Block the stop once, saying why and how to fix it; otherwise let it through."""
    if continuing:
        return Outcome(note="rehydrate: stop hook already active; not blocking again")
    try:
        project = open_project(where)
    except NotOptedIn:
        return Outcome()
    except GitError as exc:
        return Outcome(
            BLOCK, error("rehydrate cannot check the ledgers; fix git before stopping:", exc)
        )
    except RehydrateError as exc:
        return Outcome(
            BLOCK,
            error(
                "rehydrate cannot read its configuration (the error is quoted below). Fix it "
                "before stopping.",
                exc,
            ),
        )
    reasons = []
    for name in holds_of(session):
        hold = claim(project.repo.root, runtime.file(name))
        if hold is not None:
            reasons.append(held_text(hold, runtime.file(PROMPT)))
            break
    reasons.extend(_ledger_reasons(project))
    settings = settings_hint(project)
    if settings:
        reasons.append(settings)
    return Outcome(BLOCK, "\n\n".join(reasons)) if reasons else Outcome()


def _ledger_reasons(project: Project) -> list[str]:
    from ..errors import LedgerParseError
    from ..state import Source, load_state
    from .captured import listing, unrecorded

    reasons = []
    failures = None
    try:
        state = load_state(project.repo, project.config, Source("worktree"))
        failures = state.ledgers["failures"]
    except LedgerParseError as exc:
        reasons.append(
            error(
                "A ledger cannot be read (the error is quoted below). Fix it before stopping; "
                "the next session cannot rehydrate from a broken ledger.",
                exc,
            )
        )
    dirty = uncommitted_ledgers(project)
    if dirty:
        flags = flagged_hint(project, dirty)
        first = f"first {flags}, then " if flags else ""
        reasons.append(
            f"Ledger changes are not committed: {', '.join(dirty)}. Make sure Task's next "
            f"action and phases are current, then {first}commit them: {commit_hint(dirty)}."
        )
    left = unrecorded(project, failures)
    if left:
        reasons.append(listing(left, project.config.path_of("failures")))
    return reasons
