"""Immutable records for every ledger item kind, and the table schemas that build them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Literal, overload

from ..records import NamedTuple
from ._table import normalize

LEVEL_STRENGTH: Mapping[str, int] = {
    "MUST": 3,
    "MUST NOT": 3,
    "SHOULD": 2,
    "SHOULD NOT": 2,
    "MAY": 1,
}
LEVEL_POLARITY: Mapping[str, int] = {
    "MUST": 1,
    "SHOULD": 1,
    "MUST NOT": -1,
    "SHOULD NOT": -1,
    "MAY": 0,
}


def _cells(record: Record) -> dict[str, str]:
    """Every cell by column name (canonical names, then extra columns lowercased)."""
    out: dict[str, str] = record._asdict()
    del out["line"]  # an int: the cells are every other field but ``extra``
    del out["extra"]
    if record.extra:  # rare: most tables have only the schema's columns
        out.update(record.extra)
    return out


# Records are NamedTuples: immutable, cheap to build by position (the parser does, for
# 100,000 rows), and about ten times cheaper to define than dataclasses at import time.
# Field order is (id, line, *the schema's columns after ID, extra).


class Constraint(NamedTuple):
    id: str
    line: int
    rule: str
    level: str
    source: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "constraint"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class Contract(NamedTuple):
    id: str
    line: int
    subject: str
    contract: str
    source: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "contract"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class Decision(NamedTuple):
    id: str
    line: int
    question: str
    status: str
    decision: str = ""
    owner: str = ""
    due: str = ""
    source: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "decision"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class Phase(NamedTuple):
    id: str
    line: int
    phase: str
    status: str
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "phase"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class Obligation(NamedTuple):
    id: str
    line: int
    obligation: str
    status: str
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "obligation"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class ExternalWrite(NamedTuple):
    id: str
    line: int
    operation: str
    status: str
    idempotency_key: str = ""
    evidence: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "external_write"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class Approval(NamedTuple):
    id: str
    line: int
    scope: str
    status: str
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "approval"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class Verification(NamedTuple):
    id: str
    line: int
    check: str
    artifact: str
    blob: str
    report: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "verification"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class CompletionCheck(NamedTuple):
    id: str
    line: int
    check: str
    status: str
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "completion_check"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class Failure(NamedTuple):
    id: str
    line: int
    tried: str
    failure: str
    workaround: str
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "failure"

    def cells(self) -> dict[str, str]:
        return _cells(self)


class Retired(NamedTuple):
    """A row of ``## Retired``: takes the named item out of force; not an item itself."""

    id: str
    line: int
    reason: str
    date: str = ""
    replaced_by: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> str:
        return "retired"

    def cells(self) -> dict[str, str]:
        return _cells(self)


Item = (
    Constraint
    | Contract
    | Decision
    | Phase
    | Obligation
    | ExternalWrite
    | Approval
    | Verification
    | CompletionCheck
    | Failure
)
Record = Item | Retired  # every row a ledger table parses into


# The records with a Status column: the ones a status move or an open count reads.
Statused = Decision | Phase | Obligation | ExternalWrite | Approval | CompletionCheck
STATUSED = (Decision, Phase, Obligation, ExternalWrite, Approval, CompletionCheck)


class Column(NamedTuple):
    name: str  # attribute name on the record
    header: str  # canonical header, lowercase
    required: bool


class Schema(NamedTuple):
    """How one section's table becomes records."""

    section: str  # canonical section name, lowercase
    record: type[Record]
    columns: tuple[Column, ...]
    values: Mapping[str, tuple[str, ...]] = {}  # closed vocabularies (never mutated)
    ordered: bool = False  # row order is meaningful (phases)


def _cols(spec: str) -> tuple[Column, ...]:
    """'ID!, Rule!, Level!, Source' -> columns; '!' marks a required column."""
    out = []
    for raw in spec.split(","):
        header = raw.strip().rstrip("!").lower()
        out.append(Column(header.replace(" ", "_"), header, raw.strip().endswith("!")))
    return tuple(out)


CONSTRAINTS = Schema(
    "constraints", Constraint, _cols("ID!, Rule!, Level!, Source"), {"level": tuple(LEVEL_STRENGTH)}
)
CONTRACTS = Schema("contracts", Contract, _cols("ID!, Subject!, Contract!, Source"))
DECISIONS = Schema(
    "decisions",
    Decision,
    _cols("ID!, Question!, Status!, Decision, Owner, Due, Source"),
    {"status": ("open", "decided")},
)
PHASES = Schema(
    "phases",
    Phase,
    _cols("ID!, Phase!, Status!"),
    {"status": ("todo", "doing", "done")},
    ordered=True,
)
OBLIGATIONS = Schema(
    "obligations", Obligation, _cols("ID!, Obligation!, Status!"), {"status": ("open", "done")}
)
WRITES = Schema(
    "external writes",
    ExternalWrite,
    _cols("ID!, Operation!, Status!, Idempotency key, Evidence"),
    {"status": ("pending", "unknown", "confirmed", "not_applied")},
)
APPROVALS = Schema(
    "approvals",
    Approval,
    _cols("ID!, Scope!, Status!"),
    {"status": ("granted", "consumed", "expired", "revoked")},
)
VERIFIED = Schema("verified", Verification, _cols("ID!, Check!, Artifact!, Blob!, Report"))
CHECKS = Schema(
    "completion checks",
    CompletionCheck,
    _cols("ID!, Check!, Status!"),
    {"status": ("open", "passed")},
)
FAILURES = Schema("failures", Failure, _cols("ID!, Tried!, Failure!, Workaround!"))
RETIRED = Schema("retired", Retired, _cols("ID!, Reason!, Date, Replaced by"))

# Every table schema of the three ledgers, in the order the writers list them.
ALL_SCHEMAS = (
    CONSTRAINTS,
    CONTRACTS,
    DECISIONS,
    PHASES,
    OBLIGATIONS,
    WRITES,
    APPROVALS,
    VERIFIED,
    CHECKS,
    FAILURES,
    RETIRED,
)
KNOWN_COLUMNS = frozenset(c.header for s in ALL_SCHEMAS for c in s.columns)


class ProseSection(NamedTuple):
    """A section kept verbatim: unknown sections, and prose around item tables."""

    title: str | None
    key: str | None  # canonical section name when the section is a known one
    line: int
    text: str


class NextAction(NamedTuple):
    text: str
    line: int


class Ledger(NamedTuple):
    """A parsed ledger of any kind. Item tuples are empty for kinds that lack them."""

    kind: str  # "spec" | "task" | "failures"
    path: str
    meta: Mapping[str, object]
    prose: tuple[ProseSection, ...]
    items: Mapping[str, tuple[Item, ...]]  # canonical section -> records in file order
    retired: tuple[Retired, ...]
    next_action: NextAction | None = None
    # canonical section -> its rows exactly as a pipe table of its records in the
    # schema's column order would render them, when the file holds them that way
    plain_rows: Mapping[str, str] = MappingProxyType({})
    # Task.md: a digest of its bytes but BOM and line endings ("" for other kinds), so
    # that any other change, comments and quoting included, needs a new revision
    digest: str = ""

    @overload
    def section(self, name: Literal["constraints"]) -> tuple[Constraint, ...]: ...
    @overload
    def section(self, name: Literal["contracts"]) -> tuple[Contract, ...]: ...
    @overload
    def section(self, name: Literal["decisions"]) -> tuple[Decision, ...]: ...
    @overload
    def section(self, name: Literal["phases"]) -> tuple[Phase, ...]: ...
    @overload
    def section(self, name: Literal["obligations"]) -> tuple[Obligation, ...]: ...
    @overload
    def section(self, name: Literal["external writes"]) -> tuple[ExternalWrite, ...]: ...
    @overload
    def section(self, name: Literal["approvals"]) -> tuple[Approval, ...]: ...
    @overload
    def section(self, name: Literal["verified"]) -> tuple[Verification, ...]: ...
    @overload
    def section(self, name: Literal["completion checks"]) -> tuple[CompletionCheck, ...]: ...
    @overload
    def section(self, name: Literal["failures"]) -> tuple[Failure, ...]: ...
    @overload
    def section(self, name: str) -> tuple[Item, ...]: ...
    def section(self, name: str) -> tuple[Item, ...]:
        """The records of section ``name`` (canonical), typed by the section when it is
        named literally."""
        return self.items.get(name, ())

    def all_items(self) -> Iterator[Item]:
        for records in self.items.values():
            yield from records

    @property
    def retired_ids(self) -> frozenset[str]:
        return frozenset(r.id for r in self.retired)

    @overload
    def active(self, name: Literal["constraints"]) -> tuple[Constraint, ...]: ...
    @overload
    def active(self, name: Literal["contracts"]) -> tuple[Contract, ...]: ...
    @overload
    def active(self, name: Literal["decisions"]) -> tuple[Decision, ...]: ...
    @overload
    def active(self, name: Literal["phases"]) -> tuple[Phase, ...]: ...
    @overload
    def active(self, name: Literal["obligations"]) -> tuple[Obligation, ...]: ...
    @overload
    def active(self, name: Literal["external writes"]) -> tuple[ExternalWrite, ...]: ...
    @overload
    def active(self, name: Literal["approvals"]) -> tuple[Approval, ...]: ...
    @overload
    def active(self, name: Literal["verified"]) -> tuple[Verification, ...]: ...
    @overload
    def active(self, name: Literal["completion checks"]) -> tuple[CompletionCheck, ...]: ...
    @overload
    def active(self, name: Literal["failures"]) -> tuple[Failure, ...]: ...
    @overload
    def active(self, name: str) -> tuple[Item, ...]: ...
    def active(self, name: str) -> tuple[Item, ...]:
        """``section`` without the retired records."""
        if not self.retired:
            return self.section(name)
        gone = self.retired_ids
        return tuple(r for r in self.section(name) if r.id not in gone)

    def active_with_status(self, name: str, status: str) -> tuple[Statused, ...]:
        """The active records of ``name`` whose Status is ``status`` (none in a section
        without a Status column)."""
        return tuple(r for r in self.active(name) if isinstance(r, STATUSED) and r.status == status)

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


def record_cells(record: Record) -> dict[str, str]:
    """A record's cells, each normalized as the guard compares them."""
    return {k: normalize(v) for k, v in record.cells().items()}


def record_content(record: Record) -> tuple[tuple[str, str], ...]:
    """A record's cells without its ID, comparable across IDs (a renumbered row)."""
    return tuple(sorted((k, v) for k, v in record_cells(record).items() if k != "id"))
