"""Refuse: a tool call is checked before it runs.

* Any tool: the first call after a compaction is held (refused once) until the verdict
  on the summary has been shown; a Write or Edit must not run on a summary that dropped
  a constraint.
* A shell command: refused when it repeats an active failed attempt in any copy of the
  failed-attempts ledger, the work tree's, the index's or HEAD's (naming the row and its
  workaround), allowed with a note naming the row when it comes close to one
  (``ADVISE``: same program and subcommand, other options or arguments), and every shell
  command is refused while a ledger is missing or cannot be read, or git fails (fail
  closed: no repeat slips through unnoticed). Other tools stay allowed then, so that the
  agent can mend the ledger. What is judged, and where nothing is (a repository that has
  not opted in), is ``judging``'s.

This runs on every tool call: a call that is not a shell command costs a few stat calls
and one rename attempt; no git process, no ledger read.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import GitError, RehydrateError
from ..quote import error, line, said
from ..typecheck import TYPE_CHECKING
from .core import ALLOW, INJECT, REFUSE, Outcome, Project, Runtime, open_project, settings_hint
from .judging import HEAD, WORK_TREE, NotOptedIn, work_tree_root
from .store import PROMPT, claim, holds_of

if TYPE_CHECKING:
    from .failfile import FailureFile

__all__ = ["check_tool_call", "refuse_repeat", "work_tree_root"]

# Allowed, with ``text`` for the model where the runtime carries context with an allowed
# tool call (Claude Code, Codex, Cline); elsewhere ``note`` goes to the person's log.
ADVISE = "advise"


def check_tool_call(
    where: str, runtime: Runtime, command: str | None, shell: bool, session: str | None = None
) -> Outcome:
    """Refuse or allow one tool call; ``command``: the shell command line, when ``shell``;
    ``session``: the runtime's session id (a compaction holds only its own session)."""
    if not shell or command is None:
        unchecked = "rehydrate: no command in the shell tool call; allowed unchecked"
        note = unchecked if shell else None
        root = work_tree_root(where)
        if root is None:
            return Outcome()  # outside any git repository: nothing is guarded here
        return _held(root, runtime, session) or Outcome(note=note)
    try:
        project = open_project(where)
    except NotOptedIn:
        return Outcome()  # a repository that has not opted in: stay out of the way
    except GitError as exc:
        return _git_fails(exc)
    except RehydrateError as exc:
        return Outcome(
            REFUSE,
            error(
                "rehydrate cannot read its configuration (the error is quoted below); fix "
                "it before running commands, so that failed attempts are checked.",
                exc,
            ),
        )
    held = _held(project.repo.root, runtime, session)
    if held is not None:
        return held
    return refuse_repeat(project, command)


def _git_fails(exc: GitError) -> Outcome:
    """Every shell command refused while git fails here, with git's error quoted."""
    return Outcome(
        REFUSE,
        error(
            "rehydrate cannot check this command (git's error is quoted below). Commands "
            "stay blocked until git works here again, so that no failed attempt is "
            "repeated unchecked.",
            exc,
        ),
    )


def _held(root: Path, runtime: Runtime, session: str | None) -> Outcome | None:
    for name in holds_of(session):
        hold = claim(root, runtime.file(name))
        if hold is not None:
            from .compaction import held_text

            text = held_text(hold, runtime.file(PROMPT)) + " Then make the call again."
            return Outcome(REFUSE, text)
    return None


def _held_where(wheres: tuple[str, ...]) -> str:
    """Where a matching row is active, when the work tree's copy does not hold it so."""
    if WORK_TREE in wheres:
        return ""
    places = " and ".join("HEAD (committed)" if w == HEAD else "the index" for w in wheres)
    return (
        f" (still active in {places}: the work tree's change that drops it is not in "
        "force until it is committed, which the guard reviews)"
    )


def refuse_repeat(project: Project, command: str) -> Outcome:
    """Refuse ``command`` when it repeats an active failed attempt in any version of the
    failed-attempts ledger (work tree, index, HEAD), or when a ledger cannot be read."""
    from .commands import check, load_failures

    notes: list[str] = []
    files: list[tuple[tuple[str, ...], FailureFile]]
    try:  # the full parse that confirms a match on the bytes may fail too: both refuse
        if project.standing is None:
            files = [((WORK_TREE,), load_failures(project.repo, project.config))]
        else:
            from .readable import check_readable, failure_files

            check_readable(project.standing)
            files, notes = failure_files(project.standing)
        found = [(where, check(command, failures)) for where, failures in files]
    except GitError as exc:
        return _git_fails(exc)
    except RehydrateError as exc:
        failures = project.standing.paths("failures") if project.standing else []
        failures.append(project.config.path_of("failures"))
        what = "failed-attempts ledger" if exc.file in failures else "ledger"
        return Outcome(
            REFUSE,
            error(
                f"rehydrate cannot read the {what} {line(exc.file or '')} (the error is quoted "
                "below). Commands stay blocked until it parses (`rehydrate state` shows the "
                "problem), so that no failed attempt is repeated unnoticed.",
                exc,
            ),
        )
    settings = settings_hint(project)
    if settings:
        notes.append(settings)
    unparsed = found[0][1].note if found else ""
    hits = [(where, hit) for where, checked in found for hit in checked.hits]
    if not hits:
        advice = list({(h.id, h.attempt): h for _, c in found for h in c.advice}.values())
        if advice:  # allowed, with the close rows at the moment of action
            text = "\n".join(h.advice() for h in advice)
            extra = [unparsed] if unparsed else []
            return Outcome(ADVISE, text, note=" ".join([text, *extra, *notes]))
    if not hits:  # what could not be parsed as shell is said, also when allowed
        notes = [unparsed, *notes] if unparsed else notes
        return Outcome(ALLOW, note="rehydrate: " + " ".join(notes) if notes else None)
    where, first = hits[0]
    more = len({(h.id, h.attempt) for _, h in hits}) - 1
    more_text = f" ({more} more matching rows)" if more > 0 else ""
    return Outcome(
        REFUSE,
        said(
            f"This repeats failed attempt {line(first.id)} ({first.kind} match) in "
            f"{line(first.path)}{_held_where(where)}{more_text}; the row is quoted below. Use "
            "its workaround; if the situation has really changed, retire the row with a "
            f"reason (rehydrate fail retire {line(first.id)} --reason ...).",
            [
                f"Matched: {first.attempt}",
                f"Tried: {first.tried}",
                f"Failure: {first.failure}",
                f"Workaround: {first.workaround}",
                *([unparsed] if unparsed else []),
            ],
        ),
    )


def after_shell_call(where: str, command: str, error: str | None) -> Outcome:
    """What the model is told with a shell command's result, for a runtime that carries
    context only there (Gemini CLI's AfterTool, OpenCode's tool.execute.after): the
    failure captured when ``error`` (the exit code and output) says it failed, and the
    failed attempts the command came close to (the advice ``refuse_repeat`` gives, which
    the runtime's pre-tool hook cannot carry with an allowed call). The project is opened
    once for both."""
    from .captured import capture_failed_command, capture_in

    try:
        project = open_project(where)
    except (NotOptedIn, GitError, RehydrateError):
        # no advice after the fact (a ledger or git that fails was refused before the
        # call); the capture says why it cannot capture, as it does for every runtime
        return Outcome() if error is None else capture_failed_command(where, command, error)
    captured = Outcome() if error is None else capture_in(project, command, error)
    close = refuse_repeat(project, command)
    if close.action != ADVISE:
        return captured
    text = "\n\n".join(t for t in (captured.text, close.text) if t)
    return Outcome(INJECT, text, captured.note)
