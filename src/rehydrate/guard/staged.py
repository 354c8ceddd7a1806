"""The guard over git states: the staged index, and what every git mode shares.

``check_staged`` (the pre-commit hook) reads ledger blobs with one ``git cat-file``
and applies ``guard.check_ledger`` to every change of a ledger path (``check_change``);
a failure ledger that only grew by rows goes through ``appendonly.table_edit``
instead. History (CI ranges, a server's pre-receive hook) is ``guard_range``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from ..ledgers import Ledger
from .amend import amended
from .fastpath import load_trusted, save_trusted, table_edit
from .report import GuardReport
from .rules import FIXES, Violation, check_ledger

if TYPE_CHECKING:
    from ..config import Config
    from ..errors import LedgerParseError
    from ..git import Repo
    from ..git.changes import RawChange

_PARSE_CODES = frozenset({"retire_without_reason", "next_action_not_single"})
_ZERO = frozenset({"0" * 40, "0" * 64})


def parse_violation(error: LedgerParseError, path: str) -> Violation:
    """A LedgerParseError as a refusal: its own code when the guard has that rule."""
    code = error.code if error.code in _PARSE_CODES else "ledger_unparseable"
    message = f"the new version cannot be parsed ({error.code}): {error.message}"
    return Violation(
        code, error.file or path, error.line, error.item_id, message, error.fix or FIXES[code]
    )


@dataclass
class _Parser:
    """Parses blobs once per run (a range sees the same blob in many commits)."""

    config: Config
    cache: dict[tuple[str, str], Ledger | LedgerParseError] = field(default_factory=dict)

    def parse(self, kind: str, path: str, blob: str, data: bytes) -> Ledger | LedgerParseError:
        """The Ledger, or the LedgerParseError it raised."""
        from ..errors import LedgerParseError
        from ..ledgers import parse_ledger

        key = (kind, blob)
        if key not in self.cache:
            try:
                self.cache[key] = parse_ledger(
                    kind,
                    path,
                    data,
                    section_aliases=self.config.section_aliases,
                    column_aliases=self.config.column_aliases,
                    max_bytes=self.config.max_ledger_bytes,
                )
            except LedgerParseError as exc:
                self.cache[key] = exc
        return self.cache[key]


class _Unset:
    """No value given (None is a value: 'no ledger')."""


UNSET = _Unset()


def _amend(
    repo: Repo,
    kind: str,
    change: RawChange,
    data: Mapping[str, bytes],
    parser: _Parser,
    found: list[Violation],
    old_ok: bool,
    state: dict[str, tuple[str, str | None] | None],
) -> list[Violation]:
    """HEAD's own rows judged as an amend has them (``guard.amend``)."""
    from ..ledgers import Ledger as _Ledger

    def parse(blob: str, raw: bytes) -> Ledger | None:
        parsed = parser.parse(kind, change.path, blob, raw)
        return parsed if isinstance(parsed, _Ledger) else None

    if not found or not old_ok or change.old_blob in _ZERO or not _regular(change.old_mode):
        return found
    if change.new_blob in _ZERO or not _regular(change.new_mode) or change.status == "U":
        return found
    if change.old_blob not in data or change.new_blob not in data:
        return found
    old, new = change.old_blob, change.new_blob
    return amended(
        repo, kind, change.path, found, ((old, data[old]), (new, data[new])), parse, state
    )


def _regular(mode: str) -> bool:
    return mode in ("100644", "100755")


def check_change(
    kind: str,
    change: RawChange,
    data: Mapping[str, bytes],
    parser: _Parser,
    *,
    reserved_ids: frozenset[str] = frozenset(),
    renamed_to: Callable[[], str | None] | None = None,
    trusted: frozenset[str] = frozenset(),
    old_parser: _Parser | None = None,
    old_ledger: Ledger | None | _Unset = UNSET,
) -> tuple[list[Violation], Ledger | None, Ledger | None]:
    """Rules for one raw change of one ledger path: (violations, old ledger, new ledger).

    ``old_ledger``, when given, is what the new state is judged against (the range
    check passes the last parseable state). Otherwise an old state that is absent, not a
    regular file, or unparseable is compared as 'no ledger yet': the local hook knows
    only HEAD, and the range check refuses the commit that broke it. When the
    old failure ledger is ``trusted`` (it parsed before) and the change only inserts
    well-formed rows into its table, nothing is parsed and both ledgers come back None.
    """
    from ..ledgers import Ledger as _Ledger

    path = change.path
    if change.status == "U":
        return (
            [
                Violation(
                    "ledger_unparseable",
                    path,
                    None,
                    None,
                    "the ledger is unmerged (a conflict) in the index",
                    "resolve the conflict and stage the result",
                )
            ],
            None,
            None,
        )
    if change.new_blob in _ZERO and change.new_mode == "000000":
        if change.old_mode == "000000":
            return [], None, None
        target = renamed_to() if renamed_to else None
        if target:
            return (
                [
                    Violation(
                        "ledger_renamed",
                        path,
                        None,
                        None,
                        f"ledger renamed to {target}",
                        FIXES["ledger_renamed"],
                    )
                ],
                None,
                None,
            )
        return (
            [
                Violation(
                    "ledger_deleted",
                    path,
                    None,
                    None,
                    "ledger file deleted",
                    FIXES["ledger_deleted"],
                )
            ],
            None,
            None,
        )
    if not _regular(change.new_mode):
        what = "a symlink" if change.new_mode == "120000" else f"mode {change.new_mode}"
        return (
            [
                Violation(
                    "ledger_not_regular_file",
                    path,
                    None,
                    None,
                    f"the ledger is committed as {what}, not a regular file",
                    FIXES["ledger_not_regular_file"],
                )
            ],
            None,
            None,
        )
    old_present = change.old_blob not in _ZERO and _regular(change.old_mode)
    new_data = data[change.new_blob]
    if kind == "failures" and old_present and change.old_blob in trusted:
        verdict = table_edit(data[change.old_blob], new_data, parser.config, path, reserved_ids)
        if verdict is not None:
            return verdict, None, None
    old: Ledger | None = None
    if not isinstance(old_ledger, _Unset):
        old = old_ledger
    elif old_present:
        parsed = (old_parser or parser).parse(kind, path, change.old_blob, data[change.old_blob])
        old = parsed if isinstance(parsed, _Ledger) else None
    parsed = parser.parse(kind, path, change.new_blob, new_data)
    if not isinstance(parsed, _Ledger):
        return [parse_violation(parsed, path)], old, None
    return check_ledger(kind, old, parsed, reserved_ids=reserved_ids), old, parsed


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
    out = [
        Violation(
            "config_changed",
            where,
            None,
            kind,
            f"the {kind} ledger's configured path changed from {old.paths[kind]} to "
            f"{new.paths[kind]}",
            FIXES["config_changed"],
        )
        for kind in KINDS
        if old.paths[kind] != new.paths[kind]
    ]
    if (dict(old.section_aliases), dict(old.column_aliases)) != (
        dict(new.section_aliases),
        dict(new.column_aliases),
    ):
        out.append(
            Violation(
                "config_changed",
                where,
                None,
                None,
                "the section or column aliases changed",
                FIXES["config_changed"],
            )
        )
    if old.prompt_template != new.prompt_template:
        out.append(
            Violation(
                "config_changed",
                where,
                None,
                None,
                "the prompt template setting changed",
                FIXES["config_changed"],
            )
        )
    return out


def _sorted(violations: list[Violation]) -> tuple[Violation, ...]:
    return tuple(
        sorted(violations, key=lambda v: (v.path, v.line or 0, v.code, v.item_id or "", v.message))
    )


def _parses(kind: str, change: RawChange, data: Mapping[str, bytes], parser: _Parser) -> bool:
    if change.old_blob in _ZERO or not _regular(change.old_mode):
        return False
    return isinstance(
        parser.parse(kind, change.path, change.old_blob, data[change.old_blob]), Ledger
    )


def last_parseable(repo: Repo, commit: str, kind: str, path: str, parser: _Parser) -> Ledger | None:
    """The newest parseable version of ``path`` at or before ``commit`` (None: none of the
    last 200 versions parses, or there never was one). A ledger broken or deleted by one
    commit must not make the next compare with 'no ledger'."""
    from .. import git

    out = (
        git.run(
            repo,
            "log",
            "--format=%H",
            "-n",
            "200",
            "--end-of-options",
            commit,
            "--",
            f":(literal){path}",
        )
        .stdout.decode()
        .split()
    )
    for start in range(0, len(out), 8):  # newest first, a few at a time: big ledgers
        batch = [f"{c}:{path}" for c in out[start : start + 8]]
        for spec, data in git.read_specs(repo, batch).items():
            if data is None:
                continue
            got = parser.parse(kind, path, spec, data)
            if isinstance(got, Ledger):
                return got
    return None


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
    ``first`` is ``git_changes.diff_cached_head`` when the caller already ran it.
    """
    from .. import git
    from ..git import changes as git_changes
    from ..ledgers import KINDS

    kinds = {config.path_of(k): k for k in KINDS}
    paths = list(kinds)
    bases = [first or git_changes.diff_cached_head(repo, paths)]
    for merge_head in git_changes.merge_heads(repo):
        bases.append((merge_head, git_changes.diff_cached(repo, merge_head, paths)))
    ids = [
        b
        for _, changes in bases
        for c in changes
        for b, mode in ((c.old_blob, c.old_mode), (c.new_blob, c.new_mode))
        if b not in _ZERO and _regular(mode)
    ]
    data = git.cat_blobs(repo, ids)
    parser = _Parser(config)
    from ..config import settings_changed

    same = old_config is None or not settings_changed(old_config, config)
    old_parser = parser if same or old_config is None else _Parser(old_config)
    trusted = (
        load_trusted(repo, config)
        if same and "failures" in {kinds.get(c.path) for _, cs in bases for c in cs}
        else frozenset()
    )
    good: set[str] = set()
    amend_state: dict[str, tuple[str, str | None] | None] = {}
    out: list[Violation] = list(extra)
    checked: set[str] = set()
    merge = None
    if len(bases) > 1:
        from .staged_merge import StagedMerge

        merge = StagedMerge(
            repo,
            [b for b, _ in bases],
            [c for _, c in bases],
            data,
            parser,
            lambda commit, kind, path: last_parseable(repo, commit, kind, path, parser),
        )
    for index, (label, changes) in enumerate(bases):
        for change in changes:
            kind = kinds.get(change.path)
            if kind is None:
                continue
            checked.add(change.path)
            old_ok = change.old_blob in trusted or _parses(kind, change, data, old_parser)
            past: Ledger | None | _Unset = UNSET
            if not old_ok and label not in git_changes.EMPTY_TREE.values():
                # HEAD's version is broken or gone (--no-verify): judge against the last
                # version that parsed, so the break does not free this commit
                past = last_parseable(repo, label, kind, change.path, old_parser)
            found, old, new = check_change(
                kind,
                change,
                data,
                parser,
                trusted=trusted,
                old_parser=old_parser,
                old_ledger=past,
                renamed_to=partial(git_changes.find_rename, repo, label, None, change.path),
            )
            if merge is not None:
                found = merge.excuse(kind, change.path, index, found)
            else:
                found = _amend(repo, kind, change, data, parser, found, old_ok, amend_state)
            if kind == "failures":
                if old is not None and old_ok:
                    good.add(change.old_blob)
                if not found and (new is not None or change.old_blob in trusted):
                    good.add(change.new_blob)
            if label != bases[0][0]:
                found = [
                    Violation(
                        v.code,
                        v.path,
                        v.line,
                        v.item_id,
                        f"{v.message} (compared with MERGE_HEAD {label[:12]})",
                        v.fix,
                    )
                    for v in found
                ]
            out.extend(found)
    if merge is not None:
        for path in sorted(checked):
            out.extend(merge.findings(kinds[path], path))
    if good:
        save_trusted(repo, config, good, trusted)
    return GuardReport("staged", _sorted(out), (), tuple(sorted(checked)), 0)
