"""Monotone ledgers: rules over the semantic diff (pure), one table per ledger kind.

``check_ledger(kind, old, new)`` is the whole policy of CONTRACT §2/§3 for two
parsed states; writers call it before writing. The second half of this module
applies it to git states: ``check_staged`` (the pre-commit hook),
``check_range`` (CI) and ``check_pre_receive`` (a server hook). Adding a rule is
adding an entry to ``RULES`` (section moves, mutable cells, refusal codes) or to
``LEDGER_CHECKS`` (whole-ledger rules).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .diff import (
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
from .ledgers import Ledger
from .ledgers.model import LEVEL_POLARITY, LEVEL_STRENGTH


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

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "path": self.path, "line": self.line, "id": self.item_id,
                "message": self.message, "fix": self.fix, "commit": self.commit}


RETIRE = "retire it under ## Retired with a reason; the row stays where it is"
SUPERSEDE = "add a new row with a new ID and retire the old one with `Replaced by`"

# code -> how to do it properly (every code the guard can give has an entry)
FIXES: Mapping[str, str] = {
    "row_deleted": f"put the row back; to take it out of force, {RETIRE}",
    "immutable_cell_changed": f"restore the cell; to change it, {SUPERSEDE}",
    "level_weakened": f"restore the level; a level may only get stricter. To relax a rule, "
                      f"{SUPERSEDE}",
    "level_rewritten": "MUST <-> MUST NOT (SHOULD <-> SHOULD NOT) is a rewrite, not a "
                       f"strengthening: restore the level and {SUPERSEDE}",
    "status_moved_backwards": "status only moves forward; record the new situation as a new "
                              "row instead",
    "status_move_not_allowed": "use one of the allowed moves (docs/guard.md); record anything "
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
            moves={("open", "decided"): Move(requires=("decision", "source"),
                                             may_set=("decision", "source"),
                                             missing_code="decided_without_decision")},
            mutable={"open": ("owner", "due")},
        ),
    },
    "task": {
        "phases": SectionRule(
            order=("todo", "doing", "done"),
            moves={("todo", "doing"): Move(), ("doing", "done"): Move(),
                   ("todo", "done"): Move()},
        ),
        "obligations": SectionRule(order=("open", "done"), moves={("open", "done"): Move()}),
        "external writes": SectionRule(
            order=("pending", "unknown", "confirmed"),
            moves={
                ("pending", "unknown"): Move(),
                ("pending", "confirmed"): Move(may_set=("evidence",)),
                ("pending", "not_applied"): Move(may_set=("evidence",)),
                ("unknown", "confirmed"): Move(
                    requires=("evidence",), may_set=("evidence",),
                    missing_code="unknown_write_settled_without_evidence"),
                ("unknown", "not_applied"): Move(
                    requires=("evidence",), may_set=("evidence",),
                    missing_code="unknown_write_settled_without_evidence"),
            },
            refused={("confirmed", "*"): _SETTLED, ("not_applied", "*"): _SETTLED},
            immutable_code={"confirmed": _SETTLED, "not_applied": _SETTLED},
            deleted_code={"unknown": "unknown_write_dropped"},
            no_retire={"unknown": "retired_unknown_write"},
        ),
        "approvals": SectionRule(
            order=("granted", "consumed"),
            moves={("granted", "consumed"): Move(), ("granted", "expired"): Move(),
                   ("granted", "revoked"): Move()},
            refused={("*", "granted"): "approval_reopened"},
        ),
        "verified": _IMMUTABLE,
        "completion checks": SectionRule(order=("open", "passed"),
                                         moves={("open", "passed"): Move()}),
    },
    "failures": {"failures": _IMMUTABLE},
}


def _v(code: str, ledger: Ledger, line: int | None, item_id: str | None, message: str
       ) -> Violation:
    return Violation(code, ledger.path, line, item_id, message, FIXES[code])


def _level_code(old: str, new: str) -> str | None:
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
            missing = [c for c in move.requires if not change.new.cells().get(c, "").strip()]
            if missing:
                yield _v(move.missing_code, ledger, line, item,
                         f"status moved {status[0]} -> {status[1]} with "
                         + ", ".join(missing) + " empty")
    for cell in change.cells:
        if cell.column == "status":
            continue
        if cell.column == "level" and rule.level:
            code = _level_code(cell.old, cell.new)
            if code:
                yield _v(code, ledger, line, item, f"level changed {cell.old} -> {cell.new}")
            continue
        if cell.column in allowed:
            continue
        code = rule.immutable_code.get(old_status, "immutable_cell_changed")
        what = ("row moved from section " if cell.column == "section"
                else f"cell {cell.column!r} changed: ")
        yield _v(code, ledger, line, item,
                 f"{what}{cell.old!r} -> {cell.new!r}{_first_difference(cell.old, cell.new)}")


def _item_violations(change: ItemChange, rules: Mapping[str, SectionRule], ledger: Ledger,
                     old: Ledger | None, reserved: frozenset[str]) -> Iterator[Violation]:
    rule = rules.get(change.section, _IMMUTABLE)
    if change.kind == ADDED:
        if change.item_id in reserved:
            yield _v("id_reused", ledger, change.line, change.item_id,
                     "this ID was used before (and deleted); it cannot come back")
    elif change.kind == REMOVED:
        status = change.old.cells().get("status", "")
        code = rule.deleted_code.get(status, "row_deleted")
        where = f" (it was at line {change.line} of the old version)" if change.line else ""
        yield Violation(code, ledger.path, None, change.item_id,
                        f"{change.section} row deleted{where}", FIXES[code])
    elif change.kind == CHANGED:
        yield from _changed(rule, change, ledger)
    elif change.kind == RETIRED:
        if not change.reason.strip():
            yield _v("retire_without_reason", ledger, change.line, change.item_id,
                     "retired without a reason")
        item = next((r for r in ledger.section(change.section) if r.id == change.item_id), None)
        status = item.cells().get("status", "") if item is not None else ""
        if status in rule.no_retire:
            yield _v(rule.no_retire[status], ledger, change.line, change.item_id,
                     f"retiring a {status} {change.section} row settles it silently")
    elif change.kind == RETIREMENT_CHANGED:
        cols = ", ".join(c.column for c in change.cells)
        yield _v("immutable_cell_changed", ledger, change.line, change.item_id,
                 f"the Retired row changed ({cols})")
    elif change.kind == UNRETIRED:
        yield _v("unretired", ledger, change.line, change.item_id,
                 "the Retired row was removed, which puts the item back in force")


def _task_revision(diff: LedgerDiff, old: Ledger | None, new: Ledger) -> Iterator[Violation]:
    if old is None:
        return
    before, after = old.revision, new.revision
    others = (diff.items or diff.reordered or diff.prose or diff.next_action
              or any(m.column != "revision" for m in diff.meta))
    if before is None or after is None:
        return
    if after < before:
        yield _v("revision_not_increased", new, 1, None,
                 f"revision decreased from {before} to {after}")
    elif others and after == before:
        yield _v("revision_not_increased", new, 1, None,
                 f"Task.md changed but revision stayed at {after}")


def _next_action(diff: LedgerDiff, old: Ledger | None, new: Ledger) -> Iterator[Violation]:
    from .ledgers.task import next_action_problem

    if new.next_action is not None:
        problem = next_action_problem(new.next_action.text)
        if problem:
            yield _v("next_action_not_single", new, new.next_action.line, None, problem)


def _phase_order(diff: LedgerDiff, old: Ledger | None, new: Ledger) -> Iterator[Violation]:
    for name in diff.reordered:
        rows = new.section(name)
        yield _v("phase_reordered", new, rows[0].line if rows else None, None,
                 f"the rows of {name} changed their order")


LedgerCheck = Callable[[LedgerDiff, "Ledger | None", Ledger], Iterator[Violation]]
LEDGER_CHECKS: Mapping[str, tuple[LedgerCheck, ...]] = {
    "spec": (),
    "task": (_task_revision, _next_action, _phase_order),
    "failures": (),
}


def check_ledger(kind: str, old: Ledger | None, new: Ledger, *,
                 reserved_ids: frozenset[str] = frozenset()) -> list[Violation]:
    """Every rule of CONTRACT §2/§3 for ``old`` -> ``new`` (old None: the ledger is created)."""
    diff = diff_ledger(old, new)
    return check_diff(kind, diff, old, new, reserved_ids=reserved_ids)


def check_diff(kind: str, diff: LedgerDiff, old: Ledger | None, new: Ledger, *,
               reserved_ids: frozenset[str] = frozenset()) -> list[Violation]:
    """The rules over an already computed diff (see ``check_ledger``)."""
    rules = RULES[kind]
    out: list[Violation] = []
    for change in diff.items:
        out.extend(_item_violations(change, rules, new, old, reserved_ids))
    for check in LEDGER_CHECKS[kind]:
        out.extend(check(diff, old, new))
    return out


# --- The guard over git states: staged index, commit ranges, pre-receive --------------------

_PARSE_CODES = frozenset({"retire_without_reason", "next_action_not_single"})
_ZERO = frozenset({"0" * 40, "0" * 64})


@dataclass(frozen=True)
class Waived:
    """A commit whose violations a ``Rehydrate-Waiver:`` trailer turned into a report."""

    commit: str
    reason: str
    violations: tuple[Violation, ...]

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "reason": self.reason,
                "violations": [v.to_json() for v in self.violations]}


@dataclass(frozen=True)
class GuardReport:
    """What a guard run found: refusals, waived commits, and what it looked at."""

    mode: str  # staged | range | pre-receive
    violations: tuple[Violation, ...] = ()
    waived: tuple[Waived, ...] = ()
    ledgers: tuple[str, ...] = ()  # ledger paths compared
    commits: int = 0  # commits checked (range modes)

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "rehydrate/guard-v1",
            "ok": self.ok,
            "violations": [v.to_json() for v in self.violations],
            "waived": [w.to_json() for w in self.waived],
            "checked": {"mode": self.mode, "ledgers": list(self.ledgers),
                        "commits": self.commits},
        }


def parse_violation(error: Any, path: str) -> Violation:
    """A LedgerParseError as a refusal: its own code when the guard has that rule."""
    code = error.code if error.code in _PARSE_CODES else "ledger_unparseable"
    message = f"the new version cannot be parsed ({error.code}): {error.message}"
    return Violation(code, error.file or path, error.line, error.item_id, message,
                     error.fix or FIXES[code])


@dataclass
class _Parser:
    """Parses blobs once per run (a range sees the same blob in many commits)."""

    config: Any
    cache: dict[tuple[str, str], Any] = field(default_factory=dict)

    def parse(self, kind: str, path: str, blob: str, data: bytes) -> Any:
        """The Ledger, or the LedgerParseError it raised."""
        from .errors import LedgerParseError
        from .ledgers import parse_ledger

        key = (kind, blob)
        if key not in self.cache:
            try:
                self.cache[key] = parse_ledger(
                    kind, path, data, section_aliases=self.config.section_aliases,
                    column_aliases=self.config.column_aliases,
                    max_bytes=self.config.max_ledger_bytes)
            except LedgerParseError as exc:
                self.cache[key] = exc
        return self.cache[key]


def _regular(mode: str) -> bool:
    return mode in ("100644", "100755")


def check_change(kind: str, change: Any, data: Mapping[str, bytes], parser: _Parser, *,
                 reserved_ids: frozenset[str] = frozenset(),
                 renamed_to: Callable[[], str | None] | None = None,
                 trusted: frozenset[str] = frozenset(),
                 ) -> tuple[list[Violation], Ledger | None, Ledger | None]:
    """Rules for one raw change of one ledger path: (violations, old ledger, new ledger).

    An old state that is absent, not a regular file, or unparseable is compared as
    'no ledger yet' (the commit that broke it is refused by the range check). When the
    old failure ledger is ``trusted`` (it parsed before) and the change only inserts
    well-formed rows into its table, nothing is parsed and both ledgers come back None.
    """
    from .ledgers import Ledger as _Ledger

    path = change.path
    if change.status == "U":
        return [Violation("ledger_unparseable", path, None, None,
                          "the ledger is unmerged (a conflict) in the index",
                          "resolve the conflict and stage the result")], None, None
    if change.new_blob in _ZERO and change.new_mode == "000000":
        if change.old_mode == "000000":
            return [], None, None
        target = renamed_to() if renamed_to else None
        if target:
            return [Violation("ledger_renamed", path, None, None, f"ledger renamed to {target}",
                              FIXES["ledger_renamed"])], None, None
        return [Violation("ledger_deleted", path, None, None, "ledger file deleted",
                          FIXES["ledger_deleted"])], None, None
    if not _regular(change.new_mode):
        what = "a symlink" if change.new_mode == "120000" else f"mode {change.new_mode}"
        return [Violation("ledger_not_regular_file", path, None, None,
                          f"the ledger is committed as {what}, not a regular file",
                          FIXES["ledger_not_regular_file"])], None, None
    old_present = change.old_blob not in _ZERO and _regular(change.old_mode)
    new_data = data[change.new_blob]
    if kind == "failures" and old_present and change.old_blob in trusted:
        verdict = table_edit(data[change.old_blob], new_data, parser.config, path,
                             reserved_ids)
        if verdict is not None:
            return verdict, None, None
    old: Ledger | None = None
    if old_present:
        parsed = parser.parse(kind, path, change.old_blob, data[change.old_blob])
        old = parsed if isinstance(parsed, _Ledger) else None
    parsed = parser.parse(kind, path, change.new_blob, new_data)
    if not isinstance(parsed, _Ledger):
        return [parse_violation(parsed, path)], old, None
    return check_ledger(kind, old, parsed, reserved_ids=reserved_ids), old, parsed


def _excuse_merge(kind: str, found: list[Violation], change: Any, other_blobs: list[str],
                  data: Mapping[str, bytes], parser: _Parser) -> list[Violation]:
    """A merge commit against one parent: drop what the merge driver cannot avoid
    (renumbered rows, a double retirement; ``merge.excuse_merge``, docs/merging.md)."""
    from .merge import excuse_merge

    def state(blob: str) -> Ledger | None:
        if blob in _ZERO or blob not in data:
            return None
        got = parser.parse(kind, change.path, blob, data[blob])
        return got if isinstance(got, Ledger) else None

    parent, merged = state(change.old_blob), state(change.new_blob)
    others = [s for s in (state(b) for b in other_blobs) if s is not None]
    if parent is None or merged is None or not others:
        return found
    return excuse_merge(found, parent, merged, others)


_BOM = b"\xef\xbb\xbf"
_SIMPLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/#-]*$")
_TABLE_END = re.compile(rb"\n(?![ \t]*\|)")
_FENCE = re.compile(rb"^ {0,3}(?:```|~~~)")


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix of ``a`` and ``b`` (binary search over memcmp)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _failure_table(old: bytes, config: Any) -> tuple[bytes, int, int] | None:
    """(header line, offset of the first data row, offset just past the table) of the
    failure table, when the text before it is plain enough to find it without parsing."""
    from .ledgers._markdown import _HEADING2
    from .ledgers._table import normalize

    pos, size = 0, len(old)
    if old.startswith(b"---\n") or old.startswith(b"---\r\n"):
        close = re.search(rb"\n(?:---|\.\.\.)[ \t]*\r?\n", old)
        if close is None:
            return None
        pos = close.end()
    while pos < size and pos < 262144:
        end = old.find(b"\n", pos)
        end = size if end < 0 else end
        line = old[pos:end].rstrip(b"\r")
        if line.lstrip(b" \t").startswith(b"|"):
            header = line
            delim_end = old.find(b"\n", end + 1)
            if delim_end < 0:
                return None
            stop = _TABLE_END.search(old, delim_end)
            return header, delim_end + 1, (stop.start() + 1 if stop else size)
        if _FENCE.match(line):
            return None
        heading = _HEADING2.match(line.decode("utf-8", "replace"))
        if heading:
            name = normalize(heading.group(1) or "").lower()
            if config.section_aliases.get(name, name) == "retired":
                return None
        pos = end + 1
    return None


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the common suffix of ``a`` and ``b``, at most ``limit``."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:len(a) - lo] == b[len(b) - mid:len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _mentions(data: bytes, ids: Iterator[str] | list[str]) -> bool:
    """Whether any of ``ids`` appears as a whole table cell anywhere in ``data``."""
    wanted = [re.escape(i.encode()) for i in ids]
    if not wanted:
        return False
    pattern = re.compile(rb"\|[ \t]*(?:" + b"|".join(wanted) + rb")[ \t]*(?:\||\r?$)",
                         re.MULTILINE)
    return pattern.search(data) is not None


def table_edit(old: bytes, new: bytes, config: Any, path: str = "",
               reserved_ids: frozenset[str] = frozenset()) -> list[Violation] | None:
    """The guard's verdict on a failure ledger whose change stays inside its table, or
    None when that cannot be proven cheaply (then both versions are parsed in full).

    ``old`` must be known to parse. The changed lines (between the common line-aligned
    prefix and suffix) must all be rows of the failure table in both versions; only those
    rows are split and checked, by the same ``check_ledger`` rules. New rows need simple
    IDs mentioned nowhere in ``old``; a deleted ID must not be named elsewhere (e.g. in
    ``## Retired``). So an append to a 10,000-row ledger costs the appended rows.
    """
    from .errors import LedgerParseError
    from .ledgers._document import _FORBIDDEN
    from .ledgers.model import FAILURES, Ledger

    if len(new) > config.max_ledger_bytes or old.startswith(_BOM) or new.startswith(_BOM):
        return None
    start = old.rfind(b"\n", 0, _common_prefix(old, new)) + 1
    tail = _common_suffix(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    if not (old_end in (start, 0) or old[old_end - 1] == 10) or not (
            new_end in (start, 0) or new[new_end - 1] == 10):
        cut = old.find(b"\n", old_end)
        if cut < 0:
            return None
        old_end, new_end = cut + 1, new_end + cut + 1 - old_end
    if old_end < start or new_end < start:
        return None
    table = _failure_table(old, config)
    if table is None or not (table[1] <= start and old_end <= table[2]):
        return None
    from .ledgers._table import split_row

    try:
        header = [config.column_aliases.get(h.lower(), h.lower())
                  for h in split_row(table[0].decode("utf-8"), "", 0)]
        where = {name: header.index(name) for name in ("id", "tried", "failure", "workaround")}
        old_lines = old[start:old_end].decode("utf-8").split("\n")[:-1]
        new_lines = new[start:new_end].decode("utf-8").split("\n")[:-1]
    except (UnicodeDecodeError, ValueError, LedgerParseError):
        return None
    extra = [(pos, name) for pos, name in enumerate(header) if name not in where]

    def rows(lines: list[str], first: int) -> list[Any] | None:
        out = []
        for offset, raw in enumerate(lines):
            line = raw[:-1] if raw.endswith("\r") else raw
            if (not line.lstrip(" \t").startswith("|") or line.startswith("|||||||")
                    or _FORBIDDEN.search(line)):
                return None
            try:
                cells = split_row(line, "", 0)
            except LedgerParseError:
                return None
            if len(cells) != len(header) or not all(cells[i] for i in where.values()):
                return None
            out.append(FAILURES.record(
                cells[where["id"]], first + offset, cells[where["tried"]],
                cells[where["failure"]], cells[where["workaround"]],
                extra=tuple((name, cells[pos]) for pos, name in extra)))
        return out

    before = rows(old_lines, old.count(b"\n", 0, start) + 1)
    after = rows(new_lines, new.count(b"\n", 0, start) + 1)
    if before is None or after is None:
        return None
    old_ids = {r.id for r in before}
    new_ids = [r.id for r in after]
    added = [i for i in new_ids if i not in old_ids]
    removed = [i for i in old_ids if i not in set(new_ids)]
    if len(set(new_ids)) != len(new_ids) or any(
            not _SIMPLE_ID.match(i) or i in reserved_ids for i in added):
        return None
    if _mentions(old, added) or _mentions(old[:start] + old[old_end:], removed):
        return None

    def ledger(records: list[Any]) -> Ledger:
        return Ledger("failures", path, {}, (), {"failures": tuple(records)}, ())

    return check_ledger("failures", ledger(before), ledger(after))


def append_only(old: bytes, new: bytes, config: Any) -> bool:
    """True when ``table_edit`` accepts the change without parsing either version."""
    return table_edit(old, new, config) == []


def _sorted(violations: list[Violation]) -> tuple[Violation, ...]:
    return tuple(sorted(violations, key=lambda v: (v.path, v.line or 0, v.code, v.item_id or "",
                                                   v.message)))


def _trust_file(repo: Any) -> Any:
    return repo.common_dir / "rehydrate" / "guard-parsed"


def _trust_key(config: Any) -> str:
    import hashlib

    text = repr((sorted(config.column_aliases.items()), sorted(config.section_aliases.items()),
                 config.max_ledger_bytes))
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def _load_trusted(repo: Any, config: Any) -> frozenset[str]:
    """Failure-ledger blobs this repository's guard parsed successfully before."""
    key = _trust_key(config)
    try:
        text = _trust_file(repo).read_text(encoding="ascii", errors="replace")
    except OSError:
        return frozenset()
    return frozenset(parts[0] for parts in (line.split() for line in text.splitlines())
                     if len(parts) == 2 and parts[1] == key)


def _save_trusted(repo: Any, config: Any, blobs: set[str], known: frozenset[str]) -> None:
    """Remember parsed blobs (best effort: a cache miss only costs a full parse)."""
    fresh = sorted(blobs - known)
    if not fresh:
        return
    path = _trust_file(repo)
    key = _trust_key(config)
    try:
        path.parent.mkdir(exist_ok=True)
        if path.exists() and path.stat().st_size > 65536:
            lines = path.read_text(encoding="ascii", errors="replace").splitlines()
            path.write_text("\n".join(lines[len(lines) // 2:]) + "\n", encoding="ascii")
        with path.open("a", encoding="ascii") as handle:
            handle.write("".join(f"{blob} {key}\n" for blob in fresh))
    except OSError:
        pass


def check_staged(repo: Any, config: Any, first: tuple[str, list[Any]] | None = None
                 ) -> GuardReport:
    """The index (inherited GIT_INDEX_FILE) against HEAD, and every MERGE_HEAD in a merge.

    Reads staged blobs with ``git cat-file``, never the work tree or a textual diff.
    ``first`` is ``git.diff_cached_head`` when the caller already ran it.
    """
    from . import git
    from .ledgers import KINDS

    kinds = {config.path_of(k): k for k in KINDS}
    paths = list(kinds)
    bases = [first or git.diff_cached_head(repo, paths)]
    for merge_head in git.merge_heads(repo):
        bases.append((merge_head, git.diff_cached(repo, merge_head, paths)))
    ids = [b for _, changes in bases for c in changes
           for b, mode in ((c.old_blob, c.old_mode), (c.new_blob, c.new_mode))
           if b not in _ZERO and _regular(mode)]
    data = git.cat_blobs(repo, ids)
    parser = _Parser(config)
    trusted = _load_trusted(repo, config) if "failures" in {kinds.get(c.path) for _, cs in bases
                                                              for c in cs} else frozenset()
    good: set[str] = set()
    out: list[Violation] = []
    checked: set[str] = set()
    firsts: dict[str, Any] = {}  # HEAD's change per path, for merge excuses
    for label, changes in bases:
        for change in changes:
            kind = kinds.get(change.path)
            if kind is None:
                continue
            checked.add(change.path)
            found, old, new = check_change(
                kind, change, data, parser, trusted=trusted,
                renamed_to=lambda c=change, b=label: git.find_rename(repo, b, None, c.path))
            if label == bases[0][0]:
                firsts[change.path] = change
            elif found:
                first = firsts.get(change.path)
                head_blob = first.old_blob if first is not None else change.new_blob
                found = _excuse_merge(kind, found, change, [head_blob], data, parser)
            if kind == "failures":
                if old is not None:
                    good.add(change.old_blob)
                if not found and (new is not None or change.old_blob in trusted):
                    good.add(change.new_blob)
            if label != bases[0][0]:
                found = [Violation(v.code, v.path, v.line, v.item_id,
                                   f"{v.message} (compared with MERGE_HEAD {label[:12]})", v.fix)
                         for v in found]
            out.extend(found)
    if good:
        _save_trusted(repo, config, good, trusted)
    return GuardReport("staged", _sorted(out), (), tuple(sorted(checked)), 0)


def check_range(repo: Any, config: Any, revs: list[str], *, mode: str = "range",
                tips: Sequence[tuple[str, str]] = ()) -> GuardReport:
    """Every commit of ``revs`` (rev-list arguments) against each of its parents.

    IDs seen in any earlier state along a commit's ancestry are reserved (a deleted ID
    cannot come back); a ``Rehydrate-Waiver:`` trailer turns that commit's violations
    into a waived report. ``tips`` are extra (new, old) pairs compared directly (forced
    updates).
    """
    from . import git
    from .ledgers import KINDS

    kinds = {config.path_of(k): k for k in KINDS}
    paths = list(kinds)
    entries = git.log_entries(repo, revs) if revs else []
    pairs: list[tuple[str, str | None]] = []
    for entry in entries:
        pairs.extend((entry.commit, p) for p in (entry.parents or (None,)))
    pairs.extend(tips)
    answers = git.diff_pairs(repo, pairs, paths)
    ids = [b for changes in answers for c in changes
           for b, mode_ in ((c.old_blob, c.old_mode), (c.new_blob, c.new_mode))
           if b not in _ZERO and _regular(mode_)]
    data = git.cat_blobs(repo, ids)
    parser = _Parser(config)
    waivers = {e.commit: e.waiver for e in entries}
    seen: dict[str, dict[str, frozenset[str]]] = {}
    per_pair = dict(zip(pairs, answers, strict=True))
    violations: list[Violation] = []
    waived: list[Waived] = []
    for commit, parents in [(e.commit, e.parents or (None,)) for e in entries] + [
            (new, (old,)) for new, old in tips]:
        found: list[Violation] = []
        states: dict[tuple[str | None, str], Ledger | None] = {}
        new_states: dict[str, Ledger] = {}
        for parent in parents:
            for change in per_pair[(commit, parent)]:
                kind = kinds.get(change.path)
                if kind is None:
                    continue
                reserved = seen.get(parent or "", {}).get(kind, frozenset())
                others = set()
                other_blobs: list[str] = []  # the other parents' versions, for merge excuses
                for other in parents:
                    if other != parent:
                        other_change = next((c for c in per_pair[(commit, other)]
                                             if c.path == change.path), None)
                        # that parent's version (what this commit holds, when unchanged)
                        blob, mode_ = ((change.new_blob, change.new_mode) if other_change is None
                                       else (other_change.old_blob, other_change.old_mode))
                        other_blobs.append(blob)
                        if blob not in _ZERO and _regular(mode_):
                            got = parser.parse(kind, change.path, blob, data[blob])
                            if isinstance(got, Ledger):
                                others |= {i.id for i in got.all_items()}
                result, old, new = check_change(
                    kind, change, data, parser, reserved_ids=frozenset(reserved - others),
                    renamed_to=lambda c=change, p=parent, n=commit: git.find_rename(
                        repo, p or git.EMPTY_TREE[repo.object_format], n, c.path))
                if len(parents) > 1 and result:
                    result = _excuse_merge(kind, result, change, other_blobs, data, parser)
                found.extend(result)
                states[(parent, kind)] = old
                if new is not None:
                    new_states[kind] = new
        mine: dict[str, frozenset[str]] = {}
        for kind in KINDS:
            union: set[str] = set()
            base: frozenset[str] | None = None
            for parent in parents:
                inherited = seen.get(parent or "", {}).get(kind, frozenset())
                base = inherited if base is None else base
                union |= inherited
                old_state = states.get((parent, kind))
                if old_state is not None:
                    union |= {i.id for i in old_state.all_items()}
            if kind in new_states:
                union |= {i.id for i in new_states[kind].all_items()}
            mine[kind] = base if base is not None and len(union) == len(base) else frozenset(union)
        seen[commit] = mine
        found = [Violation(v.code, v.path, v.line, v.item_id, v.message, v.fix, commit=commit)
                 for v in found]
        reason = waivers.get(commit)
        if found and reason:
            waived.append(Waived(commit, reason, _sorted(found)))
        else:
            violations.extend(found)
    return GuardReport(mode, tuple(violations), tuple(waived),
                       tuple(sorted(kinds)), len(entries))


def check_pre_receive(repo: Any, config: Any, lines: list[str]) -> GuardReport:
    """``<old> <new> <ref>`` lines (a pre-receive hook's stdin): every new commit, and a
    forced update's old tip against its new tip."""
    from . import git
    from .errors import RehydrateError

    revs: list[str] = []
    tips: list[tuple[str, str]] = []
    for raw in lines:
        if not raw.strip():
            continue
        parts = raw.split()
        if len(parts) != 3:
            raise RehydrateError(f"bad pre-receive line {raw.strip()!r}", code="usage",
                                 fix="feed '<old> <new> <ref>' lines on stdin")
        old, new, _ref = parts
        if not all(len(o) in (40, 64) and all(c in "0123456789abcdef" for c in o)
                   for o in (old, new)):
            raise RehydrateError(f"bad object id in pre-receive line {raw.strip()!r}",
                                 code="usage", fix="feed '<old> <new> <ref>' lines on stdin")
        if new in _ZERO:
            continue  # a deletion: nothing to check
        revs.append(new)
        if old not in _ZERO:
            proc = git.run(repo, "merge-base", "--is-ancestor", old, new, check=False)
            if proc.returncode == 1:
                tips.append((new, old))
            elif proc.returncode != 0:
                raise git.GitError(f"cannot compare {old[:12]} with {new[:12]}",
                                   code="git_failed", fix="check the repository")
    if not revs:
        return GuardReport("pre-receive")
    return check_range(repo, config, [*revs, "--not", "--all"], mode="pre-receive", tips=tips)
