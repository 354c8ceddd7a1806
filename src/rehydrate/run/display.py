"""Where the loop reports: the CLI renders it (a live line on a terminal, plain lines
elsewhere); the loop never prints."""

from __future__ import annotations

from typing import Protocol

from .. import git
from ..continuity.sessions import SessionRecord
from .options import RunOptions


class Display(Protocol):
    """Where the loop reports; the CLI renders it (a live line on a terminal)."""

    def started(self, number: int, nth: int, options: RunOptions, next_action: str) -> None: ...
    def output(self, chunk: bytes) -> None: ...
    def tick(self, elapsed: float, changed: tuple[str, ...]) -> None: ...
    def ended(self, entry: SessionRecord) -> None: ...
    def note(self, text: str) -> None: ...


class SessionHooks(Protocol):
    """The seam around each session (``run --claim`` plugs in here): ``before_session``
    runs once the task is known to need a session and before it starts (a message stops
    the run with exit 1, e.g. a claim held by someone else); ``after_session`` once the
    session is judged and recorded."""

    def before_session(self, repo: git.Repo, number: int) -> str | None: ...
    def after_session(self, repo: git.Repo, entry: SessionRecord) -> None: ...


class _NoHooks:
    def before_session(self, repo: git.Repo, number: int) -> str | None:
        return None

    def after_session(self, repo: git.Repo, entry: SessionRecord) -> None:
        return None


NO_HOOKS: SessionHooks = _NoHooks()
