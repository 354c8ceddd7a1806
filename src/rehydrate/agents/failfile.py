"""The work-tree failure ledger as the command check reads it: its bytes, not a full parse.

A PreToolUse hook runs before every shell command, and a full parse of a 10,000-row
ledger costs more than the rest of the hook (docs/design.md, "The command check on a
big ledger"). So the check works on the file's bytes:

1. **Find.** ``candidate_lines``: the lines that hold, quoting characters removed, a
   command's program and either every positional argument or one of its flag names or
   assignments, which any row recording an attempt that the command repeats must hold.
2. **Check.** Every cell of those lines that are table rows is read as a Tried cell
   (split exactly as the ledger parser splits rows) and matched.
3. **Confirm.** A cell that matched is a refusal when ``failindex`` places it in the
   Tried column of an active row; otherwise the ledger is parsed in full and the verdict
   is the full parse's (active rows of the failure table, retirement applied).

Without a record of the blob (``failindex``: the first check after the ledger changed)
the ledger is parsed in full first, which also fails closed on a broken ledger.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .. import git
from ..failtable import split_cells
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from . import failindex
from .commandline import Command, Reading
from .invocation import model
from .matching import COMMON_FLAGS, Hit, hits_in

if TYPE_CHECKING:
    from ..config import Config
    from ..ledgers.model import Ledger

MAX_SEARCHED = 64  # distinct commands searched for; more: every row is read
NEEDLES = 8  # terms searched for per command
ADVICE_LINES = 64  # an option name on more lines than this is looked for no further
_QUOTING = b"'\"\\$"
_QUOTES = tuple(bytes([q]) for q in _QUOTING)
_BARE = str.maketrans("", "", "'\"\\$")


class Row(NamedTuple):
    id: str
    line: int
    tried: str
    failure: str
    workaround: str


class FailureFile(NamedTuple):
    """The failure ledger's bytes, and its full parse when this call needed one."""

    repo: git.Repo
    config: Config
    blob: git.Blob
    ledger: Ledger | None  # the parsed ledger, or None while only the bytes were read

    @property
    def path(self) -> str:
        return self.blob.path

    def scan(self, reading: Reading) -> list[Hit]:
        """The hits of ``reading``'s commands (see the module docstring)."""
        programs = {c.program for c in reading.commands}
        data = self.blob.data or b""
        lines = candidate_lines(data, reading.commands) if programs else set()
        if lines is not None and not lines:
            return []
        ledger = self.ledger
        if ledger is None:
            raw = data.split(b"\n")
            index = failindex.read(self.repo, self.config, self.blob.blob or "")
            placed: list[Hit] = []
            if index is not None and index.width:
                placed = hits_in(reading, list(_placed_rows(raw, lines, index)), self.path)
                if any(h.kind == "exact" for h in placed):
                    return placed  # a refusal: the record may speed one up, never an allow
            cells = hits_in(reading, list(_cells_as_rows(raw, lines, programs)), self.path)
            if not any(h.kind == "exact" for h in cells):
                return placed  # no refusal; at most advice on rows the record places
            ledger = _parse(self.repo, self.config, self.blob)
        active = ledger.active("failures")
        return hits_in(reading, [r for r in active if lines is None or r.line in lines], self.path)


def load(repo: git.Repo, config: Config) -> FailureFile:
    """The work-tree failure ledger; parsed in full unless its blob parsed before (raises
    the parser's error when it does not parse)."""
    path = config.path_of("failures")
    return from_blob(repo, config, git.read_worktree(repo, [path], config.max_ledger_bytes)[path])


def from_blob(
    repo: git.Repo, config: Config, blob: git.Blob, where: str = "work tree"
) -> FailureFile:
    """``load`` for a failure ledger found elsewhere (``where``: the index, HEAD)."""
    if (
        blob.blob is not None
        and blob.data is not None
        and blob.mode in git.REGULAR_MODES
        and len(blob.data) <= config.max_ledger_bytes
        and failindex.parsed_before(repo, config, blob.blob)
    ):
        return FailureFile(repo, config, blob, None)
    return FailureFile(repo, config, blob, _parse(repo, config, blob, where))


def _parse(repo: git.Repo, config: Config, blob: git.Blob, where: str = "work tree") -> Ledger:
    from ..state import parse_file

    ledger = parse_file("failures", blob, config, where)
    if blob.blob is not None and blob.data is not None:
        failindex.write(repo, config, blob.blob, blob.data, ledger)
    return ledger


def _placed_rows(raw: list[bytes], lines: set[int] | None, index: failindex.Index) -> Iterable[Row]:
    """The active rows among ``lines``, as the blob's record places them."""
    at = index.columns
    numbers = sorted(lines) if lines is not None else range(1, len(raw) + 1)
    for number in numbers:
        if number > len(raw) or not index.is_active(number):
            continue
        cells = split_cells(raw[number - 1].decode("utf-8", "replace"))
        if len(cells) == index.width:
            yield Row(
                cells[at["id"]],
                number,
                cells[at["tried"]],
                cells[at["failure"]],
                cells[at["workaround"]],
            )


def _needles(command: Command) -> tuple[bytes, tuple[bytes, ...], tuple[bytes, ...]]:
    """What a row's line must hold to record an attempt ``command`` repeats or comes
    close to: its program, and either every word the invocation model compares as
    written (positional arguments, option values, environment: an exact match needs
    them all) or one of its option names as written (advice: only the rare ones are
    looked for, see ``candidate_lines``). Quoting characters removed, each
    blank-separated piece on its own (cells collapse blanks). At most ``NEEDLES`` exact
    terms: fewer terms ask less, never more."""

    def pieces(text: str) -> list[bytes]:
        return text.encode("utf-8", "surrogateescape").translate(None, _QUOTING).split()

    found = model(command)
    program = pieces(command.program)[0]
    words = [*found.positional, *sorted(v for _, v in found.options if v), *sorted(found.env)]
    exact = tuple(p for word in words for p in pieces(word))[:NEEDLES]
    names = (t.partition("=")[0] for t in command.words + command.rest if t[:1] == "-")
    advice = tuple(
        dict.fromkeys(p for n in names if n.lstrip("-") not in COMMON_FLAGS for p in pieces(n)[:1])
    )
    return program, exact, advice[:NEEDLES]


def candidate_lines(data: bytes, commands: Iterable[Command]) -> set[int] | None:
    """Line numbers (1-based) of the lines that hold what ``_needles`` asks of one of
    ``commands``, quoting characters removed; None: too many commands, every line.

    Each command's lines are found from its rarest exact term (one C count per term)
    and each of its option names found on at most ``ADVICE_LINES`` lines (a name on
    more is no sign of a near miss), then checked whole: a row the ledger holds for the
    command is never left out, and a megabyte ledger costs a few scans of its bytes. A
    command whose program is on no line, or one of whose exact terms is on none, needs
    no more counting for that part: no line can hold it."""
    commands = list(commands)
    if len(commands) > MAX_SEARCHED:
        return None
    quoted = any(q in data for q in _QUOTES)  # a memchr each: cheaper than a copy
    bare = data.translate(None, _QUOTING) if quoted else data  # same lines either way
    counts: dict[bytes, int] = {}

    def count(term: bytes) -> int:
        if term not in counts:
            counts[term] = bare.count(term)
        return counts[term]

    tests = []
    firsts: list[bytes] = []  # the terms whose places are looked at
    for program, exact, advice in dict.fromkeys(_needles(c) for c in commands):
        if not count(program):
            continue  # every line a command's terms must be on holds its program
        rare = tuple(n for n in advice if count(n) <= ADVICE_LINES)
        tests.append((program, exact, rare))
        rarest = _rarest([program, *exact], count)
        firsts += [rarest] if rarest is not None else []
        firsts += [t for t in rare if count(t)]
    starts: set[int] = set()
    for term in dict.fromkeys(firsts):
        starts.update(m.start() for m in re.finditer(re.escape(term), bare))
    lines: set[int] = set()
    number, previous, line_end = 1, 0, -1
    for offset in sorted(starts):
        if offset <= line_end:
            continue  # this line was judged already
        number += bare.count(b"\n", previous, offset)
        previous = offset
        line_start = bare.rfind(b"\n", 0, offset) + 1
        line_end = bare.find(b"\n", offset)
        line_end = len(bare) if line_end < 0 else line_end
        line = bare[line_start:line_end]
        if any(
            program in line and (all(n in line for n in exact) or any(n in line for n in rare))
            for program, exact, rare in tests
        ):
            lines.add(number)
    return lines


def _rarest(terms: list[bytes], count: Callable[[bytes], int]) -> bytes | None:
    """The term of ``terms`` on fewest lines (the first of those); None when one is on
    none, which no line then holds them all with: the others need not be counted."""
    for term in terms:
        if not count(term):
            return None
    return min(terms, key=count)


def _cells_as_rows(raw: list[bytes], lines: set[int] | None, programs: set[str]) -> Iterable[Row]:
    """Every cell naming a program, of every table line among ``lines``, as a Tried cell."""
    numbers = sorted(lines) if lines is not None else range(1, len(raw) + 1)
    for number in numbers:
        if number > len(raw) or not raw[number - 1].lstrip(b" \t").startswith(b"|"):
            continue  # not a table row: prose never records an attempt
        for cell in split_cells(raw[number - 1].decode("utf-8", "replace")):
            if lines is None or any(p in cell.translate(_BARE) for p in programs):
                yield Row("", number, cell, "", "")
