"""Property: the guard accepts exactly the monotone changes (no git).

Random small Spec ledgers and random edit sequences, drawn from allowed and
disallowed operations, are applied to an abstract model; an oracle written
against the model (CONTRACT §2's table, not the guard's code) says whether the
net change is monotone, and the guard must agree on the rendered text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from rehydrate.guard.rules import check_ledger
from rehydrate.ledgers import parse_ledger

LEVELS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
# CONTRACT §2: only stricter within one polarity; MAY -> anything.
STRICTER = {("SHOULD", "MUST"), ("SHOULD NOT", "MUST NOT")} | {("MAY", lv) for lv in LEVELS}
WORDS = ("cache", "deploy", "lint", "tests", "main", "schema", "retry", "tokens")


@dataclass(frozen=True)
class Constraint:
    id: str
    rule: str
    level: str


@dataclass(frozen=True)
class Decision:
    id: str
    question: str
    status: str = "open"
    decision: str = ""
    owner: str = ""
    source: str = ""


@dataclass
class Model:
    constraints: list[Constraint] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    retired: dict[str, str] = field(default_factory=dict)
    prose: str = "What this task must respect."
    counter: int = 0

    def copy(self) -> Model:
        return Model(
            list(self.constraints),
            list(self.decisions),
            dict(self.retired),
            self.prose,
            self.counter,
        )

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter:03d}"


def render(model: Model) -> bytes:
    lines = [
        "---",
        "ledger: spec",
        "---",
        "# Spec",
        "",
        model.prose,
        "",
        "## Constraints",
        "",
        "| ID | Rule | Level | Source |",
        "|---|---|---|---|",
    ]
    lines += [f"| {c.id} | {c.rule} | {c.level} | team |" for c in model.constraints]
    lines += [
        "",
        "## Decisions",
        "",
        "| ID | Question | Status | Decision | Owner | Source |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {d.id} | {d.question} | {d.status} | {d.decision} | {d.owner} | {d.source} |"
        for d in model.decisions
    ]
    lines += ["", "## Retired", "", "| ID | Reason | Date | Replaced by |", "|---|---|---|---|"]
    lines += [f"| {i} | {reason} | 2026-01-01 | |" for i, reason in model.retired.items()]
    return ("\n".join(lines) + "\n").encode()


def monotone(old: Model, new: Model) -> bool:
    """The oracle: CONTRACT §2 for constraints, decisions and retirements, on the model."""
    now_c = {c.id: c for c in new.constraints}
    for c in old.constraints:
        after = now_c.get(c.id)
        if after is None or after.rule != c.rule:
            return False
        if after.level != c.level and (c.level, after.level) not in STRICTER:
            return False
    now_d = {d.id: d for d in new.decisions}
    for d in old.decisions:
        after = now_d.get(d.id)
        if after is None or after.question != d.question:
            return False
        if d.status == "decided" and after != d:
            return False
        if (
            d.status == "open"
            and after.status == "open"
            and (after.decision, after.source) != (d.decision, d.source)
        ):
            return False
        if (
            d.status == "open"
            and after.status == "decided"
            and not (after.decision and after.source)
        ):
            return False
    before = {d.id for d in old.decisions}
    if any(
        d.status == "decided" and not (d.decision and d.source)
        for d in new.decisions
        if d.id not in before
    ):
        return False  # added as decided: the same Decision and Source as the move needs
    return all(new.retired.get(i) == reason for i, reason in old.retired.items())


def _pick(rng: random.Random, items: list) -> int | None:
    return rng.randrange(len(items)) if items else None


def allowed_op(model: Model, rng: random.Random) -> None:
    choice = rng.randrange(7)
    i = _pick(rng, model.constraints)
    j = _pick(rng, model.decisions)
    if choice == 0 or i is None:
        model.constraints.append(
            Constraint(model.fresh("C"), rng.choice(WORDS), rng.choice(LEVELS))
        )
    elif choice == 1:
        c = model.constraints[i]
        ups = [b for a, b in STRICTER if a == c.level]
        if ups:
            model.constraints[i] = replace(c, level=rng.choice(ups))
    elif choice == 2 and model.constraints[i].id not in model.retired:
        model.retired[model.constraints[i].id] = "no longer applies"
    elif choice == 3:
        rng.shuffle(model.constraints)
    elif choice == 4 or j is None:
        model.decisions.append(
            Decision(model.fresh("D"), rng.choice(WORDS) + "?", owner=rng.choice(("ann", "bo")))
        )
    elif choice == 5 and model.decisions[j].status == "open":
        model.decisions[j] = replace(
            model.decisions[j], status="decided", decision=rng.choice(WORDS), source="adr"
        )
    elif choice == 6 and model.decisions[j].status == "open":
        model.decisions[j] = replace(model.decisions[j], owner=rng.choice(("cy", "di")))
    else:
        model.prose += " More."


def disallowed_op(model: Model, rng: random.Random) -> None:
    choice = rng.randrange(7)
    i = _pick(rng, model.constraints)
    j = _pick(rng, model.decisions)
    if choice == 0 and i is not None:
        gone = model.constraints.pop(i)
        model.retired.pop(gone.id, None)  # else the Retired row would dangle
    elif choice == 1 and i is not None:
        model.constraints[i] = replace(
            model.constraints[i], rule=model.constraints[i].rule + " now"
        )
    elif choice == 2 and i is not None:
        c = model.constraints[i]
        downs = [lv for lv in LEVELS if lv != c.level and (c.level, lv) not in STRICTER]
        if downs:
            model.constraints[i] = replace(c, level=rng.choice(downs))
    elif choice == 3 and model.retired:
        model.retired.pop(rng.choice(sorted(model.retired)))
    elif choice == 4 and j is not None and model.decisions[j].status == "decided":
        model.decisions[j] = replace(model.decisions[j], status="open")
    elif choice == 5 and j is not None and model.decisions[j].status == "open":
        model.decisions[j] = replace(model.decisions[j], status="decided")
    elif choice == 6 and j is not None:
        model.decisions[j] = replace(model.decisions[j], question=model.decisions[j].question + "!")
    elif j is not None:
        model.decisions.pop(j)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    setup=st.integers(0, 8),
    plan=st.lists(st.booleans(), min_size=1, max_size=4),
)
def test_guard_accepts_exactly_the_monotone_changes(
    seed: int, setup: int, plan: list[bool]
) -> None:
    rng = random.Random(seed)
    old = Model()
    for _ in range(setup):
        allowed_op(old, rng)
    new = old.copy()
    for allowed in plan:
        (allowed_op if allowed else disallowed_op)(new, rng)
    before = parse_ledger("spec", "docs/Spec.md", render(old))
    after = parse_ledger("spec", "docs/Spec.md", render(new))
    violations = check_ledger("spec", before, after)
    assert (violations == []) == monotone(old, new), [str(v) for v in violations]


@dataclass
class Failures:
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)
    retired: dict[str, str] = field(default_factory=dict)
    counter: int = 0

    def copy(self) -> Failures:
        return Failures(list(self.rows), dict(self.retired), self.counter)


def render_failures(model: Failures) -> bytes:
    lines = [
        "---",
        "ledger: failures",
        "---",
        "# Failed attempts",
        "",
        "| ID | Tried | Failure | Workaround |",
        "|---|---|---|---|",
    ]
    lines += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |" for r in model.rows]
    lines += ["", "## Retired", "", "| ID | Reason | Date | Replaced by |", "|---|---|---|---|"]
    lines += [f"| {i} | {why} | 2026-01-01 | |" for i, why in model.retired.items()]
    return ("\n".join(lines) + "\n").encode()


def failure_op(model: Failures, rng: random.Random, allowed: bool) -> None:
    i = _pick(rng, model.rows)
    choice = rng.randrange(3)
    if allowed or i is None:
        if choice == 0 or i is None:
            model.counter += 1
            row = (f"F-{model.counter:03d}", rng.choice(WORDS), rng.choice(WORDS), "other way")
            model.rows.insert(rng.randrange(len(model.rows) + 1), row)
        elif choice == 1:
            rng.shuffle(model.rows)
        elif model.rows[i][0] not in model.retired:
            model.retired[model.rows[i][0]] = "obsolete"
    elif choice == 0:
        gone = model.rows.pop(i)
        model.retired.pop(gone[0], None)
    elif choice == 1:
        row = list(model.rows[i])
        col = rng.randrange(1, 4)
        row[col] = row[col].replace("e", "\u0435", 1) if "e" in row[col] else row[col] + "!"
        model.rows[i] = (row[0], row[1], row[2], row[3])
    elif model.retired:
        model.retired.pop(rng.choice(sorted(model.retired)))


def failures_monotone(old: Failures, new: Failures) -> bool:
    now = {r[0]: r for r in new.rows}
    return all(now.get(r[0]) == r for r in old.rows) and all(
        new.retired.get(i) == why for i, why in old.retired.items()
    )


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    setup=st.integers(0, 8),
    plan=st.lists(st.booleans(), min_size=1, max_size=4),
)
def test_failure_ledger_fast_path_and_full_parse_agree_with_the_oracle(
    seed: int, setup: int, plan: list[bool]
) -> None:
    from rehydrate.config import Config
    from rehydrate.guard.fastpath import table_edit

    rng = random.Random(seed)
    old = Failures()
    for _ in range(setup):
        failure_op(old, rng, True)
    new = old.copy()
    for allowed in plan:
        failure_op(new, rng, allowed)
    before, after = render_failures(old), render_failures(new)
    full = check_ledger(
        "failures",
        parse_ledger("failures", "f.md", before),
        parse_ledger("failures", "f.md", after),
    )
    assert (full == []) == failures_monotone(old, new), [str(v) for v in full]
    fast = table_edit(before, after, Config(), "f.md")
    if fast is not None:
        assert sorted((v.code, v.item_id) for v in fast) == sorted(
            (v.code, v.item_id) for v in full
        )
