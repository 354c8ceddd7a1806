"""Kiro CLI adapter (documented JSON, Kiro CLI 2.16 agent hooks): its event JSON in, its
stdout, stderr and exit codes out.

What this adapter knows of Kiro CLI, from its hooks reference (not run here):

* hooks live in an agent configuration, ``.kiro/agents/<name>.json`` under ``"hooks"``,
  each event a list of ``{"command": …, "matcher": …}``; rehydrate adds its own agent,
  ``rehydrate`` (``kiro-cli chat --agent rehydrate``), with every tool;
* the event is ``{"hook_event_name", "cwd"}``, plus ``tool_name`` and ``tool_input`` for
  tool hooks (the shell tool: ``execute_bash``, ``tool_input.command``);
* exit 0: stdout is added to the context (agentSpawn); exit 2 (preToolUse only): the
  call is blocked and stderr goes to the model; any other exit is a warning;
* no exit code is documented for a tool's response, and stop cannot block: no capture,
  no held stop. The pre/postCompact hooks carry no summary, so there is nothing to
  verify; the core comes back with the next agentSpawn.

Files under ``.rehydrate/`` start with ``kiro-``.
"""

from __future__ import annotations

from pathlib import Path

from . import hookcore
from .config_merge import install_json
from .core import INJECT, Outcome, Runtime
from .events import Event, HookResult
from .runtimes import Installed, hook_file
from .units import CODE_POINTS, Cap

RUNTIME = Runtime("kiro", Cap(10000, CODE_POINTS))
HOOK_FILE = hook_file("kiro")
AGENT_FILE = HOOK_FILE.path
LAYOUT = HOOK_FILE.layout
SHELL_TOOLS = ("execute_bash", "shell", "execute_cmd")
BLOCKED = 2  # Kiro's exit code for a refused preToolUse
HOOKS = HOOK_FILE.wires
AGENT_BASE = HOOK_FILE.base


def _where(event: Event) -> str:
    return event.located(keys=("cwd",))


def _refuse(reason: str) -> HookResult:
    return HookResult(exit_code=BLOCKED, message=reason)


def _context(_event_name: str, outcome: Outcome) -> HookResult:
    if outcome.action != INJECT:
        return HookResult(message=outcome.note)
    return HookResult(text=outcome.text, message=outcome.note)


# Kiro has no stop to hold: a "block" is never asked of it (its row has no stop event).
ANSWERS = hookcore.Answers(hookcore.plain, _refuse, _refuse, _context)


def agent_spawn(event: Event) -> HookResult:
    from .context import session_context

    return _context("agentSpawn", session_context(_where(event), RUNTIME, "startup", None))


def pre_tool_use(event: Event) -> HookResult:

    shell = event.text("tool_name") in SHELL_TOOLS
    command = event.command() if shell else None
    return hookcore.tool_call(event, RUNTIME, ANSWERS, command, shell, where=_where(event))


ADAPTER = hookcore.adapter(RUNTIME.name, vars())  # a handler per event of the row
HANDLERS = ADAPTER.handlers
run_hook = hookcore.runner(RUNTIME.name)  # read, dispatched, failed closed by the row


def install_agent(root: Path, python: str) -> list[Installed]:
    """The ``rehydrate`` agent in ``.kiro/agents/``, its hooks merged."""
    what = install_json(root, HOOK_FILE, python)
    return [Installed(what, AGENT_FILE, "start it with `kiro-cli chat --agent rehydrate`")]
