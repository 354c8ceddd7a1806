"""Matching one command against recorded attempts (docs/check-command.md).

Both sides are read as models of what they run (``invocation.model``): a row's
attempt is **exact** for a command that runs the same invocation (refused), **close**
for one with the same program and subcommand that differs in an option, a positional
argument or the environment (allowed, with a note naming the row). Precision beats
recall: a command that merely shares a program with a failed one is never refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..mdblocks import code_spans
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from .commandline import Command, Reading, read
from .invocation import compare
from .shell import Budget
from .tooltable import GENERIC_COSMETIC

if TYPE_CHECKING:
    from typing import Protocol

    class FailureRow(Protocol):
        """What matching reads of a failure row (a parsed ``Failure`` or a ``failfile.Row``)."""

        @property
        def id(self) -> str: ...
        @property
        def line(self) -> int: ...
        @property
        def tried(self) -> str: ...
        @property
        def failure(self) -> str: ...
        @property
        def workaround(self) -> str: ...


MAX_SPANS = 256  # inline-code spans read from one Tried cell


# Flags (without dashes) that only change how much is printed or how fast.
COMMON_FLAGS = frozenset(f.lstrip("-") for f in GENERIC_COSMETIC)
# Steps of a failed compound command that are set-up, not the attempt itself.
_SETUP = frozenset(
    {"cd", "pushd", "popd", "export", "source", ".", "set", "echo", "true", "unset", "printf", ":"}
)


def commands_in(text: str) -> list[Command]:
    """Every simple command a command line would run (see ``commandline.read``)."""
    return list(read(text).commands)


_READ: dict[str, list[Command]] = {}  # span -> its commands: ledgers repeat their attempts
_READ_KEPT = 4096


def attempts_in_cell(cell: str, budget: Budget | None = None) -> list[Command]:
    """The commands a failure row's Tried cell records: its inline-code spans that look
    like commands; failing that, the whole cell if it does."""
    # each distinct span once, and a bounded number of them: a cell of a megabyte of code
    # spans is no record of commands, and must not cost minutes (issue 13)
    texts = (cell[start + run : end - run].strip() for start, end, run in code_spans(cell))
    spans = list(dict.fromkeys(texts))[:MAX_SPANS]
    found: list[Command] = []
    for span in spans or [cell]:
        if not spans and not re.match(r"^[a-z0-9_./~+-]", span):
            continue  # prose ("Used ...", "Example: ...") is not a command
        commands = _READ.get(span)
        if commands is None:
            reading = read(span, budget)
            commands = list(reading.commands)
            if len(commands) > 1:
                commands = [c for c in commands if c.program not in _SETUP] or commands
            if len(_READ) >= _READ_KEPT:
                _READ.clear()
            if not reading.problems:  # a reading the budget cut short is not the span's
                _READ[span] = commands
        found.extend(commands)
    return found


def match(candidate: Command, failed: Command) -> str | None:
    """'exact' (the same invocation: refused), 'close' (same program and subcommand,
    something else differs: allowed with a note) or None (``invocation.compare``)."""
    return compare(candidate, failed)


class Hit(NamedTuple):
    """A failed attempt that covers the command."""

    id: str
    kind: str  # "exact" (refused) | "close" (allowed, with a note)
    line: int
    path: str
    tried: str
    failure: str
    workaround: str
    command: str  # the simple command that matched
    attempt: str  # the recorded attempt it matched

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "match": self.kind,
            "path": self.path,
            "line": self.line,
            "tried": self.tried,
            "failure": self.failure,
            "workaround": self.workaround,
            "command": self.command,
            "attempt": self.attempt,
        }

    def advice(self) -> str:
        """What an allowed command that comes close to this row is told: rehydrate's
        sentence, then the row's cells quoted as data (``quote.said``)."""
        from ..quote import line, said

        return said(
            f"rehydrate: allowed, but this is close to failed attempt {line(self.id)} in "
            f"{line(self.path)}:{self.line} (same program and subcommand, other options, "
            "arguments or environment); the row is quoted below. Make sure this is not the "
            "same attempt again.",
            [
                f"Attempt: {self.attempt}",
                f"Failure: {self.failure}",
                f"Workaround: {self.workaround}",
            ],
        )

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line}: {self.id} ({self.kind} match of `{self.attempt}`)\n"
            f"  tried:      {self.tried}\n  failure:    {self.failure}\n"
            f"  workaround: {self.workaround}"
        )


def hits_in(reading: Reading, rows: Iterable[FailureRow], path: str) -> list[Hit]:
    """The rows among ``rows`` whose attempts ``reading``'s commands repeat."""
    by_program: dict[str, list[Command]] = {}
    for command in reading.commands:
        by_program.setdefault(command.program, []).append(command)
    budget = Budget()  # the grammar's share for every cell of this check
    # per distinct attempt (kept alive here, so that its id stays its own)
    verdicts: dict[int, tuple[Command, tuple[Command, str] | None]] = {}
    hits: list[Hit] = []
    for row in rows:
        best: tuple[Command, Command, str] | None = None
        for attempt in attempts_in_cell(row.tried, budget):
            key = id(attempt)
            if key not in verdicts:
                verdicts[key] = (attempt, _best(by_program.get(attempt.program, ()), attempt))
            found = verdicts[key][1]
            if found is not None and (best is None or found[1] == "exact"):
                best = (found[0], attempt, found[1])
                if found[1] == "exact":
                    break
        if best is not None:
            command, attempt, kind = best
            hits.append(
                Hit(
                    row.id,
                    kind,
                    row.line,
                    path,
                    row.tried,
                    row.failure,
                    row.workaround,
                    command.text,
                    attempt.text,
                )
            )
    return sorted(hits, key=lambda h: (h.kind != "exact", h.line))


def _best(candidates: Iterable[Command], attempt: Command) -> tuple[Command, str] | None:
    """The candidate that repeats ``attempt`` exactly, else the first close one."""
    close = None
    for candidate in candidates:
        kind = match(candidate, attempt)
        if kind == "exact":
            return candidate, kind
        if kind is not None and close is None:
            close = (candidate, kind)
    return close
