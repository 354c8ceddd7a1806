"""A merge commit's genuine conflicts, and the one resolution the guard accepts for each.

An item *conflicts* in a merge when a merge base holds it and two parents changed it to
different versions. The merge commit may then keep exactly one parent's version of the
row, and must record each other version as a new visible item: a *copy* of that version
under an ID no parent or base had, retired with ``Replaced by`` the kept ID, and a
*question* naming both IDs (``QUESTIONS``: an open decision in Spec.md, an ``unknown``
external write for a write whose outcome is now in doubt, an open obligation for any
other Task.md row). Task's single values (``SINGLE_VALUES``: the next action, the
objective) follow the same idea: a parent's changed value that the merge does not keep
is quoted in a new open obligation. Anything else — a third value, a version dropped, a
copy left in force, no question — is a refusal naming the item and
``rehydrate merge resolve``, which writes exactly the accepted shape. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from ..ledgers import Ledger, normalize, visible
from ..ledgers.model import record_content
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from .rules import Violation

if TYPE_CHECKING:
    from ..ledgers.model import Item

Key = tuple[str, tuple[tuple[str, str], ...]]  # a row's kind and its cells but the ID


class Question(NamedTuple):
    """Where a conflict's question goes: the section, its status, the cell naming both IDs."""

    section: str
    status: str
    column: str


DECISION_QUESTION = Question("decisions", "open", "question")
WRITE_QUESTION = Question("external writes", "unknown", "operation")
OBLIGATION_QUESTION = Question("obligations", "open", "obligation")

# ledger kind -> section of the conflicting item ('*': any other) -> its question
QUESTIONS: Mapping[str, Mapping[str, Question]] = {
    "spec": {"*": DECISION_QUESTION},
    "task": {"external writes": WRITE_QUESTION, "*": OBLIGATION_QUESTION},
    "failures": {},  # failure rows are immutable: two versions of one cannot both be legal
}


def question_for(kind: str, section: str) -> Question | None:
    table = QUESTIONS.get(kind, {})
    return table.get(section) or table.get("*")


def _next_action(ledger: Ledger) -> str:
    return normalize(ledger.next_action.text) if ledger.next_action else ""


def _objective(ledger: Ledger) -> str:
    return normalize(ledger.objective)


# Task's single values: name -> its value in a ledger (normalised, "" when absent)
SINGLE_VALUES: Mapping[str, Callable[[Ledger], str]] = {
    "next-action": _next_action,
    "objective": _objective,
}

# What a version's retirement is not: the codes a changed row's cells can give.
CONTENT_CODES = frozenset(
    {
        "immutable_cell_changed",
        "settled_write_changed",
        "status_moved_backwards",
        "status_move_not_allowed",
        "approval_reopened",
        "level_weakened",
        "level_rewritten",
        "decided_without_decision",
        "unknown_write_settled_without_evidence",
    }
)

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")


def names(text: str, item_id: str) -> bool:
    """Whether ``text`` names ``item_id`` as a word (trailing punctuation aside)."""
    return any(t == item_id or t.rstrip("._-") == item_id for t in _TOKEN.findall(text))


def fix_for(target: str) -> str:
    return (
        f"during the merge run `rehydrate merge resolve {target} --take ours` (or `--take "
        "theirs`): it keeps one version and records the other (docs/merging.md, "
        "'Resolving a conflict')"
    )


def _key(record: Item) -> Key:
    return record.kind, record_content(record)


class Outcome(NamedTuple):
    """One version of a conflicting item that the merge did not keep, and how it ended."""

    item_id: str
    other: int  # index of the parent whose version was not kept
    copy: str | None  # the retired copy of that version (when recorded)
    question: str | None
    problem: Violation | None  # None: accepted


class _Merge:
    """The merged ledger with its parents and bases, indexed once."""

    def __init__(self, merged: Ledger, parents: Sequence[Ledger], bases: Sequence[Ledger]):
        self.merged, self.parents = merged, parents
        self.base: dict[str, set[Key]] = {}
        for base in bases:
            for r in base.all_items():
                self.base.setdefault(r.id, set()).add(_key(r))
        self.rows = [{r.id: r for r in p.all_items()} for p in parents]
        known = set(self.base).union(*self.rows)
        self.section = {r.id: s for s, rs in merged.items.items() for r in rs}
        self.now = {r.id: r for r in merged.all_items()}
        self.fresh = [r for r in merged.all_items() if r.id not in known]
        self.retired = {r.id: r for r in merged.retired}

    def active_fresh(self, section: str, status: str) -> list[Item]:
        return [
            r
            for r in self.fresh
            if self.section[r.id] == section
            and r.cells().get("status") == status
            and r.id not in self.retired
        ]


def conflict_outcomes(
    merged: Ledger, parents: Sequence[Ledger], bases: Sequence[Ledger]
) -> list[Outcome]:
    """Every version of a conflicting item the merge did not keep, accepted or not."""
    m = _Merge(merged, parents, bases)
    out: list[Outcome] = []
    for item_id, record in m.now.items():
        if item_id not in m.base:
            continue
        changed = {
            i: _key(rows[item_id])
            for i, rows in enumerate(m.rows)
            if item_id in rows and _key(rows[item_id]) not in m.base[item_id]
        }
        if len(set(changed.values())) < 2:
            continue  # at most one version besides the base's: the guard's own rules judge
        mine = _key(record)
        if mine not in changed.values():
            out.extend(_third(m, item_id, i) for i in changed)
            continue
        out.extend(_recorded(m, item_id, i, v) for i, v in changed.items() if v != mine)
    return out


def _third(m: _Merge, item_id: str, other: int) -> Outcome:
    versions = " / ".join(
        describe(rows[item_id]) for rows in m.rows if item_id in rows
    )  # every parent's
    problem = _violation(
        m,
        "merge_third_value",
        item_id,
        f"the merge holds a version of {item_id} that no parent had "
        f"({describe(m.now[item_id])}; the parents: {versions})",
    )
    return Outcome(item_id, other, None, None, problem)


def _recorded(m: _Merge, item_id: str, other: int, version: Key) -> Outcome:
    """Parent ``other``'s version of ``item_id``: copied, retired and asked about?"""
    theirs = m.rows[other][item_id]
    what = (
        f"{item_id} was changed on both sides of the merge: this parent's version "
        f"({describe(theirs)})"
    )
    copies = [r for r in m.fresh if _key(r) == version]
    if not copies:
        return Outcome(
            item_id,
            other,
            None,
            None,
            _violation(m, "merge_side_dropped", item_id, f"{what} is neither kept nor recorded"),
        )
    retired = [
        r for r in copies if r.id in m.retired and normalize(m.retired[r.id].replaced_by) == item_id
    ]
    if not retired:
        return Outcome(
            item_id,
            other,
            copies[0].id,
            None,
            _violation(
                m,
                "merge_copy_not_retired",
                item_id,
                f"{what} is copied as {copies[0].id}, which is not retired with "
                f"Replaced by {item_id}",
            ),
        )
    copy = retired[0].id
    form = question_for(m.merged.kind, m.section[item_id])
    asked = [
        r
        for r in (m.active_fresh(form.section, form.status) if form else [])
        if names(r.cells().get(form.column, ""), item_id)  # type: ignore[union-attr]
        and names(r.cells().get(form.column, ""), copy)  # type: ignore[union-attr]
    ]
    if not asked:
        where = f"{form.status} {form.section} row" if form else "question"
        return Outcome(
            item_id,
            other,
            copy,
            None,
            _violation(
                m,
                "merge_question_missing",
                item_id,
                f"{what} is copied as {copy}, but no new {where} names {item_id} and {copy}",
            ),
        )
    return Outcome(item_id, other, copy, asked[0].id, None)


def _violation(m: _Merge, code: str, item_id: str, message: str) -> Violation:
    record = m.now.get(item_id)
    return Violation(
        code, m.merged.path, record.line if record else None, item_id, message, fix_for(item_id)
    )


def describe(record: Item) -> str:
    """One version of a row in a few words: its status and what that status sets."""
    cells: dict[str, str] = record.cells()
    status = cells.get("status", "")
    if record.kind == "decision" and status == "decided":
        source = f" ({short(cells['source'])})" if visible(cells.get("source", "")) else ""
        return f"decided {short(cells.get('decision', ''))}{source}"
    if record.kind == "external_write":
        evidence = cells.get("evidence", "")
        return status + (f" (evidence: {short(evidence)})" if visible(evidence) else "")
    if record.kind == "constraint":
        return cells.get("level", "")
    if status:
        return status
    return ", ".join(f"{k} {short(v)}" for k, v in record_content(record))


def short(text: str, limit: int = 80) -> str:
    """A cell's text for a message, cut at ``limit`` characters."""
    text = normalize(text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def single_value_findings(
    merged: Ledger,
    parents: Sequence[Ledger],
    bases: Sequence[Ledger] | Callable[[], Sequence[Ledger]],
) -> list[Violation]:
    """Task's next action and objective in a merge: no third value, no silent drop.
    ``bases`` may be a callable: read only when some parent's value is not the merge's."""
    if merged.kind != "task" or all(
        value(p) == value(merged) for p in parents for value in SINGLE_VALUES.values()
    ):
        return []
    bases = list(bases() if callable(bases) else bases)
    m = _Merge(merged, parents, bases)
    out: list[Violation] = []
    for name, value_of in SINGLE_VALUES.items():
        before = {value_of(b) for b in bases}
        changed = {i: value_of(p) for i, p in enumerate(parents) if value_of(p) not in before}
        now = value_of(merged)
        if len(set(changed.values())) > 1 and now not in changed.values():
            out.append(
                _single(merged, name, "merge_third_value", f"the merge's {name} is neither side's")
            )
            continue
        for value in dict.fromkeys(v for v in changed.values() if v and v != now):
            if not quoted(m, value):
                out.append(
                    _single(
                        merged,
                        name,
                        "merge_side_dropped",
                        f"one parent's {name} {short(value)!r} is neither kept nor recorded",
                    )
                )
    return out


def quoted(m: _Merge, value: str) -> bool:
    """Whether a new open obligation quotes ``value``."""
    return any(
        value in normalize(r.cells().get("obligation", ""))
        for r in m.active_fresh(OBLIGATION_QUESTION.section, OBLIGATION_QUESTION.status)
    )


def _single(merged: Ledger, name: str, code: str, message: str) -> Violation:
    line = merged.next_action.line if name == "next-action" and merged.next_action else None
    return Violation(code, merged.path, line, None, message, fix_for(name))
