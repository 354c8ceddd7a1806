"""The three ledgers: parse bytes into immutable records, fail closed."""

from __future__ import annotations

from collections.abc import Mapping

from ._document import MAX_LEDGER_BYTES, Context
from ._render import visible
from .model import Ledger

KINDS = ("spec", "task", "failures")

__all__ = ["KINDS", "MAX_LEDGER_BYTES", "Context", "Ledger", "parse_ledger", "visible"]


def parse_ledger(
    kind: str,
    path: str,
    data: bytes,
    *,
    section_aliases: Mapping[str, str] | None = None,
    column_aliases: Mapping[str, str] | None = None,
    max_bytes: int = MAX_LEDGER_BYTES,
) -> Ledger:
    """Parse one ledger of ``kind``; raises LedgerParseError, never returns 'empty'."""
    ctx = Context(path, section_aliases or {}, column_aliases or {}, max_bytes)
    if kind == "spec":
        from . import spec as module
    elif kind == "task":
        from . import task as module  # type: ignore[no-redef]
    elif kind == "failures":
        from . import failures as module  # type: ignore[no-redef]
    else:
        raise ValueError(f"unknown ledger kind {kind!r}")
    return module.parse(data, ctx)
