"""What ``rehydrate run`` is told: the command, the limits, what to do on a violation."""

from __future__ import annotations

import re

from ..errors import RehydrateError
from ..records import NamedTuple

STOP = "stop"
REVERT = "revert"
ON_VIOLATION = (STOP, REVERT)
DEFAULT_WINDOW = 200_000  # tokens: Claude's context window, the default for --context-window
_LIMIT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


class RunOptions(NamedTuple):
    command: tuple[str, ...]
    max_sessions: int = 10
    stall: int = 2
    max_minutes: float | None = None  # one session
    max_total_minutes: float | None = None  # the whole run
    max_cost: float | None = None  # USD, over the whole run
    context_limit: int | None = None  # tokens
    wrap_up_seconds: float = 120.0  # after the context-limit instruction
    grace_seconds: float = 10.0  # SIGTERM to SIGKILL
    on_violation: str = STOP
    commit_ledgers: bool = False
    end_at_phase: bool = False  # end a session once it committed a phase done
    max_tokens: int | None = None  # the prompt's budget

    @property
    def agent(self) -> str:
        from pathlib import PurePath

        return PurePath(self.command[0]).name if self.command else ""


def context_tokens(text: str, window: int) -> int:
    """``--context-limit``: ``50%`` of ``window`` tokens, or an absolute token count."""
    match = _LIMIT.match(text)
    value = float(match[1]) if match else 0.0
    if match is None or value <= 0 or (match[2] and value > 100):
        raise RehydrateError(
            f"--context-limit {text!r} is neither a percentage (1-100%) nor a token count",
            code="usage",
            fix="pass e.g. --context-limit 50% (of --context-window) or --context-limit 100000",
        )
    return int(window * value / 100) if match[2] else int(value)


def check_command(command: tuple[str, ...]) -> None:
    if not command:
        raise RehydrateError(
            "no agent command given",
            code="usage",
            fix="name it after --, e.g. rehydrate run -- claude -p",
        )
