"""Text size in the unit a runtime caps it by, and cutting text to a cap in that unit.

Each runtime measures what a hook gives it in its own unit: Claude Code keeps
``additionalContext`` while its JavaScript length (UTF-16 code units) is at most 10,000,
so an emoji counts twice; Codex counts bytes; others count characters. A cap checked in
the wrong unit lets a context through that the runtime then replaces with a preview.
"""

from __future__ import annotations

from collections.abc import Callable

from ..records import NamedTuple

Measure = Callable[[str], int]


def utf16_units(text: str) -> int:
    """The JavaScript length of ``text``: one unit per code point, two above U+FFFF."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


class Unit(NamedTuple):
    name: str  # for messages: "UTF-16 code units"
    measure: Measure


UTF16 = Unit("UTF-16 code units", utf16_units)
UTF8 = Unit("UTF-8 bytes", utf8_bytes)
CODE_POINTS = Unit("characters", len)


class Cap(NamedTuple):
    """A runtime's size limit on one piece of text it is given."""

    limit: int
    unit: Unit

    def size(self, text: str) -> int:
        return self.unit.measure(text)

    def fits(self, text: str) -> bool:
        return self.unit.measure(text) <= self.limit


def prefix_within(text: str, limit: int, measure: Measure) -> str:
    """The longest prefix of ``text`` whose size is at most ``limit`` (whole code points,
    so a surrogate pair is never split): a binary search, O(n log n) at worst."""
    if measure(text) <= limit:
        return text
    low, high = 0, len(text)  # measure(text[:low]) <= limit < measure(text[:high])
    while high - low > 1:
        middle = (low + high) // 2
        if measure(text[:middle]) <= limit:
            low = middle
        else:
            high = middle
    return text[:low]


def fit(text: str, cap: Cap, marker: str) -> str:
    """``text`` within ``cap``: unchanged when it fits, else cut and ended with ``marker``
    (which says where the rest is), the whole never over the cap."""
    if cap.fits(text):
        return text
    measure = cap.unit.measure
    room = max(0, cap.limit - measure(marker))
    return prefix_within(prefix_within(text, room, measure) + marker, cap.limit, measure)
