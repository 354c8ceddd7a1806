"""``rehydrate log``: the ledgers' semantic history, one entry per commit, built on ``diff_ledger``.

Git is read in two processes whatever the length of the history: one ``git log --raw``
for every commit that touched a ledger (with its old and new blob ids), one
``git cat-file --batch`` for every distinct blob; each distinct blob is parsed once.
``events`` turns one ``LedgerDiff`` into events for people; it is pure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .. import diff as d
from .. import git
from ..config import Config
from ..errors import LedgerParseError
from ..git import changes as git_changes
from ..ledgers import KINDS, Ledger, parse_ledger
from ..ledgers.model import (
    LEVEL_POLARITY,
    LEVEL_STRENGTH,
    Constraint,
    Contract,
    Decision,
    Failure,
    Record,
    Verification,
)

SCHEMA = "rehydrate/log-v1"
_ZERO_MODE = "000000"
_REGULAR = ("100644", "100755")

SINGULAR: Mapping[str, str] = {
    "constraints": "constraint",
    "contracts": "contract",
    "decisions": "decision",
    "phases": "phase",
    "obligations": "obligation",
    "external writes": "write",
    "approvals": "approval",
    "verified": "verification",
    "completion checks": "check",
    "failures": "failure",
}
# (section, new status) -> event code for a status move; anything else is "<item>_status".
STATUS_EVENTS: Mapping[tuple[str, str], str] = {
    ("decisions", "decided"): "decision_taken",
    ("phases", "doing"): "phase_started",
    ("phases", "done"): "phase_done",
    ("obligations", "done"): "obligation_done",
    ("external writes", "unknown"): "write_unknown",
    ("external writes", "confirmed"): "write_settled",
    ("external writes", "not_applied"): "write_settled",
    ("approvals", "consumed"): "approval_consumed",
    ("approvals", "expired"): "approval_expired",
    ("approvals", "revoked"): "approval_revoked",
    ("completion checks", "passed"): "check_passed",
}
# Event code (or its suffix after the last "_") -> the mark shown in front of it.
MARKS: Mapping[str, str] = {
    "added": "+",
    "retired": "-",
    "strengthened": "^",
    "weakened": "v",
    "taken": "=",
    "settled": "=",
    "unknown": "!",
    "passed": "=",
    "done": ">",
    "started": ">",
    "consumed": "=",
    "expired": "=",
    "revoked": "=",
    "changed": "~",
    "status": "~",
    "deleted": "x",
    "unretired": "x",
    "created": "*",
    "unparseable": "x",
    "file": "x",
    "action": ">",
    "retirement_changed": "~",
    "set": ">",
}


@dataclass(frozen=True)
class Event:
    """One thing a commit did to a ledger, with a stable ``code``."""

    code: str  # failure_added, constraint_strengthened, decision_taken, write_settled, ...
    ledger: str  # spec | task | failures
    path: str
    id: str | None
    text: str  # one line for people (ledger text, as written)
    section: str = ""
    old: str | None = None  # the previous status/level, for moves
    new: str | None = None
    reason: str | None = None  # for retirements
    replaced_by: str | None = None

    @property
    def mark(self) -> str:
        for key in (self.code, self.code.rsplit("_", 1)[-1]):
            if key in MARKS:
                return MARKS[key]
        return "~"

    @property
    def key(self) -> tuple[str | None, ...]:
        return (self.code, self.ledger, self.id, self.text, self.old, self.new)

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "ledger": self.ledger,
            "path": self.path,
            "id": self.id,
            "section": self.section or None,
            "text": self.text,
            "old": self.old,
            "new": self.new,
            "reason": self.reason,
            "replaced_by": self.replaced_by,
        }


@dataclass(frozen=True)
class Entry:
    """One commit that changed the ledgers, and what it changed."""

    commit: str
    parents: tuple[str, ...]
    author: str
    date: str
    subject: str
    events: tuple[Event, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "commit": self.commit,
            "parents": list(self.parents),
            "author": self.author,
            "date": self.date,
            "subject": self.subject,
            "events": [e.to_json() for e in self.events],
        }


def _summary(section: str, record: Record, with_status: bool = True) -> str:
    """The one-line text of an item, by its kind (a row of ``section``)."""
    if isinstance(record, Constraint):
        return f"{record.level} {record.rule}"
    if isinstance(record, Contract):
        return f"{record.subject}: {record.contract}"
    if isinstance(record, Failure):
        return f"{record.tried}: {record.failure} (workaround: {record.workaround})"
    if isinstance(record, Decision):
        return (
            f"{record.question} -> {record.decision}"
            if record.status == "decided"
            else f"{record.question} (open" + (f", due {record.due})" if record.due else ")")
        )
    if isinstance(record, Verification):
        return f"{record.check} on {record.artifact} at {record.blob[:12]}"
    main = {
        "phases": "phase",
        "obligations": "obligation",
        "external writes": "operation",
        "approvals": "scope",
        "completion checks": "check",
    }.get(section)
    text = getattr(record, main) if main else record.id
    status = getattr(record, "status", "") if with_status else ""
    return f"{text} [{status}]" if status else text


def _level_code(old: str, new: str) -> str:
    stronger = LEVEL_STRENGTH[new] > LEVEL_STRENGTH[old]
    same_side = LEVEL_POLARITY[old] in (0, LEVEL_POLARITY[new])
    return "constraint_strengthened" if stronger and same_side else "constraint_weakened"


def _changed(change: d.ItemChange, kind: str, path: str) -> Iterator[Event]:
    section = change.section
    name = SINGULAR.get(section, "item")
    record = change.new
    status = change.moved("status")
    level = change.moved("level")
    if status:
        code = STATUS_EVENTS.get((section, status[1]), f"{name}_status")
        text = _summary(section, record, with_status=False)
        evidence = change.moved("evidence")
        if evidence and evidence[1]:
            text += f"; evidence: {evidence[1]}"
        yield Event(code, kind, path, change.item_id, text, section, status[0], status[1])
    if level:
        code = (
            _level_code(*level) if all(v in LEVEL_STRENGTH for v in level) else "constraint_level"
        )
        yield Event(code, kind, path, change.item_id, record.rule, section, level[0], level[1])
    rest = [
        c
        for c in change.cells
        if c.column not in ("status", "level")
        and not (status and c.column in ("evidence", "decision", "source"))
    ]
    if rest:
        text = "; ".join(f"{c.column}: {c.old or '(empty)'} -> {c.new or '(empty)'}" for c in rest)
        yield Event(f"{name}_changed", kind, path, change.item_id, text, section)


def _prose_text(ledger: Ledger | None) -> dict[str, str]:
    """Prose by section title, blank lines and indentation dropped (layout is not news)."""
    out: dict[str, list[str]] = {}
    for p in ledger.prose if ledger else ():
        if p.key == "next action":  # reported as its own event
            continue
        out.setdefault(p.title or "", []).extend(
            line.strip() for line in p.text.splitlines() if line.strip()
        )
    return {title: "\n".join(lines) for title, lines in out.items()}


def prose_changes(old: Ledger | None, new: Ledger | None) -> tuple[str, ...]:
    """Titles of prose sections whose words changed (an empty new section is no change)."""
    a, b = _prose_text(old), _prose_text(new)
    return tuple(sorted(t for t in set(a) | set(b) if a.get(t, "") != b.get(t, "")))


def item_events(change: d.ItemChange, kind: str, path: str) -> list[Event]:
    """The events of one item's change."""
    section = change.section
    name = SINGULAR.get(section, "item")
    out: list[Event] = []
    if change.kind == d.ADDED:
        out.append(
            Event(
                f"{name}_added",
                kind,
                path,
                change.item_id,
                _summary(section, change.new),
                section,
                new=getattr(change.new, "status", None) or getattr(change.new, "level", None),
            )
        )
    elif change.kind == d.CHANGED:
        out.extend(_changed(change, kind, path))
    elif change.kind == d.RETIRED:
        row = change.new
        out.append(
            Event(
                f"{name}_retired",
                kind,
                path,
                change.item_id,
                row.reason + (f" (replaced by {row.replaced_by})" if row.replaced_by else ""),
                section,
                reason=row.reason,
                replaced_by=row.replaced_by or None,
            )
        )
    elif change.kind == d.REMOVED:
        out.append(
            Event(
                f"{name}_deleted",
                kind,
                path,
                change.item_id,
                _summary(section, change.old),
                section,
            )
        )
    elif change.kind == d.UNRETIRED:
        out.append(
            Event(
                f"{name}_unretired",
                kind,
                path,
                change.item_id,
                "its retirement row was removed",
                section,
            )
        )
    else:
        text = "; ".join(f"{c.column}: {c.old} -> {c.new}" for c in change.cells)
        out.append(Event("retirement_changed", kind, path, change.item_id, text, section))
    return out


def events(diff: d.LedgerDiff, prose: tuple[str, ...] | None = None) -> list[Event]:
    """What one ledger diff means, as events (pure; file order within each kind).

    ``prose``: the prose titles to report (default: the diff's own, which counts layout).
    """
    kind, path = diff.kind, diff.path
    prose = diff.prose if prose is None else prose
    out: list[Event] = [
        Event(
            f"ledger_{f.kind}", kind, f.path, None, f.path + (f": {f.detail}" if f.detail else "")
        )
        for f in diff.files
        if f.kind != d.RENAMED
    ]
    for change in diff.items:
        out.extend(item_events(change, kind, path))
    if diff.next_action is not None and diff.next_action[1] is not None:
        out.append(
            Event(
                "next_action",
                kind,
                path,
                None,
                diff.next_action[1],
                old=diff.next_action[0],
                new=diff.next_action[1],
            )
        )
    for meta in diff.meta:
        if meta.column in ("objective", "task"):
            verb = "changed" if meta.old else "set"
            out.append(
                Event(
                    f"{meta.column}_{verb}", kind, path, None, meta.new, old=meta.old, new=meta.new
                )
            )
    if prose and not diff.files:
        out.append(
            Event(
                "prose_changed",
                kind,
                path,
                None,
                ", ".join(t or "(before the first section)" for t in prose),
            )
        )
    return out


def event_line(event: Event) -> str:
    """One event as `log` and `diff` print it: mark, what happened, the ID, the move, the text."""
    label = event.code.replace("_", " ")
    ident = f" {event.id}" if event.id else ""
    move = (
        f" ({event.old} -> {event.new})"
        if event.old and event.new and event.code != "next_action"
        else ""
    )
    return f"{event.mark} {label}{ident}{move}: {event.text}"


class _Blobs:
    """Ledgers by (kind, blob id), parsed once each; a parse error is kept, not raised."""

    def __init__(self, config: Config, data: Mapping[str, bytes]) -> None:
        self.config = config
        self.data = data
        self.cache: dict[tuple[str, str], Ledger | LedgerParseError] = {}

    def get(self, kind: str, path: str, blob: str) -> Ledger | LedgerParseError:
        key = (kind, blob)
        if key not in self.cache:
            try:
                self.cache[key] = parse_ledger(
                    kind,
                    path,
                    self.data[blob],
                    section_aliases=self.config.section_aliases,
                    column_aliases=self.config.column_aliases,
                    max_bytes=self.config.max_ledger_bytes,
                )
            except LedgerParseError as exc:
                self.cache[key] = exc
        return self.cache[key]


def _side(
    blobs: _Blobs, kind: str, path: str, mode: str, blob: str, last_good: Mapping[str, Ledger]
) -> Ledger | None:
    """The parsed old side; an unparseable old state is read as the last good one."""
    if mode == _ZERO_MODE:
        return None
    if mode not in _REGULAR:
        return last_good.get(path)
    parsed = blobs.get(kind, path, blob)
    return parsed if isinstance(parsed, Ledger) else last_good.get(path)


def _path_events(
    kind: str, change: git_changes.PathChange, blobs: _Blobs, last_good: dict[str, Ledger]
) -> list[Event]:
    path = change.path
    new: Ledger | None = None
    if change.new_mode in _REGULAR:
        parsed = blobs.get(kind, path, change.new_blob)
        if isinstance(parsed, Ledger):
            new = parsed
        else:
            where = f" line {parsed.line}" if parsed.line else ""
            return [
                Event(
                    "ledger_unparseable",
                    kind,
                    path,
                    parsed.item_id,
                    f"{parsed.code}{where}: {parsed.message}",
                )
            ]
    elif change.new_mode != _ZERO_MODE:
        return [
            Event(
                "ledger_not_regular_file",
                kind,
                path,
                None,
                f"committed with mode {change.new_mode}",
            )
        ]
    elif any(mode != _ZERO_MODE for mode, _ in change.old):
        # One event, not one "deleted" per item: the file is what went.
        return [Event("ledger_deleted", kind, path, None, path)]
    per_parent: list[list[Event]] = []
    for mode, blob in change.old:
        old = _side(blobs, kind, path, mode, blob, last_good)
        if old is None and new is None:
            per_parent.append([])
            continue
        per_parent.append(events(d.diff_ledger(old, new), prose_changes(old, new)))
    if new is not None:
        last_good[path] = new
    # A merge: only what differs from every parent is the merge's own doing.
    common = set.intersection(*(set(e.key for e in evs) for evs in per_parent))
    return [e for e in per_parent[0] if e.key in common]


def ledger_history(repo: git.Repo, config: Config, revs: Sequence[str]) -> list[Entry]:
    """Entries for every commit of ``revs`` that touched a ledger, oldest first."""
    kinds = {config.path_of(k): k for k in KINDS}
    if git.head(repo) is None:
        return []
    commits = git_changes.path_log(repo, revs, list(kinds))
    wanted = [
        blob
        for c in commits
        for ch in c.changes
        for _mode, blob in (*ch.old, (ch.new_mode, ch.new_blob))
        if _mode in _REGULAR
    ]
    blobs = _Blobs(config, git.cat_blobs(repo, wanted))
    last_good: dict[str, Ledger] = {}
    entries: list[Entry] = []
    for c in commits:
        found: list[Event] = []
        for kind in KINDS:  # a fixed order: spec, task, failures
            for change in c.changes:
                if kinds.get(change.path) == kind:
                    found.extend(_path_events(kind, change, blobs, last_good))
        if found:
            entries.append(Entry(c.commit, c.parents, c.author, c.date, c.subject, tuple(found)))
    return entries


def history_to_json(entries: Sequence[Entry], revs: Sequence[str]) -> dict[str, object]:
    return {"schema": SCHEMA, "range": " ".join(revs), "commits": [e.to_json() for e in entries]}
