"""The ephemeral-worker loop: fresh agent sessions from the ledgers until the work is done.

Before each session the loop reads the work-tree ledgers: every completion check passed
is done (0), an unknown external write is blocked (3, and no session starts). A session
gets the rehydration prompt, runs to its end (``launch``), and is judged from the ledgers
(``judge``): a violation stops the loop (1) or, when asked, is reverted; no progress for
``stall`` sessions in a row is a stall (1); a limit reached stops it (1); Ctrl-C ends the
session's process group and exits 130. Every session is recorded in the index
(``continuity.sessions``) before the loop decides what comes next, so a run can be
resumed by running it again. Core code: it reports to a ``Display``, never prints.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import git
from ..config import Config
from ..continuity import sessions as record
from ..errors import EXIT_BLOCKED, EXIT_OK, EXIT_REFUSED
from ..ledgers import KINDS, Ledger
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from .display import NO_HOOKS, Display, SessionHooks
from .judge import Judgement, Snapshot, blocked_writes, is_done, judge, snapshot
from .launch import Ending, Launch, delivery, run_session
from .options import REVERT, RunOptions
from .quiesce import LedgerLocks, deferred_interrupts
from .usage import Usage
from .watch import Watch


class RunResult(NamedTuple):
    code: int
    reason: str  # done | blocked | violation | stalled | limit | interrupted
    message: str
    sessions: tuple[record.SessionRecord, ...]


if TYPE_CHECKING:
    from ..prompt.sections import PromptOptions

# what ``run --claim`` (run/claimed.py) adds to each session's prompt options
Prepare = Callable[["PromptOptions"], "PromptOptions"]


@dataclass
class RunState:
    """What a run holds, the loop's or ``run --claim``'s: where, with which settings, shown
    where, since when, and the sessions so far."""

    repo: git.Repo
    config: Config
    options: RunOptions
    display: Display
    started: float = field(default_factory=time.monotonic, init=False)
    sessions: list[record.SessionRecord] = field(default_factory=list, init=False)

    def result(self, code: int, reason: str, message: str) -> RunResult:
        return RunResult(code, reason, message, tuple(self.sessions))


@dataclass
class _Run(RunState):
    """The state of one ``rehydrate run``: options, totals, the sessions so far."""

    environ: Mapping[str, str]
    prepare: Prepare | None = None
    hooks: SessionHooks = NO_HOOKS
    cost: float = field(default=0.0, init=False)
    stalled: int = field(default=0, init=False)
    number: int = field(default=0, init=False)
    protocol: str | None = field(default=None, init=False)
    revert_problem: str | None = field(default=None, init=False)  # a revert lost rows

    def __post_init__(self) -> None:
        self.number = record.read_index(self.repo.root).next_number

    def settings(self) -> tuple[Config, str | None]:
        """HEAD's settings and prompt template (``run.settings``); before the first
        commit, what the CLI read."""
        from .settings import committed

        head = git.head(self.repo)
        if head is None:
            return self.config, None
        return committed(self.repo, head)

    def total_left(self) -> float | None:
        if self.options.max_total_minutes is None:
            return None
        return self.options.max_total_minutes * 60 - (time.monotonic() - self.started)


def run_loop(
    repo: git.Repo,
    config: Config,
    options: RunOptions,
    display: Display,
    environ: Mapping[str, str],
    hooks: SessionHooks | None = None,
    prepare: Prepare | None = None,
) -> RunResult:
    """Run sessions until done, blocked, a violation, a stall, a limit or Ctrl-C.

    One run per work tree (``owner.run_lock``; a second one exits 2 naming the holder).
    ``config`` is what the CLI read; every session reads its settings and prompt
    template from HEAD (``run.settings``). ``hooks``: the seam for what runs before and
    after each session (none by default)."""
    from .owner import run_lock
    from .reaper import become_subreaper
    from .startcheck import settle_orphans

    with run_lock(repo):
        become_subreaper()
        for text in settle_orphans(repo, config, now()):
            display.note(text)
        run = _Run(repo, config, options, display, environ, prepare, hooks or NO_HOOKS)
        return _loop(run)


def _loop(run: _Run) -> RunResult:
    from ..state import uncommitted_ledgers

    repo, options, display, hooks = run.repo, run.options, run.display, run.hooks
    refused = _check_since_judged(run)
    if refused is not None:
        return refused
    dirty = uncommitted_ledgers(repo, run.settings()[0])
    if dirty:
        display.note(
            f"rehydrate run: {', '.join(dirty)} differ from HEAD before the first session; "
            "the sessions start from the work tree, and these changes are judged with the "
            "first one (commit them first to keep them apart)"
        )
    for nth in range(1, options.max_sessions + 1):
        if nth > 1:  # a write after the last judgement, by a process outside the loop's tree
            refused = _check_since_judged(run)
            if refused is not None:
                return refused
        run.config, run.protocol = run.settings()
        before = snapshot(repo, run.config)
        stop = _before_session(run, before)
        if stop is not None:
            return stop
        refusal = hooks.before_session(repo, run.number)
        if refusal is not None:
            return run.result(EXIT_REFUSED, "refused", refusal)
        with deferred_interrupts() as interrupts:  # a session and its record: never half
            session = _one_session(run, before, nth, interrupts)
            if session.ending.ended_by == record.INTERRUPTED:
                interrupts.clear()  # handled: the verdict is 130
            stop = _after_session(run, session)
        hooks.after_session(repo, run.sessions[-1])
        if stop is not None:
            return stop
    return run.result(
        EXIT_REFUSED,
        "limit",
        f"limit: --max-sessions {options.max_sessions} reached after session "
        f"#{run.sessions[-1].number if run.sessions else '-'}; the task is not done "
        "(rerun to continue)",
    )


def _check_since_judged(run: _Run) -> RunResult | None:
    """Name what changed since the last session was judged; refuse to go on top of a
    refused state (``startcheck``)."""
    from .startcheck import check_start

    start = check_start(run.repo, run.settings()[0])
    for text in start.notes:
        run.display.note(text)
    if not start.violations:
        return None
    return run.result(
        EXIT_REFUSED,
        "violation",
        "violation: the run would start on top of refused ledger changes "
        f"({len(start.violations)}); no session was started:\n"
        + "\n".join(f"  {v}" for v in start.violations)
        + "\n"
        + start.repair,
    )


def _before_session(run: _Run, before: Snapshot) -> RunResult | None:
    blocked = blocked_writes(before.ledgers)
    if blocked:
        return run.result(
            EXIT_BLOCKED,
            "blocked",
            f"blocked_on_reconciliation: the outcome of external write {', '.join(blocked)} "
            "is unknown; reconcile it by reading (never by retrying), then `rehydrate task "
            "write settle`; no session is started on a blocked task",
        )
    if is_done(before.ledgers):
        return run.result(EXIT_OK, "done", "done: every completion check passed")
    if before.head is None:
        from ..errors import RehydrateError

        raise RehydrateError(
            "the repository has no commits, so a session cannot be judged against one",
            code="no_commits",
            fix="commit the ledgers first (git add docs && git commit)",
        )
    left = run.total_left()
    if left is not None and left <= 0:
        return run.result(
            EXIT_REFUSED,
            "limit",
            f"limit: --max-total-minutes {run.options.max_total_minutes:g} reached before "
            f"session #{run.number}",
        )
    return None


def _prompt(run: _Run) -> str:
    from ..prompt.build import load_prompt
    from ..prompt.sections import PromptOptions
    from ..state import Source

    options = PromptOptions(
        max_tokens=run.options.max_tokens or run.config.max_tokens,
        diff_lines=run.config.diff_lines,
        protocol=run.protocol,
    )
    if run.prepare is not None:
        options = run.prepare(options)
    return load_prompt(run.repo, run.config, Source("worktree"), options).text


def _session_env(run: _Run, number: int) -> dict[str, str]:
    """The agent's environment: the run's, with the session's number and the prompt it
    was given (the SessionStart hook then points at it instead of repeating the ledgers)."""
    from ..agents.contextuse import LIMIT_ENV, PROMPT_ENV, SESSION_ENV

    ours = (LIMIT_ENV, SESSION_ENV, PROMPT_ENV)
    env = {k: v for k, v in run.environ.items() if k not in ours}
    env[SESSION_ENV] = str(number)
    env[PROMPT_ENV] = f"{record.SESSIONS_DIR}/{number}.prompt.md"
    if run.options.context_limit is not None:
        env[LIMIT_ENV] = str(run.options.context_limit)
    return env


class Session(NamedTuple):
    """One finished session: its record (verdict not yet set), judgement, ending, cost."""

    entry: record.SessionRecord
    judgement: Judgement
    ending: Ending
    cost: float | None
    before: Snapshot


def _one_session(run: _Run, before: Snapshot, nth: int, interrupts: list[int]) -> Session:
    from ..agents.contextuse import NOTE
    from . import settings
    from .owner import OpenMark, claim_number, write_mark

    root = run.repo.root
    text = _prompt(run)
    number, log = claim_number(root, run.number)  # exclusive: never two #n, no log cut
    run.number = number + 1
    start = now()
    write_mark(root, OpenMark(number, os.getpid(), before.head, start, run.options.agent))
    from ..ledgers.atomicfile import write_in_repo

    prompt_file = record.sessions_dir(root) / f"{number}.prompt.md"
    write_in_repo(root, f"{record.SESSIONS_DIR}/{number}.prompt.md", text.encode("utf-8"))
    (root / NOTE).unlink(missing_ok=True)
    view = settings.view(run.repo, run.config)
    argv, piped = delivery(run.options.command, text, prompt_file)
    task = before.ledgers["task"]
    run.display.started(number, nth, run.options, task.next_action.text if task.next_action else "")
    watch = Watch(run.repo, run.config, run.options, before, run.display, run.total_left(), number)
    usage = Usage()
    ending = run_session(
        Launch(
            argv,
            root,
            _session_env(run, number),
            text.encode("utf-8") if piped else None,
            log,
            run.display.output,
            lambda: record.INTERRUPTED if interrupts else watch.check(),
            lambda: LedgerLocks(run.repo, [run.config.path_of(k) for k in KINDS]),
            run.options.grace_seconds,
            interrupts,
        ),
        usage,
    )
    judgement = judge(run.repo, run.config, before)
    if before.head is not None and judgement.head_after is not None:
        extra = settings.changed(run.repo, run.config, view, before.head, judgement.head_after)
        if extra:
            judgement = judgement._replace(violations=judgement.violations + extra)
    entry = _entry(run, before, number, start, ending, judgement, usage)
    return Session(entry, judgement, ending, usage.cost_usd, before)


def now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _entry(
    run: _Run,
    before: Snapshot,
    number: int,
    start: str,
    ending: Ending,
    judgement: Judgement,
    usage: Usage,
) -> record.SessionRecord:
    from ..agents.contextuse import read_note

    peak = usage.context_peak
    note = read_note(run.repo.root)
    if note is not None and note.get("session") == str(number):
        tokens = note.get("tokens")
        if isinstance(tokens, int) and (peak is None or tokens > peak):
            peak = tokens
    return record.SessionRecord(
        number=number,
        start=start,
        end=now(),
        agent=run.options.agent,
        exit=ending.returncode,
        ended_by=ending.ended_by,
        head_before=before.head,
        head_after=judgement.head_after,
        commits=judgement.commits,
        progress=judgement.progress,
        guard="refused" if judgement.violations else "pass",
        violations=tuple(
            " ".join(x for x in (v.code, v.item_id or "", v.path) if x)
            for v in judgement.violations
        ),
        uncommitted=judgement.uncommitted,
        committed_ledgers=None,
        cost_usd=usage.cost_usd,
        context_peak=peak,
        verdict=record.CONTINUE,
        log=str(Path(record.SESSIONS_DIR) / f"{number}.log"),
    )


def _commit_ledgers(run: _Run, judgement: Judgement, number: int) -> str | None:
    """--commit-ledgers: commit what the session left uncommitted (hooks run)."""
    from ..errors import RehydrateError
    from ..git.changes import commit_paths

    try:
        return commit_paths(
            run.repo, list(judgement.uncommitted), f"rehydrate run: ledgers of session {number}"
        )
    except RehydrateError as exc:
        run.display.note(f"rehydrate run: --commit-ledgers: {exc}")
        return None


def _after_session(run: _Run, session: Session) -> RunResult | None:
    """Revert or commit as asked, record the session, and say whether the run goes on."""
    from .verdict import decide_session

    entry, judgement = session.entry, session.judgement
    reverted = None
    if judgement.violations and run.options.on_violation == REVERT:
        reverted = _revert(run, entry, judgement, session.before)
    elif judgement.uncommitted and run.options.commit_ledgers and not judgement.violations:
        committed = _commit_ledgers(run, judgement, entry.number)
        if committed is not None:
            entry = replace(entry, committed_ledgers=committed, uncommitted=())
    verdict = decide_session(
        run.options,
        entry.number,
        judgement,
        session.ending,
        run.stalled,
        run.cost,
        reverted is not None,
        session.cost,
    )
    run.stalled, run.cost = verdict.stalled, verdict.cost
    final = replace(entry, verdict=verdict.verdict)
    record.append(run.repo.root, final)
    _judged(run, final, reverted is not None)
    run.sessions.append(final)
    run.display.ended(final)
    if final.uncommitted and verdict.code is None:
        run.display.note(
            f"rehydrate run: session #{entry.number} left ledger changes uncommitted: "
            f"{', '.join(final.uncommitted)} (--commit-ledgers commits them)"
        )
    if verdict.code is None:
        return None
    message = verdict.message
    if run.revert_problem is not None and verdict.reason == "violation":
        message, run.revert_problem = f"violation: {run.revert_problem}", None
    if verdict.reason == "stalled":
        from .attempts import stall_report

        message += "\n" + stall_report(run.repo, run.config, run.sessions[-verdict.stalled :])
    return run.result(verdict.code, verdict.reason, message)


def _judged(run: _Run, entry: record.SessionRecord, reverted: bool) -> None:
    """The session is in the index: leave the state it was judged at, drop its mark."""
    from .owner import clear_mark, write_judged
    from .startcheck import judged_state

    write_judged(run.repo.root, judged_state(run.repo, run.config, entry, reverted))
    clear_mark(run.repo.root, entry.number)


def _session_ledgers(run: _Run, head_after: str) -> Mapping[str, Ledger] | None:
    """The session's last ledgers: the work tree's, else its last commit's, else None."""
    from ..errors import RehydrateError
    from ..state import Source, load_state

    try:
        return snapshot(run.repo, run.config).ledgers
    except RehydrateError:
        pass
    try:
        return load_state(run.repo, run.config, Source("rev", head_after)).ledgers
    except RehydrateError:
        return None


def _revert(
    run: _Run, entry: record.SessionRecord, judgement: Judgement, before: Snapshot
) -> str | None:
    """Revert the session (--on-violation revert), then write again the rows it recorded
    (``keep``); its HEAD_before, or None if git refused or a row could not be kept."""
    from .keep import reapply, recorded
    from .revert import revert_session

    assert entry.head_before is not None and judgement.head_after is not None
    after = _session_ledgers(run, judgement.head_after)
    rows = recorded(before.ledgers, after) if after is not None else []
    done = revert_session(
        run.repo, entry.number, entry.head_before, judgement.head_after, judgement.uncommitted
    )
    lines = [f"rehydrate run: session #{entry.number} weakened the ledgers:"]
    lines += [f"  {v}" for v in judgement.violations]
    if done.ref:
        lines.append(f"  its commits stay reachable from {done.ref}")
    if done.saved:
        lines.append(f"  its uncommitted ledger files were saved to {', '.join(done.saved)}")
    if not done.ok:
        lines.append(
            f"  --on-violation revert: git refused to move back to {entry.head_before[:12]} "
            f"({done.problem}); nothing else was moved. Commit or stash your own changes to "
            f"those files, then `git reset --keep {entry.head_before[:12]}`"
        )
        run.display.note("\n".join(lines))
        return None
    lines.append(f"  reverted to {entry.head_before[:12]} (git reset --keep)")
    if after is None:
        lines.append(
            "  its ledgers could not be read, so no row it recorded was re-applied; they "
            "stay in its ref and saved files"
        )
    kept = reapply(run.repo, run.config, rows, entry.number) if rows else None
    if kept is not None and kept.done:
        where = f" and committed ({kept.commit[:12]})" if kept.commit else ""
        lines.append(
            f"  the rows it recorded were written again{where}: {', '.join(kept.done)} "
            "(a revert never removes a recorded failure, external write or verification)"
        )
    run.display.note("\n".join(lines))
    if kept is not None and kept.refused:
        run.revert_problem = (
            f"session #{entry.number} was reverted, but rows it recorded could not be "
            "written again (they stay in its ref and saved files; record them by hand):\n"
            + "\n".join(f"  {r}" for r in kept.refused)
        )
        return None
    return entry.head_before
