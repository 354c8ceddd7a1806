"""The capped core of the prompt, for agent adapters with a hard size limit.

Claude Code caps ``additionalContext`` at 10,000 UTF-16 code units: the adapter writes the
full prompt to a file and gives this core instead, never cutting silently. The size is
measured by the caller's ``measure`` (the runtime's own unit), characters by default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..continuity.decision import BLOCKED_ON_RECONCILIATION
from ..ledgers.model import LEVEL_STRENGTH
from ..state import State
from .build import Prompt
from .fences import Listing, inline, listing
from .sections import (
    constraints,
    failures_listing,
    next_action,
    open_items,
    reconcile_action,
    unknown_writes,
)


def _counts_line(counts: Mapping[str, int]) -> str:
    shown = [f"{n} {key}" for key, n in counts.items() if n]
    return ", ".join(shown) if shown else "nothing else"


def _dropped_ids(
    blocks: Sequence[Listing], limits: Sequence[int], room: int, measure: Callable[[str], int]
) -> str:
    """The IDs of the rows left out, in priority order, within ``room``: what binds the
    agent is named even when its text is only in the full prompt."""
    named: list[str] = []
    used = 0
    for block, shown in zip(blocks, limits, strict=True):
        left = block.rows[shown:]
        ids: list[str] = []
        for row in left:
            name = inline(row[0])
            used += measure(name) + 2
            if used > room:
                break
            ids.append(name)
        if ids:
            more = f" and {len(left) - len(ids)} more" if len(ids) < len(left) else ""
            named.append(f"{block.key} {', '.join(ids)}{more}")
        elif left:
            named.append(f"{len(left)} {block.key}")
    return "; ".join(named)


def _rows_within(rows: Sequence[Sequence[str]], max_chars: int) -> int:
    """How many leading rows could fit in ``max_chars`` at all (skips rendering the rest)."""
    used = 0
    for count, row in enumerate(rows):
        used += sum(len(cell) + 3 for cell in row) + 2
        if used > max_chars:
            return count
    return len(rows)


def capped_core(
    prompt: Prompt,
    state: State,
    full_path: str,
    max_chars: int = 10000,
    *,
    measure: Callable[[str], int] = len,
    unit: str = "characters",
) -> str:
    """The prompt's core within ``max_chars`` (agent hooks with a hard cap), never silently cut.

    ``measure`` sizes a text in the runtime's unit (``unit`` names it in the closing line):
    ``max_chars`` is a limit in that unit.

    Order: decision (first when blocked), header, next action, every unknown write,
    open obligations, active MUST/MUST NOT constraints, open decisions, then as many
    failures as fit; then the full prompt's path and a count of each kind of item
    that is only in that file. When even the core does not fit, it says so.
    """
    decision = prompt.decision
    core = _core_listings(state)
    failures = failures_listing(state)
    only_in_file = _only_in_file(state)
    blocked = decision.decision == BLOCKED_ON_RECONCILIATION
    top = []
    if blocked:
        top.append(f"**Continuity decision: `{decision.decision}`. {reconcile_action(decision)}**")
    header = prompt.section("header")
    top.append(header.text if header else "# Rehydration prompt")
    top.append(next_action(state, decision))
    blocks = [*core, failures]
    limits = [_rows_within(block.rows, max_chars) for block in blocks]

    def assemble(limits: Sequence[int], compact: bool) -> str:
        if compact:
            head = top[:1] if blocked else []
            head.append(
                f"Continuity decision: `{decision.decision}`; HEAD {prompt.head}; "
                f"checksum {prompt.checksum}."
            )
        else:
            head = list(top)
        body = [b.render(n) for b, n in zip(blocks, limits, strict=True) if n or not b.rows]
        missing = dict(only_in_file)
        for b, n in zip(blocks, limits, strict=True):
            if len(b.rows) > n:
                missing[b.key] = len(b.rows) - n
        tail = []
        if compact or any(len(b.rows) > n for b, n in zip(core, limits[: len(core)], strict=True)):
            tail.append(
                f"**The core of this prompt did not fit in {max_chars} {unit}: the "
                "items counted below are only in the full prompt file.**"
            )
        tail.append(
            f"The full prompt is in `{full_path}`. Read it before acting. Only in that "
            f"file: {_counts_line(missing)}; plus the prose sections, the latest "
            "commit and the working protocol."
        )
        named = _dropped_ids(blocks, limits, max(max_chars // 20, 60), measure)
        if named:
            tail.append(f"Left out above, by ID: {named}.")
        return "\n\n".join(head + body + tail) + "\n"

    compact = False
    text = assemble(limits, compact)
    # Drop rows from the end (failures first, then the core in reverse priority) until it
    # fits; what was dropped is counted in the closing line.
    position = len(limits) - 1
    while measure(text) > max_chars:
        while position >= 0 and limits[position] == 0:
            position -= 1
        if position < 0:
            if compact:
                break
            compact = True  # even the header does not fit: a one-line header instead
        else:
            over, freed = measure(text) - max_chars, 0
            while limits[position] > 0 and freed < over:
                limits[position] -= 1
                freed += sum(measure(c) + 3 for c in blocks[position].rows[limits[position]]) + 2
        text = assemble(limits, compact)
    return _cut(text, max_chars, full_path, measure)


def _core_listings(state: State) -> list[Listing]:
    """The listings of the core, in priority order (failures apart)."""
    strong = [c for c in constraints(state) if LEVEL_STRENGTH[c.level] == 3]
    return [
        unknown_writes(state),
        open_items(state, "obligations"),
        listing(
            "MUST/MUST NOT constraints",
            "### Active MUST / MUST NOT constraints",
            strong,
            (("ID", "id"), ("Level", "level"), ("Rule", "rule")),
        ),
        open_items(state, "decisions"),
    ]


def _only_in_file(state: State) -> dict[str, int]:
    """How many items of each kind the core never shows (only the full prompt does)."""
    spec, task = state.ledgers["spec"], state.ledgers["task"]
    return {
        "SHOULD/SHOULD NOT/MAY constraints": sum(
            1 for c in constraints(state) if LEVEL_STRENGTH[c.level] < 3
        ),
        "contracts": len(spec.active("contracts")),
        "decided decisions": sum(1 for d in spec.active("decisions") if d.status == "decided"),
        "phases": len(task.active("phases")),
        "pending external writes": sum(
            1 for w in task.active("external writes") if w.status == "pending"
        ),
        "approvals": len(task.active("approvals")),
        "verifications": len(task.active("verified")),
        "open completion checks": sum(
            1 for c in task.active("completion checks") if c.status == "open"
        ),
        "retired items": sum(len(ledger.retired) for ledger in state.ledgers.values()),
    }


def _cut(text: str, max_chars: int, full_path: str, measure: Callable[[str], int]) -> str:
    """``text`` when it fits; else (``max_chars`` too small for any sentence) its head and
    a marker that keeps the path visible."""
    if measure(text) <= max_chars:
        return text
    marker = f"[rest only in {full_path}]\n"
    text = _prefix_within(text, max(0, max_chars - measure(marker)), measure) + marker
    while measure(text) > max_chars:  # not even the marker fits: its tail, then
        text = text[1:]
    return text


def _prefix_within(text: str, limit: int, measure: Callable[[str], int]) -> str:
    """The longest prefix of ``text`` within ``limit`` (a binary search over lengths)."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if measure(text[:middle]) <= limit:
            low = middle
        else:
            high = middle - 1
    return text[:low]
