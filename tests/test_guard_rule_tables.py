"""Cases generated from the guard's rule tables: every allowed move once allowed and once
with a required cell missing, every other status pair refused with the right code, every
mutable cell, deletion code and retirement refusal, rows added in every status, and the
full level matrix. Adding an entry to ``guard.RULES`` adds its cases here;
``CONTRACT_MOVES`` and ``CONTRACT_RULES`` are the contract's own lists (CONTRACT §2),
kept apart so that deleting or changing a table entry cannot pass unnoticed. Each case
checks the whole refusal: code, line, item ID and what it says happened."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import pytest

from rehydrate.errors import LedgerParseError
from rehydrate.guard.rules import FIXES, RULES, Move, SectionRule, Violation, check_ledger
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
# CONTRACT §2 by hand, for what a move needs and may set and what else each section says:
# (kind, section) -> the SectionRule fields other than the moves' keys.
_EVIDENCE = Move(("evidence",), ("evidence",), "unknown_write_settled_without_evidence")
_SETTLED = "settled_write_changed"
CONTRACT_RULES: Mapping[tuple[str, str], dict[str, object]] = {
    ("spec", "constraints"): {"level": True},
    ("spec", "contracts"): {},
    ("spec", "decisions"): {
        "order": ("open", "decided"),
        "moves": {
            ("open", "decided"): Move(
                ("decision", "source"), ("decision", "source"), "decided_without_decision"
            )
        },
        "mutable": {"open": ("owner", "due")},
    },
    ("task", "phases"): {
        "order": ("todo", "doing", "done"),
        "moves": dict.fromkeys([("todo", "doing"), ("doing", "done"), ("todo", "done")], Move()),
    },
    ("task", "obligations"): {"order": ("open", "done"), "moves": {("open", "done"): Move()}},
    ("task", "external writes"): {
        "order": ("pending", "unknown", "confirmed"),
        "moves": {
            ("pending", "unknown"): Move(),
            ("pending", "confirmed"): Move(may_set=("evidence",)),
            ("pending", "not_applied"): Move(may_set=("evidence",)),
            ("unknown", "confirmed"): _EVIDENCE,
            ("unknown", "not_applied"): _EVIDENCE,
        },
        "refused": {("confirmed", "*"): _SETTLED, ("not_applied", "*"): _SETTLED},
        "immutable_code": {"confirmed": _SETTLED, "not_applied": _SETTLED},
        "deleted_code": {"unknown": "unknown_write_dropped"},
        "no_retire": {"unknown": "retired_unknown_write"},
    },
    ("task", "approvals"): {
        "order": ("granted", "consumed"),
        "moves": dict.fromkeys(
            [("granted", "consumed"), ("granted", "expired"), ("granted", "revoked")], Move()
        ),
        "refused": {("*", "granted"): "approval_reopened"},
    },
    ("task", "verified"): {},
    ("task", "completion checks"): {
        "order": ("open", "passed"),
        "moves": {("open", "passed"): Move()},
    },
    ("failures", "failures"): {},
}
# A row added directly in a status needs what every move into it needs (CONTRACT §2: a
# decision is decided only with Decision and Source): (kind, section, status) -> code.
CONTRACT_ADDED: Mapping[tuple[str, str, str], tuple[str, tuple[str, ...]]] = {
    ("spec", "decisions", "decided"): ("decided_without_decision", ("decision", "source")),
}
FILLED = "x1"


def _row(schema: Schema, status: str, fill: Mapping[str, str]) -> dict[str, str]:
    cells = {c.name: (FILLED if c.required else "") for c in schema.columns}
    cells["id"] = "X-1"
    if "status" in cells:
        cells["status"] = status
    if "level" in cells:
        cells["level"] = "MUST"
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


def _found(
    kind: str,
    schema: Schema,
    old: Mapping[str, str],
    new: Mapping[str, str] | None,
    *,
    retired: str = "",
    added: Mapping[str, str] | None = None,
) -> list[Violation]:
    before = parse_ledger(kind, f"{kind}.md", _text(kind, schema, old, 1).encode())
    if new is None:  # the row deleted
        text = _text(kind, schema, old, 2).replace(
            "| " + " | ".join(old[c.name] or " " for c in schema.columns) + " |\n", ""
        )
    else:
        text = _text(kind, schema, new, 2, retired)
    if added is not None:  # a second row, under the first
        row = "| " + " | ".join(added[c.name] or " " for c in schema.columns) + " |\n"
        text = text.replace(" |\n\n## ", " |\n" + row + "\n## ", 1)
        assert row in text
    after = parse_ledger(kind, f"{kind}.md", text.encode())
    return check_ledger(kind, before, after)


def _codes(
    kind: str,
    schema: Schema,
    old: Mapping[str, str],
    new: Mapping[str, str] | None,
    *,
    retired: str = "",
) -> list[str]:
    return sorted(v.code for v in _found(kind, schema, old, new, retired=retired))


def _said(found: list[Violation]) -> list[tuple[str, int | None, str | None, str]]:
    """What each refusal says: code, line, item ID and message (the fix is FIXES[code])."""
    assert all(v.fix == FIXES[v.code] and v.path.endswith(".md") for v in found)
    return sorted((v.code, v.line, v.item_id, v.message) for v in found)


# Where ``_text`` puts the row X-1 and its Retired row (a second row X-2 goes under X-1).
ROW_LINE = {"spec": 10, "task": 13, "failures": 10}
RETIRED_LINE = {"spec": 16, "task": 23, "failures": 16}


def test_the_row_lines_are_where_the_text_puts_them() -> None:
    for (kind, _), schema in SCHEMAS.items():
        retired = "| X-1 | gone | 2026-01-01 | |\n"
        lines = _text(kind, schema, _row(schema, "", {}), 1, retired).splitlines()
        assert lines[ROW_LINE[kind] - 1].startswith("| X-1 |")
        assert lines[RETIRED_LINE[kind] - 1] == retired.strip()


def _moves() -> Iterator[object]:
    for (kind, section), schema in SCHEMAS.items():
        for (a, b), move in RULES[kind][section].moves.items():
            yield pytest.param(kind, section, schema, a, b, move, id=f"{section}:{a}->{b}")


def test_the_tables_hold_exactly_the_contracts_moves() -> None:
    for (kind, section), moves in CONTRACT_MOVES.items():
        assert frozenset(RULES[kind][section].moves) == moves, section


def test_the_tables_hold_exactly_the_contracts_rules() -> None:
    assert {(k, s) for k, sections in RULES.items() for s in sections} == set(CONTRACT_RULES)
    for (kind, section), fields in CONTRACT_RULES.items():
        assert RULES[kind][section] == SectionRule(**fields), section  # type: ignore[arg-type]


def test_the_tables_name_only_their_sections_columns_statuses_and_codes() -> None:
    for (kind, section), schema in SCHEMAS.items():
        rule = RULES[kind][section]
        columns = {c.name for c in schema.columns}
        statuses = set(schema.values.get("status", ())) | {"*"}
        for move in rule.moves.values():
            assert set(move.requires) <= set(move.may_set) <= columns, section
            assert move.missing_code in FIXES
        assert all(set(cells) <= columns for cells in rule.mutable.values())
        pairs = [*rule.moves, *rule.refused]
        assert {s for pair in pairs for s in pair} | set(rule.order) <= statuses, section
        for by_status in (rule.mutable, rule.immutable_code, rule.deleted_code, rule.no_retire):
            assert set(by_status) <= statuses, section
        codes = [*rule.refused.values(), *rule.immutable_code.values()]
        assert set(codes + [*rule.deleted_code.values(), *rule.no_retire.values()]) <= set(FIXES)


@pytest.mark.parametrize(("kind", "section", "schema", "old", "new", "move"), list(_moves()))
def test_an_allowed_move_passes_with_its_cells(kind, section, schema, old, new, move) -> None:
    fill = {c: FILLED for c in move.requires}
    assert _found(kind, schema, _row(schema, old, {}), _row(schema, new, fill)) == []


@pytest.mark.parametrize(("kind", "section", "schema", "old", "new", "move"), list(_moves()))
def test_an_allowed_move_may_set_its_cells_and_no_other(
    kind, section, schema, old, new, move
) -> None:
    """Every cell the move may set is set at once; every other cell but the ID changes too."""
    before = _row(schema, old, {})
    after = {c: f"{c} now" for c in before if c != "id"} | {"id": "X-1", "status": new}
    rule = RULES[kind][section]
    free = set(move.may_set) | set(rule.mutable.get(old, ()))
    expected = [
        (
            rule.immutable_code.get(old, "immutable_cell_changed"),
            ROW_LINE[kind],
            "X-1",
            f"cell {c!r} changed: {before[c]!r} -> {after[c]!r}",
        )
        for c in after
        if c not in free and c not in ("id", "status")
    ]
    assert _said(_found(kind, schema, before, after)) == sorted(expected)


@pytest.mark.parametrize(
    ("kind", "section", "schema", "old", "new", "move"),
    [m for m in _moves() if m.values[5].requires],
)
def test_an_allowed_move_without_its_cells_is_refused(
    kind, section, schema, old, new, move
) -> None:
    found = _found(kind, schema, _row(schema, old, {}), _row(schema, new, {}))
    message = f"status moved {old} -> {new} with {', '.join(move.requires)} empty"
    assert _said(found) == [(move.missing_code, ROW_LINE[kind], "X-1", message)]
    for cell in move.requires:  # each required cell alone is missing
        fill = {c: FILLED for c in move.requires if c != cell}
        found = _found(kind, schema, _row(schema, old, {}), _row(schema, new, fill))
        message = f"status moved {old} -> {new} with {cell} empty"
        assert _said(found) == [(move.missing_code, ROW_LINE[kind], "X-1", message)]


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
    found = _found(kind, schema, _row(schema, old, fill), _row(schema, new, fill))
    code = _expected(kind, section, old, new)
    assert _said(found) == [(code, ROW_LINE[kind], "X-1", f"status moved {old} -> {new}")]


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
    assert _expected("task", "external writes", "unknown", "pending") == "status_moved_backwards"
    assert _expected("spec", "decisions", "decided", "open") == "status_moved_backwards"


def _mutable() -> Iterator[object]:
    for (kind, section), schema in SCHEMAS.items():
        rule = RULES[kind][section]
        for status in schema.values.get("status", ("",)):
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
    message = f"cell {column!r} changed: {old[column]!r} -> 'changed'"
    expected = [] if ok else [(code, ROW_LINE[kind], "X-1", message)]
    assert _said(_found(kind, schema, old, new)) == expected


def _statuses() -> Iterator[object]:
    for (kind, section), schema in SCHEMAS.items():
        rule = RULES[kind][section]
        for status in schema.values.get("status", ("",)):
            yield pytest.param(
                kind,
                section,
                schema,
                status,
                rule.deleted_code.get(status, "row_deleted"),
                rule.no_retire.get(status),
                id=f"{section}:{status}",
            )


def _in_every_status() -> Iterator[object]:
    for (kind, section), schema in SCHEMAS.items():
        for status in schema.values.get("status", ("",)):
            yield pytest.param(kind, section, schema, status, id=f"{section}:{status}")


@pytest.mark.parametrize(("kind", "section", "schema", "status"), list(_in_every_status()))
def test_every_changed_cell_is_judged(kind, section, schema, status) -> None:
    """All cells but the ID, the status and the level change at once: one refusal per cell
    that the status does not free, none for those it frees."""
    rule = RULES[kind][section]
    old = _row(schema, status, {"decision": FILLED, "source": FILLED, "evidence": FILLED})
    fixed = ("id", "status", "level")
    new = {c.name: old[c.name] if c.name in fixed else f"{c.name} now" for c in schema.columns}
    expected = [
        (
            rule.immutable_code.get(status, "immutable_cell_changed"),
            ROW_LINE[kind],
            "X-1",
            f"cell {c!r} changed: {old[c]!r} -> {new[c]!r}",
        )
        for c in new
        if c not in fixed and c not in rule.mutable.get(status, ())
    ]
    assert _said(_found(kind, schema, old, new)) == sorted(expected)


@pytest.mark.parametrize(
    ("kind", "section", "schema", "status", "deleted", "no_retire"), list(_statuses())
)
def test_deleting_and_retiring_in_every_status(
    kind, section, schema, status, deleted, no_retire
) -> None:
    fill = {"decision": FILLED, "source": FILLED, "evidence": FILLED}
    old = _row(schema, status, fill)
    where = f" (it was at line {ROW_LINE[kind]} of the old version)"
    assert _said(_found(kind, schema, old, None)) == [
        (deleted, None, "X-1", f"{section} row deleted{where}")
    ]
    retired = "| X-1 | no longer applies | 2026-01-01 | |\n"
    message = f"retiring a {status} {section} row settles it silently"
    assert _said(_found(kind, schema, old, old, retired=retired)) == (
        [(no_retire, RETIRED_LINE[kind], "X-1", message)] if no_retire else []
    )
    with pytest.raises(LedgerParseError) as info:  # the guard reports it as a refusal
        _codes(kind, schema, old, old, retired="| X-1 | | 2026-01-01 | |\n")
    assert info.value.code == "retire_without_reason"


def test_the_unknown_write_codes_are_where_the_contract_puts_them() -> None:
    rule = RULES["task"]["external writes"]
    assert rule.deleted_code == {"unknown": "unknown_write_dropped"}
    assert rule.no_retire == {"unknown": "retired_unknown_write"}


@pytest.mark.parametrize(("kind", "section", "schema", "status"), list(_in_every_status()))
def test_a_row_added_in_a_status_needs_what_every_move_into_it_needs(
    kind, section, schema, status
) -> None:
    old = _row(schema, next(iter(schema.values.get("status", ("",)))), {})
    bare = {**_row(schema, status, {}), "id": "X-2"}
    code, cells = CONTRACT_ADDED.get((kind, section, status), ("", ()))
    message = f"added as {status} with {', '.join(cells)} empty"
    expected = [(code, ROW_LINE[kind] + 1, "X-2", message)] if code else []
    assert _said(_found(kind, schema, old, old, added=bare)) == expected
    for cell in cells:  # each needed cell alone is missing
        row = {**bare, **{c: FILLED for c in cells if c != cell}}
        found = _found(kind, schema, old, old, added=row)
        message = f"added as {status} with {cell} empty"
        assert _said(found) == [(code, ROW_LINE[kind] + 1, "X-2", message)]
    filled = {**bare, **{c: FILLED for c in cells}}
    assert _found(kind, schema, old, old, added=filled) == []


def test_an_added_row_needs_only_what_every_move_into_its_status_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three moves into 'confirmed': a cell is needed only if all three need it (the one
    that does not need it sits first, second, then third); the code is the first one's."""
    need = Move(("evidence",), ("evidence",), "unknown_write_settled_without_evidence")
    also = Move(("evidence",), ("evidence",), "decided_without_decision")
    schema = SCHEMAS[("task", "external writes")]
    old = _row(schema, "pending", {})
    row = {**_row(schema, "confirmed", {}), "id": "X-2"}
    sources = [("pending", "confirmed"), ("unknown", "confirmed"), ("not_applied", "confirmed")]
    cases = [
        ([Move(), need, also], []),
        ([need, Move(), also], []),
        ([need, also, Move()], []),
        ([need, also, also], ["unknown_write_settled_without_evidence"]),
        ([also, need, need], ["decided_without_decision"]),
    ]
    for moves, expected in cases:
        rule = SectionRule(moves=dict(zip(sources, moves, strict=True)))
        monkeypatch.setitem(RULES["task"], "external writes", rule)  # type: ignore[index]
        found = _found("task", schema, old, old, added=row)
        assert [v.code for v in found] == expected, moves


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
    found = _found("spec", CONSTRAINTS, row, {**row, "level": new})
    want = LEVEL_MATRIX[old][new]
    line = ROW_LINE["spec"]
    assert _said(found) == ([(want, line, "X-1", f"level changed {old} -> {new}")] if want else [])
    # the cells after Level are still judged
    found = _found("spec", CONSTRAINTS, row, {**row, "level": new, "source": "elsewhere"})
    source = ("immutable_cell_changed", line, "X-1", "cell 'source' changed: '' -> 'elsewhere'")
    assert source in _said(found) and len(found) == (2 if want else 1)
