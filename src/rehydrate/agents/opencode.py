"""OpenCode adapter: what rehydrate's OpenCode plugin sends, and what it answers.

OpenCode (1.18.33, run for real in ``tests/realclient``) has no command hooks: a plugin
(``.opencode/plugins/rehydrate.js``, written by ``opencode_install``) runs in OpenCode's
process and shells out to ``<python> -I -m rehydrate hook opencode <event>`` with one JSON
object on stdin, reading one JSON object back. What the plugin relies on:

* ``experimental.chat.system.transform`` runs before every model call and its
  ``output.system`` is the system prompt of that call: the core goes there (built once per
  session and after each compaction, kept in the plugin's memory), so it is in every
  request exactly once and survives compaction;
* ``experimental.session.compacting``: ``output.context`` lines are added to the
  summariser's prompt (``compacting``);
* ``tool.execute.before`` (``input.tool == "bash"``, ``output.args.command``): an Error
  thrown there blocks the call, and its message is the tool result the model reads;
* ``tool.execute.after``: ``output.metadata.exit`` is the command's exit code;
  ``output.output`` is what the model reads;
* the ``session.idle`` event with ``client.session.promptAsync`` continues a session, in
  ``opencode serve`` (``opencode run`` exits at the first idle);
* the project is the process's directory (``$PWD``).

Answers: ``{"system": text}``, ``{"context": text}``, ``{"deny": reason}``, ``{"prompt":
text}`` (continue once), or ``{}``; a note for the person in ``"note"``. Files under
``.rehydrate/`` start with ``opencode-``.
"""

from __future__ import annotations

from . import hookcore
from .core import BLOCK, INJECT, INSTRUCT, Outcome, Runtime
from .events import Event, HookResult
from .units import UTF16, Cap

CONTEXT_LIMIT = 12000  # rehydrate's budget for the core, in UTF-16 code units
RUNTIME = Runtime("opencode", Cap(CONTEXT_LIMIT, UTF16))
SHELL_TOOL = "bash"
PLUGIN_FILE = ".opencode/plugins/rehydrate.js"
EVENTS = ("system", "compacting", "tool-before", "tool-after", "idle")


def _answer(note: str | None = None, **fields: str) -> HookResult:
    output: dict[str, object] = dict(fields)
    if note:
        output["note"] = note
    return HookResult(output=output, message=note)


def _context(_event_name: str, outcome: Outcome) -> HookResult:
    if outcome.action != INJECT:
        return _answer(outcome.note)
    return _answer(outcome.note, context=outcome.text)


ANSWERS = hookcore.Answers(
    lambda _event, note: _answer(note),
    lambda reason: _answer(None, deny=reason),
    lambda text: _answer(None, prompt=text),
    _context,
)


def system(event: Event) -> HookResult:
    """The core for the system prompt: at a session's start, or after a compaction (then
    the summary, when the plugin could read it, is verified first)."""
    from .context import session_context

    source = event.text("source") or "startup"
    session = event.text("session_id")
    if source == "compact":
        from .compaction import after_compaction

        after_compaction(event.where, RUNTIME, event.text("summary"), "auto", session)
    outcome = session_context(event.where, RUNTIME, source, session)
    if outcome.action != INJECT:
        return _answer(outcome.note)
    return _answer(outcome.note, system=outcome.text)


def compacting(event: Event) -> HookResult:
    """What the summary must keep, for the summariser's prompt."""
    from .compaction import before_compaction

    outcome = before_compaction(event.where, RUNTIME, "auto", event.text("session_id"))
    if outcome.action != INSTRUCT:
        return _answer(outcome.note)
    return _answer(outcome.note, context=outcome.text)


def tool_before(event: Event) -> HookResult:
    """Deny a bash command that repeats a failed attempt, or any while a ledger is broken."""
    shell = event.text("tool") == SHELL_TOOL
    command = event.text("command") if shell else None
    session = event.text("session_id")
    return hookcore.tool_call(event, RUNTIME, ANSWERS, command, shell, session=session)


def tool_after(event: Event) -> HookResult:
    """Capture a bash command that exited non-zero (tell the model how to record it), and
    name the failed attempts it came close to; both are added to the tool's output."""
    from .tools import after_shell_call

    command, code = event.text("command"), event.data.get("exit")
    if event.text("tool") != SHELL_TOOL or not command:
        return _answer()
    failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
    error = f"Exit code {code}\n{event.text('output') or ''}" if failed else None
    return _context("tool-after", after_shell_call(event.where, command, error))


def idle(event: Event) -> HookResult:
    """Continue the session once while something would be lost by stopping."""
    from .stop import check_stop

    outcome = check_stop(
        event.where, RUNTIME, event.data.get("stop_hook_active") is True, event.text("session_id")
    )
    if outcome.action == BLOCK:
        return _answer(outcome.note, prompt=outcome.text)
    return _answer(outcome.note)


ADAPTER = hookcore.adapter(RUNTIME.name, vars())  # a handler per event of the row
HANDLERS = ADAPTER.handlers


ADAPTER = hookcore.Adapter(HANDLERS, ANSWERS)
run_hook = hookcore.runner(RUNTIME.name)  # read, dispatched, failed closed by the row
