"""Inject: the capped core of the rehydration prompt, for a session or a subagent.

The full prompt is built from the *work tree* (nothing recorded but not yet committed is
lost) and written to ``.rehydrate/<runtime>-session-prompt.md``; the context is its core
(``prompt.capped``) within the runtime's cap, measured in the runtime's unit, after a
bold headline for what must come first and the notices: a compaction's warning and
verdict, the failed commands still unrecorded, a compaction not verified yet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import GitError, RehydrateError
from ..quote import error
from .compaction import verdict_text
from .core import INJECT, Outcome, Project, Runtime, commit_hint, open_project, settings_hint
from .judging import NotOptedIn
from .store import HOLD, PROMPT, VERDICT, WARNING, hold_of, now, peek, remove, store

SESSION_SOURCES = ("startup", "resume", "clear", "compact")
OPEN_FAILED = "rehydrate could not open the repository:"
HEADROOM = 100  # units kept free below the runtime's cap
SUBAGENT_PREFACE = (
    "rehydrate: you are a subagent in a repository whose state is kept in ledgers. What "
    "follows binds you as it binds the main session: keep every MUST / MUST NOT "
    "constraint, never repeat a failed attempt (use its workaround), and work towards the "
    "next action. Report a command that fails to the main session, so that it records it."
)


def session_context(where: str, runtime: Runtime, source: str, session: str | None) -> Outcome:
    """The context for a session that starts, resumes, is cleared, or was compacted."""
    notes = [] if source in SESSION_SOURCES else [f"rehydrate: unknown source {source!r}"]
    try:
        project = open_project(where)
    except NotOptedIn:
        return Outcome()  # nothing guarded here: a user-scope hook stays out of the way
    except RehydrateError as exc:
        return Outcome(INJECT, error(OPEN_FAILED, exc), _one(notes))
    unsaved: list[str] = []  # secondary failures: the core is still given, with a note
    headline, notices = _compaction_notices(project, runtime, source, session, unsaved)
    headline_f, notices_f = _pending_failures(project)
    notices.extend(notices_f)
    headline.extend(headline_f)
    settings = settings_hint(project)
    if settings:
        notices.append(settings)
    dropped = _dropped_failures(project)
    if dropped:
        headline.append(f"failed attempts {', '.join(dropped)} are dropped only in the work tree")
        notices.append(
            f"Failed attempts {', '.join(dropped)} are active as committed (HEAD) but deleted "
            "or retired in the work tree. They stay in force until a commit retires them "
            "(the guard judges that commit): do not repeat them; the shell hook refuses them."
        )
    notices.append(
        f"Session source: {source}. rehydrate read the ledgers from the work tree, "
        "so what was recorded but not yet committed counts too."
    )
    from .contextuse import delivered_prompt

    pointer = delivered_prompt(project.repo.root, source)
    if pointer is None:
        text = _with_core(project, runtime, headline, notices, unsaved)
    else:  # rehydrate run sent the whole prompt as the first message: once is enough
        from .units import fit

        text = fit(_join(headline, [*notices, pointer]), runtime.cap, "")
    for shown in (WARNING, VERDICT):  # delivered (or stale): consume them only now
        _kept(unsaved, remove, project.repo.root, runtime.file(shown))
    return Outcome(INJECT, text, _one([*notes, *unsaved]))


def subagent_context(where: str, runtime: Runtime) -> Outcome:
    """The core for a subagent: constraints, failures and the next action."""
    try:
        project = open_project(where)
    except NotOptedIn:
        return Outcome()
    except RehydrateError as exc:
        return Outcome(INJECT, error(OPEN_FAILED, exc))
    unsaved: list[str] = []
    text = _with_core(project, runtime, [], [SUBAGENT_PREFACE], unsaved)
    return Outcome(INJECT, text, _one(unsaved))


def _one(notes: list[str]) -> str | None:
    return "; ".join(notes) if notes else None


def _kept(unsaved: list[str], write: Callable[..., object], *args: object) -> bool:
    """Run one write of a note under ``.rehydrate/``; a failure (a read-only or full disk,
    a state folder that is not a folder) is said in ``unsaved``, never raised: the
    context needs no write."""
    root, relpath = args[0], args[1]
    try:
        write(root, relpath, *args[2:])
    except (OSError, RehydrateError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        unsaved.append(f"rehydrate: could not write {relpath} ({reason}); the context is complete")
        return False
    return True


def _compaction_notices(
    project: Project, runtime: Runtime, source: str, session: str | None, unsaved: list[str]
) -> tuple[list[str], list[str]]:
    """What a compaction left to say. Its warning is shown only by the ``compact`` start
    that proves the compaction ran (a compaction can fail after PreCompact); a verdict
    only where the summary is in the conversation (``compact``, ``resume``)."""
    root = project.repo.root
    headline: list[str] = []
    notices: list[str] = []
    warning = peek(root, runtime.file(WARNING))
    if warning and source == "compact":
        headline.append("the last compaction ran over UNCOMMITTED ledger changes")
        notices.append(_warning_text(warning))
    verdict = peek(root, runtime.file(VERDICT))
    if verdict and source in ("compact", "resume"):
        if verdict.get("summary") != "faithful":
            headline.append("the compaction summary is UNFAITHFUL to the ledgers")
        notices.append(verdict_text(verdict, runtime.file(PROMPT)))
    elif source == "compact":
        hold = {"session_id": session, "time": now()}
        _kept(unsaved, store, root, runtime.file(hold_of(session)), hold)
        notices.append(
            "The compaction summary has not been verified yet; you will be told if it "
            "dropped anything, before your next tool call runs. Until then trust the "
            "ledgers below, not the summary."
        )
    elif source != "resume":  # a new conversation holds no summary
        _kept(unsaved, remove, root, runtime.file(hold_of(session)))
        if session:
            _kept(unsaved, remove, root, runtime.file(HOLD))
    return headline, notices


def _warning_text(warning: dict[str, object]) -> str:
    from ..quote import line
    from .compaction import word

    raw = warning.get("paths")  # the state file is the agent's to write too: quoted
    paths = [line(p) for p in raw if isinstance(p, str)] if isinstance(raw, list) else []
    problem = warning.get("problem")
    what = f"{', '.join(paths) or 'the ledgers'} had uncommitted changes"
    if isinstance(problem, str) and problem:
        what = f"{what} ({line(problem)})" if paths else line(problem)
    return (
        f"Warning: an automatic compaction ran at {word(warning.get('time'))} while {what}. "
        "Check them against the ledgers below, then commit them"
        + (f": {commit_hint(paths)}." if paths else ".")
    )


def _pending_failures(project: Project) -> tuple[list[str], list[str]]:
    from .captured import listing, unrecorded

    try:
        left = unrecorded(project)
    except RehydrateError as exc:
        return [], [error("rehydrate could not read the captured failures:", exc)]
    if not left:
        return [], []
    return [f"{len(left)} failed command(s) NOT RECORDED"], [
        listing(left, project.config.path_of("failures"))
    ]


def _join(headline: Sequence[str], notices: Sequence[str]) -> str:
    parts = []
    if headline:
        parts.append("**rehydrate: " + "; ".join(headline) + ".**")
    parts.extend(notices)
    return "\n\n".join(parts)


def _with_core(
    project: Project, runtime: Runtime, headline: list[str], notices: list[str], unsaved: list[str]
) -> str:
    """The headline and notices, then the prompt's core in what is left of the cap."""
    from ..errors import LedgerParseError
    from ..prompt.build import PromptOptions, build_prompt, gather
    from ..prompt.capped import capped_core
    from ..state import Source
    from .units import fit

    config, root = project.config, project.repo.root
    prompt_file = runtime.file(PROMPT)
    cut = f"\n[cut at {runtime.cap.limit} {runtime.cap.unit.name}; read {prompt_file}]"
    try:
        inputs = gather(project.repo, config, Source("worktree"), config.diff_lines)
        options = PromptOptions(diff_lines=config.diff_lines, protocol=_protocol(project, notices))
        prompt = build_prompt(
            inputs.state,
            options,
            commit_info=inputs.commit_info,
            worktree_differs=inputs.worktree_differs,
            artifacts=inputs.artifacts,
        )
    except LedgerParseError as exc:
        headline.insert(0, "continuity_validation_failed: a ledger cannot be read")
        notices.append(
            error(
                "rehydrate cannot read the ledgers (the error is quoted below). Do not act "
                "on what you remember; fix that ledger first (rehydrate state shows the "
                "problem).",
                exc,
            )
        )
        return fit(_join(headline, notices), runtime.cap, cut)
    except (RehydrateError, GitError) as exc:
        text = _join(["rehydrate could not build the prompt"], [*notices, error("Why:", exc)])
        return fit(text, runtime.cap, cut)
    if prompt.decision.decision == "blocked_on_reconciliation":
        ids = ", ".join(r.id or "?" for r in prompt.decision.reasons)
        headline.insert(0, f"BLOCKED ON RECONCILIATION (external write outcome unknown: {ids})")
    if not _kept(unsaved, store, root, prompt_file, prompt.text):
        prompt_file = "the output of `rehydrate prompt`"  # the full prompt is not on disk
        cut = f"\n[cut at {runtime.cap.limit} {runtime.cap.unit.name}; read {prompt_file}]"
        notices.append(unsaved[-1])
    prefix = _join(headline, notices)
    budget = runtime.cap.limit - HEADROOM - runtime.cap.size(prefix) - 2
    core = capped_core(
        prompt,
        inputs.state,
        prompt_file,
        max_chars=max(budget, 500),
        measure=runtime.cap.unit.measure,
        unit=runtime.cap.unit.name,
    )
    return fit(prefix + "\n\n" + core, runtime.cap, cut)


def _protocol(project: Project, notices: list[str]) -> str | None:
    """The working protocol of the committed ``prompt_template``: a work-tree edit of the
    template is a change of settings, named and not obeyed until it is committed."""
    from .. import git
    from ..prompt.build import read_protocol
    from ..readlimit import TEMPLATE_LIMIT

    path = project.config.prompt_template
    standing = project.standing
    if path is None or standing is None or standing.head is None:
        return read_protocol(project.repo, project.config, None)
    found = git.object_ids(project.repo, [f"HEAD:{path}"])[f"HEAD:{path}"]
    if found is None or found[1] != "blob":  # not committed: the work tree's, as before
        return read_protocol(project.repo, project.config, None)
    here = git.read_worktree(project.repo, [path])[path]
    if here.blob == found[0] and here.data is not None:
        return read_protocol(project.repo, project.config, None)
    data = git.cat_blobs(project.repo, [found[0]])[found[0]][:TEMPLATE_LIMIT]
    notices.append(
        f"The prompt template {path} differs in the work tree from what is committed; the "
        "committed template is used until the change is committed."
    )
    return data.decode("utf-8", "replace")


def _dropped_failures(project: Project) -> list[str]:
    """IDs of failed attempts active in HEAD's copy but not in the work tree's (the
    prompt is built from the work tree, the command check from every copy)."""
    from ..errors import LedgerParseError
    from ..state import parse_file
    from .judging import HEAD, WORK_TREE

    standing = project.standing
    if standing is None or standing.head is None:
        return []
    path = project.config.path_of("failures")
    committed, here = standing.blob(HEAD, path), standing.blob(WORK_TREE, path)
    if committed.blob is None or committed.blob == here.blob:
        return []
    try:
        old = parse_file("failures", committed, project.config, HEAD)
        new = parse_file("failures", here, project.config, WORK_TREE)
    except LedgerParseError:  # said elsewhere: the core names an unreadable ledger
        return []
    kept = {r.id for r in new.active("failures")}
    return [r.id for r in old.active("failures") if r.id and r.id not in kept][:20]
