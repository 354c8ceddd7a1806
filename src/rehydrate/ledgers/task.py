"""docs/Task.md: phases, the one next action, obligations, writes, approvals, checks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import LedgerParseError
from ._document import Context, check_text, read, tables_by_section
from ._markdown import Section
from .model import (
    APPROVALS,
    CHECKS,
    OBLIGATIONS,
    PHASES,
    VERIFIED,
    WRITES,
    Ledger,
    NextAction,
    Schema,
)

SCHEMAS: Mapping[str, Schema | None] = {
    "phases": PHASES, "next action": None, "obligations": OBLIGATIONS,
    "external writes": WRITES, "approvals": APPROVALS, "verified": VERIFIED,
    "completion checks": CHECKS, "rollback": None,
}
_BULLET = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+")
# Anything that chains a second action onto the first.
_CHAINING = re.compile(r"&&|\|\||;|\bthen\b|、その後", re.IGNORECASE)


def next_action_problem(text: str) -> str | None:
    """Why ``text`` is not exactly one action on one line, or None if it is."""
    if "\n" in text or "\r" in text:
        return "the next action spans more than one line"
    chained = _CHAINING.search(text)
    if chained:
        return f"the next action chains a second action with {chained.group()!r}"
    return None


def _next_action(section: Section | None, ctx: Context) -> NextAction | None:
    if section is None:
        return None
    body = [(no, t) for no, t in section.lines if t.strip()]
    if not body:
        return None
    if len(body) > 1 or section.tables:
        raise LedgerParseError(
            f"Next action has {len(body)} lines; it must be exactly one action on one line",
            file=ctx.path, line=body[1][0] if len(body) > 1 else body[0][0],
            code="next_action_not_single",
            fix="keep one concrete action; move the rest into Phases or Obligations",
        )
    no, text = body[0]
    text = _BULLET.sub("", text.strip())
    check_text(text, ctx, no)
    problem = next_action_problem(text)
    if problem:
        raise LedgerParseError(
            problem, file=ctx.path, line=no, code="next_action_not_single",
            fix="write one action; record the follow-up as a phase or obligation",
        )
    return NextAction(text, no)


def _finish(meta: Mapping[str, Any], sections: Mapping[str | None, Section],
            ctx: Context) -> dict[str, Any]:
    raw = meta.get("revision")
    if not isinstance(raw, str) or not raw.isascii() or not raw.isdigit():
        raise LedgerParseError(
            "front matter 'revision' must be a non-negative integer"
            + (" (it is missing)" if raw is None else f" (found {raw!r})"),
            file=ctx.path, line=1, code="revision_invalid",
            fix="start Task.md with '---', 'revision: 1', '---'",
        )
    fixed = dict(meta)
    fixed["revision"] = int(raw)
    for key in ("task", "objective"):
        value = meta.get(key, "")
        if not isinstance(value, str):
            raise LedgerParseError(
                f"front matter '{key}' must be a single line of text", file=ctx.path, line=1,
                code="frontmatter_invalid", fix=f"write '{key}: <text>'",
            )
        check_text(value, ctx, 1)
    return {"meta": fixed, "next_action": _next_action(sections.get("next action"), ctx)}


def parse(data: bytes, ctx: Context) -> Ledger:
    return read("task", data, ctx, SCHEMAS, tables_by_section(SCHEMAS), _finish)
