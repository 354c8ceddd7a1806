"""Where the loop reports: the CLI renders it (a live line on a terminal, plain lines
elsewhere); the loop never prints."""

from __future__ import annotations

from typing import Protocol

from ..continuity.sessions import SessionRecord
from .options import RunOptions


class Display(Protocol):
    """Where the loop reports; the CLI renders it (a live line on a terminal)."""

    def started(self, number: int, nth: int, options: RunOptions, next_action: str) -> None: ...
    def output(self, chunk: bytes) -> None: ...
    def tick(self, elapsed: float, changed: tuple[str, ...]) -> None: ...
    def ended(self, entry: SessionRecord) -> None: ...
    def note(self, text: str) -> None: ...
