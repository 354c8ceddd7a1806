"""Cases generated from the guard's rule tables: every allowed move once allowed and once
with a required cell missing, every other status pair refused with the right code, every
mutable cell, deletion code and retirement refusal, and the full level matrix. Adding an
entry to ``guard.RULES`` adds its cases here; ``CONTRACT_MOVES`` is the contract's own
list (CONTRACT §2), kept apart so that deleting a table entry cannot pass unnoticed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest

from rehydrate.errors import LedgerParseError
from rehydrate.guard.rules import RULES, check_ledger
from rehydrate.ledgers import parse_ledger
from rehydrate.ledgers.model import (
    APPROVALS,
    CHECKS,
    CONSTRAINTS,
    DECISIONS,
    OBLIGATIONS,
    PHASES,
    WRITES,
    Schema,
)

SCHEMAS: Mapping[tuple[str, str], Schema] = {
    ("spec", "constraints"): CONSTRAINTS,
    ("spec", "decisions"): DECISIONS,
    ("task", "phases"): PHASES,
    ("task", "obligations"): OBLIGATIONS,
    ("task", "external writes"): WRITES,
    ("task", "approvals"): APPROVALS,
    ("task", "completion checks"): CHECKS,
}
# CONTRACT §2, written out by hand: the allowed status moves of each section.
CONTRACT_MOVES: Mapping[tuple[str, str], frozenset[tuple[str, str]]] = {
    ("spec", "decisions"): frozenset({("open", "decided")}),
    ("task", "phases"): frozenset({("todo", "doing"), ("doing", "done"), ("todo", "done")}),
    ("task", "obligations"): frozenset({("open", "done")}),
    ("task", "external writes"): frozenset(
        {
            ("pending", "unknown"),
            ("pending", "confirmed"),
            ("pending", "not_applied"),
            ("unknown", "confirmed"),
            ("unknown", "not_applied"),
        }
    ),
    ("task", "approvals"): frozenset(
        {("granted", "consumed"), ("granted", "expired"), ("granted", "revoked")}
    ),
    ("task", "completion checks"): frozenset({("open", "passed")}),
}
FILLED = "x1"


def _row(schema: Schema, status: str, fill: Mapping[str, str]) -> dict[str, str]:
    cells = {c.name: (FILLED if c.required else "") for c in schema.columns}
    cells["id"] = "X-1"
    if "status" in cells:
        cells["status"] = status
    cells.update(fill)
    return cells


def _text(
    kind: str, schema: Schema, cells: Mapping[str, str], revision: int, retired: str = ""
) -> str:
    headers = [c.header.capitalize() if c.header != "id" else "ID" for c in schema.columns]
    table = (
        "| "
        + " | ".join(headers)
        + " |\n"
        + "|---" * len(headers)
        + "|\n"
        + "| "
        + " | ".join(cells[c.name] or " " for c in schema.columns)
        + " |\n"
    )
    front = (
        f"---\nledger: task\ntask: T-1\nrevision: {revision}\nobjective: o\n---\n"
        if kind == "task"
        else f"---\nledger: {kind}\n---\n"
    )
    body = f"# L\n\n## {schema.section.title()}\n\n{table}\n"
    if kind == "task":
        body += "## Next action\n\nwrite the test\n\n"
    body += "## Retired\n\n| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n" + retired
    return front + body


def _codes(
    kind: str,
    schema: Schema,
    old: Mapping[str, str],
    new: Mapping[str, str] | None,
    *,
    retired: str = "",
) -> list[str]:
    before = parse_ledger(kind, f"{kind}.md", _text(kind, schema, old, 1).encode())
    if new is None:  # the row deleted
        text = _text(kind, schema, old, 2).replace(
            "| " + " | ".join(old[c.name] or " " for c in schema.columns) + " |\n", ""
        )
    else:
        text = _text(kind, schema, new, 2, retired)
    after = parse_ledger(kind, f"{kind}.md", text.encode())
    return sorted(v.code for v in check_ledger(kind, before, after))


def _moves() -> Iterator[object]:
    for (kind, section), schema in SCHEMAS.items():
        for (a, b), move in RULES[kind][section].moves.items():
            yield pytest.param(kind, schema, a, b, move, id=f"{section}:{a}->{b}")


def test_the_tables_hold_exactly_the_contracts_moves() -> None:
    for (kind, section), moves in CONTRACT_MOVES.items():
        assert frozenset(RULES[kind][section].moves) == moves, section


@pytest.mark.parametrize(("kind", "schema", "old", "new", "move"), list(_moves()))
def test_an_allowed_move_passes_with_its_cells(kind, schema, old, new, move) -> None:
    fill = {c: FILLED for c in move.requires}
    assert _codes(kind, schema, _row(schema, old, {}), _row(schema, new, fill)) == []


@pytest.mark.parametrize(
    ("kind", "schema", "old", "new", "move"), [m for m in _moves() if m.values[4].requires]
)
def test_an_allowed_move_without_its_cells_is_refused(kind, schema, old, new, move) -> None:
    assert _codes(kind, schema, _row(schema, old, {}), _row(schema, new, {})) == [move.missing_code]


def _expected(kind: str, section: str, old: str, new: str) -> str:
    """The contract's reading: an explicit refusal, else backwards, else not allowed."""
    rule = RULES[kind][section]
    for key in ((old, new), (old, "*"), ("*", new)):
        if key in rule.refused:
            return rule.refused[key]
    order = list(rule.order)
    if old in order and new in order and order.index(new) < order.index(old):
        return "status_moved_backwards"
    return "status_move_not_allowed"


def _other_moves() -> Iterator[object]:
    for (kind, section), schema in SCHEMAS.items():
        statuses = schema.values.get("status", ())
        for a in statuses:
            for b in statuses:
                if a != b and (a, b) not in CONTRACT_MOVES[(kind, section)]:
                    yield pytest.param(kind, section, schema, a, b, id=f"{section}:{a}->{b}")


@pytest.mark.parametrize(("kind", "section", "schema", "old", "new"), list(_other_moves()))
def test_every_other_move_is_refused(kind, section, schema, old, new) -> None:
    fill = {"decision": FILLED, "source": FILLED, "evidence": FILLED}
    codes = _codes(kind, schema, _row(schema, old, fill), _row(schema, new, fill))
    assert codes == [_expected(kind, section, old, new)]


def test_the_refusal_codes_are_the_contracts() -> None:
    """Spot checks of _expected against the contract's words, so the oracle is pinned."""
    assert _expected("task", "approvals", "consumed", "granted") == "approval_reopened"
    assert _expected("task", "external writes", "confirmed", "pending") == ("settled_write_changed")
    assert _expected("task", "external writes", "not_applied", "unknown") == (
        "settled_write_changed"
    )
    assert _expected("task", "phases", "done", "todo") == "status_moved_backwards"
    assert _expected("task", "phases", "doing", "todo") == "status_moved_backwards"
    assert _expected("task", "obligations", "done", "open") == "status_moved_backwards"
    assert _expected("task", "completion checks", "passed", "open") == "status_moved_backwards"
    assert _expected("task", "approvals", "expired", "revoked") == "status_move_not_allowed"


def _mutable() -> Iterator[object]:
    for (kind, section), schema in SCHEMAS.items():
        rule = RULES[kind][section]
        for status in schema.values.get("status", ()):
            free = rule.mutable.get(status, ())
            for column in schema.columns:
                if column.name in ("id", "status", "level"):
                    continue
                ok = column.name in free
                yield pytest.param(
                    kind,
                    schema,
                    status,
                    column.name,
                    ok,
                    rule.immutable_code.get(status, "immutable_cell_changed"),
                    id=f"{section}:{status}:{column.name}",
                )


@pytest.mark.parametrize(("kind", "schema", "status", "column", "ok", "code"), list(_mutable()))
def test_cells_change_only_where_the_table_allows(kind, schema, status, column, ok, code) -> None:
    fill = {"decision": FILLED, "source": FILLED, "evidence": FILLED}
    old = _row(schema, status, fill)
    new = {**old, column: "changed"}
    assert _codes(kind, schema, old, new) == ([] if ok else [code])


def _statuses() -> Iterator[object]:
    for (kind, section), schema in SCHEMAS.items():
        rule = RULES[kind][section]
        for status in schema.values.get("status", ()):
            yield pytest.param(
                kind,
                schema,
                status,
                rule.deleted_code.get(status, "row_deleted"),
                rule.no_retire.get(status),
                id=f"{section}:{status}",
            )


@pytest.mark.parametrize(("kind", "schema", "status", "deleted", "no_retire"), list(_statuses()))
def test_deleting_and_retiring_in_every_status(kind, schema, status, deleted, no_retire) -> None:
    fill = {"decision": FILLED, "source": FILLED, "evidence": FILLED}
    old = _row(schema, status, fill)
    assert _codes(kind, schema, old, None) == [deleted]
    retired = "| X-1 | no longer applies | 2026-01-01 | |\n"
    assert _codes(kind, schema, old, old, retired=retired) == ([no_retire] if no_retire else [])
    with pytest.raises(LedgerParseError) as info:  # the guard reports it as a refusal
        _codes(kind, schema, old, old, retired="| X-1 | | 2026-01-01 | |\n")
    assert info.value.code == "retire_without_reason"


def test_the_unknown_write_codes_are_where_the_contract_puts_them() -> None:
    rule = RULES["task"]["external writes"]
    assert rule.deleted_code == {"unknown": "unknown_write_dropped"}
    assert rule.no_retire == {"unknown": "retired_unknown_write"}


LEVELS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
# old level -> new level -> expected code ('' allowed), from CONTRACT §2 by hand
LEVEL_MATRIX = {
    "MUST": {
        "MUST NOT": "level_rewritten",
        "SHOULD": "level_weakened",
        "SHOULD NOT": "level_rewritten",
        "MAY": "level_weakened",
    },
    "MUST NOT": {
        "MUST": "level_rewritten",
        "SHOULD": "level_rewritten",
        "SHOULD NOT": "level_weakened",
        "MAY": "level_weakened",
    },
    "SHOULD": {
        "MUST": "",
        "MUST NOT": "level_rewritten",
        "SHOULD NOT": "level_rewritten",
        "MAY": "level_weakened",
    },
    "SHOULD NOT": {
        "MUST": "level_rewritten",
        "MUST NOT": "",
        "SHOULD": "level_rewritten",
        "MAY": "level_weakened",
    },
    "MAY": {"MUST": "", "MUST NOT": "", "SHOULD": "", "SHOULD NOT": ""},
}


@pytest.mark.parametrize(
    ("old", "new"),
    [(a, b) for a in LEVELS for b in LEVELS if a != b],
    ids=lambda v: v.replace(" ", "_"),
)
def test_the_level_matrix(old: str, new: str) -> None:
    row = _row(CONSTRAINTS, "", {"level": old})
    codes = _codes("spec", CONSTRAINTS, row, {**row, "level": new})
    want = LEVEL_MATRIX[old][new]
    assert codes == ([want] if want else [])
