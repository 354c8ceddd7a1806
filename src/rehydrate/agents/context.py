"""Inject: the capped core of the rehydration prompt, for a session or a subagent.

The full prompt is built from the *work tree* (nothing recorded but not yet committed is
lost) and written to ``.rehydrate/<runtime>-session-prompt.md``; the context is its core
(``prompt.capped``) within the runtime's cap, measured in the runtime's unit, after a
bold headline for what must come first and the notices: a compaction's warning and
verdict, the failed commands still unrecorded, a compaction not verified yet.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import GitError, RehydrateError
from ..quote import error
from .compaction import verdict_text
from .core import INJECT, Outcome, Project, Runtime, commit_hint, open_project
from .store import HOLD, PROMPT, VERDICT, WARNING, now, peek, remove, store

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
    note = None if source in SESSION_SOURCES else f"rehydrate: unknown source {source!r}"
    try:
        project = open_project(where)
    except RehydrateError as exc:
        return Outcome(INJECT, error(OPEN_FAILED, exc), note)
    headline, notices = _compaction_notices(project, runtime, source, session)
    headline_f, notices_f = _pending_failures(project)
    notices.extend(notices_f)
    headline.extend(headline_f)
    notices.append(
        f"Session source: {source}. rehydrate read the ledgers from the work tree, "
        "so what was recorded but not yet committed counts too."
    )
    text = _with_core(project, runtime, headline, notices)
    for shown in (WARNING, VERDICT):  # delivered (or stale): consume them only now
        remove(project.repo.root, runtime.file(shown))
    return Outcome(INJECT, text, note)


def subagent_context(where: str, runtime: Runtime) -> Outcome:
    """The core for a subagent: constraints, failures and the next action."""
    try:
        project = open_project(where)
    except RehydrateError as exc:
        return Outcome(INJECT, error(OPEN_FAILED, exc))
    return Outcome(INJECT, _with_core(project, runtime, [], [SUBAGENT_PREFACE]))


def _compaction_notices(
    project: Project, runtime: Runtime, source: str, session: str | None
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
        store(root, runtime.file(HOLD), {"session_id": session, "time": now()})
        notices.append(
            "The compaction summary has not been verified yet; you will be told if it "
            "dropped anything, before your next tool call runs. Until then trust the "
            "ledgers below, not the summary."
        )
    elif source != "resume":
        remove(root, runtime.file(HOLD))  # a new conversation holds no summary
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


def _with_core(project: Project, runtime: Runtime, headline: list[str], notices: list[str]) -> str:
    """The headline and notices, then the prompt's core in what is left of the cap."""
    from ..errors import LedgerParseError
    from ..prompt.build import PromptOptions, build_prompt, gather, read_protocol
    from ..prompt.capped import capped_core
    from ..state import Source
    from .units import fit

    config, root = project.config, project.repo.root
    prompt_file = runtime.file(PROMPT)
    cut = f"\n[cut at {runtime.cap.limit} {runtime.cap.unit.name}; read {prompt_file}]"
    try:
        inputs = gather(project.repo, config, Source("worktree"), config.diff_lines)
        options = PromptOptions(
            diff_lines=config.diff_lines, protocol=read_protocol(project.repo, config, None)
        )
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
    store(root, prompt_file, prompt.text)
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
