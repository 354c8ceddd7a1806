"""Fail closed: the ledgers an agent hook judges must be there and readable.

* Every ledger kind must be in the work tree, at the path the settings in force give
  it (or the path an uncommitted settings change gives it), and parse. A ledger deleted
  in the work tree is missing, even while HEAD still holds it.
* Every version of the failed-attempts ledger counts for the command check: the work
  tree's, the index's and HEAD's (``failure_files``); a row removed in one place is still
  in force from another. A copy in the index or HEAD that does not parse (while the work
  tree's does) is named and left out: refusing every command then would leave the agent
  no way to stage and commit the repaired file (a parser upgrade can make a committed
  ledger unreadable), and a commit that broke the ledger could as well have dropped the
  row outright; the pre-commit guard and CI judge such commits.

A Spec or Task blob that parsed once is remembered (an empty file under
``.git/rehydrate/parsed/``, keyed like ``failindex``), so this costs a stat per ledger on
every shell command, not a parse.
"""

from __future__ import annotations

from pathlib import Path

from .. import git
from ..config import Config
from ..errors import LedgerParseError
from . import failindex
from .failfile import FailureFile, from_blob
from .judging import HEAD, WORK_TREE, Standing

PARSED_DIR = "rehydrate/parsed"


def check_readable(standing: Standing) -> None:
    """Raise the ``LedgerParseError`` of the first ledger missing from, or unreadable in,
    the work tree (its message says which file and where; its fix how to mend it)."""
    for kind in ("spec", "task"):
        _readable_in_worktree(standing, kind)
    _present_in_worktree(standing, "failures")


def failure_files(
    standing: Standing,
) -> tuple[list[tuple[tuple[str, ...], FailureFile]], list[str]]:
    """Each distinct version of the failed-attempts ledger, with the places that hold it
    (the work tree first); and notes on the copies left out (one in the index or HEAD
    that does not parse; the work tree's must)."""
    _present_in_worktree(standing, "failures")
    files: list[tuple[tuple[str, ...], FailureFile]] = []
    notes: list[str] = []
    for path in standing.paths("failures"):
        for wheres, blob in standing.versions(path):
            try:
                files.append((wheres, _parsed(standing, blob, wheres[0])))
            except LedgerParseError as exc:
                if WORK_TREE in wheres:
                    raise
                places = " and ".join(wheres)
                notes.append(
                    f"the copy of {path} in {places} cannot be read ({exc.message}); it is "
                    "left out of the check until the work tree's copy is committed"
                )
    return files, notes


def _parsed(standing: Standing, blob: git.Blob, where: str) -> FailureFile:
    """The version parsed with the first settings that read it (committed ones first)."""
    error: LedgerParseError | None = None
    for config in standing.configs:
        try:
            return from_blob(standing.repo, config, blob, where)
        except LedgerParseError as exc:
            error = error or exc
    assert error is not None
    raise error


def _present_in_worktree(standing: Standing, kind: str) -> list[git.Blob]:
    present = [
        b
        for p in standing.paths(kind)
        if (b := standing.blob(WORK_TREE, p)).data is not None or b.mode is not None
    ]
    if present:
        return present
    path = standing.config.path_of(kind)
    committed = standing.blob(HEAD, path).mode is not None if standing.head else False
    raise LedgerParseError(
        "ledger not found in the work tree"
        + (" (HEAD still holds it: the deletion is not in force)" if committed else ""),
        file=path,
        code="ledger_missing",
        fix=f"restore it: git checkout HEAD -- {path}"
        if committed
        else "run `rehydrate init` (or fix the path in the configuration)",
    )


def _readable_in_worktree(standing: Standing, kind: str) -> None:
    for blob in _present_in_worktree(standing, kind):
        if _parsed_before(standing, kind, blob):
            continue
        from ..state import parse_file  # the parser: only for a blob not parsed before

        error: LedgerParseError | None = None
        for config in standing.configs:
            try:
                parse_file(kind, blob, config, WORK_TREE)
            except LedgerParseError as exc:
                error = error or exc
                continue
            _remember(standing, kind, blob, config)
            error = None
            break
        if error is not None:
            raise error


def _marker(standing: Standing, kind: str, blob: git.Blob, config: Config) -> Path:
    from ..failtable import settings_key

    key = settings_key(config.column_aliases, config.section_aliases, config.max_ledger_bytes)
    return Path(standing.repo.common_dir) / PARSED_DIR / f"{kind}-{blob.blob}-{key}"


def _parsed_before(standing: Standing, kind: str, blob: git.Blob) -> bool:
    if blob.blob is None or blob.mode not in git.REGULAR_MODES:
        return False
    return any(_marker(standing, kind, blob, c).is_file() for c in standing.configs[:1])


def _remember(standing: Standing, kind: str, blob: git.Blob, config: Config) -> None:
    """Best effort: a marker that cannot be written costs a parse next time."""
    if blob.blob is None or config is not standing.config:
        return
    path = _marker(standing, kind, blob, config)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        old = sorted(path.parent.iterdir(), key=lambda p: p.stat().st_mtime_ns)
        for stale in old[: -failindex.KEEP]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass
