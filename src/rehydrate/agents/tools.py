"""Refuse: a tool call is checked before it runs.

* Any tool: the first call after a compaction is held (refused once) until the verdict
  on the summary has been shown; a Write or Edit must not run on a summary that dropped
  a constraint.
* A shell command: refused when it repeats an active failed attempt (naming the row and
  its workaround), and every shell command is refused while the failed-attempts ledger
  cannot be read (fail closed: no repeat slips through unnoticed). Other tools stay
  allowed then, so that the agent can mend the ledger.

This runs on every tool call: a call that is not a shell command costs a few stat calls
and one rename attempt; no git process, no ledger read.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import GitError, RehydrateError
from ..quote import error, line, said
from .core import ALLOW, REFUSE, Outcome, Project, Runtime, find_repo, open_project
from .store import HOLD, PROMPT, claim


def check_tool_call(where: str, runtime: Runtime, command: str | None, shell: bool) -> Outcome:
    """Refuse or allow one tool call; ``command``: the shell command line, when ``shell``."""
    if not shell or command is None:
        unchecked = "rehydrate: no command in the shell tool call; allowed unchecked"
        note = unchecked if shell else None
        root = work_tree_root(where)
        if root is None:
            try:
                root = find_repo(where).root
            except GitError:
                return Outcome(note=note)
        return _held(root, runtime) or Outcome(note=note)
    try:
        project = open_project(where)
    except GitError as exc:
        return Outcome(note=f"rehydrate: {exc}; command allowed unchecked")
    except RehydrateError as exc:
        return Outcome(
            REFUSE,
            error(
                "rehydrate cannot read its configuration (the error is quoted below); fix "
                "it before running commands, so that failed attempts are checked.",
                exc,
            ),
        )
    held = _held(project.repo.root, runtime)
    if held is not None:
        return held
    return refuse_repeat(project, command)


def work_tree_root(where: str) -> Path | None:
    """The nearest folder at or above ``where`` holding a ``.git`` (a directory, or the
    file of a linked work tree or submodule): what ``git rev-parse --show-toplevel``
    answers, found with a few stat calls instead of a git process, since this runs
    before every tool call. None when there is none (then git is asked)."""
    if "\x00" in where:
        return None
    start = Path(where)
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def _held(root: Path, runtime: Runtime) -> Outcome | None:
    hold = claim(root, runtime.file(HOLD))
    if hold is None:
        return None
    from .compaction import held_text

    return Outcome(REFUSE, held_text(hold, runtime.file(PROMPT)) + " Then make the call again.")


def refuse_repeat(project: Project, command: str) -> Outcome:
    """Refuse ``command`` when it repeats an active failed attempt, or when the
    failed-attempts ledger cannot be read."""
    from .commands import check, load_failures

    try:  # the full parse that confirms a match on the bytes may fail too: both refuse
        checked = check(command, load_failures(project.repo, project.config))
    except RehydrateError as exc:
        return Outcome(
            REFUSE,
            error(
                f"rehydrate cannot read the failed-attempts ledger {line(exc.file or '')} "
                "(the error is quoted below). Commands stay blocked until it parses "
                "(`rehydrate state` shows the problem), so that no failed attempt is "
                "repeated unnoticed.",
                exc,
            ),
        )
    hits = checked.hits
    if not hits:  # what could not be parsed as shell is said, also when allowed
        return Outcome(ALLOW, note=f"rehydrate: {checked.note}" if checked.note else None)
    first = hits[0]
    more = f" ({len(hits) - 1} more matching rows)" if len(hits) > 1 else ""
    return Outcome(
        REFUSE,
        said(
            f"This repeats failed attempt {line(first.id)} ({first.kind} match) in "
            f"{line(first.path)}{more}; the row is quoted below. Use its workaround; if the "
            "situation has really changed, retire the row with a reason (rehydrate fail "
            f"retire {line(first.id)} --reason ...).",
            [
                f"Matched: {first.attempt}",
                f"Tried: {first.tried}",
                f"Failure: {first.failure}",
                f"Workaround: {first.workaround}",
                *([checked.note] if checked.note else []),
            ],
        ),
    )
