"""The guard over the staged index (the pre-commit hook), and what every git mode shares.

``check_staged`` reads the ledger blobs the index and HEAD (and every MERGE_HEAD) hold
with one ``git cat-file`` and hands each change of a ledger path to
``judge.judge_change``; what is git here is gathering the states (the last parseable
version when HEAD's is broken, a rename's target, the merge's sides, an amend's parent).
History (CI ranges, a server's pre-receive hook) is ``guard.range``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial

from ..ledgers import Ledger
from ..typecheck import TYPE_CHECKING
from .amend import amended
from .fastpath import load_trusted, save_trusted
from .judge import (
    REGULAR,
    UNSET,
    ZERO,
    Context,
    Parser,
    Side,
    _Unset,
    judge,
    parse_violation,
)
from .report import GuardReport
from .rules import FIXES, Violation

if TYPE_CHECKING:
    from ..config import Config
    from ..git import Repo
    from ..git.changes import RawChange
    from .staged_merge import StagedMerge

__all__ = ["check_staged", "last_parseable", "parse_violation", "settings_violations"]


def _amend(
    repo: Repo,
    kind: str,
    path: str,
    sides: tuple[Side, Side],
    parser: Parser,
    found: list[Violation],
    state: dict[str, tuple[str, str | None] | None],
) -> list[Violation]:
    """HEAD's own rows judged as an amend has them (``guard.amend``)."""
    old, new = sides
    if not old.regular or not new.regular or old.data is None or new.data is None:
        return found

    def parse(blob: str, raw: bytes) -> Ledger | None:
        parsed = parser.parse(kind, path, blob, raw)
        return parsed if isinstance(parsed, Ledger) else None

    blobs = ((old.blob, old.data), (new.blob, new.data))
    return amended(repo, kind, path, found, blobs, parse, state)


def settings_violations(old: Config, new: Config, had_ledgers: bool) -> list[Violation]:
    """A settings change that moves or re-aliases existing ledgers (``config_changed``).

    Settings decide which file is which ledger and how its headers read, so changing them
    once ledgers exist could hide a ledger from the guard (point ``spec`` at a fresh file)
    as surely as deleting it. Before any ledger exists they are free to change.
    """
    from ..ledgers import KINDS

    if not had_ledgers:
        return []
    where = new.origin or old.origin or ".rehydrate.toml"
    changed: list[tuple[str | None, str]] = [
        (
            kind,
            f"the {kind} ledger's configured path changed from {old.paths[kind]} to "
            f"{new.paths[kind]}",
        )
        for kind in KINDS
        if old.paths[kind] != new.paths[kind]
    ]
    aliases = (dict(old.section_aliases), dict(old.column_aliases))
    if aliases != (dict(new.section_aliases), dict(new.column_aliases)):
        changed.append((None, "the section or column aliases changed"))
    if old.prompt_template != new.prompt_template:
        changed.append((None, "the prompt template setting changed"))
    fix = FIXES["config_changed"]
    return [Violation("config_changed", where, None, k, m, fix) for k, m in changed]


def _sorted(violations: list[Violation]) -> tuple[Violation, ...]:
    return tuple(
        sorted(violations, key=lambda v: (v.path, v.line or 0, v.code, v.item_id or "", v.message))
    )


def last_parseable(repo: Repo, commit: str, kind: str, path: str, parser: Parser) -> Ledger | None:
    """The newest parseable version of ``path`` at or before ``commit`` (None: none of the
    last 200 versions parses, or there never was one). A ledger broken or deleted by one
    commit must not make the next compare with 'no ledger'."""
    from .. import git
    from ..git.changes import path_history

    out = path_history(repo, commit, path, 200)
    for start in range(0, len(out), 8):  # newest first, a few at a time: big ledgers
        batch = [f"{c}:{path}" for c in out[start : start + 8]]
        for spec, data in git.read_specs(repo, batch).items():
            if data is None:
                continue
            got = parser.parse(kind, path, spec, data)
            if isinstance(got, Ledger):
                return got
    return None


def sides(change: RawChange, data: Mapping[str, bytes]) -> tuple[Side, Side]:
    """A raw change's two states, with their bytes from ``data`` (regular files only)."""
    old = Side(change.old_mode, change.old_blob)
    if old.regular:
        old = old._replace(data=data[change.old_blob])
    new = Side(change.new_mode, change.new_blob)
    if change.status != "U" and change.new_mode in REGULAR:
        new = new._replace(data=data[change.new_blob])
    return old, new


def blob_ids(changes: Iterable[RawChange]) -> list[str]:
    """The blob ids of the regular files on either side of ``changes``."""
    return [
        b
        for c in changes
        for b, mode in ((c.old_blob, c.old_mode), (c.new_blob, c.new_mode))
        if b not in ZERO and mode in REGULAR
    ]


def check_staged(
    repo: Repo,
    config: Config,
    first: tuple[str, list[RawChange]] | None = None,
    *,
    old_config: Config | None = None,
    extra: Sequence[Violation] = (),
) -> GuardReport:
    """The index (inherited GIT_INDEX_FILE) against HEAD, and every MERGE_HEAD in a merge.

    Reads staged blobs with ``git cat-file``, never the work tree or a textual diff.
    ``first`` is ``git_changes.diff_cached_head`` when the caller already ran it;
    ``old_config``: HEAD's settings when they may differ from ``config`` (None: the same).
    """
    from ..git import changes as git_changes
    from ..ledgers import KINDS

    kinds = {config.path_of(k): k for k in KINDS}
    bases = [first or git_changes.diff_cached_head(repo, list(kinds))]
    for merge_head in git_changes.merge_heads(repo):
        bases.append((merge_head, git_changes.diff_cached(repo, merge_head, list(kinds))))
    index = _Index(repo, config, old_config, kinds, bases)
    out: list[Violation] = list(extra)
    for at, (label, changes) in enumerate(bases):
        for change in changes:
            kind = kinds.get(change.path)
            if kind is not None:
                out.extend(index.judge(at, label, kind, change))
    out.extend(index.finish())
    return GuardReport("staged", _sorted(out), (), tuple(sorted(index.checked)), 0)


class _Index:
    """One staged check: the blobs, the parsers, the trusted failure tables, the merge."""

    def __init__(
        self,
        repo: Repo,
        config: Config,
        old_config: Config | None,
        kinds: Mapping[str, str],
        bases: Sequence[tuple[str, list[RawChange]]],
    ) -> None:
        from .. import git
        from ..config import settings_changed

        self.repo, self.config, self.kinds, self.bases = repo, config, kinds, bases
        self.data = git.cat_blobs(repo, blob_ids(c for _, cs in bases for c in cs))
        self.parser = Parser(config)
        same = old_config is None or not settings_changed(old_config, config)
        self.old_parser = self.parser if same or old_config is None else Parser(old_config)
        staged_kinds = {kinds.get(c.path) for _, cs in bases for c in cs}
        self.trusted = (
            load_trusted(repo, config) if same and "failures" in staged_kinds else frozenset()
        )
        self.good: set[str] = set()
        self.amend_state: dict[str, tuple[str, str | None] | None] = {}
        self.checked: set[str] = set()
        self.merge: StagedMerge | None = None
        if len(bases) > 1:
            from .staged_merge import StagedMerge

            self.merge = StagedMerge(
                repo,
                [b for b, _ in bases],
                [c for _, c in bases],
                self.data,
                self.parser,
                lambda commit, kind, path: last_parseable(repo, commit, kind, path, self.parser),
            )

    def judge(self, at: int, label: str, kind: str, change: RawChange) -> list[Violation]:
        """One staged ledger against base ``at`` (HEAD, or a MERGE_HEAD)."""
        from ..git.changes import EMPTY_TREE, find_rename

        self.checked.add(change.path)
        old, new = sides(change, self.data)
        old_ok = (
            old.blob in self.trusted or self.old_parser.ledger(kind, change.path, old) is not None
        )
        past: Ledger | None | _Unset = UNSET
        if not old_ok and label not in EMPTY_TREE.values():
            # HEAD's version is broken or gone (--no-verify): judge against the last
            # version that parsed, so the break does not free this commit
            past = last_parseable(self.repo, label, kind, change.path, self.old_parser)
        merge = self.merge
        context = Context(
            kind,
            change.path,
            self.parser,
            self.old_parser,
            unmerged=change.status == "U",
            renamed_to=partial(find_rename, self.repo, label, None, change.path),
            trusted=old.blob in self.trusted,
            baseline=past,
            merge=None if merge is None else partial(merge.sides, kind, change.path, at),
        )
        found, before, after = judge(old, new, context)
        if merge is None and found and old_ok:
            found = _amend(
                self.repo, kind, change.path, (old, new), self.parser, found, self.amend_state
            )
        if kind == "failures":
            if before is not None and old_ok:
                self.good.add(change.old_blob)
            if not found and (after is not None or change.old_blob in self.trusted):
                self.good.add(change.new_blob)
        if label == self.bases[0][0]:
            return found
        note = f" (compared with MERGE_HEAD {label[:12]})"
        return [replace(v, message=v.message + note) for v in found]

    def finish(self) -> list[Violation]:
        """The merge's own findings; the failure tables that passed remembered as trusted."""
        out: list[Violation] = []
        if self.merge is not None:
            for path in sorted(self.checked):
                out.extend(self.merge.findings(self.kinds[path], path))
        if self.good:
            save_trusted(self.repo, self.config, self.good, self.trusted)
        return out
