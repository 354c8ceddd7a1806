"""Front matter, read fail-closed.

The block must be terminated, must be a mapping, keys are unique, and every
scalar stays a string (typed by the ledger that reads it). Flat ``key: value``
blocks, which is what ledgers use, are read without importing YAML at all; the
rest goes through ``rehydrate.yamlsafe`` (tags, anchors, aliases and merge keys
refused).
"""

from __future__ import annotations

import re

from ..errors import LedgerParseError
from ..mdblocks import front_matter_bounds

MAX_FRONT_MATTER_BYTES = 65536
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_PLAIN_UNSAFE_START = set("'\"&*!|>%@`{[#-?:,")


def split(lines: list[str], path: str) -> tuple[dict[str, object], int]:
    """Return (metadata, number of lines the front matter block takes)."""
    index = front_matter_bounds(lines)
    if index is None:
        return {}, 0
    if index == len(lines):
        raise LedgerParseError(
            "front matter starts with '---' but is never closed",
            file=path,
            line=1,
            code="frontmatter_invalid",
            fix="close it with a '---' line",
        )
    block = lines[1:index]
    if sum(len(b) + 1 for b in block) > MAX_FRONT_MATTER_BYTES:
        raise LedgerParseError(
            "front matter is larger than 64 KiB",
            file=path,
            line=1,
            code="frontmatter_invalid",
            fix="keep front matter to a few keys",
        )
    meta = _simple(block, path)
    if meta is None:
        meta = _yaml(block, path)
    return meta, index + 1


def _simple(block: list[str], path: str) -> dict[str, object] | None:
    meta: dict[str, object] = {}
    for offset, text in enumerate(block, start=2):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        pair = _key_value(text)
        if pair is None:
            return None
        key, value = pair
        if value and (value[0] in _PLAIN_UNSAFE_START or ": " in value or " #" in value):
            return None
        if key in meta:
            raise LedgerParseError(
                f"duplicate front matter key {key!r}",
                file=path,
                line=offset,
                code="frontmatter_invalid",
                fix="keep one of them",
            )
        meta[key] = value
    return meta


def _key_value(text: str) -> tuple[str, str] | None:
    """'key: value' as (key, value without surrounding blanks), else None.

    String methods only: the regular expression this replaces was quadratic on
    'key: a', 60,000 spaces and 'b'.
    """
    colon = text.find(":")
    if colon < 1 or not _KEY.fullmatch(text, 0, colon):
        return None
    rest = text[colon + 1 :]
    if rest and rest[0] not in " \t":
        return None
    return text[:colon], rest.strip(" \t")


def _yaml(block: list[str], path: str) -> dict[str, object]:
    from .yamlsafe import YAMLInputError, load

    try:
        meta = load("\n".join(block))
    except YAMLInputError as exc:
        raise LedgerParseError(
            f"front matter is not valid YAML: {exc.message}"
            + (f" (line {exc.line + 1})" if exc.line else ""),
            file=path,
            line=1,
            code="frontmatter_invalid",
            fix="use plain 'key: value' lines (no tags, anchors or aliases)",
        ) from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise LedgerParseError(
            "front matter must be a mapping of keys to values",
            file=path,
            line=1,
            code="frontmatter_invalid",
            fix="use 'key: value' lines",
        )
    return meta
