"""``--on-violation revert``: undo a session that broke the ledgers, losing nothing.

Only when the user asked for it. The session's last commit stays reachable from
``refs/rehydrate/run/session-<n>``; its uncommitted ledger files are copied to
``.rehydrate/sessions/<n>-ledgers/`` before the ledgers are put back as HEAD has them;
then ``git reset --keep HEAD_before`` moves the branch back, keeping every uncommitted
change outside the ledgers (git refuses, and nothing moves, when one of those files
differs between the two commits: then the loop stops and says so).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence

from .. import git
from ..continuity.sessions import SESSIONS_DIR, sessions_dir
from ..git.sessions import reset_keep, restore_paths, save_ref
from ..records import NamedTuple

REF = "refs/rehydrate/run/session-{number}"


class Reverted(NamedTuple):
    ok: bool
    ref: str | None  # where the session's commits stay reachable
    saved: tuple[str, ...]  # copies of the uncommitted ledger files
    problem: str | None  # why git refused to move the branch back


def revert_session(
    repo: git.Repo, number: int, before: str, after: str, uncommitted: Sequence[str]
) -> Reverted:
    """Put the ledgers and the branch back to ``before`` (see the module docstring)."""
    ref = None
    if before != after:
        ref = REF.format(number=number)
        save_ref(repo, ref, after)
    saved: list[str] = []
    if uncommitted:
        folder = sessions_dir(repo.root) / f"{number}-ledgers"
        for path in uncommitted:
            source = repo.root / path
            if source.is_file() and not source.is_symlink():
                target = folder / path
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
                saved.append(f"{SESSIONS_DIR}/{number}-ledgers/{path}")
        tracked = list(git.tree_entries(repo, after, uncommitted))
        if tracked:
            restore_paths(repo, after, tracked)
        for path in set(uncommitted) - set(tracked):  # new in this session, copied above
            (repo.root / path).unlink(missing_ok=True)
    problem = reset_keep(repo, before) if before != after else None
    return Reverted(problem is None, ref, tuple(saved), problem)
