"""Semantic diff between two states of one ledger: item by item, never line by line.

Items are matched by ID across the whole ledger (IDs are unique per ledger), so
reordering rows of an unordered section is no change, and cells are compared
after ``ledgers._table.normalize`` only (no Unicode normalisation: a look-alike
character is a change). Pure: no git, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .ledgers import Ledger, normalize
from .typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Config
    from .git import Repo
    from .ledgers.model import Record
    from .state import Source

# File-level events (``FileEvent.kind``).
CREATED = "created"
DELETED = "deleted"
RENAMED = "renamed"
UNPARSEABLE = "unparseable"
NOT_REGULAR = "not_regular_file"

# Item-level events (``ItemChange.kind``).
ADDED = "added"
REMOVED = "deleted"
CHANGED = "changed"
RETIRED = "retired"
UNRETIRED = "unretired"
RETIREMENT_CHANGED = "retirement_changed"


@dataclass(frozen=True)
class CellChange:
    """One cell of one item that differs (canonical column name, normalised values)."""

    column: str
    old: str
    new: str


@dataclass(frozen=True)
class ItemChange:
    """What happened to one item ID between the two states."""

    kind: str  # added | deleted | changed | retired | unretired | retirement_changed
    item_id: str
    section: str  # canonical section of the item (the new one when it still exists)
    line: int | None  # line in the new state, or in the old one for deletions
    # the old record (item or Retired row), when there was one, and the new one; each kind
    # of change sets the sides it has, and the readers (guard/rules.py, views/log.py) rely
    # on that: typed Record | None, they need 60 narrowings in files this change leaves
    old: Any = None  # Any: Record | None, narrowed by the change's kind (see above)
    new: Any = None  # Any: Record | None, narrowed by the change's kind (see above)
    cells: tuple[CellChange, ...] = ()
    reason: str = ""  # retirement reason, for ``retired``

    def moved(self, column: str) -> tuple[str, str] | None:
        """(old, new) when ``column`` changed (e.g. 'status', 'level'), else None."""
        for cell in self.cells:
            if cell.column == column:
                return cell.old, cell.new
        return None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "kind": self.kind,
            "id": self.item_id,
            "section": self.section,
            "line": self.line,
        }
        if self.cells:
            out["cells"] = [{"column": c.column, "old": c.old, "new": c.new} for c in self.cells]
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(frozen=True)
class FileEvent:
    """Something that happened to the ledger file itself."""

    kind: str  # created | deleted | renamed | unparseable | not_regular_file
    path: str
    detail: str = ""  # new path for a rename, the parse error for unparseable
    line: int | None = None
    code: str = ""  # the parse error's own code, for unparseable

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "path": self.path,
            "detail": self.detail,
            "line": self.line,
            "code": self.code or None,
        }


@dataclass(frozen=True)
class LedgerDiff:
    """Everything that changed in one ledger; empty when the two states mean the same."""

    kind: str
    path: str
    items: tuple[ItemChange, ...] = ()
    files: tuple[FileEvent, ...] = ()
    reordered: tuple[str, ...] = ()  # ordered sections (phases) whose kept rows changed order
    meta: tuple[CellChange, ...] = ()  # front matter keys that changed (revision included)
    prose: tuple[str, ...] = ()  # titles of prose sections that changed, were added or removed
    next_action: tuple[str | None, str | None] | None = None

    @property
    def empty(self) -> bool:
        return not (
            self.items
            or self.files
            or self.reordered
            or self.meta
            or self.prose
            or self.next_action
        )

    @property
    def moved(self) -> tuple[str, ...]:
        """Ordered sections whose kept rows changed order (same as ``reordered``)."""
        return self.reordered

    def of_kind(self, kind: str) -> Iterator[ItemChange]:
        return (c for c in self.items if c.kind == kind)

    def status_moves(self) -> Iterator[tuple[str, str, str]]:
        """(id, old status, new status) for every status move."""
        for change in self.of_kind(CHANGED):
            moved = change.moved("status")
            if moved:
                yield change.item_id, *moved

    def level_moves(self) -> Iterator[tuple[str, str, str]]:
        """(id, old level, new level) for every constraint level move."""
        for change in self.of_kind(CHANGED):
            moved = change.moved("level")
            if moved:
                yield change.item_id, *moved

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "path": self.path,
            "files": [f.to_json() for f in self.files],
            "items": [c.to_json() for c in self.items],
            "reordered": list(self.reordered),
            "meta": [{"key": c.column, "old": c.old, "new": c.new} for c in self.meta],
            "prose": list(self.prose),
            "next_action": (
                None
                if self.next_action is None
                else {"old": self.next_action[0], "new": self.next_action[1]}
            ),
        }


def _cells(record: Record) -> dict[str, str]:
    return {k: normalize(v) for k, v in record.cells().items()}


def _cell_changes(old: Record, new: Record) -> tuple[CellChange, ...]:
    """Differences between two records; a column present on one side only counts as ''."""
    a, b = _cells(old), _cells(new)
    out = []
    for column in list(a) + [c for c in b if c not in a]:
        before, after = a.get(column, ""), b.get(column, "")
        if before != after:
            out.append(CellChange(column, before, after))
    return tuple(out)


def _index(ledger: Ledger | None) -> dict[str, tuple[str, Record]]:
    if ledger is None:
        return {}
    return {r.id: (section, r) for section, records in ledger.items.items() for r in records}


def _meta_changes(old: Ledger | None, new: Ledger | None) -> tuple[CellChange, ...]:
    a = {k: str(v) for k, v in (old.meta if old else {}).items()}
    b = {k: str(v) for k, v in (new.meta if new else {}).items()}
    return tuple(
        CellChange(k, a.get(k, ""), b.get(k, ""))
        for k in sorted(set(a) | set(b))
        if a.get(k) != b.get(k)
    )


def _prose_changes(old: Ledger | None, new: Ledger | None) -> tuple[str, ...]:
    def texts(ledger: Ledger | None) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for p in ledger.prose if ledger else ():
            if p.key != "next action":  # compared as ``next_action``
                out.setdefault(p.title or "(preamble)", []).append(p.text)
        return out

    a, b = texts(old), texts(new)
    return tuple(sorted(t for t in set(a) | set(b) if a.get(t) != b.get(t)))


def _reordered(old: Ledger | None, new: Ledger | None) -> tuple[str, ...]:
    """Ordered sections whose rows present in both states changed their relative order."""
    if old is None or new is None:
        return ()
    from .ledgers.model import PHASES

    out = []
    for name in (PHASES.section,):
        before = [r.id for r in old.section(name)]
        after = [r.id for r in new.section(name)]
        kept = set(before) & set(after)
        if [i for i in before if i in kept] != [i for i in after if i in kept]:
            out.append(name)
    return tuple(out)


def _item_changes(
    before: dict[str, tuple[str, Record]], after: dict[str, tuple[str, Record]]
) -> list[ItemChange]:
    """Items added, changed (cells or section) and removed."""
    changes: list[ItemChange] = []
    for item_id, (section, record) in after.items():
        if item_id not in before:
            changes.append(ItemChange(ADDED, item_id, section, record.line, new=record))
            continue
        old_section, old_record = before[item_id]
        if old_section == section and old_record[2:] == record[2:]:
            continue  # same cells, only the line may differ (fast path for long histories)
        cells = _cell_changes(old_record, record)
        if old_section != section:
            cells = (CellChange("section", old_section, section), *cells)
        if cells:
            changes.append(
                ItemChange(CHANGED, item_id, section, record.line, old_record, record, cells)
            )
    for item_id, (section, record) in before.items():
        if item_id not in after:
            changes.append(ItemChange(REMOVED, item_id, section, record.line, old=record))
    return changes


def _retirement_changes(
    old: Ledger | None,
    new: Ledger | None,
    before: dict[str, tuple[str, Record]],
    after: dict[str, tuple[str, Record]],
) -> list[ItemChange]:
    """Items retired, whose Retired row changed, and un-retired."""
    old_retired = {r.id: r for r in old.retired} if old else {}
    new_retired = {r.id: r for r in new.retired} if new else {}
    changes: list[ItemChange] = []
    for item_id, row in new_retired.items():
        section = after.get(item_id, ("", None))[0]
        if item_id not in old_retired:
            reason = normalize(row.reason)
            changes.append(ItemChange(RETIRED, item_id, section, row.line, new=row, reason=reason))
            continue
        was = old_retired[item_id]
        cells = _cell_changes(was, row)
        if cells:
            changes.append(
                ItemChange(RETIREMENT_CHANGED, item_id, section, row.line, was, row, cells)
            )
    for item_id, row in old_retired.items():
        if item_id not in new_retired:
            section = (after.get(item_id) or before.get(item_id) or ("", None))[0]
            line = after[item_id][1].line if item_id in after else row.line
            changes.append(ItemChange(UNRETIRED, item_id, section, line, old=row))
    return changes


_ORDER = {ADDED: 0, CHANGED: 1, RETIRED: 2, RETIREMENT_CHANGED: 3, UNRETIRED: 4, REMOVED: 5}


def _next_action_change(
    old: Ledger | None, new: Ledger | None
) -> tuple[str | None, str | None] | None:
    old_next = old.next_action.text if old and old.next_action else None
    new_next = new.next_action.text if new and new.next_action else None
    if (normalize(old_next) if old_next else None) != (normalize(new_next) if new_next else None):
        return (old_next, new_next)
    return None


def diff_ledger(old: Ledger | None, new: Ledger | None) -> LedgerDiff:
    """Item-by-item difference between two parsed states of one ledger (None: absent)."""
    ref = new if new is not None else old
    if ref is None:
        raise ValueError("diff_ledger needs at least one ledger")
    before, after = _index(old), _index(new)
    changes = _item_changes(before, after) + _retirement_changes(old, new, before, after)
    changes.sort(key=lambda c: (_ORDER[c.kind], c.line or 0, c.item_id))
    files: tuple[FileEvent, ...] = ()
    if old is None and new is not None:
        files = (FileEvent(CREATED, new.path),)
    elif new is None and old is not None:
        files = (FileEvent(DELETED, old.path),)
    return LedgerDiff(
        kind=ref.kind,
        path=ref.path,
        items=tuple(changes),
        files=files,
        reordered=_reordered(old, new),
        meta=_meta_changes(old, new),
        prose=_prose_changes(old, new),
        next_action=_next_action_change(old, new),
    )


def diff_sources(repo: Repo, config: Config, old: Source, new: Source) -> list[LedgerDiff]:
    """Diff the three ledgers between two ``state.Source`` values (reads git; not pure).

    An absent side is None; an unparseable or non-regular side is a file event, and
    its items are compared as absent.
    """
    from . import git
    from .errors import LedgerParseError
    from .ledgers import KINDS
    from .state import commit_of, parse_file, read_files

    head = git.head(repo)
    sides = [
        read_files(repo, config, source, commit_of(repo, source, head)) for source in (old, new)
    ]
    out = []
    for kind in KINDS:
        path = config.path_of(kind)
        parsed: list[Ledger | None] = []
        events: list[FileEvent] = []
        for files in sides:
            blob = files[path]
            if blob.data is None and blob.mode is None:
                parsed.append(None)
                continue
            try:
                parsed.append(parse_file(kind, blob, config, path))
            except LedgerParseError as exc:
                code = exc.code
                kind_ = (
                    NOT_REGULAR if code in ("ledger_symlink", "ledger_not_regular") else UNPARSEABLE
                )
                events.append(FileEvent(kind_, path, exc.message, exc.line, code))
                parsed.append(None)
        if parsed[0] is None and parsed[1] is None:
            out.append(LedgerDiff(kind, path, files=tuple(events)))
            continue
        result = diff_ledger(parsed[0], parsed[1])
        if events:
            result = LedgerDiff(
                result.kind,
                result.path,
                result.items,
                tuple(events),
                result.reordered,
                result.meta,
                result.prose,
                result.next_action,
            )
        out.append(result)
    return out
