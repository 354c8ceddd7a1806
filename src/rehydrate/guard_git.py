"""The guard over git states: the staged index, commit ranges, and a pre-receive hook.

``check_staged`` (the pre-commit hook), ``check_range`` (CI) and
``check_pre_receive`` (a server hook) read ledger blobs with one ``git cat-file``
and apply ``guard.check_ledger`` to every change of a ledger path; a failure
ledger that only grew by rows goes through ``appendonly.table_edit`` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .appendonly import load_trusted, save_trusted, table_edit
from .guard import FIXES, Violation, check_ledger
from .ledgers import Ledger

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
                 trusted: frozenset[str] = frozenset(), old_parser: _Parser | None = None,
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
        parsed = (old_parser or parser).parse(kind, path, change.old_blob,
                                              data[change.old_blob])
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


def settings_violations(old: Any, new: Any, had_ledgers: bool) -> list[Violation]:
    """A settings change that moves or re-aliases existing ledgers (``config_changed``).

    Settings decide which file is which ledger and how its headers read, so changing them
    once ledgers exist could hide a ledger from the guard (point ``spec`` at a fresh file)
    as surely as deleting it. Before any ledger exists they are free to change.
    """
    from .ledgers import KINDS

    if not had_ledgers:
        return []
    where = new.origin or old.origin or ".rehydrate.toml"
    out = [Violation("config_changed", where, None, kind,
                     f"the {kind} ledger's configured path changed from {old.paths[kind]} to "
                     f"{new.paths[kind]}", FIXES["config_changed"])
           for kind in KINDS if old.paths[kind] != new.paths[kind]]
    if (dict(old.section_aliases), dict(old.column_aliases)) != (
            dict(new.section_aliases), dict(new.column_aliases)):
        out.append(Violation("config_changed", where, None, None,
                             "the section or column aliases changed", FIXES["config_changed"]))
    if old.prompt_template != new.prompt_template:
        out.append(Violation("config_changed", where, None, None,
                             "the prompt template setting changed", FIXES["config_changed"]))
    return out


def _sorted(violations: list[Violation]) -> tuple[Violation, ...]:
    return tuple(sorted(violations, key=lambda v: (v.path, v.line or 0, v.code, v.item_id or "",
                                                   v.message)))


def check_staged(repo: Any, config: Any, first: tuple[str, list[Any]] | None = None,
                 *, old_config: Any = None, extra: Sequence[Violation] = ()) -> GuardReport:
    """The index (inherited GIT_INDEX_FILE) against HEAD, and every MERGE_HEAD in a merge.

    Reads staged blobs with ``git cat-file``, never the work tree or a textual diff.
    ``first`` is ``git_changes.diff_cached_head`` when the caller already ran it.
    """
    from . import git, git_changes
    from .ledgers import KINDS

    kinds = {config.path_of(k): k for k in KINDS}
    paths = list(kinds)
    bases = [first or git_changes.diff_cached_head(repo, paths)]
    for merge_head in git_changes.merge_heads(repo):
        bases.append((merge_head, git_changes.diff_cached(repo, merge_head, paths)))
    ids = [b for _, changes in bases for c in changes
           for b, mode in ((c.old_blob, c.old_mode), (c.new_blob, c.new_mode))
           if b not in _ZERO and _regular(mode)]
    data = git.cat_blobs(repo, ids)
    parser = _Parser(config)
    from .config import settings_changed

    same = old_config is None or not settings_changed(old_config, config)
    old_parser = parser if same else _Parser(old_config)
    trusted = load_trusted(repo, config) if same and "failures" in {
        kinds.get(c.path) for _, cs in bases for c in cs} else frozenset()
    good: set[str] = set()
    out: list[Violation] = list(extra)
    checked: set[str] = set()
    firsts: dict[str, Any] = {}  # HEAD's change per path, for merge excuses
    for label, changes in bases:
        for change in changes:
            kind = kinds.get(change.path)
            if kind is None:
                continue
            checked.add(change.path)
            found, old, new = check_change(
                kind, change, data, parser, trusted=trusted, old_parser=old_parser,
                renamed_to=lambda c=change, b=label: git_changes.find_rename(repo, b, None, c.path))
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
        save_trusted(repo, config, good, trusted)
    return GuardReport("staged", _sorted(out), (), tuple(sorted(checked)), 0)


def check_range(repo: Any, config: Any, revs: list[str], *, mode: str = "range",
                tips: Sequence[tuple[str, str]] = ()) -> GuardReport:
    """Every commit of ``revs`` (rev-list arguments) against each of its parents.

    IDs seen in any earlier state along a commit's ancestry are reserved (a deleted ID
    cannot come back); a ``Rehydrate-Waiver:`` trailer turns that commit's violations
    into a waived report. ``tips`` are extra (new, old) pairs compared directly (forced
    updates).
    """
    from . import git, git_changes
    from .config import CONFIG_FILES
    from .ledgers import KINDS

    kinds = {config.path_of(k): k for k in KINDS}
    paths = list(kinds)
    entries = git_changes.log_entries(repo, revs) if revs else []
    pairs: list[tuple[str, str | None]] = []
    for entry in entries:
        pairs.extend((entry.commit, p) for p in (entry.parents or (None,)))
    pairs.extend(tips)
    answers = git_changes.diff_pairs(repo, pairs, [*paths, *CONFIG_FILES])
    settings = {pair: _settings_in_range(repo, pair, changes)
                for pair, changes in zip(pairs, answers, strict=True)
                if any(c.path in CONFIG_FILES for c in changes)}
    answers = [[c for c in changes if c.path in kinds] for changes in answers]
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
            found.extend(settings.get((commit, parent), []))
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
                    renamed_to=lambda c=change, p=parent, n=commit: git_changes.find_rename(
                        repo, p or git_changes.EMPTY_TREE[repo.object_format], n, c.path))
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


def _settings_in_range(repo: Any, pair: tuple[str, str | None], changes: list[Any]
                       ) -> list[Violation]:
    """``config_changed`` findings for one (commit, parent) whose settings files changed."""
    from . import git
    from .config import CONFIG_FILES, config_from_files, settings_changed
    from .errors import ConfigError

    commit, parent = pair
    specs = [f"{rev}:{name}" for rev in (commit, parent) if rev for name in CONFIG_FILES]
    got = git.read_specs(repo, specs)
    try:
        new = config_from_files({n: got[f"{commit}:{n}"] for n in CONFIG_FILES})
        old = config_from_files({n: got.get(f"{parent}:{n}") for n in CONFIG_FILES})
    except ConfigError as exc:
        return [Violation("config_changed", exc.file or ".rehydrate.toml", None, None,
                          f"the settings cannot be read: {exc.message}",
                          FIXES["config_changed"])]
    if parent is None or not settings_changed(old, new):
        return []
    present = git.tree_entries(repo, parent, list(old.paths.values()))
    return settings_violations(old, new, bool(present))


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
