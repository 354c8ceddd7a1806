"""Nothing cut in half: the ledgers' locks held while an agent's group is ended, and a
Ctrl-C held back while a session is judged and recorded."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from .. import git


@contextmanager
def deferred_interrupts() -> Iterator[list[int]]:
    """Turn Ctrl-C (SIGINT, and SIGTERM) into an entry in the yielded list for the block:
    the session sees it there (``launch``: the agent's group is ended, the session judged and
    recorded); one that the block leaves in the list is raised after it, once, so that a
    session's record is never cut in half."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda signum, frame: caught.append(signum))
    try:
        yield caught
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if caught:
        raise KeyboardInterrupt


class LedgerLocks:
    """Hold the ledgers' locks while the group is ended, so that no rehydrate writer is
    killed between its write and its rename; a lock busy past the timeout is skipped."""

    def __init__(self, repo: git.Repo, paths: list[str]) -> None:
        self.repo, self.paths = repo, paths
        self.stack = ExitStack()

    def __enter__(self) -> LedgerLocks:
        from ..errors import RehydrateError
        from ..ledgers.atomicfile import ledger_lock

        for path in self.paths:
            try:
                self.stack.enter_context(ledger_lock(self.repo, path, timeout=5.0))
            except RehydrateError:
                continue
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()
