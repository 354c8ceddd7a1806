"""The guard over history: every commit of a range, and a rewritten tip against the old (CI;
``guard_receive`` applies it per pushed ref).

``check_range`` judges what a branch now holds, whatever the history's shape, in steps:

1. ``_read_history``: the range's commits, parents first; a shallow boundary inside the
   range fails closed (exit 2), it is never read as a root commit;
2. ``_Settings``: each commit's own settings, read from its own tree;
3. ``_pair_changes``: each (commit, parent)'s ledger changes, each side at the path its
   own settings give;
4. ``_Walk``: every commit against each parent, in topological order, carrying each
   commit's last parseable ledgers (a waived break is compared past, never as "no
   ledger") and the IDs seen along its ancestry (a deleted ID cannot come back);
5. ``_tip_violations``: when the new tip does not descend from the old one (force-push,
   rebase, amend, an orphan), the old tip's ledgers against the new tip's; rows the
   merge driver renumbered pass, rows lost do not.

A ``Rehydrate-Waiver:`` trailer turns its own commit's findings into a waived report, and
a loss at the tip only when that same waived commit made it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..config import CONFIG_FILES, Config, config_from_files, load_config, settings_changed
from ..errors import ConfigError, GitError, RehydrateError
from ..git import Repo, cat_blobs, read_specs, tree_entries, verify_commit
from ..git import is_ancestor as git_is_ancestor
from ..git.changes import (
    EMPTY_TREE,
    LogEntry,
    RawChange,
    diff_pairs,
    find_rename,
    log_entries,
    merge_bases,
)
from ..ledgers import KINDS, Ledger
from ..records import NamedTuple
from .judge import REGULAR, ZERO, Context, Merge, Parser, judge
from .report import GuardReport, Waived, waiver
from .rules import FIXES, Violation, check_ledger
from .staged import _sorted, blob_ids, last_parseable, settings_violations, sides

_ABSENT = ("000000", "0" * 40)
REWRITE_HINT = (
    "A refused commit that is already pushed stays refused: putting the row back "
    "in a new commit gives id_reused. Rewrite the bad commit (git rebase -i, then "
    "force-push) or, if the change is intended, add a 'Rehydrate-Waiver: <reason>' "
    "trailer to that commit."
)


class RangeSpec(NamedTuple):
    """What to check: rev-list arguments, and (new, old) tip pairs to compare directly."""

    revs: tuple[str, ...]
    tips: tuple[tuple[str, str], ...] = ()


def resolve_range(repo: Repo, text: str) -> RangeSpec:
    """``A..B`` (either side empty: HEAD; A all zeros: B's whole history) or ``B``.

    When A is not an ancestor of B, A's ledgers are also compared with B's.
    """
    if "..." in text:
        raise RehydrateError(
            f"invalid range {text!r}: A...B is a symmetric difference",
            code="usage",
            fix="pass A..B, e.g. --range "
            '"$(git merge-base main HEAD)..HEAD" for a branch\'s own commits',
        )
    old_text, sep, new_text = text.partition("..")
    if not sep:
        return RangeSpec((_commit(repo, text),))
    new = _commit(repo, new_text or "HEAD")
    if old_text in ZERO:
        return RangeSpec((new,))
    old = _commit(repo, old_text or "HEAD")
    return RangeSpec((new, "--not", old), () if is_ancestor(repo, old, new) else ((new, old),))


def _commit(repo: Repo, rev: str) -> str:
    if not rev.strip() or rev.startswith("-"):
        raise RehydrateError(
            f"invalid revision {rev!r}", code="usage", fix="pass --range A..B (two revisions)"
        )
    found = verify_commit(repo, rev, end_of_options=True)
    if found is None:
        raise GitError(
            f"unknown revision {rev!r}: the repository lacks it",
            code="bad_revision",
            fix="name an existing commit; in CI, " + FIXES["history_missing"],
        )
    return found


def is_ancestor(repo: Repo, old: str, new: str) -> bool:
    answer = git_is_ancestor(repo, old, new)
    if answer is None:
        raise GitError(
            f"cannot compare {old[:12]} with {new[:12]}",
            code="git_failed",
            fix=FIXES["history_missing"],
        )
    return answer


def _read_history(repo: Repo, revs: Sequence[str]) -> list[LogEntry]:
    """The range's commits, parents first; refuses a range that crosses a shallow boundary."""
    entries = log_entries(repo, list(revs)) if revs else []
    try:
        shallow = set((repo.common_dir / "shallow").read_text(encoding="ascii").split())
    except FileNotFoundError:
        return entries
    cut = [e.commit for e in entries if e.commit in shallow]
    if cut:
        raise GitError(
            f"the range needs history this clone lacks (shallow at {cut[0][:12]})",
            code="history_missing",
            fix=FIXES["history_missing"],
        )
    return entries


class _Settings:
    """Each commit's settings from its own tree; a commit with none has the defaults (a
    bare repository: its own ``.rehydrate.toml``). Unreadable settings keep the first
    parent's in force and are reported against the commit that broke them."""

    def __init__(self, repo: Repo, commits: Sequence[str], fallback: Config) -> None:
        specs = [f"{c}:{name}" for c in dict.fromkeys(commits) for name in CONFIG_FILES]
        found = read_specs(repo, specs)
        self.fallback = fallback
        self.raw: dict[str, Config | ConfigError] = {}
        parsed: dict[tuple[bytes | None, ...], Config | ConfigError] = {}
        for commit in dict.fromkeys(commits):
            texts = {name: found.get(f"{commit}:{name}") for name in CONFIG_FILES}
            key = tuple(texts[name] for name in CONFIG_FILES)
            if key not in parsed:
                parsed[key] = self._parse(texts)
            self.raw[commit] = parsed[key]
        self.effective: dict[str, Config] = {}
        self.parsers: dict[tuple[object, ...], Parser] = {}

    def _parse(self, texts: Mapping[str, bytes | None]) -> Config | ConfigError:
        if all(t is None for t in texts.values()):
            return self.fallback
        try:
            return config_from_files(texts)
        except ConfigError as exc:
            return exc

    def settle(self, commit: str, first_parent: str | None) -> None:
        """Fix ``commit``'s settings in force (its parents' are settled already)."""
        got = self.raw[commit]
        if isinstance(got, Config):
            self.effective[commit] = got
        else:
            self.effective[commit] = (
                self.of(first_parent) if first_parent is not None else self.fallback
            )

    def own(self, commit: str) -> Config:
        """``commit``'s own settings, else the fallback (its parents' are not inherited)."""
        got = self.raw.get(commit, self.fallback)
        return got if isinstance(got, Config) else self.fallback

    def of(self, commit: str) -> Config:
        if commit not in self.effective:
            got = self.raw.get(commit, self.fallback)
            self.effective[commit] = got if isinstance(got, Config) else self.fallback
        return self.effective[commit]

    def parser(self, config: Config) -> Parser:
        key = (
            tuple(sorted(config.paths.items())),
            tuple(sorted(config.section_aliases.items())),
            tuple(sorted(config.column_aliases.items())),
            config.max_ledger_bytes,
        )
        if key not in self.parsers:
            self.parsers[key] = Parser(config)
        return self.parsers[key]


class _State(NamedTuple):
    """One ledger at one commit: what is there, and what the next commit is judged against."""

    ledger: Ledger | None  # None: absent, not a regular file, or unparseable
    good: Ledger | None  # the last parseable state at or before this commit
    seen: frozenset[str]  # every ID seen along the ancestry within the range


class _Walk:
    """Judges the range's commits in order and remembers each commit's ledger states."""

    def __init__(self, repo: Repo, settings: _Settings) -> None:
        self.repo = repo
        self.settings = settings
        # commit -> kind -> its state, or the parent whose state it inherits unchanged
        self.states: dict[str, dict[str, _State | str]] = {}
        self.entries: dict[str, dict[str, tuple[str, str]]] = {}  # commit -> ledger entries
        self.data: dict[str, bytes] = {}
        self.merge_bases: dict[tuple[str, ...], list[str]] = {}

    def bases(self, parents: Sequence[str], kind: str) -> list[Ledger]:
        """The ``kind`` ledger at each merge base of ``parents`` (last parseable there)."""
        key = tuple(parents)
        if key not in self.merge_bases:
            self.merge_bases[key] = merge_bases(self.repo, list(parents))
        found = (self.state(b, kind).good for b in self.merge_bases[key])
        return [ledger for ledger in found if ledger is not None]

    def state(self, commit: str | None, kind: str) -> _State:
        """A commit's state: one the walk recorded, inherited unchanged from a parent, or,
        for a commit outside the range, read now (only when a later change needs it)."""
        if commit is None:
            return _State(None, None, frozenset())
        mine = self.states.setdefault(commit, {})
        got = mine.get(kind)
        if isinstance(got, str):  # unchanged since that parent
            got = mine[kind] = self.state(got, kind)
        elif got is None:
            got = mine[kind] = self._outside(commit, kind)
        return got

    def _outside(self, commit: str, kind: str) -> _State:
        config = self.settings.of(commit)
        path = config.path_of(kind)
        if commit not in self.entries:  # one ls-tree for the three ledgers
            self.entries[commit] = tree_entries(self.repo, commit, list(config.paths.values()))
        entry = self.entries[commit].get(path)
        ledger = self._parse(kind, path, entry, config)
        good = (
            ledger
            if ledger is not None
            else last_parseable(self.repo, commit, kind, path, self.settings.parser(config))
        )
        return _State(ledger, good, _ids(ledger))

    def _parse(
        self, kind: str, path: str, entry: tuple[str, str] | None, config: Config
    ) -> Ledger | None:
        if entry is None or entry[0] not in REGULAR or not entry[1]:
            return None
        blob = entry[1]
        if blob not in self.data:
            self.data.update(cat_blobs(self.repo, [blob]))
        got = self.settings.parser(config).parse(kind, path, blob, self.data[blob])
        return got if isinstance(got, Ledger) else None

    def judge(
        self,
        entry: LogEntry,
        changes: Mapping[str | None, list[RawChange]],
        data: Mapping[str, bytes],
    ) -> list[Violation]:
        """``entry`` against each of its parents; records its own states."""
        commit = entry.commit
        parents: tuple[str | None, ...] = entry.parents or (None,)
        config = self.settings.of(commit)
        parser = self.settings.parser(config)
        found: list[Violation] = []
        mine: dict[str, _State | str] = {}
        for kind in KINDS:
            per_parent = {p: _change_of(changes[p], config.path_of(kind)) for p in parents}
            if all(c is None for c in per_parent.values()):
                if parents[0] is not None:
                    mine[kind] = parents[0]  # nothing to judge: parsed only if needed later
                continue
            before = {p: self.state(p, kind) for p in parents}
            new = before[parents[0]].ledger
            for parent, change in per_parent.items():
                if change is None:
                    continue
                others = [before[o] for o in parents if o != parent]
                result, got = self._one(
                    kind, change, data, parser, before[parent], others, commit, parent, parents
                )
                found.extend(result)
                new = got if parent == parents[0] else new
            if kind == "task" and len(parents) > 1 and new is not None:
                found.extend(self._single_values(new, parents, before))
            seen = frozenset().union(*(s.seen for s in before.values()), _ids(new))
            mine[kind] = _State(new, new if new is not None else before[parents[0]].good, seen)
        self.states[commit] = mine
        return found

    def _single_values(
        self, new: Ledger, parents: Sequence[str | None], before: Mapping[str | None, _State]
    ) -> list[Violation]:
        """A merge's next action and objective: neither a third value nor a silent drop."""
        from .conflicts import single_value_findings

        sides = [before[p].ledger for p in parents]
        kept = [s for s in sides if s is not None]
        named = [p for p in parents if p is not None]
        if len(kept) < len(sides):
            return []
        return single_value_findings(new, kept, lambda: self.bases(named, "task"))

    def _one(
        self,
        kind: str,
        change: RawChange,
        data: Mapping[str, bytes],
        parser: Parser,
        parent_state: _State,
        others: list[_State],
        commit: str,
        parent: str | None,
        parents: Sequence[str | None],
    ) -> tuple[list[Violation], Ledger | None]:
        """One ledger of one commit against one parent (``parent_state``; ``others``: the
        other parents' states): (violations, the new ledger)."""
        other_ids = frozenset().union(*(_ids(o.ledger) for o in others))
        kept = [o.ledger for o in others if o.ledger is not None]
        named = [c for c in parents if c is not None]
        good = parent_state.good
        context = Context(
            kind,
            change.path,
            parser,
            reserved_ids=parent_state.seen - other_ids,
            renamed_to=lambda: find_rename(
                self.repo, parent or EMPTY_TREE[self.repo.object_format], commit, change.path
            ),
            baseline=good,
            merge=(lambda: Merge(good, kept, lambda: self.bases(named, kind))) if others else None,
        )
        result, _old, new = judge(*sides(change, data), context)
        return result, new


def _ids(ledger: Ledger | None) -> frozenset[str]:
    return frozenset(i.id for i in ledger.all_items()) if ledger is not None else frozenset()


def _change_of(changes: list[RawChange], path: str) -> RawChange | None:
    return next((c for c in changes if c.path == path), None)


def _pair_changes(
    repo: Repo, settings: _Settings, pairs: Sequence[tuple[str, str | None]]
) -> dict[tuple[str, str | None], list[RawChange]]:
    """Each pair's ledger changes, the new side at the commit's own path and the old side
    at the parent's: one ``diff-tree --stdin`` when the two agree, two ``ls-tree`` when a
    commit moved a ledger by configuration."""
    paths = sorted({settings.of(c).path_of(k) for pair in pairs for c in pair if c for k in KINDS})
    answers = diff_pairs(repo, list(pairs), paths)
    out: dict[tuple[str, str | None], list[RawChange]] = {}
    for (commit, parent), changes in zip(pairs, answers, strict=True):
        new_cfg = settings.of(commit)
        old_cfg = settings.of(parent) if parent else new_cfg
        moved = [k for k in KINDS if old_cfg.path_of(k) != new_cfg.path_of(k)]
        wanted = {new_cfg.path_of(k) for k in KINDS if k not in moved}
        kept = [c for c in changes if c.path in wanted]
        for kind in moved:
            kept.extend(
                _moved_change(repo, commit, parent, old_cfg.path_of(kind), new_cfg.path_of(kind))
            )
        out[(commit, parent)] = kept
    return out


def _moved_change(
    repo: Repo, commit: str, parent: str | None, old_path: str, new_path: str
) -> list[RawChange]:
    """A ledger whose configured path changed: the parent's file against the commit's."""
    old = tree_entries(repo, parent, [old_path]).get(old_path, _ABSENT) if parent else _ABSENT
    new = tree_entries(repo, commit, [new_path]).get(new_path, _ABSENT)
    if old == new:
        return []
    return [RawChange(old[0], new[0], old[1], new[1], "M", new_path)]


def _settings_findings(
    repo: Repo, settings: _Settings, commit: str, parent: str | None
) -> list[Violation]:
    """A commit whose settings cannot be read, or that moves or re-aliases ledgers."""
    raw = settings.raw.get(commit)
    if isinstance(raw, ConfigError):
        parent_raw = settings.raw.get(parent) if parent else None
        if parent is None or not isinstance(parent_raw, ConfigError):
            return [
                Violation(
                    "config_changed",
                    raw.file or ".rehydrate.toml",
                    raw.line,
                    None,
                    f"the settings cannot be read: {raw.message}",
                    FIXES["config_changed"],
                )
            ]
        return []
    if parent is None:
        return []
    old, new = settings.of(parent), settings.of(commit)
    if not settings_changed(old, new):
        return []
    present = tree_entries(repo, parent, list(old.paths.values()))
    return settings_violations(old, new, bool(present))


def default_settings(repo: Repo) -> Config:
    """The settings of a commit without its own: a bare repository's ``.rehydrate.toml``,
    else the defaults."""
    return load_config(repo.root) if repo.root == repo.git_dir else Config()


def settings_at(repo: Repo, commit: str, fallback: Config | None = None) -> Config:
    """The settings in force at ``commit`` (its own files, else ``fallback``: a bare
    repository's ``.rehydrate.toml``, else the defaults); unreadable ones: the fallback."""
    if fallback is None:
        fallback = default_settings(repo)
    return _Settings(repo, [commit], fallback).own(commit)


def check_range(
    repo: Repo, spec: RangeSpec, *, mode: str = "range", fallback: Config | None = None
) -> GuardReport:
    """Every commit of ``spec.revs`` against each of its parents, and each tip pair."""
    return _check(repo, spec, mode, fallback)[0]


def check_range_at(
    repo: Repo, spec: RangeSpec, tip: str, *, mode: str, fallback: Config | None = None
) -> tuple[GuardReport, Config]:
    """``check_range``, and the settings in force at ``tip`` (``settings_at``) from the
    same reading of the history's settings."""
    report, settings = _check(repo, spec, mode, fallback)
    if tip in settings.raw:
        return report, settings.own(tip)
    return report, settings_at(repo, tip, settings.fallback)


def _check(
    repo: Repo, spec: RangeSpec, mode: str, fallback: Config | None
) -> tuple[GuardReport, _Settings]:
    entries = _read_history(repo, spec.revs)
    if fallback is None:
        fallback = default_settings(repo)
    everything = [
        *(e.commit for e in entries),
        *(p for e in entries for p in e.parents),
        *(c for tip in spec.tips for c in tip),
    ]
    settings = _Settings(repo, everything, fallback)
    for entry in entries:
        settings.settle(entry.commit, entry.parents[0] if entry.parents else None)
    walk = _Walk(repo, settings)
    violations, waived = _judge_commits(walk, entries)
    for new, old in spec.tips:
        _judge_tip(_tip_violations(walk, new, old), new, violations, waived)
    paths = (
        sorted({settings.of(c).path_of(k) for c in everything for k in KINDS})
        if everything
        else sorted(fallback.paths.values())
    )
    report = GuardReport(mode, tuple(violations), tuple(waived), tuple(paths), len(entries))
    return report, settings


def _judge_commits(
    walk: _Walk, entries: Sequence[LogEntry]
) -> tuple[list[Violation], list[Waived]]:
    """Every commit against each of its parents: (violations, waived commits)."""
    repo, settings = walk.repo, walk.settings
    pairs = [(e.commit, p) for e in entries for p in (e.parents or (None,))]
    changes = _pair_changes(repo, settings, pairs)
    walk.data.update(cat_blobs(repo, blob_ids(c for cs in changes.values() for c in cs)))
    violations: list[Violation] = []
    waived: list[Waived] = []
    for entry in entries:
        parents = entry.parents or (None,)
        found = [f for p in parents for f in _settings_findings(repo, settings, entry.commit, p)]
        found += walk.judge(entry, {p: changes[(entry.commit, p)] for p in parents}, walk.data)
        found = [_at(v, entry.commit) for v in found]
        reason = waiver(entry.trailers) if found else None
        if reason:
            waived.append(Waived(entry.commit, reason, _sorted(found)))
        else:
            violations.extend(found)
    return violations, waived


def _judge_tip(
    found: list[Violation], new: str, violations: list[Violation], waived: list[Waived]
) -> None:
    """A rewritten tip's findings: waived when the waived commit that made the loss is in
    the range, else refused."""
    covered = {(v.path, v.item_id): w for w in waived for v in w.violations}
    for violation in found:
        by = covered.get((violation.path, violation.item_id)) or covered.get((violation.path, None))
        if by is None:
            violations.append(violation)
        else:
            waived.append(Waived(new, f"{by.reason} (commit {by.commit[:12]})", (violation,)))


def _at(violation: Violation, commit: str, note: str = "") -> Violation:
    return Violation(
        violation.code,
        violation.path,
        violation.line,
        violation.item_id,
        violation.message + note,
        violation.fix,
        commit=commit,
    )


def _tip_violations(walk: _Walk, new: str, old: str) -> list[Violation]:
    """The old tip's ledgers against the new tip's, when the new does not descend from the
    old: every row of the old tip must still be there, or be renumbered with its content."""
    from .excuses import renumbered_content, renumbered_order

    note = (
        f" (the new tip {new[:12]} does not contain the old tip {old[:12]}, so the two "
        "were compared directly)"
    )
    out: list[Violation] = []
    for kind in KINDS:
        before = walk.state(old, kind).good
        if before is None:
            continue
        after_state = walk.state(new, kind)
        path = walk.settings.of(new).path_of(kind)
        after = after_state.ledger
        if after is None:
            code = "ledger_unparseable" if after_state.good is not None else "ledger_deleted"
            message = (
                "the ledger cannot be parsed at the new tip"
                if code == "ledger_unparseable"
                else "the ledger is gone at the new tip"
            )
            out.append(_at(Violation(code, path, None, None, message, FIXES[code]), new, note))
            continue
        moved = renumbered_content(before, after, _shared_ids(walk, new, old, kind))
        found = [v for v in check_ledger(kind, before, after) if v.item_id not in moved]
        out.extend(_at(v, new, note) for v in renumbered_order(found, before, after, moved))
    return out


def _shared_ids(walk: _Walk, new: str, old: str, kind: str) -> frozenset[str] | None:
    """The ``kind`` IDs at the merge bases of the two tips (what the branch did not add
    itself), or None when they share no history."""
    bases = walk.bases((new, old), kind)
    if not walk.merge_bases[(new, old)]:
        return None
    return frozenset().union(*(_ids(b) for b in bases))
