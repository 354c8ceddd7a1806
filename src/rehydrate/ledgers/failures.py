"""docs/Failed_Attempts.md: what was tried, how it failed, what to do instead."""

from __future__ import annotations

from collections.abc import Mapping

from ._document import Context, Finished, read
from ._markdown import Section
from .model import FAILURES, Ledger, Schema

SCHEMAS: Mapping[str, Schema | None] = {"failures": FAILURES}


def pick(keyed: list[tuple[str | None, Section]]) -> dict[int, Schema]:
    """The failure table is the first table outside ## Retired, wherever it sits."""
    for key, section in keyed:
        if key != "retired" and section.tables:
            return {id(section.tables[0]): FAILURES}
    return {}


def _finish(
    meta: Mapping[str, object], sections: Mapping[str | None, Section], ctx: Context
) -> Finished | None:
    return None


def parse(data: bytes, ctx: Context) -> Ledger:
    return read("failures", data, ctx, SCHEMAS, pick, _finish)
