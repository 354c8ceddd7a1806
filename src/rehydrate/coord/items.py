"""Which Task items can be claimed: phases and obligations, open and not retired (pure)."""

from __future__ import annotations

from ..errors import RehydrateError
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..ledgers.model import Ledger, Phase

OPEN_PHASE = ("todo", "doing")
OPEN_OBLIGATION = ("open",)


def claimable(task: Ledger, item_id: str, *, path: str) -> None:
    """Raise unless ``item_id`` is an open phase or obligation of ``task``."""
    from ..ledgers.model import Obligation, Phase  # loaded already: ``task`` was parsed

    retired = task.retired_ids
    for section, open_states in (("phases", OPEN_PHASE), ("obligations", OPEN_OBLIGATION)):
        for item in task.section(section):
            if item.id != item_id or not isinstance(item, Phase | Obligation):
                continue
            if item_id in retired:
                why = "is retired"
            elif item.status not in open_states:
                why = f"is {item.status}, not open ({' or '.join(open_states)})"
            else:
                return
            raise RehydrateError(
                f"{section[:-1]} {why}",
                file=path,
                line=item.line,
                item_id=item_id,
                code="item_not_open",
                fix="claim an open phase or obligation (`rehydrate status` lists them)",
            )
    raise RehydrateError(
        "no such phase or obligation in the Task ledger",
        file=path,
        item_id=item_id,
        code="unknown_item",
        fix="claim a phase (P...) or an obligation (O...) the Task ledger has; "
        "`rehydrate state --worktree` lists them",
    )


def has_item(task: Ledger, item_id: str) -> bool:
    """Whether ``task`` has a phase or obligation ``item_id`` (any status)."""
    return any(
        item.id == item_id
        for section in ("phases", "obligations")
        for item in task.section(section)
    )


def open_phases(task: Ledger) -> tuple[Phase, ...]:
    """The phases not done and not retired, in the ledger's order."""
    return tuple(p for p in task.active("phases") if p.status in OPEN_PHASE)
