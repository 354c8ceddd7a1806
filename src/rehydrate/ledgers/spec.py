"""docs/Spec.md: constraints, contracts, decisions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._document import Context, read, tables_by_section
from ._markdown import Section
from .model import CONSTRAINTS, CONTRACTS, DECISIONS, Ledger, Schema

SCHEMAS: Mapping[str, Schema | None] = {
    "constraints": CONSTRAINTS,
    "contracts": CONTRACTS,
    "decisions": DECISIONS,
}


def _finish(
    meta: Mapping[str, Any], sections: Mapping[str | None, Section], ctx: Context
) -> dict[str, Any]:
    return {}


def parse(data: bytes, ctx: Context) -> Ledger:
    return read("spec", data, ctx, SCHEMAS, tables_by_section(SCHEMAS), _finish)
