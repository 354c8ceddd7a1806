"""The one fast reader of the failure table: find it in a ledger's bytes, read its rows.

A module of the ledgers layer outside the ``ledgers`` package, so that the command
check's hot path (``split_cells``, ``settings_key``) does not load the parser; ``find``
and ``row`` load what they use of it when called.

The guard's fast path (``guard.fastpath``), the merge driver (``merge.ledger``) and the
command check (``agents.failfile``, ``agents.failindex``) all read the failure table
through this module, so they cannot drift apart:

* ``find``: the table's header, where its rows start and end, found on bytes when the
  text before it is plain (front matter, headings, prose, CRLF line ends; extra columns
  are kept by name).
* ``row``: one table line as a ``Failure`` record, or None where the full parser might
  judge it otherwise; it checks a line with the parser's own cell functions
  (``split_row``, the ID shape, ``visible``, ``hidden_markup``, the forbidden
  characters), so a row it accepts is a row the parser accepts.
* ``split_cells``: a line's cells, fast, for the command check's candidate lines (which
  are only ever a hint: a refusal is confirmed by ``row`` or the full parse).
* ``settings_key``: the one key of every record of a parsed ledger kept on disk (the
  guard's ``guard-parsed`` and the command check's ``failures-parsed``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from . import digests
from .patterns import compiled
from .records import NamedTuple
from .typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from .ledgers.model import Failure


_SPACES = r"[ \t]++"
_UNESCAPED_PIPE = r"(?<!\\)\|"
_PARSER_FILES = ("_document", "_markdown", "_table", "_render", "_frontmatter", "failures")


class FailureTable(NamedTuple):
    """Where a ledger's failure table is, and its columns (canonical names)."""

    header: tuple[str, ...]  # canonical column names, extra columns included
    start: int  # byte offset of the first data row
    end: int  # byte offset just past the table
    first_line: int  # line number (1-based) of the first data row

    def position(self, column: str) -> int:
        return self.header.index(column)


def find(
    data: bytes,
    section_aliases: Mapping[str, str],
    column_aliases: Mapping[str, str],
    path: str = "",
) -> FailureTable | None:
    """The failure table of ``data``, or None when it cannot be found cheaply (then the
    full parse decides)."""
    from .ledgers.appendonly import failure_header, failure_table

    table = failure_table(data, section_aliases)
    header = failure_header(table[0], column_aliases, path) if table is not None else None
    result = None
    if table is not None and header is not None and len(set(header)) == len(header):
        result = FailureTable(tuple(header), table[1], table[2], data.count(b"\n", 0, table[1]) + 1)
    return result


def row(line: str, header: Sequence[str], number: int, path: str = "") -> Failure | None:
    """The failure record of one table line (a trailing CR dropped), or None at anything
    the parser might judge otherwise: not a row, a forbidden or hidden character, a cell
    count other than the header's, an ID of the wrong shape, a required cell that shows
    nothing."""
    from .errors import LedgerParseError
    from .ledgers import entity_forbidden, forbidden, hidden_markup, split_row, visible
    from .ledgers.appendonly import REQUIRED
    from .ledgers.ids import valid_id
    from .ledgers.model import Failure

    line = line[:-1] if line.endswith("\r") else line
    if (
        not line.lstrip(" \t").startswith("|")
        or line.startswith("|||||||")
        or forbidden().search(line)
        or ("&" in line and entity_forbidden(line))
    ):
        return None
    try:
        cells = split_row(line, path, number)
    except LedgerParseError:
        return None
    if len(cells) != len(header) or hidden_markup(line) is not None:
        return None
    at = {name: header.index(name) for name in REQUIRED}
    if not valid_id(cells[at["id"]]) or not all(visible(cells[at[n]]) for n in REQUIRED[1:]):
        return None
    extra = tuple((name, cells[pos]) for pos, name in enumerate(header) if name not in at)
    return Failure(
        cells[at["id"]],
        number,
        cells[at["tried"]],
        cells[at["failure"]],
        cells[at["workaround"]],
        extra=extra,
    )


def rows(
    lines: Sequence[str], first: int, header: Sequence[str], path: str = ""
) -> list[Failure] | None:
    """``row`` of each of ``lines`` (numbered from ``first``), or None at the first doubt."""
    out = []
    for offset, line in enumerate(lines):
        record = row(line, header, first + offset, path)
        if record is None:
            return None
        out.append(record)
    return out


def split_cells(text: str) -> list[str]:
    """A table line's cells, as ``split_row`` gives them for a well-formed row (fast;
    never a verdict on its own)."""
    body = text.rstrip("\r").strip(" \t")
    inner = body[1:-1] if len(body) > 1 and body.endswith("|") else body[1:]
    if "\\" in inner:
        parts = [p.replace("\\|", "|") for p in compiled(_UNESCAPED_PIPE).split(inner)]
    else:
        parts = inner.split("|")
    cells = [p.strip(" \t") for p in parts]
    return [compiled(_SPACES).sub(" ", c) if "  " in c or "\t" in c else c for c in cells]


def settings_key(
    column_aliases: Mapping[str, str], section_aliases: Mapping[str, str], max_bytes: int
) -> str:
    """What a record of a parsed ledger holds for: the aliases, the size limit, and the
    size and mtime of the parser's files and of the package's ``__init__`` (which an
    upgrade replaces), so a changed parser or configuration starts afresh."""
    package = Path(__file__).resolve().parent
    stamps = []
    files = [package / "__init__.py", *(package / "ledgers" / f"{n}.py" for n in _PARSER_FILES)]
    for path in files:
        try:
            info = os.stat(path)
            stamps.append((info.st_mtime_ns, info.st_size))
        except OSError:
            stamps.append((0, 0))
    text = repr(
        (
            sorted(column_aliases.items()),
            sorted(section_aliases.items()),
            max_bytes,
            stamps,
        )
    )

    return digests.sha256(text.encode()).hexdigest()[:16]
