"""The failure ledger's append-only fast path, shared by the guard and the merge driver.

A 10,000-row failure ledger mostly grows by rows inserted into its table. These
helpers prove that cheaply, on bytes, without parsing the whole file: find the
failure table when the text before it is plain, the common prefix/suffix of two
versions, the lines one version inserted, and the table's header. The guard's
verdict on such a change is ``guard.fastpath.table_edit``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from .ids import ID_PATTERN

BOM = b"\xef\xbb\xbf"
# An ID's shape (CONTRACT §2), for ``.match``: the merge driver checks inserted rows with it.
SIMPLE_ID = re.compile(rf"{ID_PATTERN}\Z")
REQUIRED = ("id", "tried", "failure", "workaround")  # the failure table's own columns
_TABLE_END = re.compile(rb"\n(?![ \t]*\|)")
_SCAN = 262144  # bytes read for the text before the table; past them the full parse decides


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
    from ..mdblocks import fence_open
    from ._markdown import heading2_title
    from ._table import normalize

    size = len(old)
    pos = _past_front_matter(old[:_SCAN]) if old.startswith(b"---") else 0
    if pos is None:
        return None
    while pos < size and pos < _SCAN:
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
        text = line.decode("utf-8", "replace")
        if fence_open(text) is not None:
            return None
        heading = heading2_title(text)
        if heading is not None:
            name = normalize(heading).lower()
            if section_aliases.get(name, name) == "retired":
                return None
        pos = end + 1
    return None


def _past_front_matter(head: bytes) -> int | None:
    """The offset just past the front matter block that opens ``head`` (0 when it has
    none), or None when no whole line within it closes the block (the full parse then
    decides)."""
    from ..mdblocks import front_matter_bounds

    ends: list[int] = []  # offset past each whole line read so far

    def whole_lines() -> Iterator[str]:
        pos = 0
        while (newline := head.find(b"\n", pos)) >= 0:
            ends.append(newline + 1)
            # latin-1: every byte one character, and only ASCII ('---', '...') decides
            yield head[pos:newline].rstrip(b"\r").decode("latin-1")
            pos = newline + 1

    end = front_matter_bounds(whole_lines())
    if end is None:
        return 0
    return ends[end] if end < len(ends) else None


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
