"""The guard's one judgement: one ledger path's old state against its new (``judge_change``).

Pure: no git, no files. The drivers gather the states from git and call it: the
pre-commit hook (``staged``: the index against HEAD and every MERGE_HEAD), CI ranges
(``range``: every commit against each parent) and a server's pre-receive hook
(``receive``, through ``range``). A state is a ``Side`` (mode, blob id, bytes); what
else the verdict depends on is the ``Context``: the settings (as a ``Parser``), the
path, the IDs history reserves, whether the old failure ledger is trusted for the
append-only fast path, the last parseable state to compare with when the old one is
broken, and, for a merge, the other parents the merge excuses weigh
(``excuses.excuse_merge``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..ledgers import Ledger
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from .fastpath import table_edit
from .rules import FIXES, Violation, check_ledger

if TYPE_CHECKING:
    from ..config import Config
    from ..errors import LedgerParseError
    from .excuses import Bases

ZERO = frozenset({"0" * 40, "0" * 64})
REGULAR = ("100644", "100755")
_PARSE_CODES = frozenset({"retire_without_reason", "next_action_not_single"})


class Side(NamedTuple):
    """One state of a ledger path: its git mode ("000000": absent), blob id and bytes."""

    mode: str
    blob: str
    data: bytes | None = None

    @property
    def regular(self) -> bool:
        """A regular file with content (not absent, not a symlink or a submodule)."""
        return self.blob not in ZERO and self.mode in REGULAR

    @classmethod
    def of(cls, data: bytes, mode: str = "100644") -> Side:
        """A state holding ``data`` (its blob id computed as git would)."""
        from ..git import hash_blob

        return cls(mode, hash_blob(data), data)


ABSENT = Side("000000", "0" * 40)


def parse_violation(error: LedgerParseError, path: str) -> Violation:
    """A LedgerParseError as a refusal: its own code when the guard has that rule."""
    code = error.code if error.code in _PARSE_CODES else "ledger_unparseable"
    message = f"the new version cannot be parsed ({error.code}): {error.message}"
    return Violation(
        code, error.file or path, error.line, error.item_id, message, error.fix or FIXES[code]
    )


@dataclass
class Parser:
    """Parses blobs under one set of settings, once per run (a range sees the same blob
    in many commits)."""

    config: Config
    cache: dict[tuple[str, str], Ledger | LedgerParseError] = field(default_factory=dict)

    def parse(self, kind: str, path: str, blob: str, data: bytes) -> Ledger | LedgerParseError:
        """The Ledger, or the LedgerParseError it raised."""
        from ..errors import LedgerParseError
        from ..git import Blob
        from ..state import parse_file

        key = (kind, blob)
        if key not in self.cache:
            try:  # a regular file's bytes: parse_ledger under these settings
                self.cache[key] = parse_file(
                    kind, Blob(path, data, blob, "100644"), self.config, path
                )
            except LedgerParseError as exc:
                self.cache[key] = exc
        return self.cache[key]

    def ledger(self, kind: str, path: str, side: Side) -> Ledger | None:
        """``side`` parsed, or None: absent, not a regular file, or unparseable."""
        if not side.regular or side.data is None:
            return None
        got = self.parse(kind, path, side.blob, side.data)
        return got if isinstance(got, Ledger) else None


class _Unset:
    """No value given (None is a value: 'no ledger')."""


UNSET = _Unset()


class Merge(NamedTuple):
    """A merge seen from one parent: that parent's ledger, the other parents' (those that
    parse) and the merge bases' (or how to read them)."""

    parent: Ledger | None
    others: Sequence[Ledger]
    bases: Bases = ()


@dataclass(frozen=True)
class Context:
    """What a verdict depends on besides the two states."""

    kind: str
    path: str
    parser: Parser
    old_parser: Parser | None = None  # the old side's settings, when they differ
    unmerged: bool = False  # the index holds a conflict at the path
    reserved_ids: frozenset[str] = frozenset()  # IDs history had: never reused
    renamed_to: Callable[[], str | None] | None = None  # where a deleted ledger went
    trusted: bool = False  # the old failure ledger parsed before: the fast path may judge
    baseline: Ledger | None | _Unset = UNSET  # judged against instead of the old side
    merge: Callable[[], Merge | None] | None = None  # read only when a finding needs it


class Judgement(NamedTuple):
    """The violations, and the two ledgers as parsed (None: not parsed or not parseable)."""

    violations: list[Violation]
    old: Ledger | None
    new: Ledger | None


def judge_change(old: Side, new: Side, context: Context) -> list[Violation]:
    """The refusals for one ledger path going from ``old`` to ``new``."""
    return judge(old, new, context).violations


def judge(old: Side, new: Side, context: Context) -> Judgement:
    """``judge_change`` with the ledgers it parsed (a range carries them to the next commit).

    The old side is compared as 'no ledger yet' when it is absent, not a regular file or
    unparseable, unless ``context.baseline`` names the state to compare with (the last
    one that parsed). A trusted failure ledger whose table only gained well-formed rows
    is judged without parsing; both ledgers come back None then.
    """
    early = _not_a_ledger(old, new, context)
    if early is not None:
        return Judgement(early, None, None)
    kind, path, parser = context.kind, context.path, context.parser
    assert new.data is not None  # a regular new side carries its bytes
    if kind == "failures" and old.regular and context.trusted and old.data is not None:
        verdict = table_edit(old.data, new.data, parser.config, path, context.reserved_ids)
        if verdict is not None:
            return Judgement(_excused(verdict, new, context, None), None, None)
    before = (
        (context.old_parser or parser).ledger(kind, path, old)
        if isinstance(context.baseline, _Unset)
        else context.baseline
    )
    parsed = parser.parse(kind, path, new.blob, new.data)
    if not isinstance(parsed, Ledger):
        return Judgement([parse_violation(parsed, path)], before, None)
    found = check_ledger(kind, before, parsed, reserved_ids=context.reserved_ids)
    return Judgement(_excused(found, new, context, parsed), before, parsed)


def _not_a_ledger(old: Side, new: Side, context: Context) -> list[Violation] | None:
    """The verdict when the new side is no ledger to parse (a conflict, gone, a symlink)."""
    path = context.path
    if context.unmerged:
        message, fix = (
            "the ledger is unmerged (a conflict) in the index",
            ("resolve the conflict and stage the result"),
        )
        return [Violation("ledger_unparseable", path, None, None, message, fix)]
    if new.blob in ZERO and new.mode == "000000":
        if old.mode == "000000":
            return []
        target = context.renamed_to() if context.renamed_to else None
        code, message = (
            ("ledger_renamed", f"ledger renamed to {target}")
            if target
            else ("ledger_deleted", "ledger file deleted")
        )
        return [Violation(code, path, None, None, message, FIXES[code])]
    if new.mode not in REGULAR:
        what = "a symlink" if new.mode == "120000" else f"mode {new.mode}"
        message = f"the ledger is committed as {what}, not a regular file"
        code = "ledger_not_regular_file"
        return [Violation(code, path, None, None, message, FIXES[code])]
    return None


def _excused(
    found: list[Violation], new: Side, context: Context, merged: Ledger | None
) -> list[Violation]:
    """``found`` without what a merge cannot avoid (``excuses.excuse_merge``)."""
    if not found or context.merge is None:
        return found
    if merged is None:
        merged = context.parser.ledger(context.kind, context.path, new)
    sides = context.merge()
    if sides is None or sides.parent is None or merged is None or not sides.others:
        return found
    from .excuses import excuse_merge

    return excuse_merge(found, sides.parent, merged, sides.others, sides.bases)
