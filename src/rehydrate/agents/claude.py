"""Claude Code adapter: its hook event JSON in, its hook JSON, stdout and exit codes out.

Only the translation lives here; what to do is decided by the shared core
(``agents/core.py`` and the action modules). What this adapter knows of Claude Code
(2.1.332, checked against the real client in ``tests/realclient``):

* the events and their fields (``source``, ``tool_name``, ``tool_input.command``,
  ``error``, ``is_interrupt``, ``trigger``, ``compact_summary``, ``stop_hook_active``);
* its output convention: ``hookSpecificOutput.additionalContext`` for SessionStart,
  SubagentStart and PostToolUseFailure, ``permissionDecision: "deny"`` for PreToolUse,
  ``decision: "block"`` for Stop, exit 2 to refuse a compaction (exit 1 is ignored),
  plain stdout for PreCompact (appended to the summariser's prompt as "Additional
  Instructions") and PostCompact (shown to the user; after a manual ``/compact`` the
  model reads it too);
* its cap: ``additionalContext`` and PreCompact's stdout are kept while their
  JavaScript length is at most 10,000, so sizes are counted in UTF-16 code units;
* how it rewrites the compaction summary before the model reads it
  (``summary_as_seen``);
* its order around a compaction: PreCompact, the summary request,
  SessionStart(``compact``), then PostCompact.

Files under ``.rehydrate/`` start with ``claude-`` (see docs/claude-code.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from . import hookcore
from .contextuse import LIMIT_ENV
from .core import INSTRUCT, REFUSE, SHOW, Outcome, Runtime
from .events import Event, HookResult
from .runtimes import hook_file
from .store import ENVELOPE, HOLD, PROMPT, VERDICT, WARNING, hold_of
from .units import UTF16, Cap

CONTEXT_LIMIT = 10000  # Claude Code's cap on additionalContext, in UTF-16 code units
RUNTIME = Runtime("claude", Cap(CONTEXT_LIMIT, UTF16))
PROMPT_FILE = RUNTIME.file(PROMPT)
WARNING_FILE = RUNTIME.file(WARNING)
VERDICT_FILE = RUNTIME.file(VERDICT)
HOLD_FILE = RUNTIME.file(HOLD)  # a session not named; a named one's: hold_file(session)
ENVELOPE_FILE = RUNTIME.file(ENVELOPE)
SHELL_TOOL = "Bash"
# The hooks rehydrate wires, for .claude/settings.json (init --claude) and the plugin's
# hooks/hooks.json alike (agents/claude_install.py), from its RUNTIMES row:
# event -> (matcher or None, subcommand)
SETTINGS_HOOKS: Mapping[str, tuple[str | None, str]] = {
    event: (matcher, name) for event, (matcher, name, _) in hook_file("claude").wires.items()
}
EVENTS = tuple(name for _, name in SETTINGS_HOOKS.values())


def hold_file(session: str | None) -> str:
    """The hold of one session after its compaction (other sessions are not held)."""
    return RUNTIME.file(hold_of(session))


ANSWERS = hookcore.CLAUDE_SHAPE
_context = ANSWERS.context


def summary_as_seen(raw: str) -> str:
    """``compact_summary`` as Claude Code puts it in the model's context.

    Claude Code (2.1.332) rewrites the summariser's reply before the model reads it: the
    first ``<analysis>`` block, up to the first ``</analysis>`` after it, is removed,
    unless a ``<summary>`` tag comes before it; then the first ``<summary>…</summary>``
    becomes ``Summary:`` and its trimmed content; runs of blank lines become one line
    break, and the whole is trimmed. Tags are matched as written (case-sensitive), one
    block each; an unclosed tag stays as text, so its content is seen.
    """
    text = raw
    analysis = _tag(text, "analysis")
    if analysis is not None and "<summary>" not in text[: analysis[0]]:
        text = text[: analysis[0]] + text[analysis[1] :]
    summary = _tag(text, "summary")
    if summary is not None:
        start, end, content = summary
        text = f"{text[:start]}Summary:\n{content.strip()}{text[end:]}"
    return re.sub(r"\n\n+", "\n", text).strip()


def _tag(text: str, name: str) -> tuple[int, int, str] | None:
    """(start, end, content) of the first ``<name>…</name>`` block, as Claude Code finds it."""
    start = text.find(f"<{name}>")
    if start == -1:
        return None
    inner = start + len(name) + 2
    close = text.find(f"</{name}>", inner)
    if close == -1:
        return None
    return start, close + len(name) + 3, text[inner:close]


# The events (read, and failed closed, by hookcore.run_hook).


def subagent_start(event: Event) -> HookResult:
    """The ledger core for a subagent: constraints, failures, the next action."""
    from .context import subagent_context

    return _context("SubagentStart", subagent_context(event.where, RUNTIME))


def pre_tool_use(event: Event) -> HookResult:
    """Hold the first tool call after a compaction; deny a repeated failed attempt."""

    if LIMIT_ENV in os.environ:  # inside `rehydrate run --context-limit`
        told = _context_limit(event)
        if told is not None:
            return ANSWERS.refuse(told.text)
    tool = event.text("tool_name")
    shell = tool is None or tool == SHELL_TOOL
    command = event.command() if shell else None
    session = hookcore.session_id(event)
    return hookcore.tool_call(event, RUNTIME, ANSWERS, command, shell, "PreToolUse", session)


def _context_limit(event: Event) -> Outcome | None:
    """The once-per-session instruction to record state and stop, past the run's limit."""
    from .contextuse import check_context
    from .tools import work_tree_root

    root = work_tree_root(event.where)
    if root is None:
        return None
    return check_context(root, event.text("transcript_path"), os.environ)


def post_tool_use_failure(event: Event) -> HookResult:
    """Capture a failed shell command as a pending failure (an interrupt is no failure)."""
    from .captured import capture_failed_command

    command = event.command()
    if event.text("tool_name") != SHELL_TOOL or command is None:
        return HookResult()
    if event.data.get("is_interrupt") is True:
        return HookResult(message="rehydrate: interrupted, not a failure; not captured")
    outcome = capture_failed_command(event.where, command, event.text("error") or "")
    return _context("PostToolUseFailure", outcome)


def pre_compact(event: Event) -> HookResult:
    """Instruct the summariser; refuse a manual compaction over uncommitted ledgers."""
    from .compaction import before_compaction

    trigger = event.text("trigger") or "auto"
    outcome = before_compaction(event.where, RUNTIME, trigger, hookcore.session_id(event))
    if outcome.action == REFUSE:
        return HookResult(exit_code=2, message=outcome.text)
    text = outcome.text if outcome.action == INSTRUCT else None
    return HookResult(text=text, message=outcome.note)


def post_compact(event: Event) -> HookResult:
    """Verify the summary as the model sees it; print the verdict."""
    from .compaction import after_compaction

    raw = event.text("compact_summary")
    seen = summary_as_seen(raw) if raw is not None else None
    outcome = after_compaction(
        event.where, RUNTIME, seen, event.text("trigger"), hookcore.session_id(event)
    )
    return HookResult(text=outcome.text if outcome.action == SHOW else None, message=outcome.note)


session_start = hookcore.starter(RUNTIME, ANSWERS, "SessionStart")
stop = hookcore.stopper(RUNTIME, ANSWERS)
ADAPTER = hookcore.adapter(RUNTIME.name, vars())  # a handler per event of the row
HANDLERS = ADAPTER.handlers
run_hook = hookcore.runner(RUNTIME.name)  # read, dispatched, failed closed by the row
