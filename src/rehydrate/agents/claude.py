"""Claude Code hook adapters: event JSON in, Claude Code's hook JSON and exit codes out.

Claude Code ignores exit 1, so every blocking path here uses exit 2 or a JSON
decision. Agent hooks read the ledgers from the *work tree* (nothing learned but
not yet committed is lost) and say so. Files the hooks keep between events live
under ``.rehydrate/`` (ignored by git through ``.rehydrate/.gitignore``):

* ``claude-session-prompt.md`` — the full rehydration prompt the capped context names;
* ``claude-precompact.json`` — an auto compaction ran over uncommitted ledgers;
* ``claude-postcompact.json`` — the verdict on the last compaction summary;
* ``claude-compact-pending.json`` — SessionStart(compact) ran before PostCompact.

Claude Code does not document whether PostCompact or SessionStart(compact) fires
first: whichever runs second delivers the verdict (a late unfaithful verdict is
delivered by the next PreToolUse or Stop hook instead, once).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import git
from ..config import Config
from ..errors import RehydrateError

CONTEXT_LIMIT = 10000  # Claude Code's cap on additionalContext, in characters
CONTEXT_BUDGET = CONTEXT_LIMIT - 100  # headroom below the cap
STATE_DIR = ".rehydrate"
PROMPT_FILE = f"{STATE_DIR}/claude-session-prompt.md"
WARNING_FILE = f"{STATE_DIR}/claude-precompact.json"
VERDICT_FILE = f"{STATE_DIR}/claude-postcompact.json"
PENDING_FILE = f"{STATE_DIR}/claude-compact-pending.json"
ENVELOPE_FILE = f"{STATE_DIR}/claude-compaction-envelope.json"
VERDICT_SCHEMA = "rehydrate/claude-compact-verdict-v1"
SESSION_SOURCES = ("startup", "resume", "clear", "compact")
EVENTS = ("session-start", "pre-tool-use", "pre-compact", "post-compact", "stop")
# The hooks rehydrate wires, for .claude/settings.json (init --claude) and the plugin's
# hooks/hooks.json alike (agents/claude_install.py): event -> (matcher or None, subcommand)
SETTINGS_HOOKS: Mapping[str, tuple[str | None, str]] = {
    "SessionStart": (None, "session-start"),
    "PreToolUse": ("Bash", "pre-tool-use"),
    "PreCompact": (None, "pre-compact"),
    "PostCompact": (None, "post-compact"),
    "Stop": (None, "stop"),
}


@dataclass(frozen=True)
class HookResult:
    """What a hook prints: one JSON object on stdout (or nothing), a note on stderr, an exit."""

    exit_code: int = 0
    output: Mapping[str, Any] | None = None
    message: str | None = None


@dataclass(frozen=True)
class Event:
    data: Mapping[str, Any] = field(default_factory=dict)
    problem: str | None = None  # why stdin could not be used

    def text(self, key: str) -> str | None:
        value = self.data.get(key)
        return value if isinstance(value, str) else None


def read_event(raw: str) -> Event:
    """Parse the hook's stdin; a malformed event is reported, never raised."""
    try:
        data = json.loads(raw) if raw.strip() else None
    except ValueError as exc:
        return Event(problem=f"hook input is not JSON ({exc})")
    if not isinstance(data, dict):
        return Event(problem="hook input is not a JSON object")
    return Event(data)


def _open(event: Event) -> tuple[git.Repo, Config]:
    from ..config import load_config

    where = os.environ.get("CLAUDE_PROJECT_DIR") or event.text("cwd") or os.getcwd()
    if "\x00" in where or not os.path.isdir(where):  # the event's cwd is input, not a path
        raise git.GitError(
            f"the event's cwd {where[:200]!r} is not a directory",
            code="not_a_repo",
            fix="run the hook inside a git repository",
        )
    repo = git.find_repo(where)
    return repo, load_config(repo.root)


def _state_dir(root: Path) -> Path:
    folder = root / STATE_DIR
    if folder.is_symlink():
        raise RehydrateError(
            f"{STATE_DIR} is a symlink",
            file=STATE_DIR,
            code="unsafe_path",
            fix=f"remove the symlink {STATE_DIR}",
        )
    folder.mkdir(exist_ok=True)
    if not os.path.lexists(folder / ".gitignore"):  # a symlink there is never written through
        from ..ledgers.atomicfile import write_in_repo

        write_in_repo(root, f"{STATE_DIR}/.gitignore", b"*\n", exclusive=True)
    return folder


def _store(root: Path, relpath: str, obj: Any) -> None:
    from ..ledgers.atomicfile import write_in_repo

    _state_dir(root)
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
    write_in_repo(root, relpath, text.encode("utf-8"))


def _peek(root: Path, relpath: str) -> dict[str, Any] | None:
    """A stored JSON note, or None (a broken one is not trusted)."""
    try:
        data = json.loads((root / relpath).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _take(root: Path, relpath: str) -> dict[str, Any] | None:
    """Read and remove a stored JSON note."""
    data = _peek(root, relpath)
    (root / relpath).unlink(missing_ok=True)
    return data


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def uncommitted_ledgers(repo: git.Repo, config: Config) -> list[str]:
    """Ledger paths whose work tree or index differs from HEAD (untracked included)."""
    from ..ledgers import KINDS

    paths = [config.path_of(k) for k in KINDS]
    out = git.run(
        repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths
    ).stdout
    dirty = []
    for record in out.split(b"\0"):
        if len(record) > 3:
            dirty.append(record[3:].decode("utf-8", "surrogateescape"))
    return sorted(set(dirty) & set(paths))


def _commit_hint(paths: Sequence[str]) -> str:
    joined = " ".join(paths)
    return f"git add {joined} && git commit -m 'rehydrate: update ledgers'"


# SessionStart


def session_start(event: Event) -> HookResult:
    """The rehydration context for a new, resumed, cleared or compacted session."""
    from ..errors import LedgerParseError
    from ..prompt.build import build_prompt, gather, read_protocol
    from ..prompt.capped import capped_core
    from ..prompt.sections import PromptOptions
    from ..state import Source

    if event.problem:
        return HookResult(message=f"rehydrate: {event.problem}; no context added")
    source = event.text("source") or "startup"
    note = None if source in SESSION_SOURCES else f"rehydrate: unknown source {source!r}"
    try:
        repo, config = _open(event)
    except RehydrateError as exc:
        return _context(f"rehydrate could not open the repository: {exc}", note)
    root = repo.root
    headline: list[str] = []
    notices: list[str] = []
    warning = _peek(root, WARNING_FILE)
    if warning:
        headline.append("the last compaction ran over UNCOMMITTED ledger changes")
        notices.append(_warning_text(warning))
    verdict = _peek(root, VERDICT_FILE)
    if verdict:
        if verdict.get("summary") != "faithful":
            headline.append("the compaction summary is UNFAITHFUL to the ledgers")
        notices.append(verdict_text(verdict))
    elif source == "compact":
        _store(root, PENDING_FILE, {"session_id": event.text("session_id"), "time": _now()})
        notices.append(
            "The compaction summary has not been verified yet (PostCompact had not "
            "run); you will be told if it dropped anything. Until then trust the "
            "ledgers below, not the summary."
        )
    try:
        inputs = gather(repo, config, Source("worktree"), config.diff_lines)
        options = PromptOptions(
            diff_lines=config.diff_lines, protocol=read_protocol(repo, config, None)
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
            f"rehydrate cannot read the ledgers: {exc}. Do not act on what you "
            "remember; fix that ledger first (rehydrate state shows the problem)."
        )
        return _context(_join(headline, notices), note)
    except RehydrateError as exc:
        return _context(_join(["rehydrate could not build the prompt"], [*notices, str(exc)]), note)
    if prompt.decision.decision == "blocked_on_reconciliation":
        ids = ", ".join(r.id or "?" for r in prompt.decision.reasons)
        headline.insert(0, f"BLOCKED ON RECONCILIATION (external write outcome unknown: {ids})")
    _store(root, PROMPT_FILE, prompt.text)
    notices.append(
        f"Session source: {source}. rehydrate read the ledgers from the work tree, "
        "so what was recorded but not yet committed counts too."
    )
    prefix = _join(headline, notices)
    budget = CONTEXT_BUDGET - len(prefix) - 2
    core = capped_core(prompt, inputs.state, PROMPT_FILE, max_chars=max(budget, 500))
    for shown in (WARNING_FILE, VERDICT_FILE):  # delivered: consume them only now
        (root / shown).unlink(missing_ok=True)
    return _context(prefix + "\n\n" + core, note)


def _join(headline: Sequence[str], notices: Sequence[str]) -> str:
    parts = []
    if headline:
        parts.append("**rehydrate: " + "; ".join(headline) + ".**")
    parts.extend(notices)
    return "\n\n".join(parts)


def _context(text: str, message: str | None = None) -> HookResult:
    if len(text) > CONTEXT_LIMIT - 1:
        marker = f"\n[cut at {CONTEXT_LIMIT} characters; read {PROMPT_FILE}]"
        text = text[: CONTEXT_LIMIT - 1 - len(marker)] + marker
    return HookResult(
        output={"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}},
        message=message,
    )


def _warning_text(warning: Mapping[str, Any]) -> str:
    paths = ", ".join(warning.get("paths") or []) or "the ledgers"
    return (
        f"Warning: an automatic compaction ran at {warning.get('time', '?')} while {paths} "
        "had uncommitted changes. Check them against the ledgers below, then commit them: "
        + _commit_hint(warning.get("paths") or [])
        + "."
    )


def verdict_text(verdict: Mapping[str, Any]) -> str:
    """The stored PostCompact verdict for people and the agent: IDs and codes only."""
    reasons = verdict.get("reasons") or []
    if verdict.get("summary") == "faithful":
        return (
            f"Compaction summary check ({verdict.get('method')}): faithful; every checked "
            "item is present. The ledgers below remain the source of truth."
        )
    listed = (
        "; ".join(
            f"{r.get('code')}"
            + (f" {r['id']}" if r.get("id") else "")
            + (f" ({r['field']})" if r.get("field") else "")
            for r in reasons
        )
        or "no details"
    )
    return (
        f"Compaction summary check ({verdict.get('method')}): UNFAITHFUL: {listed}. The "
        "summary in your context dropped or misstates these: do not rely on it; use the "
        "ledgers below (and the full prompt file) instead."
    )


# PreToolUse


def pre_tool_use(event: Event) -> HookResult:
    """Deny a Bash command that repeats an active failed attempt; otherwise stay silent."""
    from .commands import check, command_from_hook, load_failures

    if event.problem:
        return HookResult(message=f"rehydrate: {event.problem}; command allowed unchecked")
    tool = event.text("tool_name")
    if tool is not None and tool != "Bash":
        return HookResult()
    command = command_from_hook(dict(event.data))
    if command is None:
        return HookResult(
            message="rehydrate: no tool_input.command in the PreToolUse event; "
            "command allowed unchecked"
        )
    try:
        repo, config = _open(event)
    except git.GitError as exc:
        return HookResult(message=f"rehydrate: {exc}; command allowed unchecked")
    except RehydrateError as exc:
        return _deny(
            f"rehydrate cannot read its configuration ({exc}); fix it before running "
            "commands, so that failed attempts are checked."
        )
    late = _late_verdict(repo.root)
    if late is not None:
        return _deny(late + " Then run the command again.")
    try:  # a confirming full parse may fail too: both deny
        checked = check(command, load_failures(repo, config))
    except RehydrateError as exc:
        return _deny(
            f"rehydrate cannot read the failed-attempts ledger {exc.file}: {exc}. "
            "Commands stay blocked until it parses (`rehydrate state` shows the "
            "problem), so that no failed attempt is repeated unnoticed."
        )
    hits = checked.hits
    if not hits:
        return HookResult(message=f"rehydrate: {checked.note}" if checked.note else None)
    first = hits[0]
    more = f" ({len(hits) - 1} more matching rows)" if len(hits) > 1 else ""
    return _deny(
        f"This repeats failed attempt {first.id} ({first.kind} match of `{first.attempt}`) in "
        f"{first.path}{more}. Tried: {first.tried}. Failure: {first.failure}. Workaround: "
        f"{first.workaround}. Use the workaround; if the situation has really changed, retire "
        f"the row with a reason (rehydrate fail retire {first.id} --reason ...)."
        + (f" {checked.note}" if checked.note else "")
    )


def _deny(reason: str) -> HookResult:
    return HookResult(
        output={
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    )


def _late_verdict(root: Path) -> str | None:
    """An unfaithful verdict that arrived after SessionStart(compact): delivered once."""
    path = root / VERDICT_FILE
    if not path.exists():
        return None
    try:
        verdict = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(verdict, dict) or not verdict.get("late"):
        return None
    path.unlink(missing_ok=True)
    return verdict_text(verdict) + f" The full prompt is in {PROMPT_FILE}: read it."


# PreCompact


def pre_compact(event: Event) -> HookResult:
    """Record the compaction; refuse a manual one over uncommitted ledgers (exit 2)."""
    from ..continuity.verify import write_envelope
    from ..state import Source

    if event.problem:
        return HookResult(message=f"rehydrate: {event.problem}; compaction not checked")
    trigger = event.text("trigger") or "auto"
    try:
        repo, config = _open(event)
    except git.GitError as exc:
        return HookResult(message=f"rehydrate: {exc}; compaction not checked")
    except RehydrateError as exc:
        return _compact_problem(None, trigger, event, f"configuration unreadable: {exc}", [])
    dirty = uncommitted_ledgers(repo, config)
    if dirty and trigger == "manual":
        return _compact_problem(repo.root, trigger, event, None, dirty)
    problem = None
    try:
        _state_dir(repo.root)
        write_envelope(
            repo,
            config,
            Source("worktree"),
            "context_compaction",
            None,
            str(repo.root / ENVELOPE_FILE),
            record=True,
            command="hook claude pre-compact",
        )
    except RehydrateError as exc:
        problem = f"a ledger cannot be read: {exc}"
    if not dirty and problem is None:
        return HookResult()
    return _compact_problem(repo.root, trigger, event, problem, dirty)


def _compact_problem(
    root: Path | None, trigger: str, event: Event, problem: str | None, dirty: list[str]
) -> HookResult:
    what = problem or f"uncommitted ledger changes in {', '.join(dirty)}"
    if trigger == "manual":
        fix = (
            f"commit the ledgers first ({_commit_hint(dirty)}), then compact again"
            if dirty and problem is None
            else "fix the ledger first, then compact again"
        )
        return HookResult(exit_code=2, message=f"rehydrate: compaction refused: {what}; {fix}.")
    if root is not None:
        _store(
            root,
            WARNING_FILE,
            {
                "session_id": event.text("session_id"),
                "trigger": trigger,
                "paths": dirty,
                "problem": problem,
                "time": _now(),
            },
        )
    return HookResult(
        message=f"rehydrate: automatic compaction over {what}; the next "
        "session start will show this warning first."
    )


# PostCompact


def post_compact(event: Event) -> HookResult:
    """Verify ``compact_summary`` against the ledgers; store the verdict for SessionStart."""
    from ..errors import LedgerParseError
    from ..state import Source, load_state

    if event.problem:
        return HookResult(message=f"rehydrate: {event.problem}; summary not verified")
    try:
        repo, config = _open(event)
    except git.GitError as exc:
        return HookResult(message=f"rehydrate: {exc}; summary not verified")
    summary = event.text("compact_summary")
    try:
        state = load_state(repo, config, Source("worktree"))
    except LedgerParseError as exc:
        verdict = _verdict(
            "ledgers", [{"code": "ledger_invalid", "id": exc.item_id, "field": exc.file}]
        )
    else:
        if summary is None:
            verdict = _verdict(
                "none", [{"code": "summary_missing", "id": None, "field": "compact_summary"}]
            )
        else:
            verdict = verify_summary(summary, state)
    verdict.update(
        {"session_id": event.text("session_id"), "trigger": event.text("trigger"), "time": _now()}
    )
    pending = _take(repo.root, PENDING_FILE)
    if pending is not None:
        verdict["late"] = True  # SessionStart(compact) already ran: deliver it another way
    if pending is None or verdict["summary"] != "faithful":
        _store(repo.root, VERDICT_FILE, verdict)
    return HookResult(
        message=f"rehydrate: compaction summary {verdict['summary']} "
        f"({len(verdict['reasons'])} findings)"
    )


def _verdict(method: str, reasons: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema": VERDICT_SCHEMA,
        "summary": "unfaithful" if reasons else "faithful",
        "method": method,
        "reasons": reasons,
    }


def verify_summary(summary: str, state: Any) -> dict[str, Any]:
    """The verdict on a compaction summary: the resume-manifest verification when the
    summary embeds a manifest, otherwise the presence of every active MUST/MUST NOT
    constraint ID, every unknown external write ID and the next action."""
    from ..continuity.verify import extract_manifest, verify_text
    from ..ledgers import normalize

    found = extract_manifest(summary)
    if found.problem is None or found.problem.code != "manifest_missing":
        result = verify_text(summary, state)
        return _verdict(
            "manifest",
            [{"code": r.code, "id": r.id, "field": r.field} for r in result.reasons]
            if not result.ok
            else [],
        )
    spec, task = state.ledgers["spec"], state.ledgers["task"]
    reasons: list[dict[str, Any]] = []
    for constraint in spec.active("constraints"):
        if constraint.level in ("MUST", "MUST NOT") and not _mentions(summary, constraint.id):
            reasons.append(
                {"code": "constraint_dropped", "id": constraint.id, "field": "constraints"}
            )
    for write in task.section("external writes"):
        if write.status == "unknown" and not _mentions(summary, write.id):
            reasons.append(
                {"code": "unknown_write_dropped", "id": write.id, "field": "external_writes"}
            )
    if task.next_action and normalize(task.next_action.text) not in normalize(summary):
        reasons.append({"code": "next_action_dropped", "id": None, "field": "next_action"})
    return _verdict("ids", reasons)


def _mentions(text: str, item_id: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(item_id) + r"(?![\w-])", text) is not None


# Stop


def stop(event: Event) -> HookResult:
    """Block the stop once while ledger changes are uncommitted (or a ledger is broken)."""
    from ..errors import LedgerParseError
    from ..state import Source, load_state

    if event.problem:
        return HookResult(message=f"rehydrate: {event.problem}; stop not checked")
    if event.data.get("stop_hook_active") is True:
        return HookResult(message="rehydrate: stop hook already active; not blocking again")
    try:
        repo, config = _open(event)
    except git.GitError as exc:
        return HookResult(message=f"rehydrate: {exc}; stop not checked")
    except RehydrateError as exc:
        return _block(f"rehydrate cannot read its configuration: {exc}. Fix it before stopping.")
    reasons = []
    late = _late_verdict(repo.root)
    if late is not None:
        reasons.append(late)
    try:
        load_state(repo, config, Source("worktree"))
    except LedgerParseError as exc:
        reasons.append(
            f"A ledger cannot be read: {exc}. Fix it before stopping; the next "
            "session cannot rehydrate from a broken ledger."
        )
    dirty = uncommitted_ledgers(repo, config)
    if dirty:
        reasons.append(
            f"Ledger changes are not committed: {', '.join(dirty)}. Make sure Task's next "
            f"action and phases are current, then commit them: {_commit_hint(dirty)}."
        )
    return _block(" ".join(reasons)) if reasons else HookResult()


def _block(reason: str) -> HookResult:
    return HookResult(output={"decision": "block", "reason": reason})


HANDLERS = {
    "session-start": session_start,
    "pre-tool-use": pre_tool_use,
    "pre-compact": pre_compact,
    "post-compact": post_compact,
    "stop": stop,
}


def run_hook(name: str, raw: str) -> HookResult:
    """Dispatch one hook event; an unexpected error fails closed where the event can block."""
    event = read_event(raw)
    try:
        return HANDLERS[name](event)
    except Exception as exc:  # noqa: BLE001 - a hook must answer, never crash the session
        text = (
            f"rehydrate: {exc}"
            if isinstance(exc, RehydrateError)
            else (
                f"rehydrate: internal error in the {name} hook ({type(exc).__name__}: {exc}); "
                "this is a bug, please report it. To bypass, remove the hook from "
                ".claude/settings.json"
            )
        )
        if name == "pre-tool-use":
            return _deny(text)
        if name == "session-start":
            return _context(text)
        if name == "stop" and event.data.get("stop_hook_active") is not True:
            return _block(text)
        if name == "pre-compact" and event.text("trigger") == "manual":
            return HookResult(exit_code=2, message=text)
        return HookResult(message=text)
