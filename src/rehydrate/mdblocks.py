"""Markdown's building blocks as line-level facts: code spans, code fences, front matter.

Each is read here and nowhere else (STYLE.md, "One reader per format"): the ledger
parser's section scanner and front matter, the append-only fast path, the writers'
front-matter edits and prose checks, and the command check's reading of a Tried cell
all call these functions. A module of the ledgers layer outside the ``ledgers``
package (as ``failtable`` is), importing nothing of the package but ``patterns``: the
command check's hot path reads code spans without loading the parser.
"""

from __future__ import annotations

from collections.abc import Iterable

from .patterns import compiled

_TICKS = r"`+"
_FENCE_OPEN = r"^( {0,3})(`{3,}|~{3,})(.*)$"
_FRONT_MATTER_CLOSE = ("---", "...")


def code_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, run length) of each inline code span, CommonMark's pairing of runs.

    A run of N backticks opens a span closed by the next run of exactly N. Runs are
    found once and each length's runs kept in order with a cursor that only moves
    forward, so pairing is linear (rescanning for each opener would be quadratic).
    """
    if text.count("`") == 2:  # the common cell: one span, found without the general scan
        start = text.index("`")
        close = text.index("`", start + 1)
        return [(start, close + 1, 1)] if close > start + 1 else []
    runs = [(m.start(), m.end()) for m in compiled(_TICKS).finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    cursor = dict.fromkeys(by_length, 0)
    spans: list[tuple[int, int, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        length = end - start
        same, at = by_length[length], cursor[length]
        while at < len(same) and same[at] <= index:
            at += 1
        cursor[length] = at
        if at == len(same):
            index += 1
            continue
        close = same[at]
        spans.append((start, runs[close][1], length))
        index = close + 1
    return spans


def fence_open(line: str) -> tuple[str, int] | None:
    """(fence character, run length) when ``line`` opens a fenced code block, else None.

    CommonMark: up to three spaces, then three or more backticks or tildes; a backtick
    fence's info string holds no backtick (else the line is an inline code span).
    """
    opened = compiled(_FENCE_OPEN).match(line)
    if opened is None or (opened.group(2)[0] == "`" and "`" in opened.group(3)):
        return None
    return opened.group(2)[0], len(opened.group(2))


def fence_closes(line: str, fence: tuple[str, int]) -> bool:
    """Whether ``line`` closes the code block ``fence`` (from ``fence_open``) opened: up
    to three spaces, a run of the same character at least as long, then only blanks."""
    stripped = line.lstrip(" ")
    return (
        len(line) - len(stripped) <= 3
        and stripped.startswith(fence[0] * fence[1])
        and stripped.rstrip(" \t").strip(fence[0]) == ""
    )


def front_matter_bounds(lines: Iterable[str]) -> int | None:
    """Index of the line that closes the front matter block ('---' or '...'); None when
    the text has no block (its first line is not '---'); the number of lines when the
    block is never closed. The block's own lines are ``lines[1:end]``. Lines are read
    only up to the closing one (a generator may be passed)."""
    each = iter(lines)
    first = next(each, None)
    if first is None or first.rstrip(" \t") != "---":
        return None
    index = 0
    for index, line in enumerate(each, start=1):
        if line.rstrip(" \t") in _FRONT_MATTER_CLOSE:
            return index
    return index + 1
