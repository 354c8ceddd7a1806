"""Byte-exact edits of a ledger's front matter: raise ``revision``, set a one-line value.

The front matter is never re-serialised: an edit rewrites the one ``key:`` line it owns
(and the continuation lines of a value written over several lines), every other byte of
the block is kept.
"""

from __future__ import annotations

import re

from ..errors import LedgerParseError, RehydrateError
from ..ledgers import split_front_matter
from ..ledgers.rowedit import Text, insert_lines, join_text, replace_line, split_text
from ..mdblocks import front_matter_bounds

_REVISION = re.compile(r"^(revision:[ \t]*[\"']?)(\d+)([\"']?[ \t]*(?:#.*)?)$")
_PLAIN_START = re.compile(r"[A-Za-z0-9(]")  # a plain YAML scalar may start with these


def _closing_line(text: Text, path: str) -> int:
    """0-based index of the line closing the front matter block."""
    index = front_matter_bounds(text.lines)
    if index is not None and index < len(text.lines):
        return index
    raise LedgerParseError(
        "Task.md has no front matter block to write to",
        file=path,
        line=1,
        code="revision_invalid",
        fix="start Task.md with '---', 'revision: 1', '---'",
    )


def bump_revision(data: bytes, path: str) -> tuple[bytes, int]:
    """Raise Task's front-matter ``revision`` by exactly one, editing only its digits."""
    text = split_text(data)
    for index in range(1, front_matter_bounds(text.lines) or 0):
        match = _REVISION.match(text.lines[index])
        if match:
            value = int(match.group(2)) + 1
            new = match.group(1) + str(value) + match.group(3)
            return join_text(replace_line(text, index, new)), value
    raise LedgerParseError(
        "front matter has no 'revision: N' line to raise",
        file=path,
        line=1,
        code="revision_invalid",
        fix="start Task.md with '---', 'revision: 1', '---'",
    )


def yaml_scalar(value: str) -> str:
    """``value`` as a one-line YAML scalar: plain when it reads back as itself, else quoted."""
    plain = (
        _PLAIN_START.match(value) is not None
        and ": " not in value
        and " #" not in value
        and not value.endswith(":")
    )
    return value if plain else "'" + value.replace("'", "''") + "'"


def _value_end(text: Text, start: int, close: int) -> int:
    """Index just past the lines of the value that starts at ``start`` (its continuation
    lines are indented; blank lines count only when an indented line follows)."""
    end = start + 1
    probe = end
    while probe < close:
        line = text.lines[probe]
        if not line.strip():
            probe += 1
            continue
        if line[:1] not in (" ", "\t"):
            break
        probe += 1
        end = probe
    return end


def set_meta(data: bytes, key: str, value: str, path: str) -> bytes:
    """Set front-matter ``key`` to the one-line ``value`` (added before the closing line
    when missing); refuses when the block would not read ``value`` back."""
    text = split_text(data)
    close = _closing_line(text, path)
    line = f"{key}: {yaml_scalar(value)}"
    pattern = re.compile(rf"{re.escape(key)}[ \t]*:")
    for index in range(1, close):
        if pattern.match(text.lines[index]):
            end = _value_end(text, index, close)
            kept = text.lines[:index] + (line,) + text.lines[end:]
            eols = text.eols[: index + 1] + text.eols[end:]
            text = Text(text.bom, kept, eols)
            break
    else:
        text = insert_lines(text, close, [line])
    meta, _ = split_front_matter(list(text.lines), path)
    if meta.get(key) != value:
        raise RehydrateError(
            f"the front matter would not read {key!r} back as written",
            file=path,
            line=1,
            code="bad_value",
            fix=f"simplify the value, or write '{key}: ...' in the front matter by hand",
        )
    return join_text(text)
