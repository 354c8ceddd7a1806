"""Quoting ledger and git text as data: fences, pipe tables and listings.

Everything quoted from a ledger or from git sits inside a fence whose opening line
carries a digest of the fenced text and whose tilde run is longer than any tilde
run that starts a line of the data, so no data line can close it. Before quoting,
every character a renderer may take as a line break (CR, CRLF, VT, FF, NEL, U+2028,
U+2029) becomes LF, so the lines the fence length is chosen from are the lines any
reader sees; then secret-looking values are redacted and fence labels inside the
data neutralised.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from ..quote import visible
from ..redact import redact
from ..state import sha256_text

if TYPE_CHECKING:
    from ..ledgers.model import Record

LEDGER_LABEL = "ledger-data"
GIT_LABEL = "git-data"
_LEADING_TILDES = re.compile(r"^[ \t]*+(~{3,}+)", re.MULTILINE)
_LABELS = re.compile(r"(ledger|git|quoted)-data-")
_DATA = re.compile("-data-")


# Line breaks other than LF: CommonMark ends a line at CR too; VT, FF, NEL, U+2028 and
# U+2029 are line breaks to other renderers and to str.splitlines.
_OTHER_BREAKS = str.maketrans(
    {"\r": "\n", "\x0b": "\n", "\x0c": "\n", "\x85": "\n", "\u2028": "\n", "\u2029": "\n"}
)


def one_line_break(text: str) -> str:
    """``text`` with every line break (CRLF, CR, VT, FF, NEL, U+2028, U+2029) as LF.

    Cheap on clean text: each check is a memchr, and a pure-ASCII text cannot hold the
    non-ASCII breaks."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if (
        "\r" in text
        or "\x0b" in text
        or "\x0c" in text
        or not text.isascii()
        and ("\x85" in text or "\u2028" in text or "\u2029" in text)
    ):
        text = text.translate(_OTHER_BREAKS)
    return text


def inline(value: str) -> str:
    """``value`` for a line outside a fence: redacted, on one line, no backtick to end a
    code span early (paths, branch names)."""
    return redact(visible(value)).replace("\n", " ").replace("`", "'")


def fence(body: str, label: str = LEDGER_LABEL) -> str:
    """Quote ``body`` as data: redacted, labels neutralised, a fence no data line can close."""
    return "".join(fenced((body,), label))


def fenced(lines: Sequence[str], label: str) -> list[str]:
    """``fence`` as pieces: the opening line, the body, the closing line.

    ``lines``: the body in pieces that each end a line but the last (so no redaction,
    label or tilde run can span two), kept apart so a megabyte body is not copied to
    be quoted; the caller joins the result once.
    """
    body = [_neutralised(redact(visible(piece))) for piece in lines]
    longest = max(
        (
            len(m)
            for piece in body
            if "~" in piece and "~~~" in piece
            for m in _LEADING_TILDES.findall(piece)
        ),
        default=0,
    )  # "~": a memchr
    tildes = "~" * max(4, longest + 1)
    digest = sha256_text(body, "surrogatepass")[:12]
    return [f"{tildes} {label}-{digest}\n", *body, f"\n{tildes}"]


def _neutralised(text: str) -> str:
    if _DATA.search(text):  # a literal-prefix scan: faster than `in` on megabytes
        return _LABELS.sub(lambda m: m.group(1) + "-data\\-", text)
    return text


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

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]


def listing(
    key: str,
    heading: str,
    records: Sequence[Record],
    columns: Sequence[tuple[str, str]],
    *,
    empty: str = "None.",
    preface: str = "",
    extra_cells: Callable[[Any], Sequence[str]] | None = None,
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
