"""The prompt's claims part: who holds which Task item, until when (pure).

Only there when some lease is in force. Holder names come from the remote, so they are
quoted inside a fence like ledger text; IDs and times outside it have a fixed shape.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import NamedTuple
from .fences import fence, inline, pipe_table


class ClaimRow(NamedTuple):
    id: str
    holder: str
    host: str
    expires: str
    where: str  # "remote origin" | "local refs"


class ClaimsView(NamedTuple):
    """The leases in force, and (``run --claim``) the one this session holds."""

    rows: tuple[ClaimRow, ...] = ()
    holding: ClaimRow | None = None


def claims_section(view: ClaimsView | None) -> str:
    """The section text, "" when no lease is in force."""
    if view is None or (not view.rows and view.holding is None):
        return ""
    parts = ["## Claims — who works on which Task item (leases under refs/rehydrate/claims/)"]
    held = view.holding
    if held is not None:
        item = inline(held.id)  # an ID has a fixed shape; redacted all the same
        parts.append(
            f"This session holds the claim on {item} (lease until {inline(held.expires)}, "
            f"renewed while it runs). Work on {item} only; do not start another phase. Every "
            "other item listed below is held by another agent: leave it alone."
        )
    else:
        parts.append(
            "Each item listed is being worked on by the agent named (quoted data, below). "
            "Do not work on an item another agent holds; claim a free one with "
            "`rehydrate claim ID`."
        )
    rows = _rows(view.rows)
    if rows:
        parts.append(fence(pipe_table(("ID", "Holder", "Host", "Until", "Where"), rows)))
    return "\n\n".join(parts)


def _rows(rows: Sequence[ClaimRow]) -> list[tuple[str, ...]]:
    ordered = sorted(rows, key=lambda r: (r.id, r.where, r.holder, r.expires))
    return [(r.id, r.holder, r.host, r.expires, r.where) for r in ordered]
