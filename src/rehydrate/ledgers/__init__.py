"""The three ledgers: parse bytes into immutable records, fail closed."""

from __future__ import annotations

from collections.abc import Mapping

from ._document import (
    MAX_LEDGER_BYTES,
    Context,
    canonical_section,
    check_text,
    entity_forbidden,
    forbidden,
    has_forbidden,
    tables_by_section,
)
from ._frontmatter import split as split_front_matter
from ._markdown import Section, split_sections
from ._render import hidden_markup, visible
from ._table import Table, escape_cell, normalize, render_row, split_row
from .model import Ledger

KINDS = ("spec", "task", "failures")

# The package's public API: the parser, and the cell and section rules that writers, the
# merge and the guard's fast path apply to raw bytes (so that there is one of each).
__all__ = [
    "KINDS",
    "MAX_LEDGER_BYTES",
    "Context",
    "Ledger",
    "Section",
    "Table",
    "canonical_section",
    "check_text",
    "entity_forbidden",
    "escape_cell",
    "forbidden",
    "has_forbidden",
    "hidden_markup",
    "normalize",
    "parse_ledger",
    "parse_with",
    "render_row",
    "split_front_matter",
    "split_row",
    "split_sections",
    "tables_by_section",
    "visible",
]


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
    return parse_with(
        kind, data, Context(path, section_aliases or {}, column_aliases or {}, max_bytes)
    )


def parse_with(kind: str, data: bytes, ctx: Context) -> Ledger:
    """``parse_ledger`` with the path and settings of ``ctx`` (a merge's, a writer's)."""
    ctx = ctx._replace(scan_cells=True)  # decided afresh for these bytes
    if kind == "spec":
        from .spec import parse
    elif kind == "task":
        from .task import parse
    elif kind == "failures":
        from .failures import parse
    else:
        raise ValueError(f"unknown ledger kind {kind!r}")
    return parse(data, ctx)
