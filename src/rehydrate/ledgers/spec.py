"""docs/Spec.md: constraints, contracts, decisions."""

from __future__ import annotations

from collections.abc import Mapping

from ._document import Context, Finished, read, tables_by_section
from ._markdown import Section
from .model import CONSTRAINTS, CONTRACTS, DECISIONS, Ledger, Schema

SCHEMAS: Mapping[str, Schema | None] = {
    "constraints": CONSTRAINTS,
    "contracts": CONTRACTS,
    "decisions": DECISIONS,
}


def _finish(
    meta: Mapping[str, object], sections: Mapping[str | None, Section], ctx: Context
) -> Finished | None:
    return None


def parse(data: bytes, ctx: Context) -> Ledger:
    return read("spec", data, ctx, SCHEMAS, tables_by_section(SCHEMAS), _finish)
