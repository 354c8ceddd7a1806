"""Codex CLI adapter: its hook event JSON in, its hook JSON and exit codes out.

What to do is decided by the shared core (``agents/core.py`` and the action modules);
only the translation lives here. What this adapter knows of Codex CLI (0.171.0, checked
against the real client in ``tests/realclient/test_codex_real.py``):

* the events: SessionStart (``source``: startup, resume, clear, compact), PreToolUse and
  PostToolUse (``tool_name: "Bash"``, ``tool_input.command`` with its newlines,
  ``tool_use_id``; PostToolUse's ``tool_response`` is the output only, no exit code),
  PreCompact and PostCompact (``trigger``), Stop (``stop_hook_active``); every event
  has ``cwd``, ``session_id`` and ``transcript_path``, the session's rollout file;
* the output convention, Claude Code's: ``hookSpecificOutput.additionalContext`` (a
  developer message), ``permissionDecision: "deny"`` (the tool output becomes "Command
  blocked by PreToolUse hook: <reason>"), Stop ``decision: "block"`` (its reason goes on
  as a user message, once), exit 2 to refuse;
* its cap: ``additionalContext`` above 2,500 tokens, counted as bytes / 4, keeps its
  head and tail and drops the middle, so the context is fitted to 10,000 UTF-8 bytes
  (where F-001 sits in the middle, nothing is lost);
* compaction: PreCompact, the summary request, PostCompact, then SessionStart
  (``compact``). PreCompact's output does not reach the summariser; PostCompact gets no
  summary: it is the ``{"type": "compacted", "payload": {"message": …}}`` line of the
  rollout, read from the end of the file.

Files under ``.rehydrate/`` start with ``codex-``.
"""

from __future__ import annotations

import json
import os
import re

from ..errors import RehydrateError
from . import hookcore
from .core import REFUSE, Runtime
from .events import Event, HookResult
from .units import UTF8, Cap

CONTEXT_LIMIT = 10000  # 2,500 tokens of bytes / 4: Codex's cap on additionalContext
RUNTIME = Runtime("codex", Cap(CONTEXT_LIMIT, UTF8))
SHELL_TOOL = "Bash"
TAIL_BYTES = 16 * 1024 * 1024  # of the rollout read to find a line (a compacted line is big)
_EXITED = re.compile(r"Process exited with code (-?\d+)")


ANSWERS = hookcore.CLAUDE_SHAPE  # Codex follows Claude Code's output convention


# The rollout file: JSON lines, newest last.


def rollout_lines(
    path: str | None, needle: str, limit: int = TAIL_BYTES
) -> list[dict[str, object]]:
    """The records of the rollout at ``path`` whose line holds ``needle``, newest first,
    read from the last ``limit`` bytes (a line cut by the window is skipped)."""
    if not path or "\x00" in path or not os.path.isfile(path):
        return []
    from ..readlimit import load_json, read_tail

    try:
        data = read_tail(path, limit)
    except (OSError, RehydrateError):
        return []
    wanted = needle.encode("utf-8")
    found = []
    for line in reversed(data.split(b"\n")):
        if wanted not in line:
            continue
        try:
            record = load_json(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            found.append(record)
    return found


def compacted_summary(path: str | None) -> str | None:
    """The summary of the last compaction, as the model reads it: the ``message`` of the
    rollout's last ``compacted`` record."""
    for record in rollout_lines(path, '"compacted"'):
        payload = record.get("payload")
        if record.get("type") == "compacted" and isinstance(payload, dict):
            message = payload.get("message")
            if isinstance(message, str):
                return message
    return None


def exit_code(path: str | None, call_id: str | None) -> int | None:
    """The exit code of shell call ``call_id``, from the rollout: its completed
    CommandExecution item, else its function output's "Process exited with code N"."""
    if not call_id:
        return None
    for record in rollout_lines(path, json.dumps(call_id)):
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        item = payload.get("item")
        if isinstance(item, dict) and item.get("id") == call_id:
            code = item.get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                return code
        if payload.get("call_id") == call_id and isinstance(payload.get("output"), str):
            said = _EXITED.search(payload["output"])
            if said:
                return int(said.group(1))
    return None


# The events (read, and failed closed, by hookcore.run_hook).


def pre_tool_use(event: Event) -> HookResult:
    """Hold the first tool call after a compaction; deny a repeated failed attempt."""

    tool = event.text("tool_name")
    shell = tool is None or tool == SHELL_TOOL
    command = event.command() if shell else None
    session = hookcore.session_id(event)
    return hookcore.tool_call(event, RUNTIME, ANSWERS, command, shell, "PreToolUse", session)


def post_tool_use(event: Event) -> HookResult:
    """Capture a shell command that exited non-zero (the code comes from the rollout)."""
    from .captured import capture_failed_command

    command = event.command()
    if event.text("tool_name") != SHELL_TOOL or command is None:
        return HookResult()
    code = exit_code(event.text("transcript_path"), event.text("tool_use_id"))
    if code is None:
        return HookResult(message="rehydrate: no exit code in the rollout; not captured")
    if code == 0:
        return HookResult()
    output = event.data.get("tool_response")
    error = f"Exit code {code}\n{output if isinstance(output, str) else ''}"
    outcome = capture_failed_command(event.where, command, error)
    return ANSWERS.context("PostToolUse", outcome)


def pre_compact(event: Event) -> HookResult:
    """Record the compaction; refuse a manual one over uncommitted ledgers. (The
    instructions for the summariser have nowhere to go: Codex does not pass them on.)"""
    from .compaction import before_compaction

    trigger = event.text("trigger") or "auto"
    outcome = before_compaction(event.where, RUNTIME, trigger, hookcore.session_id(event))
    if outcome.action == REFUSE:
        return HookResult(exit_code=2, message=outcome.text)
    return HookResult(message=outcome.note)


def post_compact(event: Event) -> HookResult:
    """Verify the summary the model now reads (from the rollout) against the ledgers."""
    from .compaction import after_compaction

    seen = compacted_summary(event.text("transcript_path"))
    outcome = after_compaction(
        event.where, RUNTIME, seen, event.text("trigger"), hookcore.session_id(event)
    )
    return HookResult(message=outcome.note)


session_start = hookcore.starter(RUNTIME, ANSWERS, "SessionStart")
stop = hookcore.stopper(RUNTIME, ANSWERS)
ADAPTER = hookcore.adapter(RUNTIME.name, vars())  # a handler per event of the row
HANDLERS = ADAPTER.handlers
run_hook = hookcore.runner(RUNTIME.name)  # read, dispatched, failed closed by the row
