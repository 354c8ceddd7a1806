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

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NamedTuple

SCHEMES = ("sequential", "branch-safe")
TAG_DIGITS = 5
# Lazy prefix, the number, then an optional branch-safe tag ("-" and five hex digits).
_ID = re.compile(rf"^(.*?)(\d+)(-[0-9a-f]{{{TAG_DIGITS}}})?$")


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


def split_id(item_id: str) -> IdParts | None:
    """The prefix, number and branch-safe tag of an ID, or None when it has no number."""
    match = _ID.match(item_id)
    if match is None:
        return None
    return IdParts(match.group(1), int(match.group(2)), len(match.group(2)), match.group(3) or "")


def _highest(existing_ids: Iterable[str], prefix: str) -> int:
    high = 0
    for item_id in existing_ids:
        parts = split_id(item_id)
        if parts is not None and parts.prefix == prefix:
            high = max(high, parts.number)
    return high


def next_id(existing_ids: Iterable[str], prefix: str, scheme: str = "sequential", *,
            width: int = 3, branch: str | None = None,
            content: Mapping[str, str] | Iterable[str] | str | None = None) -> str:
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
    return f"{plain}-{hashlib.sha256(seed.encode('utf-8')).hexdigest()[:TAG_DIGITS]}"


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
