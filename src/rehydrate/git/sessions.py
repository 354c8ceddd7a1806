"""git for ``rehydrate run``: what a session committed, its uncommitted ledgers as if
staged, and the revert a user asked for. Every call goes through ``git.run``."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..records import NamedTuple
from . import Repo, run


class Commit(NamedTuple):
    sha: str
    subject: str


def commits_between(repo: Repo, old: str, new: str, limit: int = 50) -> list[Commit]:
    """The commits of ``new`` not in ``old``, newest first (at most ``limit``)."""
    if old == new:
        return []
    out = run(
        repo, "log", f"--max-count={limit}", "--format=%H%x00%s", f"{old}..{new}", "--"
    ).stdout.decode("utf-8", "replace")
    commits = []
    for line in out.splitlines():
        sha, _, subject = line.partition("\0")
        commits.append(Commit(sha, subject))
    return commits


def count_between(repo: Repo, old: str, new: str) -> int:
    if old == new:
        return 0
    out = run(repo, "rev-list", "--count", f"{old}..{new}", "--").stdout
    return int(out.decode().strip() or 0)


@contextmanager
def worktree_index(repo: Repo, paths: Sequence[str]) -> Iterator[None]:
    """For the duration, every git call of this process reads a throwaway index: HEAD's
    tree plus ``paths`` as they are in the work tree (deleted ones removed) — the
    session's uncommitted ledger changes as if they were staged. The real index is never
    touched."""
    folder = repo.git_dir / "rehydrate"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"run-index-{os.getpid()}"
    saved = os.environ.get("GIT_INDEX_FILE")
    os.environ["GIT_INDEX_FILE"] = str(path)
    try:
        run(repo, "read-tree", "HEAD")
        present = [p for p in paths if os.path.lexists(repo.root / p)]
        gone = [p for p in paths if p not in present]
        if present:
            run(repo, "update-index", "--add", "--", *present)
        if gone:
            run(repo, "update-index", "--force-remove", "--", *gone)
        yield
    finally:
        if saved is None:
            os.environ.pop("GIT_INDEX_FILE", None)
        else:
            os.environ["GIT_INDEX_FILE"] = saved
        path.unlink(missing_ok=True)


def save_ref(repo: Repo, ref: str, commit: str) -> None:
    """Point ``ref`` at ``commit`` so that it stays reachable (a reverted session)."""
    run(repo, "update-ref", "-m", "rehydrate run: reverted session", ref, commit)


def restore_paths(repo: Repo, commit: str, paths: Sequence[str]) -> None:
    """Put ``paths`` in the index and work tree back as ``commit`` has them."""
    run(repo, "checkout", commit, "--", *paths)


def reset_keep(repo: Repo, commit: str) -> str | None:
    """``git reset --keep commit``: None when done, else git's reason (then nothing moved:
    a file with local changes differs between HEAD and ``commit``)."""
    proc = run(repo, "reset", "--keep", "-q", commit, check=False)
    if proc.returncode == 0:
        return None
    text = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip()
    return text.splitlines()[-1] if text else "git reset --keep failed"
