"""Front matter, read fail-closed around python-frontmatter's YAML handler.

python-frontmatter alone fails open (an unterminated block or list front
matter silently becomes empty metadata, duplicate keys keep the last, ``no``
becomes False). Here: the block must be terminated, must be a mapping, keys
are unique, anchors and aliases are refused, and every scalar stays a string
(typed by the ledger that reads it). Flat ``key: value`` blocks, which is what
ledgers use, are read without importing YAML at all.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..errors import LedgerParseError

MAX_FRONT_MATTER_BYTES = 65536
# the value without its trailing blanks, found without a lazy scan (linear, issue 13)
_SIMPLE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*+):(?:[ \t]++([^ \t](?:.*[^ \t])?))?[ \t]*+$")
_PLAIN_UNSAFE_START = set("'\"&*!|>%@`{[#-?:,")


def split(lines: list[str], path: str) -> tuple[dict[str, Any], int]:
    """Return (metadata, number of lines the front matter block takes)."""
    if not lines or lines[0].rstrip(" \t") != "---":
        return {}, 0
    for index in range(1, len(lines)):
        if lines[index].rstrip(" \t") in ("---", "..."):
            block = lines[1:index]
            break
    else:
        raise LedgerParseError(
            "front matter starts with '---' but is never closed", file=path, line=1,
            code="frontmatter_invalid", fix="close it with a '---' line",
        )
    if sum(len(b) + 1 for b in block) > MAX_FRONT_MATTER_BYTES:
        raise LedgerParseError(
            "front matter is larger than 64 KiB", file=path, line=1,
            code="frontmatter_invalid", fix="keep front matter to a few keys",
        )
    meta = _simple(block, path)
    if meta is None:
        meta = _yaml(block, path)
    return meta, index + 1


def _simple(block: list[str], path: str) -> dict[str, Any] | None:
    meta: dict[str, Any] = {}
    for offset, text in enumerate(block, start=2):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        match = _SIMPLE.match(text)
        if not match:
            return None
        value = match.group(2) or ""
        if value and (value[0] in _PLAIN_UNSAFE_START or ": " in value or " #" in value):
            return None
        key = match.group(1)
        if key in meta:
            raise LedgerParseError(
                f"duplicate front matter key {key!r}", file=path, line=offset,
                code="frontmatter_invalid", fix="keep one of them",
            )
        meta[key] = value
    return meta


def strict_yaml_load(text: str, *, typed: bool = False) -> Any:
    """Load YAML refusing anchors, aliases and duplicate or non-string keys.

    Every scalar stays a string unless ``typed`` (then YAML's safe types: null, bool, int,
    float). Raises ``yaml.YAMLError`` (or ``RecursionError``/``ValueError`` on hostile input).
    """
    import yaml

    return yaml.load(text, Loader=_strict_loader(typed))  # noqa: S506 - a BaseLoader/SafeLoader


@functools.cache
def _strict_loader(typed: bool) -> Any:
    import yaml

    base: Any = yaml.SafeLoader if typed else yaml.BaseLoader

    class StrictLoader(base):
        """``base`` minus anchors, aliases and duplicate or non-string keys."""

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise yaml.YAMLError("anchors and aliases are not allowed")
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, str) or key in seen:
                    raise yaml.YAMLError(f"duplicate or non-string key {key!r}")
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def _yaml(block: list[str], path: str) -> dict[str, Any]:
    import frontmatter
    import yaml

    try:
        meta = frontmatter.YAMLHandler().load("\n".join(block), Loader=_strict_loader(False))
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise LedgerParseError(
            f"front matter is not valid YAML: {str(exc).splitlines()[0]}", file=path, line=1,
            code="frontmatter_invalid", fix="use plain 'key: value' lines",
        ) from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise LedgerParseError(
            "front matter must be a mapping of keys to values", file=path, line=1,
            code="frontmatter_invalid", fix="use 'key: value' lines",
        )
    return meta
