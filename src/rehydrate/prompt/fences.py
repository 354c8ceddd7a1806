"""Ledger and git text as the prompt shows it: pipe tables and listings, in fences.

The fence itself (a digest-labelled tilde run no data line can close; line breaks
folded, hidden characters shown, secrets redacted, labels neutralised) is
``rehydrate.quote``'s, the one path for untrusted text; it is re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import TypeVar, overload

from ..quote import (
    GIT_LABEL,
    LEDGER_LABEL,
    QUOTE_LABEL,
    fence,
    fenced,
    inline,
    one_line_break,
)
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..ledgers.model import Record

R = TypeVar("R", bound="Record")

__all__ = [
    "GIT_LABEL",
    "LEDGER_LABEL",
    "QUOTE_LABEL",
    "Listing",
    "fence",
    "fenced",
    "inline",
    "listing",
    "one_line_break",
    "pipe_table",
]


def pipe_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A pipe table; cells escaped as the ledgers escape them (``|`` -> ``\\|``).

    Built with a few whole-string operations instead of one call per cell: cells
    never hold NUL or a line break (the parser refuses both), so NUL can stand for
    the cell separator while pipes are escaped in one pass.
    """
    body = "\n".join(map("\0".join, (header, *rows)))
    if "|" in body:
        body = body.replace("|", "\\|")
    body = "| " + body.replace("\0", " | ").replace("\n", " |\n| ") + " |"
    head, _, rest = body.partition("\n")
    delimiter = "|" + "---|" * len(header)
    return head + "\n" + delimiter + ("\n" + rest if rest else "")


class Listing(NamedTuple):
    """Rows of one kind, ready to render as a fenced table (used by both renderers)."""

    key: str  # counting key for the capped core
    heading: str
    header: tuple[str, ...]
    rows: Sequence[tuple[str, ...]]
    empty: str = "None."
    preface: str = ""
    verbatim: str | None = None  # the rows exactly as pipe_table renders them (from the file)

    def render(self, limit: int | None = None) -> str:
        rows = self.rows if limit is None else self.rows[:limit]
        parts = [self.heading]
        if self.preface and rows:
            parts.append(self.preface)
        if not rows:
            parts.append(self.empty)
        elif self.verbatim is not None and len(rows) == len(self.rows):
            # the ledger's own lines, quoted without being copied into a table first
            quoted = fenced((pipe_table(self.header, ()) + "\n", self.verbatim), LEDGER_LABEL)
            return "".join(["\n\n".join(parts), "\n\n", *quoted])
        else:
            parts.append(fence(pipe_table(self.header, rows)))
        return "\n\n".join(parts)


class _Rows(Sequence[tuple[str, ...]]):
    """A listing's rows, built from the records' columns (at C speed) on first read: the
    failure table rendered from the ledger's own lines never reads them."""

    __slots__ = ("_records", "_fields", "_rows")

    def __init__(self, records: Sequence[Record], fields: tuple[int, ...]) -> None:
        self._records = records
        self._fields = fields
        self._rows: tuple[tuple[str, ...], ...] | None = None

    def _all(self) -> tuple[tuple[str, ...], ...]:
        if self._rows is None:
            by_field = list(zip(*self._records, strict=True))
            self._rows = tuple(zip(*(by_field[i] for i in self._fields), strict=True))
        return self._rows

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, index: int) -> tuple[str, ...]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[str, ...]]: ...
    def __getitem__(self, index: int | slice) -> tuple[str, ...] | Sequence[tuple[str, ...]]:
        return self._all()[index]


def listing(
    key: str,
    heading: str,
    records: Sequence[R],
    columns: Sequence[tuple[str, str]],
    *,
    empty: str = "None.",
    preface: str = "",
    extra_cells: Callable[[R], Sequence[str]] | None = None,
    extra_header: Sequence[str] = (),
    verbatim: str | None = None,
) -> Listing:
    """A fenced table of ``records``: (title, attribute) columns, then any extra columns.

    ``verbatim``: the rows as the ledger holds them, when they are exactly what
    rendering ``records`` in these columns would give (Ledger.plain_rows).
    """
    seen: dict[str, None] = {}  # a dict: first-seen order, linear in the columns
    if any(record.extra for record in records):
        for record in records:
            for name, _ in record.extra:
                seen.setdefault(name)
    extras = list(seen)
    header = tuple([t for t, _ in columns] + list(extra_header) + extras)
    attrs = [attr for _, attr in columns]
    if records and extra_cells is None and not extras:
        fields = records[0]._fields
        rows_ = _Rows(records, tuple(fields.index(attr) for attr in attrs))
        return Listing(key, heading, header, rows_, empty, preface, verbatim)
    get = attrgetter(*attrs) if len(attrs) > 1 else (lambda r: (getattr(r, attrs[0]),))
    rows: list[tuple[str, ...]] = []
    for record in records:
        row = get(record)
        if extra_cells is not None:
            row = (*row, *extra_cells(record))
        if extras:
            own = dict(record.extra)
            row = (*row, *(own.get(name, "") for name in extras))
        rows.append(row)
    return Listing(key, heading, header, tuple(rows), empty, preface)
