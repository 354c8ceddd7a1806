"""Monotone ledgers: rules over the semantic diff (pure), one table per ledger kind.

``check_ledger(kind, old, new)`` is the whole policy of CONTRACT §2/§3 for two
parsed states; writers call it before writing. ``guard_git`` applies it to git
states (``check_staged``, ``check_range``, ``check_pre_receive``) and
``appendonly`` holds the failure ledger's fast path (``table_edit``); their
names stay importable from here. Adding a rule is adding an entry to ``RULES``
(section moves, mutable cells, refusal codes) or to ``LEDGER_CHECKS``
(whole-ledger rules).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from ..diff import (
    ADDED,
    CHANGED,
    REMOVED,
    RETIRED,
    RETIREMENT_CHANGED,
    UNRETIRED,
    ItemChange,
    LedgerDiff,
    diff_ledger,
)
from ..ledgers import Ledger, visible
from ..ledgers.model import LEVEL_POLARITY, LEVEL_STRENGTH


@dataclass(frozen=True)
class Violation:
    """One refused change: where, which rule, what happened and how to do it properly."""

    code: str
    path: str
    line: int | None
    item_id: str | None
    message: str
    fix: str
    commit: str | None = field(default=None, kw_only=True)  # set by the range check

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        ident = f" {self.item_id}" if self.item_id else ""
        text = f"{where}: {self.code}{ident} \u2014 {self.message}; {self.fix}"
        if self.commit:
            text += f" (commit {self.commit[:12]})"
        return text

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "path": self.path,
            "line": self.line,
            "id": self.item_id,
            "message": self.message,
            "fix": self.fix,
            "commit": self.commit,
        }


RETIRE = "retire it under ## Retired with a reason; the row stays where it is"
SUPERSEDE = "add a new row with a new ID and retire the old one with `Replaced by`"
RESOLVE = (
    "during the merge, `rehydrate merge resolve ID --take ours` (or `--take theirs`) writes "
    "that (docs/merging.md, 'Resolving a conflict')"
)

# code -> how to do it properly (every code the guard can give has an entry)
FIXES: Mapping[str, str] = {
    "config_changed": "ledger paths and header/section aliases are part of the ledgers: revert "
    "the change in the settings file. To really move or re-alias ledgers, "
    "commit it alone with a 'Rehydrate-Waiver: <reason>' trailer for the CI "
    "range check (the local hook never honours a waiver)",
    "row_deleted": f"put the row back; to take it out of force, {RETIRE}",
    "immutable_cell_changed": f"restore the cell; to change it, {SUPERSEDE}",
    "level_weakened": f"restore the level; a level may only get stricter. To relax a rule, "
    f"{SUPERSEDE}",
    "level_rewritten": "MUST <-> MUST NOT (SHOULD <-> SHOULD NOT) is a rewrite, not a "
    f"strengthening: restore the level and {SUPERSEDE}",
    "status_moved_backwards": "status only moves forward; record the new situation as a new "
    "row instead",
    "status_move_not_allowed": "use one of the allowed moves (`rehydrate guard --help`, the "
    "ledger format's tables); record anything "
    "else as a new row",
    "decided_without_decision": "fill in both Decision and Source when moving to decided",
    "approval_reopened": "a consumed, expired or revoked approval is never reusable: add a new "
    "approval row when a person grants it again",
    "unknown_write_dropped": "an unknown external write blocks until reconciled: restore the "
    "row and settle it (confirmed / not_applied) with Evidence",
    "unknown_write_settled_without_evidence": "fill in Evidence (what you read that shows the "
    "outcome) in the same change",
    "settled_write_changed": "a settled external write is immutable: record a new write row",
    "retired_unknown_write": "reconcile first: settle the write (confirmed / not_applied) with "
    "Evidence, then retire it if needed",
    "id_reused": "IDs are never reused: give the new row the next free ID",
    "revision_not_increased": "raise `revision` in the front matter above the previous value "
    "(writers add 1)",
    "revision_step_too_large": "raise `revision` by the number of writes since the compared "
    "version (writers add 1 each), at most MAX_REVISION_STEP; a jump to a huge value would "
    "leave no room for later writes",
    "next_action_not_single": "write one concrete action on one line; record follow-ups as "
    "phases or obligations",
    "ledger_deleted": "restore the ledger file; ledgers are never deleted (to take items out "
    "of force, retire them with a reason)",
    "ledger_renamed": "move the ledger back (or configure its path before it is created)",
    "ledger_unparseable": "fix the ledger so that `rehydrate state --staged` reads it",
    "ledger_not_regular_file": "commit the ledger as a regular file (not a symlink or submodule)",
    "retire_without_reason": "give the retirement a non-empty Reason",
    "phase_reordered": "phases keep their order: put the rows back in order",
    "unretired": "a retirement is permanent: restore the Retired row, and add a new item if "
    "it applies again",
    "replace_ref_refused": "push commits, not replacements: delete the replace ref locally "
    "(git replace -d) and push without it",
    "reserved_ref_refused": "push branches and tags only: refs/rehydrate/* is written by the "
    "server's guard (claims go under refs/rehydrate/claims/, by `rehydrate claim`)",
    "claim_ref_refused": "take claims with `rehydrate claim ID` (a lease commit for an open "
    "phase or obligation the default branch's Task ledger has)",
    "protected_branch_deleted": "keep the branch; to retire it, ask the repository's "
    "administrator (the protected branches are the default "
    "branch and git config rehydrate.protectedBranch)",
    "merge_third_value": "a merge keeps exactly one parent's version of a conflicting item: "
    f"{RESOLVE}",
    "merge_side_dropped": f"a merge records the version it does not keep: {RESOLVE}",
    "merge_copy_not_retired": "retire the copy of the version not kept, with `Replaced by` the "
    f"kept ID: {RESOLVE}",
    "merge_question_missing": "add the open question that names the conflicting ID and the "
    f"copy's: {RESOLVE}",
    "old_tip_missing": "fetch the old tip before the check (`git fetch origin <old tip>`; with "
    "actions/checkout, `fetch-depth: 0` and the reusable action, which fetches it). If the "
    "host no longer serves it and the rewrite is intended, push the new tip with a "
    "'Rehydrate-Waiver: <reason>' trailer in its commit message",
    "history_missing": "fetch the full history (`git fetch --unshallow`, or `fetch-depth: 0` "
    "in actions/checkout) and run the check again",
}


@dataclass(frozen=True)
class Move:
    """An allowed status move: cells it requires filled, and cells it may set."""

    requires: tuple[str, ...] = ()
    may_set: tuple[str, ...] = ()
    missing_code: str = "status_move_not_allowed"


@dataclass(frozen=True)
class SectionRule:
    """What may change in an existing row of one section (everything else is immutable)."""

    order: tuple[str, ...] = ()  # status order, to tell 'backwards' from 'not allowed'
    moves: Mapping[tuple[str, str], Move] = field(default_factory=dict)
    mutable: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # status -> cells
    refused: Mapping[tuple[str, str], str] = field(default_factory=dict)  # ('*' wildcard)
    immutable_code: Mapping[str, str] = field(default_factory=dict)  # status -> code
    deleted_code: Mapping[str, str] = field(default_factory=dict)  # status -> code
    no_retire: Mapping[str, str] = field(default_factory=dict)  # status -> code
    level: bool = False  # the Level column follows LEVEL_STRENGTH / LEVEL_POLARITY


_IMMUTABLE = SectionRule()
_SETTLED = "settled_write_changed"

RULES: Mapping[str, Mapping[str, SectionRule]] = {
    "spec": {
        "constraints": SectionRule(level=True),
        "contracts": _IMMUTABLE,
        "decisions": SectionRule(
            order=("open", "decided"),
            moves={
                ("open", "decided"): Move(
                    requires=("decision", "source"),
                    may_set=("decision", "source"),
                    missing_code="decided_without_decision",
                )
            },
            mutable={"open": ("owner", "due")},
        ),
    },
    "task": {
        "phases": SectionRule(
            order=("todo", "doing", "done"),
            moves={("todo", "doing"): Move(), ("doing", "done"): Move(), ("todo", "done"): Move()},
        ),
        "obligations": SectionRule(order=("open", "done"), moves={("open", "done"): Move()}),
        "external writes": SectionRule(
            order=("pending", "unknown", "confirmed"),
            moves={
                ("pending", "unknown"): Move(),
                ("pending", "confirmed"): Move(may_set=("evidence",)),
                ("pending", "not_applied"): Move(may_set=("evidence",)),
                ("unknown", "confirmed"): Move(
                    requires=("evidence",),
                    may_set=("evidence",),
                    missing_code="unknown_write_settled_without_evidence",
                ),
                ("unknown", "not_applied"): Move(
                    requires=("evidence",),
                    may_set=("evidence",),
                    missing_code="unknown_write_settled_without_evidence",
                ),
            },
            refused={("confirmed", "*"): _SETTLED, ("not_applied", "*"): _SETTLED},
            immutable_code={"confirmed": _SETTLED, "not_applied": _SETTLED},
            deleted_code={"unknown": "unknown_write_dropped"},
            no_retire={"unknown": "retired_unknown_write"},
        ),
        "approvals": SectionRule(
            order=("granted", "consumed"),
            moves={
                ("granted", "consumed"): Move(),
                ("granted", "expired"): Move(),
                ("granted", "revoked"): Move(),
            },
            refused={("*", "granted"): "approval_reopened"},
        ),
        "verified": _IMMUTABLE,
        "completion checks": SectionRule(
            order=("open", "passed"), moves={("open", "passed"): Move()}
        ),
    },
    "failures": {"failures": _IMMUTABLE},
}


def _v(code: str, ledger: Ledger, line: int | None, item_id: str | None, message: str) -> Violation:
    return Violation(code, ledger.path, line, item_id, message, FIXES[code])


def level_code(old: str, new: str) -> str | None:
    """None when ``old`` -> ``new`` is allowed: stricter within one polarity, or from MAY."""
    if old == new or old == "MAY":
        return None
    if LEVEL_POLARITY[old] != LEVEL_POLARITY[new] and new != "MAY":
        return "level_rewritten"
    if LEVEL_STRENGTH[new] > LEVEL_STRENGTH[old]:
        return None
    return "level_weakened"


def _first_difference(old: str, new: str) -> str:
    """Name the first differing character when it is not plain ASCII (look-alikes)."""
    for pos, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            if a.isascii() and b.isascii():
                return ""
            return f" (character {pos + 1}: U+{ord(a):04X} -> U+{ord(b):04X})"
    return ""


def _status_code(rule: SectionRule, old: str, new: str) -> str:
    for key in ((old, new), (old, "*"), ("*", new)):
        if key in rule.refused:
            return rule.refused[key]
    rank = {s: i for i, s in enumerate(rule.order)}
    if new in rank and old in rank and rank[new] < rank[old]:
        return "status_moved_backwards"
    return "status_move_not_allowed"


def _changed(rule: SectionRule, change: ItemChange, ledger: Ledger) -> Iterator[Violation]:
    line, item = change.line, change.item_id
    old_status = change.old.cells().get("status", "")
    allowed = set(rule.mutable.get(old_status, ()))
    status = change.moved("status")
    if status:
        move = rule.moves.get(status)
        if move is None:
            code = _status_code(rule, *status)
            yield _v(code, ledger, line, item, f"status moved {status[0]} -> {status[1]}")
        else:
            allowed.update(move.may_set)
            missing = [c for c in move.requires if not visible(change.new.cells().get(c, ""))]
            if missing:
                yield _v(
                    move.missing_code,
                    ledger,
                    line,
                    item,
                    f"status moved {status[0]} -> {status[1]} with "
                    + ", ".join(missing)
                    + " empty",
                )
    for cell in change.cells:
        if cell.column == "status":
            continue
        if cell.column == "level" and rule.level:
            weakened = level_code(cell.old, cell.new)
            if weakened:
                yield _v(weakened, ledger, line, item, f"level changed {cell.old} -> {cell.new}")
            continue
        if cell.column in allowed:
            continue
        code = rule.immutable_code.get(old_status, "immutable_cell_changed")
        what = (
            "row moved from section "
            if cell.column == "section"
            else f"cell {cell.column!r} changed: "
        )
        yield _v(
            code,
            ledger,
            line,
            item,
            f"{what}{cell.old!r} -> {cell.new!r}{_first_difference(cell.old, cell.new)}",
        )


def _added_in_status(rule: SectionRule, change: ItemChange, ledger: Ledger) -> Iterator[Violation]:
    """A row added directly in a status needs what every move into that status needs
    (a new decision written as ``decided`` still needs Decision and Source)."""
    status = change.new.cells().get("status", "")
    into = [move for (_, to), move in rule.moves.items() if to == status]
    if not into:
        return
    needed = set(into[0].requires).intersection(*(m.requires for m in into[1:]))
    missing = [
        c for c in into[0].requires if c in needed and not visible(change.new.cells().get(c, ""))
    ]
    if missing:
        code = next(m.missing_code for m in into if m.requires)
        yield _v(
            code,
            ledger,
            change.line,
            change.item_id,
            f"added as {status} with " + ", ".join(missing) + " empty",
        )


def _item_violations(
    change: ItemChange, rules: Mapping[str, SectionRule], ledger: Ledger, reserved: frozenset[str]
) -> Iterator[Violation]:
    rule = rules.get(change.section, _IMMUTABLE)
    if change.kind == ADDED:
        if change.item_id in reserved:
            yield _v(
                "id_reused",
                ledger,
                change.line,
                change.item_id,
                "this ID was used before (and deleted); it cannot come back",
            )
        yield from _added_in_status(rule, change, ledger)
    elif change.kind == REMOVED:
        status = change.old.cells().get("status", "")
        code = rule.deleted_code.get(status, "row_deleted")
        yield Violation(  # a deleted row's line is its line in the old version
            code,
            ledger.path,
            None,
            change.item_id,
            f"{change.section} row deleted (it was at line {change.line} of the old version)",
            FIXES[code],
        )
    elif change.kind == CHANGED:
        yield from _changed(rule, change, ledger)
    elif change.kind == RETIRED:
        item = next((r for r in ledger.section(change.section) if r.id == change.item_id), None)
        status = item.cells().get("status", "") if item is not None else ""
        if status in rule.no_retire:
            yield _v(
                rule.no_retire[status],
                ledger,
                change.line,
                change.item_id,
                f"retiring a {status} {change.section} row settles it silently",
            )
    elif change.kind == RETIREMENT_CHANGED:
        cols = ", ".join(c.column for c in change.cells)
        yield _v(
            "immutable_cell_changed",
            ledger,
            change.line,
            change.item_id,
            f"the Retired row changed ({cols})",
        )
    elif change.kind == UNRETIRED:
        yield _v(
            "unretired",
            ledger,
            change.line,
            change.item_id,
            "the Retired row was removed, which puts the item back in force",
        )


# The most a Task revision may rise between two compared versions (a commit and its
# parent, a merge and each parent, a rewritten tip and the old one). Writers add 1 per
# write; no real history writes this often between two commits, and 18 digits then last
# 10**14 steps, so one accepted commit can never freeze the ledger at the top.
MAX_REVISION_STEP = 10_000


def _task_revision(diff: LedgerDiff, old: Ledger | None, new: Ledger) -> Iterator[Violation]:
    before = old.revision if old is not None else 0
    after = new.revision
    if before is not None and after is not None and after - before > MAX_REVISION_STEP:
        yield Violation(
            "revision_step_too_large",
            new.path,
            1,
            None,
            f"revision jumped from {before} to {after}, more than {MAX_REVISION_STEP} in one "
            "change" + (" (a new Task.md starts at most there)" if old is None else ""),
            FIXES["revision_step_too_large"].replace("MAX_REVISION_STEP", str(MAX_REVISION_STEP)),
        )
        return
    if old is None:
        return
    # Any byte but BOM/line endings (items, prose, next action, front matter) changes the
    # digest, so it alone says whether anything but those changed.
    others = old.digest != new.digest
    if before is None or after is None:
        return
    if after < before:
        yield _v(
            "revision_not_increased", new, 1, None, f"revision decreased from {before} to {after}"
        )
    elif others and after == before:
        yield _v(
            "revision_not_increased",
            new,
            1,
            None,
            f"Task.md changed but revision stayed at {after}",
        )


def _phase_order(diff: LedgerDiff, old: Ledger | None, new: Ledger) -> Iterator[Violation]:
    for name in diff.reordered:  # reordered: at least two rows kept, so rows[0] exists
        yield _v(
            "phase_reordered",
            new,
            new.section(name)[0].line,
            None,
            f"the rows of {name} changed their order",
        )


# Rules the parser already enforces on every state have no check here: a second action
# in the Next action (next_action_not_single) and an empty retirement Reason
# (retire_without_reason) are parse errors, which guard.staged reports under their codes.
LedgerCheck = Callable[[LedgerDiff, "Ledger | None", Ledger], Iterator[Violation]]
LEDGER_CHECKS: Mapping[str, tuple[LedgerCheck, ...]] = {
    "spec": (),
    "task": (_task_revision, _phase_order),
    "failures": (),
}


def check_ledger(
    kind: str, old: Ledger | None, new: Ledger, *, reserved_ids: frozenset[str] = frozenset()
) -> list[Violation]:
    """Every rule of CONTRACT §2/§3 for ``old`` -> ``new`` (old None: the ledger is created)."""
    diff = diff_ledger(old, new)
    return check_diff(kind, diff, old, new, reserved_ids=reserved_ids)


def check_diff(
    kind: str,
    diff: LedgerDiff,
    old: Ledger | None,
    new: Ledger,
    *,
    reserved_ids: frozenset[str] = frozenset(),
) -> list[Violation]:
    """The rules over an already computed diff (see ``check_ledger``)."""
    rules = RULES[kind]
    out: list[Violation] = []
    for change in diff.items:
        out.extend(_item_violations(change, rules, new, reserved_ids))
    for check in LEDGER_CHECKS[kind]:
        out.extend(check(diff, old, new))
    return out
