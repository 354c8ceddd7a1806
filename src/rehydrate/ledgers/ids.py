"""Minting item IDs: ``sequential`` (F-012) or ``branch-safe`` (F-012-3fa9c), see docs/merging.md.

``sequential`` is the next number after the highest one used with the prefix
(retired items included), in the ledger's own zero padding: short and ordered,
but two branches appending at once both mint ``F-013``; the merge driver then
renumbers one of them. ``branch-safe`` keeps that readable number and adds five
hex digits of a hash of (branch, section, row content): two branches (or two
clones) that append different rows mint different IDs without talking to each
other, and the same fact recorded at the same point on one branch name gets the
same ID, so a merge keeps it once. No clock and no randomness go into the hash, so the same
inputs always give the same ID.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from .. import digests
from ..records import NamedTuple

SCHEMES = ("sequential", "branch-safe")
TAG_DIGITS = 5
MAX_ID_LENGTH = 32
# CONTRACT §2: an ID is ASCII, a letter then up to 31 letters, digits, '.', '_' or '-'.
ID_PATTERN = r"[A-Za-z][A-Za-z0-9._-]{0,31}"
_SHAPE = re.compile(ID_PATTERN)
_HEX = frozenset("0123456789abcdef")


class IdParts(NamedTuple):
    prefix: str  # "F-"
    number: int  # 12
    width: int  # digits as written (3 for "012")
    tag: str  # "" or "-3fa9c"


class IdPolicy(NamedTuple):
    """How the writers mint IDs in this repository (``id_scheme`` and the current branch)."""

    scheme: str = "sequential"
    branch: str | None = None


_POLICY: ContextVar[IdPolicy | None] = ContextVar("rehydrate_id_policy", default=None)


def valid_id(value: str) -> bool:
    """Whether ``value`` has the shape of an ID (CONTRACT §2): no look-alike, no sentence."""
    return _SHAPE.fullmatch(value) is not None


def shown(value: str, limit: int = 12) -> str:
    """``value`` safe to print in a message: ASCII-escaped, cut after ``limit`` characters.

    An ID cell that is not an ID may be a secret or a sentence: never echo it whole.
    """
    head = ascii(value[:limit])
    return head if len(value) <= limit else f"{head}... ({len(value)} characters)"


def id_problem(value: str) -> str | None:
    """Why ``value`` is not an ID, or None when it is one."""
    if valid_id(value):
        return None
    if not value:
        return "the ID is empty"
    if len(value) > MAX_ID_LENGTH:
        return f"the ID {shown(value)} is longer than {MAX_ID_LENGTH} characters"
    bad = next((c for c in value if not (c.isascii() and (c.isalnum() or c in "._-"))), None)
    if bad is not None:
        return f"the ID {shown(value)} holds U+{ord(bad):04X}, which is not allowed in an ID"
    return f"the ID {shown(value)} does not start with an ASCII letter"


def _trailing_digits(text: str) -> int:
    """Where the run of ASCII digits that ends ``text`` starts (len(text) when none)."""
    pos = len(text)
    while pos and "0" <= text[pos - 1] <= "9":
        pos -= 1
    return pos


def split_id(item_id: str) -> IdParts | None:
    """The prefix, number and branch-safe tag of an ID, or None when it has no number.

    The shortest prefix wins: ``<prefix><digits>-<5 hex>`` when the ID ends with a tag
    after digits, else ``<prefix><digits>``. String methods only (linear on any input).
    """
    body, tag = item_id, ""
    cut = len(item_id) - TAG_DIGITS - 1
    if (
        cut > 0
        and item_id[cut] == "-"
        and _HEX.issuperset(item_id[cut + 1 :])
        and "0" <= item_id[cut - 1] <= "9"
    ):
        body, tag = item_id[:cut], item_id[cut:]
    start = _trailing_digits(body)
    if start == len(body):
        return None
    digits = body[start:]
    if len(digits) > 18:  # not a counter: keeps int() clear of the conversion limit
        return None
    return IdParts(body[:start], int(digits), len(digits), tag)


def _highest(existing_ids: Iterable[str], prefix: str) -> int:
    high = 0
    for item_id in existing_ids:
        parts = split_id(item_id)
        if parts is not None and parts.prefix == prefix:
            high = max(high, parts.number)
    return high


def next_id(
    existing_ids: Iterable[str],
    prefix: str,
    scheme: str = "sequential",
    *,
    width: int = 3,
    branch: str | None = None,
    content: Mapping[str, str] | Iterable[str] | str | None = None,
) -> str:
    """A new ID with ``prefix`` that is in none of ``existing_ids`` (retired ones included).

    ``width`` is the zero padding of the number. ``branch`` and ``content`` (the
    row's cells) feed the tag of a ``branch-safe`` ID and are ignored by
    ``sequential``.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"unknown id scheme {scheme!r}")
    taken = set(existing_ids)
    number = _highest(taken, prefix) + 1
    plain = f"{prefix}{number:0{width}d}"
    if scheme == "sequential":
        return plain

    # The number is above every number in use, so the tagged ID is free as well.
    seed = "\x1f".join((branch or "", prefix, _content_text(content)))
    return f"{plain}-{digests.sha256(seed.encode('utf-8')).hexdigest()[:TAG_DIGITS]}"


def _content_text(content: Mapping[str, str] | Iterable[str] | str | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        return "\x1e".join(f"{k}={content[k]}" for k in sorted(content))
    return "\x1e".join(content)


def style_of(ids_in_order: Iterable[str], default: str) -> tuple[str, int]:
    """(prefix, width) of the last numbered ID of a section, else of ``default`` (e.g. C-001)."""
    last = None
    for item_id in ids_in_order:
        parts = split_id(item_id)
        if parts is not None:
            last = parts
    if last is None:
        last = split_id(default)
    assert last is not None, default
    return last.prefix, last.width


def renumber(existing_ids: Iterable[str], item_id: str) -> str:
    """A free ID in ``item_id``'s own style, for a row that collides with another."""
    parts = split_id(item_id)
    if parts is None:
        taken = set(existing_ids)
        return next(f"{item_id}-{n}" for n in range(2, 1_000_000) if f"{item_id}-{n}" not in taken)
    return next_id(existing_ids, parts.prefix, width=parts.width)


def current_policy() -> IdPolicy:
    """The policy the writers run under (set by ``using``; sequential by default)."""
    return _POLICY.get() or IdPolicy()


@contextmanager
def using(scheme: str, branch: str | None) -> Iterator[IdPolicy]:
    """Mint IDs with ``scheme`` on ``branch`` inside the block."""
    policy = IdPolicy(scheme, branch)
    token = _POLICY.set(policy)
    try:
        yield policy
    finally:
        _POLICY.reset(token)
