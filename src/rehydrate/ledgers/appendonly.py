"""The failure ledger's append-only fast path, shared by the guard and the merge driver.

A 10,000-row failure ledger mostly grows by rows inserted into its table. These
helpers prove that cheaply, on bytes, without parsing the whole file: find the
failure table when the text before it is plain, the common prefix/suffix of two
versions, the lines one version inserted, and the table's header. The guard's
verdict on such a change is ``guard.fastpath.table_edit``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .ids import ID_PATTERN

BOM = b"\xef\xbb\xbf"
# An ID's shape (CONTRACT §2), for ``.match``: the merge driver checks inserted rows with it.
SIMPLE_ID = re.compile(rf"{ID_PATTERN}\Z")
REQUIRED = ("id", "tried", "failure", "workaround")  # the failure table's own columns
_TABLE_END = re.compile(rb"\n(?![ \t]*\|)")
_FENCE = re.compile(rb"^ {0,3}(?:```|~~~)")


def common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix of ``a`` and ``b`` (binary search over memcmp)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the common suffix of ``a`` and ``b``, at most ``limit``."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid : len(a) - lo] == b[len(b) - mid : len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def failure_table(old: bytes, section_aliases: Mapping[str, str]) -> tuple[bytes, int, int] | None:
    """(header line, offset of the first data row, offset just past the table) of the
    failure table, when the text before it is plain enough to find it without parsing."""
    from ._markdown import heading2_title
    from ._table import normalize

    pos, size = 0, len(old)
    if old.startswith(b"---\n") or old.startswith(b"---\r\n"):
        close = re.search(rb"\n(?:---|\.\.\.)[ \t]*\r?\n", old)
        if close is None:
            return None
        pos = close.end()
    while pos < size and pos < 262144:
        end = old.find(b"\n", pos)
        end = size if end < 0 else end
        line = old[pos:end].rstrip(b"\r")
        if line.lstrip(b" \t").startswith(b"|"):
            header = line
            delim_end = old.find(b"\n", end + 1)
            if delim_end < 0:
                return None
            stop = _TABLE_END.search(old, delim_end)
            return header, delim_end + 1, (stop.start() + 1 if stop else size)
        if _FENCE.match(line):
            return None
        heading = heading2_title(line.decode("utf-8", "replace"))
        if heading is not None:
            name = normalize(heading).lower()
            if section_aliases.get(name, name) == "retired":
                return None
        pos = end + 1
    return None


def failure_header(
    line: bytes, column_aliases: Mapping[str, str], path: str = ""
) -> list[str] | None:
    """The canonical column names of a failure table's header line, or None when it does
    not decode, does not split, or lacks one of the ``REQUIRED`` columns."""
    from ..errors import LedgerParseError
    from ._table import split_row

    try:
        header = [
            column_aliases.get(h.lower(), h.lower())
            for h in split_row(line.decode("utf-8"), path, 0)
        ]
    except (UnicodeDecodeError, LedgerParseError):
        return None
    return header if all(name in header for name in REQUIRED) else None


def inserted_lines(base: bytes, side: bytes) -> tuple[int, list[str]] | None:
    """(offset in base, lines) that ``side`` inserted at one place into ``base``, or None."""
    grown = len(side) - len(base)
    if grown < 0:
        return None
    start = base.rfind(b"\n", 0, common_prefix(base, side)) + 1
    if side[start + grown :] != base[start:] or (
        grown and not side[: start + grown].endswith(b"\n")
    ):
        return None
    try:
        text = side[start : start + grown].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return start, [line[:-1] if line.endswith("\r") else line for line in text.split("\n")[:-1]]
