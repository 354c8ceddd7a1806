"""Cursor adapter (documented JSON, Cursor 2.0 agent hooks, ``.cursor/hooks.json``
``"version": 1``): its event JSON in, its answer JSON out.

What this adapter knows of Cursor, from its hooks reference (not run here):

* every event has ``hook_event_name``, ``conversation_id``, ``generation_id`` and
  ``workspace_roots``; ``beforeShellExecution`` adds ``command`` and ``cwd``;
  ``stop`` adds ``status`` and ``loop_count`` (how many follow-ups already ran);
* ``sessionStart`` may answer ``{"additional_context": …}``; since that is the newest
  part of the reference, the always-applied rule ``.cursor/rules/rehydrate.mdc`` says the
  same in words (read the three ledgers first);
* ``beforeShellExecution`` answers ``{"permission": "allow" | "deny", "user_message",
  "agent_message"}``;
* ``stop`` answers ``{"followup_message": …}``, which Cursor sends as the next user
  message (at most a few times; rehydrate asks once: ``loop_count`` 0 only);
* ``afterShellExecution`` carries the output and duration, no exit code: a failure
  cannot be told apart, so nothing is captured.

Files under ``.rehydrate/`` start with ``cursor-``.
"""

from __future__ import annotations

from pathlib import Path

from . import hookcore
from .config_merge import install_json, place_file
from .core import INJECT, Outcome, Runtime
from .events import Event, HookResult
from .runtimes import Installed, hook_file
from .units import CODE_POINTS, Cap

RUNTIME = Runtime("cursor", Cap(10000, CODE_POINTS))
HOOK_FILE = hook_file("cursor")
HOOKS_FILE = HOOK_FILE.path
RULE_FILE = ".cursor/rules/rehydrate.mdc"
LAYOUT = HOOK_FILE.layout
HOOKS = HOOK_FILE.wires
RULE = """\
---
description: rehydrate keeps this work's state in three ledgers
alwaysApply: true
---
This repository keeps its state in the ledgers {spec}, {task} and {failures}
(rehydrate). Read them before acting: keep every MUST / MUST NOT constraint in {spec},
never repeat an active failed attempt in {failures} (use its workaround), and work
towards the next action in {task}. Record what you learn with the `rehydrate` writers
and commit the ledgers before you stop.
"""


def _where(event: Event) -> str:
    return event.located(keys=("cwd", "workspace_roots"))


def _note(event: str, note: str | None) -> HookResult:
    output = {"permission": "allow"} if event == "before-shell-execution" else {}
    return HookResult(output=output, message=note)


def _deny(reason: str) -> HookResult:
    return HookResult(
        output={"permission": "deny", "user_message": reason, "agent_message": reason}
    )


def _followup(text: str) -> HookResult:
    return HookResult(output={"followup_message": text})


def _context(_event_name: str, outcome: Outcome) -> HookResult:
    if outcome.action != INJECT:
        return HookResult(output={}, message=outcome.note)
    return HookResult(output={"additional_context": outcome.text}, message=outcome.note)


ANSWERS = hookcore.Answers(_note, _deny, _followup, _context)


def session_start(event: Event) -> HookResult:
    from .context import session_context

    outcome = session_context(_where(event), RUNTIME, "startup", event.text("conversation_id"))
    return _context("sessionStart", outcome)


def before_shell_execution(event: Event) -> HookResult:
    command = event.text("command") or None
    where, name = _where(event), "before-shell-execution"
    return hookcore.tool_call(event, RUNTIME, ANSWERS, command, True, where=where, name=name)


def stop(event: Event) -> HookResult:
    loops = event.data.get("loop_count")
    continuing = isinstance(loops, int) and loops > 0
    return hookcore.stop(event, RUNTIME, ANSWERS, continuing, where=_where(event), name="stop")


ADAPTER = hookcore.adapter(RUNTIME.name, vars())  # a handler per event of the row
HANDLERS = ADAPTER.handlers
run_hook = hookcore.runner(RUNTIME.name)  # read, dispatched, failed closed by the row


def install_agent(root: Path, python: str) -> list[Installed]:
    """``.cursor/hooks.json`` (merged) and the always-applied rule."""
    from ..config import load_config

    what = install_json(root, HOOK_FILE, python)
    config = load_config(root)
    rule = RULE.format(**{k: config.path_of(k) for k in ("spec", "task", "failures")})
    placed = place_file(root, RULE_FILE, rule)
    rule_note = "yours, kept as it is" if placed == "kept" else ""
    return [
        Installed(what, HOOKS_FILE),
        Installed("unchanged" if placed == "kept" else placed, RULE_FILE, rule_note),
    ]
