"""The continuity decision (CONTRACT §7). There is no 'authorized' result."""

import re
from collections.abc import Mapping

from ..errors import EXIT_BLOCKED, EXIT_OK, EXIT_USAGE, RehydrateError
from ..ledgers import Ledger
from ..records import NamedTuple

REAUTHORIZATION_REQUIRED = "reauthorization_required"
BLOCKED_ON_RECONCILIATION = "blocked_on_reconciliation"
CONTINUITY_VALIDATION_FAILED = "continuity_validation_failed"

EXIT_CODES: Mapping[str, int] = {
    REAUTHORIZATION_REQUIRED: EXIT_OK,
    BLOCKED_ON_RECONCILIATION: EXIT_BLOCKED,
    CONTINUITY_VALIDATION_FAILED: EXIT_USAGE,
}


# What a verification result may echo: an ID, a field name, a ledger path. Anything else
# (a sentence, a secret, a line break) is not shown (CONTRACT §4).
_SHOWN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/#+-]{0,199}")
# Short enough and plain enough that no redaction rule can match it (every token rule
# needs more characters, every assignment an operator): no need to load the redactor.
_PLAIN = re.compile(r"[A-Za-z0-9._/-]{1,12}")


def shown(value: str | None) -> str | None:
    """``value`` when it looks like an identifier and holds no secret, else None."""
    if value is None or not _SHOWN.fullmatch(value):
        return None
    if _PLAIN.fullmatch(value):
        return value
    from ..redact import find_secrets

    return None if find_secrets(value) else value


class Reason(NamedTuple):
    """One finding: a stable code, and the item ID / field / ledger path it concerns."""

    code: str
    id: str | None = None
    field: str | None = None
    path: str | None = None

    def to_json(self) -> dict[str, str]:
        """The reason as JSON: identifiers only (one that is not an ID is left out)."""
        out = {"code": self.code}
        for key in ("id", "field", "path"):
            value = shown(getattr(self, key))
            if value is not None:
                out[key] = value
        return out


class Decision(NamedTuple):
    decision: str
    reasons: tuple[Reason, ...] = ()

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.decision]

    def to_json(self) -> dict[str, object]:
        return {"decision": self.decision, "reasons": [r.to_json() for r in self.reasons]}


def unknown_writes(task: Ledger) -> tuple[str, ...]:
    """IDs of external writes whose outcome is unknown (retired or not: fail closed)."""
    return tuple(w.id for w in task.section("external writes") if w.status == "unknown")


def decide(ledgers: Mapping[str, Ledger]) -> Decision:
    """Blocked while any external write is unknown; otherwise reauthorization is required."""
    blocked = unknown_writes(ledgers["task"])
    if blocked:
        return Decision(
            BLOCKED_ON_RECONCILIATION, tuple(Reason("unknown_side_effect", id=i) for i in blocked)
        )
    return Decision(REAUTHORIZATION_REQUIRED)


def invalid(error: RehydrateError) -> Decision:
    """The decision when a ledger cannot be read: never proceed on it."""
    return Decision(
        CONTINUITY_VALIDATION_FAILED,
        (Reason("ledger_invalid", id=shown(error.item_id), path=error.file),),
    )
