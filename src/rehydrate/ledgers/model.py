"""Immutable records for every ledger item kind, and the table schemas that build them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

LEVEL_STRENGTH: Mapping[str, int] = {
    "MUST": 3, "MUST NOT": 3, "SHOULD": 2, "SHOULD NOT": 2, "MAY": 1,
}
LEVEL_POLARITY: Mapping[str, int] = {
    "MUST": 1, "SHOULD": 1, "MUST NOT": -1, "SHOULD NOT": -1, "MAY": 0,
}


@dataclass(frozen=True)
class Item:
    """One row of an item table. ``extra`` holds columns the schema does not name."""

    id: str
    line: int
    extra: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)

    kind: ClassVar[str] = "item"

    def cells(self) -> dict[str, str]:
        """Every cell by column name (canonical names, then extra columns lowercased)."""
        out = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("line", "extra")
        }
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class Constraint(Item):
    rule: str
    level: str
    source: str = ""
    kind: ClassVar[str] = "constraint"


@dataclass(frozen=True)
class Contract(Item):
    subject: str
    contract: str
    source: str = ""
    kind: ClassVar[str] = "contract"


@dataclass(frozen=True)
class Decision(Item):
    question: str
    status: str
    decision: str = ""
    owner: str = ""
    due: str = ""
    source: str = ""
    kind: ClassVar[str] = "decision"


@dataclass(frozen=True)
class Phase(Item):
    phase: str
    status: str
    kind: ClassVar[str] = "phase"


@dataclass(frozen=True)
class Obligation(Item):
    obligation: str
    status: str
    kind: ClassVar[str] = "obligation"


@dataclass(frozen=True)
class ExternalWrite(Item):
    operation: str
    status: str
    idempotency_key: str = ""
    evidence: str = ""
    kind: ClassVar[str] = "external_write"


@dataclass(frozen=True)
class Approval(Item):
    scope: str
    status: str
    kind: ClassVar[str] = "approval"


@dataclass(frozen=True)
class Verification(Item):
    check: str
    artifact: str
    blob: str
    report: str = ""
    kind: ClassVar[str] = "verification"


@dataclass(frozen=True)
class CompletionCheck(Item):
    check: str
    status: str
    kind: ClassVar[str] = "completion_check"


@dataclass(frozen=True)
class Failure(Item):
    tried: str
    failure: str
    workaround: str
    kind: ClassVar[str] = "failure"


@dataclass(frozen=True)
class Retired:
    """A row of ``## Retired``: takes the named item out of force; not an item itself."""

    id: str
    line: int
    reason: str
    date: str = ""
    replaced_by: str = ""
    extra: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)

    kind: ClassVar[str] = "retired"

    def cells(self) -> dict[str, str]:
        out = {"id": self.id, "reason": self.reason, "date": self.date,
               "replaced_by": self.replaced_by}
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class Column:
    name: str  # attribute name on the record
    header: str  # canonical header, lowercase
    required: bool


@dataclass(frozen=True)
class Schema:
    """How one section's table becomes records."""

    section: str  # canonical section name, lowercase
    record: type
    columns: tuple[Column, ...]
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # closed vocabularies
    ordered: bool = False  # row order is meaningful (phases)


def _cols(spec: str) -> tuple[Column, ...]:
    """'ID!, Rule!, Level!, Source' -> columns; '!' marks a required column."""
    out = []
    for raw in spec.split(","):
        header = raw.strip().rstrip("!").lower()
        out.append(Column(header.replace(" ", "_"), header, raw.strip().endswith("!")))
    return tuple(out)


CONSTRAINTS = Schema("constraints", Constraint, _cols("ID!, Rule!, Level!, Source"),
                     {"level": tuple(LEVEL_STRENGTH)})
CONTRACTS = Schema("contracts", Contract, _cols("ID!, Subject!, Contract!, Source"))
DECISIONS = Schema("decisions", Decision,
                   _cols("ID!, Question!, Status!, Decision, Owner, Due, Source"),
                   {"status": ("open", "decided")})
PHASES = Schema("phases", Phase, _cols("ID!, Phase!, Status!"),
                {"status": ("todo", "doing", "done")}, ordered=True)
OBLIGATIONS = Schema("obligations", Obligation, _cols("ID!, Obligation!, Status!"),
                     {"status": ("open", "done")})
WRITES = Schema("external writes", ExternalWrite,
                _cols("ID!, Operation!, Status!, Idempotency key, Evidence"),
                {"status": ("pending", "unknown", "confirmed", "not_applied")})
APPROVALS = Schema("approvals", Approval, _cols("ID!, Scope!, Status!"),
                   {"status": ("granted", "consumed", "expired", "revoked")})
VERIFIED = Schema("verified", Verification, _cols("ID!, Check!, Artifact!, Blob!, Report"))
CHECKS = Schema("completion checks", CompletionCheck, _cols("ID!, Check!, Status!"),
                {"status": ("open", "passed")})
FAILURES = Schema("failures", Failure, _cols("ID!, Tried!, Failure!, Workaround!"))
RETIRED = Schema("retired", Retired, _cols("ID!, Reason!, Date, Replaced by"))

KNOWN_COLUMNS = frozenset(
    c.header for s in (CONSTRAINTS, CONTRACTS, DECISIONS, PHASES, OBLIGATIONS, WRITES,
                       APPROVALS, VERIFIED, CHECKS, FAILURES, RETIRED) for c in s.columns
)


@dataclass(frozen=True)
class ProseSection:
    """A section kept verbatim: unknown sections, and prose around item tables."""

    title: str | None
    key: str | None  # canonical section name when the section is a known one
    line: int
    text: str


@dataclass(frozen=True)
class NextAction:
    text: str
    line: int


@dataclass(frozen=True)
class Ledger:
    """A parsed ledger of any kind. Item tuples are empty for kinds that lack them."""

    kind: str  # "spec" | "task" | "failures"
    path: str
    meta: Mapping[str, Any]
    prose: tuple[ProseSection, ...]
    items: Mapping[str, tuple[Any, ...]]  # canonical section -> records in file order
    retired: tuple[Retired, ...]
    next_action: NextAction | None = None

    def section(self, name: str) -> tuple[Any, ...]:
        return self.items.get(name, ())

    def all_items(self) -> Iterator[Item]:
        for records in self.items.values():
            yield from records

    @property
    def retired_ids(self) -> frozenset[str]:
        return frozenset(r.id for r in self.retired)

    def active(self, name: str) -> tuple[Any, ...]:
        gone = self.retired_ids
        return tuple(r for r in self.section(name) if r.id not in gone)

    @property
    def revision(self) -> int | None:
        value = self.meta.get("revision")
        return value if isinstance(value, int) else None

    @property
    def task_id(self) -> str:
        return str(self.meta.get("task", ""))

    @property
    def objective(self) -> str:
        return str(self.meta.get("objective", ""))

    def prose_of(self, name: str) -> str:
        """Verbatim prose of a section by canonical name ('rollback', ...)."""
        return "\n".join(p.text for p in self.prose if p.key == name)
