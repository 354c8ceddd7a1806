"""``rehydrate sync``: fetch the upstream branch, merge it (the ledger merge driver runs),
guard the result, push; on a non-fast-forward fetch and merge again, a bounded number of
times with jitter. Nothing is forced: a push that lands is a fast-forward of what the
remote had, so no row anyone pushed is lost."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from .. import git
from ..errors import RehydrateError
from ..git import refs as git_refs
from ..records import NamedTuple

ATTEMPTS = 24
BACKOFF = 0.05  # seconds; attempt n waits BACKOFF * 2**n (at most MAX_WAIT), jittered
MAX_WAIT = 1.0


class SyncResult(NamedTuple):
    """``pushed`` | ``up_to_date`` | ``conflict`` | ``refused`` | ``contended``."""

    outcome: str
    remote: str
    ref: str
    head: str | None
    attempts: int
    message: str = ""
    details: tuple[str, ...] = ()


def target(repo: git.Repo, remote: str | None) -> tuple[str, str, str]:
    """(branch, remote, the ref on the remote) ``sync`` pushes to."""
    branch = git.branch(repo)
    if branch is None:
        raise RehydrateError(
            "HEAD is detached: there is no branch to sync",
            code="detached_head",
            fix="check out the branch to sync (git switch BRANCH)",
        )
    tracked, merge = git_refs.upstream(repo, branch)
    if remote is None:
        remote = tracked or ("origin" if "origin" in git_refs.remotes(repo) else None)
    if remote is None:
        raise RehydrateError(
            "no remote to sync with: the branch tracks none and there is no origin",
            code="no_remote",
            fix="pass --remote NAME, or add one (git remote add origin URL)",
        )
    ref = merge if merge and remote == tracked else f"refs/heads/{branch}"
    return branch, remote, ref


def sync(
    repo: git.Repo,
    remote: str | None,
    *,
    attempts: int = ATTEMPTS,
    sleep: Callable[[float], None] = time.sleep,
    jitter: Callable[[], float] = random.random,
) -> SyncResult:
    """Fetch, merge, guard, push until the push lands (see the module docstring)."""
    from ..guard.range import RangeSpec, check_range

    branch, remote, ref = target(repo, remote)
    if git_refs.merge_in_progress(repo):
        raise RehydrateError(
            "a merge is in progress",
            code="merge_in_progress",
            fix="finish it first (`rehydrate merge resolve ID --take ours|theirs`, then "
            "git commit), or abort it (git merge --abort)",
        )
    local = git.head(repo)  # the work to push: merged afresh onto each tip fetched
    if local is None:
        raise RehydrateError(
            "the branch has no commits", code="no_commits", fix="commit the ledgers first"
        )
    for attempt in range(1, attempts + 1):
        tip = git_refs.fetch_branch(repo, remote, ref)
        head = git.head(repo)
        assert head is not None
        if tip is not None and not git_refs.is_ancestor(repo, tip, head):
            merged = _merged(repo, branch, remote, ref, tip, local)
            if isinstance(merged, SyncResult):
                return merged._replace(attempts=attempt)
            head = merged
        if tip == head:
            _track(repo, remote, ref, head)
            return SyncResult("up_to_date", remote, ref, head, attempt)
        report = check_range(repo, RangeSpec((head, "--not", tip) if tip else (head,)))
        if not report.ok:
            return SyncResult(
                "refused",
                remote,
                ref,
                head,
                attempt,
                "the guard refuses the commits to push (nothing was pushed)",
                tuple(str(v) for v in report.violations),
            )
        pushed = git_refs.push_branch(repo, remote, head, ref)
        if pushed.ok:
            _track(repo, remote, ref, head)
            return SyncResult("pushed", remote, ref, head, attempt)
        if not pushed.lost:
            return SyncResult(
                "refused", remote, ref, head, attempt, f"the remote refused: {pushed.message}"
            )
        sleep(min(MAX_WAIT, BACKOFF * 2 ** min(attempt, 6)) * (0.5 + jitter()))
    return SyncResult(
        "contended",
        remote,
        ref,
        git.head(repo),
        attempts,
        f"{ref} on {remote} moved before each of {attempts} pushes",
    )


def _track(repo: git.Repo, remote: str, ref: str, oid: str) -> None:
    """Move the remote-tracking branch to what the remote now has (as ``git fetch``
    would), so ``git status`` tells the truth; only for a configured remote's branch."""
    if ref.startswith("refs/heads/") and remote in git_refs.remotes(repo):
        git_refs.set_ref(repo, f"refs/remotes/{remote}/{ref.removeprefix('refs/heads/')}", oid)


def _merged(
    repo: git.Repo, branch: str, remote: str, ref: str, tip: str, local: str
) -> str | SyncResult:
    """``local`` merged with ``tip``: a fast-forward, else a merge whose first parent is
    ``tip`` (the remote's rows keep their IDs). On a conflict the ordinary ``git merge``
    is left stopped for ``rehydrate merge resolve``."""
    message = f"rehydrate sync: merge {branch} into {ref.removeprefix('refs/heads/')} of {remote}"
    if git_refs.is_ancestor(repo, local, tip):
        merged, said = git_refs.merge(repo, tip, message)
    else:
        merged, said = git_refs.merge_onto(repo, branch, tip, local, message)
        if not merged and git.branch(repo) == branch and not git_refs.merge_in_progress(repo):
            merged, said = git_refs.merge(repo, tip, message)
            if merged:  # the other order merged after all: keep it
                said = ""
    if not merged:
        return _not_merged(repo, remote, ref, git.head(repo) or local, 0, said)
    head = git.head(repo)
    assert head is not None
    return head


def _not_merged(
    repo: git.Repo, remote: str, ref: str, head: str, attempt: int, said: str
) -> SyncResult:
    if not git_refs.merge_in_progress(repo):  # git refused to start: local changes, ...
        last = said.splitlines()[-1] if said else "git merge failed"
        raise RehydrateError(
            f"git merge of {ref} from {remote} did not start: {last}",
            code="merge_failed",
            fix="commit or stash your local changes, then run `rehydrate sync` again",
        )
    lines = tuple(line for line in said.splitlines() if "CONFLICT" in line or "conflict" in line)
    return SyncResult(
        "conflict",
        remote,
        ref,
        head,
        attempt,
        "the merge stopped on a real ledger conflict; resolve each item with "
        "`rehydrate merge resolve ID --take ours|theirs`, commit, then `rehydrate sync` again",
        lines,
    )
