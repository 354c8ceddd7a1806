"""While a session runs: its time limits, the context-limit wrap-up, the live line.

``Watch.check`` is called every ``launch.POLL`` seconds and names the reason to end the
session, or None: a time limit, the context-limit wrap-up done, or (``--end-at-phase``)
a phase done and committed, the seed's other moment for a fresh session. Anything that
needs git or a ledger parse runs at most every ``SLOW`` seconds: a stat of the ledger
files first, a parse only when they changed.
"""

from __future__ import annotations

import os
import time

from .. import git
from ..config import Config
from ..continuity.sessions import CONTEXT, PHASE, SESSION_TIME, TOTAL_TIME
from ..errors import RehydrateError
from ..ledgers import KINDS
from ..typecheck import TYPE_CHECKING
from .judge import Snapshot, progress, snapshot
from .options import RunOptions

if TYPE_CHECKING:
    from .display import Display

SLOW = 1.0  # seconds between the checks that read git or the ledgers


class Watch:
    def __init__(
        self,
        repo: git.Repo,
        config: Config,
        options: RunOptions,
        before: Snapshot,
        display: Display,
        total_left: float | None,
        number: int,
    ) -> None:
        self.repo, self.config, self.options, self.before = repo, config, options, before
        self.display = display
        self.started = time.monotonic()
        limits = [
            (options.max_minutes * 60 if options.max_minutes is not None else None, SESSION_TIME),
            (total_left, TOTAL_TIME),
        ]
        timed = [(s, why) for s, why in limits if s is not None]
        self.deadline = min(timed) if timed else None
        self.number = str(number)
        self.last_slow = 0.0
        self.stamps: tuple[tuple[int, int], ...] | None = None
        self.changed: tuple[str, ...] = ()
        self.told: tuple[float, str | None] | None = None  # (when, HEAD then)
        self.phase_done = False  # a phase moved to done in the work tree

    def check(self) -> str | None:
        elapsed = time.monotonic() - self.started
        if self.deadline is not None and elapsed >= self.deadline[0]:
            return self.deadline[1]
        if time.monotonic() - self.last_slow >= SLOW:
            self.last_slow = time.monotonic()
            self._ledgers()
            if self.options.context_limit is not None and self._wrapped_up():
                return CONTEXT
            if self.phase_done and self._committed(self.before.head):
                return PHASE
        self.display.tick(elapsed, self.changed)
        return None

    def _ledgers(self) -> None:
        """The ledger items changed so far, re-read only when a ledger file changed."""
        stamps = []
        for kind in KINDS:
            try:
                st = os.stat(self.repo.root / self.config.path_of(kind))
                stamps.append((st.st_mtime_ns, st.st_size))
            except OSError:
                stamps.append((0, -1))
        if tuple(stamps) == self.stamps:
            return
        self.stamps = tuple(stamps)
        try:
            now = snapshot(self.repo, self.config)
        except RehydrateError:  # mid-edit, or broken: the judge will say
            return
        self.changed = progress(self.before.ledgers, now.ledgers)
        if self.options.end_at_phase:
            was = {p.id: p.status for p in self.before.ledgers["task"].active("phases")}
            self.phase_done = any(
                p.status == "done" and was.get(p.id) != "done"
                for p in now.ledgers["task"].active("phases")
            )

    def _committed(self, since: str | None) -> bool:
        """HEAD moved since ``since`` and no ledger change is left uncommitted."""
        from ..state import uncommitted_ledgers

        return git.head(self.repo) != since and not uncommitted_ledgers(self.repo, self.config)

    def _wrapped_up(self) -> bool:
        """After the hook told the agent to record its state: the ledgers are committed
        (HEAD moved, none left uncommitted), or the wrap-up time is over."""
        from ..agents.contextuse import read_note

        if self.told is None:
            note = read_note(self.repo.root)
            if note is None or note.get("session") != self.number:
                return False
            head = note.get("head")  # HEAD when the agent was told (the hook's note)
            self.told = (time.monotonic(), head if isinstance(head, str) else git.head(self.repo))
            self.display.note(
                f"rehydrate run: context at {note.get('tokens')} tokens (limit "
                f"{note.get('limit')}): the agent was told to record its state; the session "
                "ends once the ledgers are committed"
            )
            return False
        when, head = self.told
        if time.monotonic() - when >= self.options.wrap_up_seconds:
            return True
        return self._committed(head)
