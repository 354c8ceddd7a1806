"""What every JSON-hook adapter shares: the event read from stdin, and what a hook prints.

A runtime hands its hook an event as one JSON object on stdin and reads back one JSON
object (or plain text) on stdout, a note on stderr and an exit code. Each runtime names
its fields its own way; what is common is here: the object (or why it could not be used:
``read_event`` never raises, each adapter decides how to fail), typed access to its
fields, and where the project is (an environment variable the runtime sets, else a field
of the event, else our working directory).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ..readlimit import load_json
from ..records import NamedTuple

Value = object  # a parsed JSON value, narrowed with isinstance (``object`` itself is a
# method name of Event's)


class HookResult(NamedTuple):
    """What a hook prints: one JSON object or plain text on stdout (or nothing), a note on
    stderr, an exit code."""

    exit_code: int = 0
    output: Mapping[str, Value] | None = None
    message: str | None = None
    text: str | None = None  # plain stdout (Claude Code's PreCompact, PostCompact)


class Event(NamedTuple):
    """One event as read (NamedTuples, not dataclasses: ``dataclasses`` imports ``inspect``,
    several milliseconds of every hook's start-up; the same for every record on its path)."""

    data: Mapping[str, Value] = {}  # never changed: a default shared by every Event is safe
    problem: str | None = None  # why stdin could not be used
    project_vars: Sequence[str] = ()  # environment variables that name the project

    def text(self, key: str) -> str | None:
        value = self.data.get(key)
        return value if isinstance(value, str) else None

    def object(self, key: str) -> Mapping[str, Value]:
        value = self.data.get(key)
        return value if isinstance(value, dict) else {}

    def nested(self, *keys: str) -> Value:
        """``data[k1][k2]…``, or None where a level is missing or not an object."""
        value: Value = self.data
        for key in keys:
            if not isinstance(value, Mapping):
                return None
            value = value.get(key)
        return value

    def command(self) -> str | None:
        """``tool_input.command`` (a shell tool call's command line), or None when it is
        missing, not a string or blank. Read here, not beside the command check, so that a
        hook on a call that is not the shell's never imports the check."""
        command = self.nested("tool_input", "command")
        return command if isinstance(command, str) and command.strip() else None

    @property
    def where(self) -> str:
        """Where the project is: the runtime's variable, else the event's cwd, else ours."""
        return self.located(self.project_vars)

    def located(self, env: Sequence[str] = (), keys: Sequence[str] = ("cwd",)) -> str:
        """The project: the first of ``env`` set, else the first text field of ``keys``
        (a list field gives its first text), else our working directory."""
        for name in env:
            if os.environ.get(name):
                return os.environ[name]
        for key in keys:
            value = self.data.get(key)
            if isinstance(value, list) and value and isinstance(value[0], str):
                return value[0]
            if isinstance(value, str) and value:
                return value
        return os.getcwd()


def read_event(raw: str, project_vars: Sequence[str] = ()) -> Event:
    """Parse the hook's stdin; a malformed event is reported, never raised."""
    try:
        data = load_json(raw) if raw.strip() else None
    except ValueError as exc:
        from ..quote import line

        return Event(problem=f"hook input is not JSON ({line(exc)})", project_vars=project_vars)
    if not isinstance(data, dict):
        return Event(problem="hook input is not a JSON object", project_vars=project_vars)
    return Event(data, project_vars=project_vars)


def internal_error(name: str, runtime: str, exc: Exception, settings: str) -> str:
    """The text of an unexpected error in hook ``name``, naming how to bypass it."""
    from ..errors import RehydrateError
    from ..quote import error, said

    if isinstance(exc, RehydrateError):
        return error(f"rehydrate: {exc.code} (the error is quoted below)", exc)
    return said(
        f"rehydrate: internal error in the {runtime} {name} hook (quoted below); this is a "
        f"bug, please report it. To bypass, remove the hook from {settings}",
        [f"{type(exc).__name__}: {exc}"],
    )
