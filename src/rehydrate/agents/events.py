"""A hook event as the adapters other than Claude Code's read it: one JSON object on stdin.

Each runtime names its fields its own way; what is common is here: the object (or why
it could not be used, never raised), typed access to its fields, and where the project
is (an environment variable the runtime sets, else a field of the event, else ours).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class HookEvent:
    data: Mapping[str, Any] = field(default_factory=dict)
    problem: str | None = None  # why stdin could not be used

    def text(self, key: str) -> str | None:
        value = self.data.get(key)
        return value if isinstance(value, str) else None

    def nested(self, *keys: str) -> Any:
        """``data[k1][k2]…``, or None where a level is missing or not an object."""
        value: Any = self.data
        for key in keys:
            if not isinstance(value, Mapping):
                return None
            value = value.get(key)
        return value

    def where(self, env: Sequence[str] = (), keys: Sequence[str] = ("cwd",)) -> str:
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


def read_event(raw: str) -> HookEvent:
    """Parse the hook's stdin; a malformed event is reported, never raised."""
    try:
        data = json.loads(raw) if raw.strip() else None
    except ValueError as exc:
        return HookEvent(problem=f"hook input is not JSON ({exc})")
    if not isinstance(data, dict):
        return HookEvent(problem="hook input is not a JSON object")
    return HookEvent(data)


@dataclass(frozen=True)
class HookAnswer:
    """What a hook prints: one JSON object or plain text on stdout (or nothing), a note on
    stderr, an exit code."""

    exit_code: int = 0
    output: Mapping[str, Any] | None = None
    message: str | None = None
    text: str | None = None
