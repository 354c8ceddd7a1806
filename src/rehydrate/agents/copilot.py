"""GitHub Copilot CLI adapter: its hook event JSON in, its hook JSON out.

What this adapter knows of Copilot CLI (1.0.102, run for real in ``tests/realclient``):

* hooks are ``version: 1`` files ``.github/hooks/*.json``, ``hooks.<event>`` lists of
  ``{"type": "command", "bash": …}``; they load in ``-p`` mode only in a trusted folder
  (``trusted_folders`` in ``~/.copilot/config.json``);
* events carry ``sessionId``, ``cwd``; preToolUse has ``toolName`` (``bash``) and
  ``toolArgs.command`` and is refused by ``permissionDecision: "deny"`` with a
  ``permissionDecisionReason``; postToolUse adds ``toolResult`` (``resultType``,
  ``textResultForLlm``, which ends ``<shellId: N completed with exit code C>``; the
  ``resultType`` stays ``success`` for a command that exits non-zero); agentStop has
  ``stop_hook_active`` and can be blocked (``decision: "block"``) to continue;
* sessionStart's output is not processed (documented), and the instruction files are read
  *before* sessionStart runs: so the capped core goes into
  ``.github/instructions/rehydrate-core.instructions.md`` (``applyTo: "**"``, kept out of git
  by ``.git/info/exclude``), written by ``init`` and rebuilt at each session's start and end,
  so that the next session reads it; ``.github/copilot-instructions.md`` carries a short
  static section naming the ledgers (``copilot_install``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..readlimit import read_text
from . import hookcore
from .core import INJECT, Outcome, Runtime
from .events import Event, HookResult
from .runtimes import hook_file
from .units import UTF16, Cap

RUNTIME = Runtime("copilot", Cap(12000, UTF16))
CORE_FILE = ".github/instructions/rehydrate-core.instructions.md"
CORE_HEAD = (
    '---\napplyTo: "**"\n---\n'
    "<!-- written by rehydrate at {time} (every Copilot CLI session's start and end); do not "
    "edit. `rehydrate prompt` prints the ledgers' current state. -->\n\n"
)
SHELL_TOOL = "bash"
HOOKS_FILE = hook_file("copilot").path
# event -> subcommand, for .github/hooks/rehydrate.json, from its RUNTIMES row
SETTINGS_HOOKS: Mapping[str, str] = {
    event: name for event, (_, name, _) in hook_file("copilot").wires.items()
}
EVENTS = tuple(SETTINGS_HOOKS.values())
# how the bash tool's result ends: "<shellId: 0 completed with exit code 2>"
_EXIT = re.compile(r"<shellId: \S+ completed with exit code (-?\d+)>")


def _command(event: Event) -> str | None:
    args = event.object("toolArgs")
    command = args.get("command")
    return command if isinstance(command, str) and command.strip() else None


def _deny(reason: str) -> HookResult:
    return HookResult(output={"permissionDecision": "deny", "permissionDecisionReason": reason})


def _context(_event_name: str, outcome: Outcome) -> HookResult:
    if outcome.action != INJECT:
        return HookResult(message=outcome.note)
    return HookResult(output={"additionalContext": outcome.text}, message=outcome.note)


ANSWERS = hookcore.Answers(hookcore.plain, _deny, hookcore.decision_block, _context)


def write_core(where: str) -> bool | None:
    """Rebuild the core file the next session reads; False when its core was current
    (then it is left as it is, time included); None where nothing is guarded."""
    from ..ledgers.atomicfile import write_in_repo
    from .context import session_context
    from .core import find_repo
    from .store import now

    outcome = session_context(where, RUNTIME, "startup", None)
    if outcome.action != INJECT:  # nothing guarded here: nothing written
        return None
    root = find_repo(where).root
    core = outcome.text + "\n"
    try:
        current = read_text(root / CORE_FILE)
    except (OSError, ValueError):
        current = ""
    if current.endswith("-->\n\n" + core) and current.startswith(CORE_HEAD[:20]):
        return False
    text = CORE_HEAD.format(time=now()) + core
    write_in_repo(root, CORE_FILE, text.encode("utf-8"), create_dirs=True)
    return True


def session_edge(event: Event) -> HookResult:
    """sessionStart and sessionEnd: refresh the core for the next session (Copilot CLI
    processes no output of either)."""
    written = write_core(event.where)
    if written is None:
        return HookResult()
    return HookResult(message=f"rehydrate: {CORE_FILE} {'refreshed' if written else 'current'}")


def pre_tool_use(event: Event) -> HookResult:
    """Deny a bash command that repeats a failed attempt, or any while a ledger is broken."""
    shell = event.text("toolName") == SHELL_TOOL
    command = _command(event) if shell else None
    return hookcore.tool_call(event, RUNTIME, ANSWERS, command, shell)


def post_tool_use(event: Event) -> HookResult:
    """Capture a bash command whose result is a failure."""
    from .captured import capture_failed_command

    result = event.object("toolResult")
    command = _command(event)
    if event.text("toolName") != SHELL_TOOL or command is None:
        return HookResult()
    said = result.get("textResultForLlm")
    said = said if isinstance(said, str) else ""
    codes = _EXIT.findall(said)
    failed = result.get("resultType") in ("failure", "error") or bool(codes and codes[-1] != "0")
    if not failed:
        return HookResult()
    outcome = capture_failed_command(event.where, command, _EXIT.sub("", said).strip())
    return ANSWERS.context("postToolUse", outcome)


def agent_stop(event: Event) -> HookResult:
    """Block the end of the turn once while something would be lost by stopping."""
    return hookcore.stop(event, RUNTIME, ANSWERS, hookcore.stop_hook_active(event))


session_start = session_edge
session_end = session_edge
ADAPTER = hookcore.adapter(RUNTIME.name, vars())  # a handler per event of the row
HANDLERS = ADAPTER.handlers
run_hook = hookcore.runner(RUNTIME.name)  # read, dispatched, failed closed by the row
