"""The one ``run_hook``: a runtime's event JSON in, its answer out, for every JSON-hook
runtime.

What a hook does is the same everywhere: read the event (``events.read_event``), say what
is not done when it cannot be read, run the event's handler (its fields taken out, the
core action called: ``agents/core.py`` and the action modules), and spell the outcome the
runtime's way; an unexpected error answers with one internal-error message and fails
closed where the event can block. What differs is data on the runtime's ``RUNTIMES`` row
(``runtimes.Hooks``: the events, what each leaves undone on unreadable input, how each
fails closed, the variables naming the project) and the runtime's ``Answers``: how it
spells a note, a refusal, a held stop, context for the model. Each adapter module
(``rehydrate.agents.<name>``) holds only that and its ``HANDLERS``, whose bodies use the
shared handlers below where the runtime's event is the common one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..records import NamedTuple
from ..typecheck import cast
from .core import BLOCK, INJECT, REFUSE, Outcome, Runtime
from .events import Event, HookResult, internal_error, read_event

Handler = Callable[[Event], HookResult]


class Answers(NamedTuple):
    """How one runtime spells each kind of answer."""

    note: Callable[[str, str | None], HookResult]  # (event, a note for the person): no change
    refuse: Callable[[str], HookResult]  # the tool call refused, for this reason
    block: Callable[[str], HookResult]  # the stop held once, told this
    context: Callable[[str, Outcome], HookResult]  # (the runtime's event name, the outcome)


class Adapter(NamedTuple):
    """A runtime's own code: its events' handlers and how it spells its answers."""

    handlers: Mapping[str, Handler]
    answers: Answers


# The shapes several runtimes share (Claude Code's convention, which Codex and Gemini CLI
# follow in part).


def plain(_event: str, note: str | None) -> HookResult:
    """Nothing on stdout; the note on stderr."""
    return HookResult(message=note)


def specific_context(event_name: str, outcome: Outcome) -> HookResult:
    """``hookSpecificOutput.additionalContext`` when the outcome injects; else its note."""
    if outcome.action != INJECT:
        return HookResult(message=outcome.note)
    specific = {"hookEventName": event_name, "additionalContext": outcome.text}
    return HookResult(output={"hookSpecificOutput": specific}, message=outcome.note)


def permission_deny(reason: str) -> HookResult:
    """PreToolUse's ``permissionDecision: "deny"``."""
    specific = {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": reason,
    }
    return HookResult(output={"hookSpecificOutput": specific})


def decision_block(reason: str) -> HookResult:
    """Stop's ``decision: "block"``."""
    return HookResult(output={"decision": "block", "reason": reason})


CLAUDE_SHAPE = Answers(plain, permission_deny, decision_block, specific_context)


def session_id(event: Event) -> str | None:
    return event.text("session_id")


def stop_hook_active(event: Event) -> bool:
    return event.data.get("stop_hook_active") is True


# The shared handlers: the common event of a runtime, its fields read from the common names.


def start(
    event: Event, runtime: Runtime, answers: Answers, event_name: str, where: str | None = None
) -> HookResult:
    """The rehydration context for a new, resumed, cleared or compacted session."""
    from .context import session_context

    source = event.text("source") or "startup"
    outcome = session_context(where or event.where, runtime, source, session_id(event))
    return answers.context(event_name, outcome)


def tool_call(
    event: Event,
    runtime: Runtime,
    answers: Answers,
    command: str | None,
    shell: bool,
    advise: str | None = None,
    session: str | None = None,
    where: str | None = None,
    name: str = "",
) -> HookResult:
    """Deny a repeated failed attempt (any shell command while a ledger is broken; the
    first call after a compaction is held); with ``advise`` (the runtime's event name) a
    close failed attempt is named to the model."""
    from .tools import ADVISE, check_tool_call

    outcome = check_tool_call(where or event.where, runtime, command, shell, session)
    if outcome.action == REFUSE:
        return answers.refuse(outcome.text)
    if advise is not None and outcome.action == ADVISE:  # allowed, the attempt named
        return answers.context(advise, Outcome(INJECT, outcome.text, outcome.note))
    return answers.note(name, outcome.note)


def stop(
    event: Event,
    runtime: Runtime,
    answers: Answers,
    continuing: bool,
    session: str | None = None,
    where: str | None = None,
    name: str = "",
) -> HookResult:
    """Hold the stop once while something would be lost by stopping."""
    from .stop import check_stop

    outcome = check_stop(where or event.where, runtime, continuing, session)
    if outcome.action == BLOCK:
        return answers.block(outcome.text)
    return answers.note(name, outcome.note)


def starter(runtime: Runtime, answers: Answers, event_name: str) -> Handler:
    """The handler of a session start that reads ``source`` and ``session_id``."""
    return lambda event: start(event, runtime, answers, event_name)


def stopper(runtime: Runtime, answers: Answers) -> Handler:
    """The handler of a stop that reads ``stop_hook_active`` and ``session_id``: held once."""
    return lambda event: stop(event, runtime, answers, stop_hook_active(event), session_id(event))


def adapter(runtime: str, module: Mapping[str, object]) -> Adapter:
    """A runtime's adapter from its module's names (``vars()`` at its end): for each event
    of its row, the function named after it (``pre-tool-use``: ``pre_tool_use``), and
    its ``ANSWERS``. The row is the one list of events."""
    from .runtimes import RUNTIMES

    hooks = RUNTIMES[runtime].hooks
    answers = module.get("ANSWERS")
    if hooks is None or not isinstance(answers, Answers):
        raise LookupError(f"rehydrate.agents.{runtime}: no hook events in its row, or no ANSWERS")
    found: dict[str, Handler] = {}
    for event in hooks.events:
        handler = module.get(event.replace("-", "_"))
        if not callable(handler):
            raise LookupError(f"rehydrate.agents.{runtime} has no handler for {event}")
        found[event] = cast(Handler, handler)
    return Adapter(found, answers)


def conventional(runtime: str) -> Adapter:
    """The adapter of a runtime that is its row alone: each event's ``actions`` entry
    answered by the shared handlers, in Claude Code's convention (``CLAUDE_SHAPE``)."""
    from .runtimes import RUNTIMES
    from .units import CODE_POINTS, Cap

    hooks = RUNTIMES[runtime].hooks
    if hooks is None:
        raise LookupError(f"runtime {runtime!r} has no hook events in RUNTIMES")
    core = Runtime(runtime, Cap(10000, CODE_POINTS))
    answers = CLAUDE_SHAPE

    def tool(event: Event) -> HookResult:

        shell = event.text("tool_name") in (None, hooks.shell)
        command = event.command() if shell else None
        return tool_call(event, core, answers, command, shell, session=session_id(event))

    found: dict[str, Handler] = {}
    for name, action in hooks.actions.items():
        if action == "start":
            found[name] = starter(core, answers, event_name(runtime, name))
        elif action == "tool":
            found[name] = tool
        elif action == "stop":
            found[name] = stopper(core, answers)
        else:
            raise LookupError(f"runtime {runtime!r}: no shared handler for action {action!r}")
    return Adapter(found, answers)


def _adapter(runtime: str) -> Adapter:
    import importlib

    module = f"rehydrate.agents.{runtime}"
    try:
        found = getattr(importlib.import_module(module), "ADAPTER", None)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        return conventional(runtime)
    if not isinstance(found, Adapter):
        raise LookupError(f"{module} has no ADAPTER")
    return found


def runner(runtime: str) -> Callable[[str, str], HookResult]:
    """``run_hook`` of one runtime, as its module offers it: ``run_hook(event, raw)``."""
    return lambda name, raw: run_hook(runtime, name, raw)


def run_hook(runtime: str, name: str, raw: str) -> HookResult:
    """Answer event ``name`` of ``runtime`` for the event JSON ``raw``: never raises (an
    unexpected error is the runtime's fail-closed answer for that event)."""
    from .runtimes import RUNTIMES

    info = RUNTIMES[runtime]
    hooks = info.hooks
    if hooks is None:
        raise LookupError(f"runtime {runtime!r} has no hook events in RUNTIMES")
    adapter = _adapter(runtime)
    event = read_event(raw, hooks.project_vars)
    try:
        if event.problem:
            undone = hooks.unread.get(name, "")
            said = f"rehydrate: {event.problem}" + (f"; {undone}" if undone else "")
            return adapter.answers.note(name, said)
        return adapter.handlers[name](event)
    except Exception as exc:  # noqa: BLE001 - a hook must answer, never crash the session
        where = hooks.bypass or next(iter(info.launch_files), "its hook file")
        text = internal_error(name, hooks.title, exc, where)
        return failed(runtime, name, event, adapter.answers, text)


def failed(runtime: str, name: str, event: Event, answers: Answers, text: str) -> HookResult:
    """The answer to an internal error in event ``name``: the row's fail-closed rule."""
    from .runtimes import RUNTIMES

    info = RUNTIMES[runtime]
    rule = info.hooks.fail.get(name) if info.hooks is not None else None
    if rule is None or not rule.applies(event.data):
        return answers.note(name, text)
    if rule.answer == "refuse":
        return answers.refuse(text)
    if rule.answer == "block":
        return answers.block(text)
    if rule.answer == "exit2":
        return HookResult(exit_code=2, message=text)
    return answers.context(event_name(runtime, name), Outcome(INJECT, text))


def event_name(runtime: str, name: str) -> str:
    """The runtime's own name of our subcommand ``name`` (from its hook file's wires)."""
    from .runtimes import RUNTIMES

    wires = RUNTIMES[runtime].hook_file
    for event, (_, sub, _) in wires.wires.items() if wires is not None else ():
        if sub == name:
            return event
    return name
