"""Gemini CLI adapter: its hook event JSON in, its hook JSON and exit codes out.

Only the translation lives here; what to do is decided by the shared core. What this
adapter knows of Gemini CLI (0.61.0, run for real in ``tests/realclient``):

* hooks are ``hooks.<Event>`` groups in ``.gemini/settings.json``, each event JSON on
  stdin with ``session_id``, ``cwd``, ``hook_event_name``; ``$GEMINI_PROJECT_DIR`` names
  the project;
* SessionStart (``source``: startup, resume, clear) does not fire after a compression,
  and PreCompress fires before every turn, compressing or not, and cannot block or change
  the summariser's prompt; so the context goes in through **BeforeModel**, whose
  ``hookSpecificOutput.llm_request.messages`` replace the request's text messages one by
  one (the rest kept). That rewriting is not kept in the history, so each request gets
  the core exactly once, before its first message. After a compression the first
  message is the summary (``<state_snapshot>``): it is verified, and the core rebuilt;
  another first message is another conversation of the session (a subagent's), which
  gets the subagent core;
* BeforeTool (``tool_name: "run_shell_command"``, ``tool_input.command``) is refused by
  ``{"decision": "deny", "reason": …}``, which the model reads as the tool's error;
* AfterTool's ``tool_response.llmContent`` ends with ``Exit Code: N`` when a command
  failed; its ``additionalContext`` is appended to the tool result (a captured failure,
  and the advice on a command close to a failed attempt: BeforeTool cannot carry it);
* AfterAgent (``stop_hook_active``) denied sends the reason as a new prompt, once;
* Gemini CLI keeps ``additionalContext`` whole, escaping ``<`` and ``>``; the cap here is
  rehydrate's own budget, counted as JavaScript does (UTF-16 code units).

Files under ``.rehydrate/`` start with ``gemini-`` (see docs/integrations/gemini.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from .. import digests
from ..errors import RehydrateError
from ..quote import error
from . import hookcore
from .core import INJECT, Runtime
from .events import Event, HookResult
from .runtimes import hook_file
from .units import UTF16, Cap

CONTEXT_LIMIT = 12000  # rehydrate's budget for the core, in UTF-16 code units
RUNTIME = Runtime("gemini", Cap(CONTEXT_LIMIT, UTF16))
CONTEXT_FILE = RUNTIME.file("context.json")  # the core this session's requests get
SHELL_TOOL = "run_shell_command"
SNAPSHOT = "<state_snapshot>"  # how Gemini CLI's compression summary begins
MAX_CHATS = 8  # conversations of one session whose core is kept (main, subagents)
SETTINGS_FILE = hook_file("gemini").path
# event -> (matcher or None, subcommand), for .gemini/settings.json, from its RUNTIMES row
SETTINGS_HOOKS: Mapping[str, tuple[str | None, str]] = {
    event: (matcher, name) for event, (matcher, name, _) in hook_file("gemini").wires.items()
}
EVENTS = tuple(name for _, name in SETTINGS_HOOKS.values())
_EXIT = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
_WRAPPER = re.compile(r"</?untrusted_context>")


def _deny(reason: str) -> HookResult:
    return HookResult(output={"decision": "deny", "reason": reason})


# A refusal and a held stop are both Gemini CLI's `decision: deny`.
ANSWERS = hookcore.Answers(hookcore.plain, _deny, _deny, hookcore.specific_context)


def _fingerprint(text: str) -> str:
    return digests.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _root(where: str) -> Path | None:
    from .tools import work_tree_root

    return work_tree_root(where)


def session_start(event: Event) -> HookResult:
    """Build the core for a new, resumed or cleared session; BeforeModel delivers it."""
    from .context import session_context
    from .store import store

    source = event.text("source") or "startup"
    outcome = session_context(event.where, RUNTIME, source, event.text("session_id"))
    root = _root(event.where)
    if root is not None and outcome.action == INJECT:
        note: dict[str, object] = {"session_id": event.text("session_id"), "text": outcome.text}
        note["chats"] = {}
        try:
            store(root, CONTEXT_FILE, note)
        except (OSError, RehydrateError) as exc:  # BeforeModel builds the core again
            return HookResult(message=error(f"rehydrate: could not write {CONTEXT_FILE}:", exc))
    return HookResult(message=outcome.note)


def before_model(event: Event) -> HookResult:
    """Put the core before the request's first message, unless it is there already."""
    messages = event.object("llm_request").get("messages")
    first = messages[0] if isinstance(messages, list) and messages else None
    content = first.get("content") if isinstance(first, dict) else None
    if not isinstance(first, dict) or not isinstance(content, str):
        return HookResult(message="rehydrate: the model request has no text message")
    root = _root(event.where)
    if root is None:  # outside any git repository: nothing is guarded here
        return HookResult()
    text = _core_for(event, root, content)
    if content.startswith(text):
        return HookResult()
    rewritten = {**first, "content": f"{text}\n\n{content}"}
    specific = {"hookEventName": "BeforeModel", "llm_request": {"messages": [rewritten]}}
    return HookResult(output={"hookSpecificOutput": specific})


def _core_for(event: Event, root: Path, first: str) -> str:
    """The core for a request whose first message is ``first``: kept per conversation of
    the session (by a hash of its first message). A new first message is a compression
    when it holds a ``<state_snapshot>`` (the summary is verified, the core rebuilt), else
    another conversation of the session, a subagent's (it gets the subagent core)."""
    from .store import peek, store

    session = event.text("session_id")
    anchor = _fingerprint(first)
    note = peek(root, CONTEXT_FILE) or {}
    if note.get("session_id") != session:
        note = {}
    raw = note.get("chats")
    chats = {k: v for k, v in raw.items() if isinstance(v, str)} if isinstance(raw, dict) else {}
    text = chats.get(anchor)
    if text is not None:
        return text
    started = note.get("text")
    if isinstance(started, str) and not chats:  # the session start's core, first claimed
        text = started
    elif SNAPSHOT in first:
        from .compaction import after_compaction
        from .context import session_context

        after_compaction(event.where, RUNTIME, first, "auto", session)
        text = session_context(event.where, RUNTIME, "compact", session).text
    elif chats:
        from .context import subagent_context

        text = subagent_context(event.where, RUNTIME).text
    else:
        from .context import session_context

        text = session_context(event.where, RUNTIME, "startup", session).text
    if not text:  # nothing guarded here (agents/judging.py): nothing kept either
        return text
    kept = [*((k, v) for k, v in chats.items() if k != anchor), (anchor, text)][-MAX_CHATS:]
    try:  # a secondary write: the core is delivered all the same
        store(root, CONTEXT_FILE, {"session_id": session, "text": started, "chats": dict(kept)})
    except (OSError, RehydrateError):
        pass
    return text


def before_tool(event: Event) -> HookResult:
    """Deny a shell command that repeats a failed attempt, or any while a ledger is broken."""

    shell = event.text("tool_name") in (None, SHELL_TOOL)
    command = event.command() if shell else None
    session = hookcore.session_id(event)
    return hookcore.tool_call(event, RUNTIME, ANSWERS, command, shell, session=session)


def failed_exit(response: Mapping[str, object]) -> tuple[int, str] | None:
    """(exit code, output) when ``tool_response`` reports a command that failed."""
    content = response.get("llmContent")
    if not isinstance(content, str):
        return None
    codes = _EXIT.findall(content)
    if not codes or int(codes[-1]) == 0:
        return None
    return int(codes[-1]), _WRAPPER.sub("", content).strip()


def after_tool(event: Event) -> HookResult:
    """Capture a failed shell command as a pending failure, and name the failed attempts
    it came close to; both reach the model with the tool's result."""
    from .tools import after_shell_call

    command = event.command()
    if event.text("tool_name") != SHELL_TOOL or command is None:
        return HookResult()
    failed = failed_exit(event.object("tool_response"))
    error = None if failed is None else f"Exit code {failed[0]}\n{failed[1]}"
    return ANSWERS.context("AfterTool", after_shell_call(event.where, command, error))


after_agent = hookcore.stopper(RUNTIME, ANSWERS)  # the end of the turn, denied once
ADAPTER = hookcore.adapter(RUNTIME.name, vars())  # a handler per event of the row
HANDLERS = ADAPTER.handlers
run_hook = hookcore.runner(RUNTIME.name)  # read, dispatched, failed closed by the row
