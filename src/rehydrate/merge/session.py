"""``rehydrate merge resolve``: a conflicting ledger merge in the work tree, resolved one
conflict at a time.

The three versions come from the index (the stages 1, 2 and 3 that ``git merge`` leaves
for an unmerged ledger), the merged head from ``MERGE_HEAD``. Each call adds its
resolution to those made before in the same merge (``.git/rehydrate/merge-resolve.json``,
keyed by ``MERGE_HEAD``, the three blob ids and the blob it wrote, so that after a
``git merge --abort`` or a hand edit it counts for nothing),
merges again from the three versions (``merge.resolve``), writes the ledger atomically
and, once no conflict is left in it, stages it: the next step is ``git commit``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from .. import git
from ..config import Config
from ..errors import Refused, RehydrateError
from ..git import changes as git_changes
from ..ledgers import KINDS, Context
from ..ledgers.ids import id_problem
from ..records import NamedTuple
from .resolve import Names, Recorded, Resolution, is_contested, resolve_ledger
from .result import Conflict

STATE = "merge-resolve.json"


class Outcome(NamedTuple):
    """What one ``merge resolve`` did to one ledger."""

    path: str
    kind: str
    recorded: Recorded
    remaining: list[Conflict]
    staged: bool

    def to_json(self) -> dict[str, object]:
        return {
            "schema": "rehydrate/merge-resolve-v1",
            "path": self.path,
            "ledger": self.kind,
            **self.recorded.to_json(),
            "remaining": [
                {"code": c.code, "id": c.item_id, "message": c.message} for c in self.remaining
            ],
            "staged": self.staged,
        }


def _usage(message: str, code: str, fix: str) -> RehydrateError:
    return RehydrateError(message, code=code, fix=fix)


def check_target(target: str) -> str:
    from ..guard.conflicts import SINGLE_VALUES

    if target not in SINGLE_VALUES and id_problem(target) is not None:
        raise _usage(
            f"{target[:40]!r} is not an item ID, 'next-action' or 'objective'",
            "id_invalid",
            "name the ID the merge driver reported as CONFLICT",
        )
    return target


def _other_name(repo: git.Repo, head: str) -> str:
    """A branch (or remote branch) at the merged head, else its short id."""
    for prefix in ("refs/heads/", "refs/remotes/"):
        for ref, oid in git.for_each_ref(repo, prefix):
            if oid == head:
                return ref[len(prefix) :]
    return head[:12]


def _state_file(repo: git.Repo) -> Path:
    return repo.git_dir / "rehydrate" / STATE


def _load(repo: git.Repo, heads: list[str]) -> dict[str, object]:
    from ..errors import RehydrateError
    from ..readlimit import SUMMARY_LIMIT, load_json, read_file

    try:
        state = load_json(read_file(_state_file(repo), SUMMARY_LIMIT))
    except (OSError, ValueError, RehydrateError):
        return {}
    if not isinstance(state, dict) or state.get("merge_heads") != heads:
        return {}
    paths = state.get("paths")
    return paths if isinstance(paths, dict) else {}


def _save(repo: git.Repo, heads: list[str], paths: dict[str, object]) -> None:
    from ..ledgers.atomicfile import atomic_write

    target = _state_file(repo)
    if not paths:
        target.unlink(missing_ok=True)
        return
    target.parent.mkdir(exist_ok=True)
    text = json.dumps({"merge_heads": heads, "paths": paths}, indent=1, sort_keys=True)
    atomic_write(target, text.encode("utf-8"))


def resolve(
    repo: git.Repo,
    config: Config,
    target: str,
    take: str,
    *,
    kind: str | None = None,
    date: str | None = None,
) -> Outcome:
    """Resolve ``target`` in the one unmerged ledger where it conflicts, taking ``take``."""
    heads = git_changes.merge_heads(repo)
    if not heads:
        raise _usage(
            "no merge in progress (no MERGE_HEAD)",
            "not_merging",
            "run it while `git merge` is stopped on a ledger conflict (a rebase or "
            "cherry-pick conflict is resolved by hand: docs/merging.md)",
        )
    kinds = {config.path_of(k): k for k in KINDS if kind in (None, k)}
    stages = git_changes.unmerged(repo, list(kinds))
    if not stages:
        raise _usage(
            "no ledger is unmerged in the index",
            "nothing_to_resolve",
            "the ledgers are resolved: `git status`, then `git commit`",
        )
    state = _load(repo, heads)
    names = Names(
        git.branch(repo) or "HEAD",
        _other_name(repo, heads[0]),
        date or datetime.now(UTC).strftime("%Y-%m-%d"),
    )
    runs = _unmerged_ledgers(repo, config, kinds, stages)
    path, resolution, entry = _the_one(repo, runs, state, names, target, take)
    recorded = next(r for r in resolution.recorded if r.target == target)
    mine = {target, recorded.copy, recorded.question}
    left = [c for c in resolution.result.conflicts if c.item_id in mine]
    if left:  # the guard would still refuse this side's version: write nothing
        raise Refused(
            f"keeping {take}'s {target} still conflicts: {left[0]}",
            file=path,
            item_id=target,
            code="resolve_refused",
            fix="resolve this item by hand (docs/merging.md, 'Resolving a conflict'), or try "
            "the other side",
        )
    return _write(repo, heads, state, path, kinds[path], resolution, entry, recorded)


def _unmerged_ledgers(
    repo: git.Repo, config: Config, kinds: dict[str, str], stages: dict[str, dict[int, str]]
) -> list[_Merge | str]:
    """Each unmerged ledger's three versions, in spec, task, failures order (a string for
    one deleted on one side)."""
    data = git.cat_blobs(repo, [b for s in stages.values() for b in s.values()])
    out: list[_Merge | str] = []
    for path in (p for p in kinds if p in stages):
        blobs = [stages[path].get(n) for n in (1, 2, 3)]
        if blobs[1] is None or blobs[2] is None:
            out.append(f"{path}: deleted on one side (resolve by hand)")
            continue
        raw = [data[b] if b else b"" for b in blobs]
        out.append(_Merge(config, kinds[path], path, raw, blobs))
    return out


def _the_one(
    repo: git.Repo,
    runs: list[_Merge | str],
    state: dict[str, object],
    names: Names,
    target: str,
    take: str,
) -> tuple[str, Resolution, dict[str, object]]:
    """The ledger where ``target`` conflicts, merged with it and the earlier resolutions."""
    found: list[tuple[str, Resolution, dict[str, object]]] = []
    misses: list[str] = []
    for run in runs:
        if isinstance(run, str):
            misses.append(run)
            continue
        base, ours, theirs = run.raw
        if not is_contested(run.kind, run.ctx, base, ours, theirs, target):
            misses.append(f"{run.path}: {_conflict_ids(run, names)}")
            continue
        saved = state.get(run.path)
        if not isinstance(saved, dict):  # a state file rehydrate wrote, but read as untrusted
            saved = {}
        current = git.read_worktree(repo, [run.path])[run.path].blob
        still = saved.get("stages") == run.blobs and saved.get("written") == current
        takes = dict(saved.get("takes", {})) if still else {}
        takes[target] = take
        found.append((run.path, run(takes, names), {"stages": run.blobs, "takes": takes}))
    if not found:
        raise _usage(
            f"{target} is not in conflict in any unmerged ledger ({'; '.join(misses)})",
            "not_in_conflict",
            "name an ID (or next-action / objective) that the merge driver reported as CONFLICT",
        )
    if len(found) > 1:
        raise _usage(
            f"{target} conflicts in {', '.join(p for p, _, _ in found)}",
            "ambiguous_target",
            "pass --ledger spec|task|failures",
        )
    return found[0]


class _Merge:
    """One unmerged ledger's three versions, merged with a set of resolutions."""

    def __init__(
        self, config: Config, kind: str, path: str, raw: list[bytes], blobs: list[str | None]
    ) -> None:
        self.ctx = Context(
            path, config.section_aliases, config.column_aliases, config.max_ledger_bytes
        )
        self.kind, self.path, self.raw, self.blobs = kind, path, raw, blobs

    def _text(self, o: bytes, b: bytes, t: bytes) -> tuple[bytes, bool]:
        labels = (f"ours:{self.path}", "base", f"theirs:{self.path}")
        return git_changes.merge_file(o, b, t, labels=labels)

    def __call__(self, takes: dict[str, str], names: Names) -> Resolution:
        base, ours, theirs = self.raw
        return resolve_ledger(
            self.kind, base, ours, theirs, self.ctx, takes, names=names, merge_text=self._text
        )


def _conflict_ids(run: _Merge, names: Names) -> str:
    """What is in conflict in one ledger (for a target that is not), from a plain merge."""
    result = run({}, names).result
    shown = sorted({c.item_id or c.code for c in result.conflicts})
    return "conflicts: " + (", ".join(shown) if shown else "none")


def _write(
    repo: git.Repo,
    heads: list[str],
    state: dict[str, object],
    path: str,
    kind: str,
    resolution: Resolution,
    entry: dict[str, object],
    recorded: Recorded,
) -> Outcome:
    from ..ledgers.atomicfile import ledger_lock, write_in_repo

    result = resolution.result
    with ledger_lock(repo, path):
        write_in_repo(repo.root, path, result.data)
    staged = not result.conflicts
    if staged:
        git.stage_path(repo, path)
        state.pop(path, None)
    else:
        state[path] = {**entry, "written": git.hash_blob(result.data, repo.object_format)}
    _save(repo, heads, state)
    return Outcome(path, kind, recorded, list(result.conflicts), staged)
