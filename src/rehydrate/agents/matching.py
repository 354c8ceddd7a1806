"""Matching one command against recorded attempts: exact and loose (docs/check-command.md).

Two simple commands match

* **exactly** when program, subcommand words, the *set* of flags with their
  values and the positional arguments (in order) are equal;
* **loosely** when program and subcommand words are equal, the failed command
  has at least one *distinctive* flag, and the candidate carries every one of
  them with the same value (other flags and positional arguments may differ).

Precision beats recall: a command that merely shares a program with a failed
one is never refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .commandline import Command, Flag, Reading, read
from .shell import Budget

_BACKTICKS = re.compile(r"`++")
MAX_SPANS = 256  # inline-code spans read from one Tried cell


def _code_spans(cell: str) -> list[str]:
    """The inline-code spans of ``cell`` as CommonMark reads them (a run of N backticks
    up to the next run of exactly N), in linear time: each run's next run of the same
    length is found in one right-to-left pass, not by a backtracking search."""
    if cell.count("`") == 2:  # the common cell: one span, found without the general scan
        start = cell.index("`")
        end = cell.index("`", start + 1)
        return [cell[start + 1 : end]] if end > start + 1 else []
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(cell)] if "`" in cell else []
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        following[i] = last.get(length)
        last[length] = i
    spans = []
    i = 0
    while i < len(runs):
        j = following[i]
        if j is None:
            i += 1
            continue
        content = cell[runs[i][1] : runs[j][0]]
        if content:
            spans.append(content)
        i = j + 1
    return spans


# Flags that only change how much is printed or how fast: never distinctive.
COMMON_FLAGS = frozenset(
    {
        "v",
        "vv",
        "vvv",
        "verbose",
        "q",
        "quiet",
        "s",
        "silent",
        "h",
        "help",
        "version",
        "color",
        "colour",
        "no-color",
        "no-colour",
        "progress",
        "no-progress",
        "debug",
        "count",
        "j",
        "jobs",
        "parallel",
        "json",
        "no-pager",
        "pager",
    }
)
# Steps of a failed compound command that are set-up, not the attempt itself.
_SETUP = frozenset(
    {"cd", "pushd", "popd", "export", "source", ".", "set", "echo", "true", "unset", "printf", ":"}
)


def distinctive(flag: Flag) -> bool:
    """Carries a value, or is a long boolean flag that is not merely cosmetic."""
    if flag.name in COMMON_FLAGS:
        return False
    return flag.value is not None or len(flag.name) > 1


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
    spans = list(dict.fromkeys(span.strip() for span in _code_spans(cell)))[:MAX_SPANS]
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
    """'exact', 'loose' or None (see the module docstring)."""
    if (
        candidate.program != failed.program
        or candidate.words != failed.words
        or not failed.env <= candidate.env
    ):
        return None
    valued = candidate.valued | failed.valued
    c_flags, c_pos, c_order = candidate.parse(valued)
    f_flags, f_pos, _ = failed.parse(valued)
    if c_flags == f_flags and c_pos == f_pos:
        return "exact"
    if candidate.parse(valued, greedy=True)[:2] == failed.parse(valued, greedy=True)[:2]:
        return "exact"  # the same flags each followed by the same word (`-X POST`)
    required = [f for f in f_flags if distinctive(f)]
    if not required and not failed.env:
        return None
    offered, names, positional = _offered(candidate, valued)

    def carried(flag: Flag) -> bool:
        if flag.value is not None:
            return (flag.dashes, flag.name, flag.value) in offered
        if (flag.dashes, flag.name) not in names:
            return False
        # `--target x86_64`: the word after a bare flag may be its value; keep it
        word = _word_after(failed.rest, flag)
        return word is None or (flag.dashes, flag.name, word) in offered or word in positional

    return "loose" if all(carried(f) for f in required) else None


def _word_after(rest: Sequence[str], flag: Flag) -> str | None:
    written = flag.dashes + flag.name
    for index, token in enumerate(rest[:-1]):
        if token == written and not rest[index + 1].startswith("-"):
            return rest[index + 1]
    return None


Offered = tuple[set[tuple[str, str, str | None]], set[tuple[str, str]], frozenset[str]]


def _offered(candidate: Command, valued: frozenset[str]) -> Offered:
    """Every (dashes, name, value) the candidate's flags can stand for (a flag written
    without '=' followed by a word may be boolean or may take that word), its flag
    names and its positional arguments; in one pass, remembered per ``valued``."""
    key = ("offered", valued)
    found = candidate.cache.get(key)
    if found is not None:
        return found  # type: ignore[no-any-return]
    flags, positional, order = candidate.parse(valued)
    out: set[tuple[str, str, str | None]] = {(f.dashes, f.name, f.value) for f in order}
    bare = {f.dashes + f.name for f in order if f.value is None}
    tokens = candidate.rest
    for index, token in enumerate(tokens[:-1]):
        if token in bare and not tokens[index + 1].startswith("-"):
            dashes = "--" if token.startswith("--") else "-"
            out.add((dashes, token[len(dashes) :], tokens[index + 1]))
    found = candidate.cache[key] = (out, {(f.dashes, f.name) for f in flags}, frozenset(positional))
    return found


@dataclass(frozen=True)
class Hit:
    """A failed attempt that covers the command."""

    id: str
    kind: str  # "exact" | "loose"
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

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line}: {self.id} ({self.kind} match of `{self.attempt}`)\n"
            f"  tried:      {self.tried}\n  failure:    {self.failure}\n"
            f"  workaround: {self.workaround}"
        )


def hits_in(reading: Reading, rows: Iterable[Any], path: str) -> list[Hit]:
    """The rows among ``rows`` whose attempts ``reading``'s commands repeat."""
    by_program: dict[str, list[Command]] = {}
    for command in reading.commands:
        by_program.setdefault(command.program, []).append(command)
    budget = Budget()  # the grammar's share for every cell of this check
    # per distinct attempt (kept alive here, so that its id stays its own)
    verdicts: dict[int, tuple[Command, tuple[Command, str] | None]] = {}
    hits: list[Hit] = []
    for row in rows:
        for attempt in attempts_in_cell(row.tried, budget):
            key = id(attempt)
            if key not in verdicts:
                verdicts[key] = (
                    attempt,
                    next(
                        (
                            (c, kind)
                            for c in by_program.get(attempt.program, ())
                            if (kind := match(c, attempt)) is not None
                        ),
                        None,
                    ),
                )
            found = verdicts[key][1]
            if found is not None:
                command, kind = found
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
                break
    return sorted(hits, key=lambda h: (h.kind != "exact", h.line))
