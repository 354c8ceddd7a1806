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
from .core import BLOCK, Outcome, Project, Runtime, commit_hint, open_project, uncommitted_ledgers
from .store import HOLD, PROMPT, claim


def check_stop(where: str, runtime: Runtime, continuing: bool) -> Outcome:
    """Block the stop once, saying why and how to fix it; otherwise let it through."""
    if continuing:
        return Outcome(note="rehydrate: stop hook already active; not blocking again")
    try:
        project = open_project(where)
    except GitError as exc:
        return Outcome(note=f"rehydrate: {exc}; stop not checked")
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
    hold = claim(project.repo.root, runtime.file(HOLD))
    if hold is not None:
        reasons.append(held_text(hold, runtime.file(PROMPT)))
    reasons.extend(_ledger_reasons(project))
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
        reasons.append(
            f"Ledger changes are not committed: {', '.join(dirty)}. Make sure Task's next "
            f"action and phases are current, then commit them: {commit_hint(dirty)}."
        )
    left = unrecorded(project, failures)
    if left:
        reasons.append(listing(left, project.config.path_of("failures")))
    return reasons
