"""Refs on a remote (or on the local refs) as compare-and-swap cells, and the steps of a
ledger sync: fetch, merge, push.

Every call goes through ``_git`` like the rest of the git package. A CAS on a remote is
``git push --atomic --force-with-lease=<ref>:<expected>``: receive-pack applies the
update in a ref transaction that checks the old value under the ref's lock, so of any
number of racers exactly one moves the ref. Without a remote the same CAS is
``git update-ref REF NEW OLD`` (``update_ref``). Auto-maintenance is off for these
calls: twenty racers must not each start a ``gc``.
"""

from __future__ import annotations

import os

from ..errors import GitError
from ..records import NamedTuple
from . import Repo, _git, update_ref, zero_oid

_QUIET = ("-c", "gc.auto=0", "-c", "maintenance.auto=false")
# the identity of a lease commit: it records who holds the item in its message
LEASE_IDENT = {
    "GIT_AUTHOR_NAME": "rehydrate",
    "GIT_AUTHOR_EMAIL": "rehydrate@localhost",
    "GIT_COMMITTER_NAME": "rehydrate",
    "GIT_COMMITTER_EMAIL": "rehydrate@localhost",
}


class PushOutcome(NamedTuple):
    """What a push did: ``ok``; else ``lost`` (the ref moved first: a lost race, a
    non-fast-forward) or ``refused`` (the server's hook said no), with git's words."""

    ok: bool
    lost: bool
    message: str


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace").strip()


def remotes(repo: Repo) -> list[str]:
    """The configured remote names (``git remote``)."""
    return _text(_git(repo.root, "remote").stdout).split()


def config_value(repo: Repo, key: str) -> str | None:
    proc = _git(repo.root, "config", "--get", key, check=False)
    return _text(proc.stdout) or None if proc.returncode == 0 else None


def upstream(repo: Repo, branch: str | None) -> tuple[str | None, str | None]:
    """(remote, ref on the remote) the branch tracks, each None when not configured."""
    if branch is None:
        return None, None
    remote = config_value(repo, f"branch.{branch}.remote")
    merge = config_value(repo, f"branch.{branch}.merge")
    return (remote if remote != "." else None), merge


def _unreachable(remote: str, err: bytes, what: str) -> GitError:
    words = _text(err).splitlines()
    said = next(
        (w for w in words if w.startswith(("fatal:", "error:"))), words[-1] if words else ""
    )
    return GitError(
        f"remote {remote!r} cannot be reached ({what}: {said or 'failed'})",
        code="remote_unreachable",
        fix=f"check `git remote -v` and the network, then retry (git ls-remote {remote})",
    )


def ls_remote(repo: Repo, remote: str, pattern: str) -> dict[str, str]:
    """ref -> object id on ``remote`` for refs matching ``pattern`` (raises when the
    remote cannot be reached: never "no refs")."""
    proc = _git(repo.root, *_QUIET, "ls-remote", "--refs", remote, pattern, check=False)
    if proc.returncode != 0:
        raise _unreachable(remote, proc.stderr, "ls-remote")
    out: dict[str, str] = {}
    for line in _text(proc.stdout).splitlines():
        oid, _, ref = line.partition("\t")
        if ref:
            out[ref] = oid
    return out


def has_object(repo: Repo, oid: str) -> bool:
    return _git(repo.root, "cat-file", "-e", oid + "^{commit}", check=False).returncode == 0


def fetch_objects(repo: Repo, remote: str, refs: list[str]) -> None:
    """Bring the objects of ``refs`` on ``remote`` here without writing any local ref
    (nor FETCH_HEAD): many processes in one clone may do it at once."""
    if not refs:
        return
    proc = _git(
        repo.root,
        *_QUIET,
        "fetch",
        "-q",
        "--no-tags",
        "--no-write-fetch-head",
        "--no-auto-gc",
        remote,
        *refs,
        check=False,
    )
    if proc.returncode != 0:
        raise _unreachable(remote, proc.stderr, "fetch")


EMPTY_TREE = {
    "sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}


def empty_tree_id(repo: Repo) -> str:
    return EMPTY_TREE.get(repo.object_format, EMPTY_TREE["sha1"])


def empty_tree(repo: Repo) -> str:
    """The empty tree, written (git knows it without the object, but a push sends it)."""
    return _text(_git(repo.root, "hash-object", "-t", "tree", "-w", "--stdin", input=b"").stdout)


def commit_message_object(repo: Repo, message: str, date: str) -> str:
    """A root commit of the empty tree carrying ``message`` (``date``: git's date format)."""
    env = {**LEASE_IDENT, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    proc = _git(
        repo.root,
        "commit-tree",
        empty_tree(repo),
        input=message.encode("utf-8"),
        env={**os.environ, **env},
    )
    return _text(proc.stdout)


def read_commit(repo: Repo, oid: str, limit: int = 8192) -> tuple[list[str], str] | None:
    """(header lines, message) of commit ``oid``; None when it is no commit (a tag is
    not peeled) or larger than ``limit`` bytes (a lease is a few hundred)."""
    proc = _git(repo.root, "cat-file", "-t", oid, check=False)
    if proc.returncode != 0 or _text(proc.stdout) != "commit":  # a tag would be peeled
        return None
    proc = _git(repo.root, "cat-file", "-s", oid, check=False)
    if proc.returncode != 0 or not _text(proc.stdout).isdigit() or int(proc.stdout) > limit:
        return None
    proc = _git(repo.root, "cat-file", "commit", oid, check=False)
    if proc.returncode != 0:
        return None
    head, sep, message = proc.stdout.partition(b"\n\n")
    if not sep:
        return None
    try:
        return head.decode("utf-8").split("\n"), message.decode("utf-8")
    except UnicodeDecodeError:
        return None


def push_cas(
    repo: Repo, remote: str, ref: str, new: str | None, expected: str | None
) -> PushOutcome:
    """Move ``ref`` on ``remote`` from ``expected`` (None: must not exist) to ``new``
    (None: delete it), atomically; raises when the remote cannot be reached."""
    lease = f"--force-with-lease={ref}:{expected or ''}"
    spec = f"{new}:{ref}" if new else f":{ref}"
    proc = _git(
        repo.root,
        *_QUIET,
        "push",
        "--atomic",
        "--porcelain",
        "--no-verify",
        lease,
        remote,
        spec,
        check=False,
    )
    return _push_outcome(remote, proc.returncode, proc.stdout, proc.stderr)


def push_branch(repo: Repo, remote: str, local: str, ref: str) -> PushOutcome:
    """Push commit ``local`` to ``ref`` on ``remote`` as a fast-forward (never forced)."""
    proc = _git(
        repo.root,
        *_QUIET,
        "push",
        "--porcelain",
        "--no-verify",
        remote,
        f"{local}:{ref}",
        check=False,
    )
    return _push_outcome(remote, proc.returncode, proc.stdout, proc.stderr)


# a rejection that is the server's verdict (its hook, its config), never a lost race
_REFUSED = ("hook declined", "denied", "deny", "shallow update not allowed")
_LOST = (
    "stale info",
    "fetch first",
    "non-fast-forward",
    "atomic transaction failed",
    "failed to lock",
    "failed to update ref",
    "already exists",
)


def _push_outcome(remote: str, code: int, out: bytes, err: bytes) -> PushOutcome:
    lines = [line for line in _text(out).splitlines() if line[:1] in ("!", " ", "*", "+", "-", "=")]
    status = next((line for line in lines if "\t" in line), None)
    if code == 0 and status is not None and not status.startswith("!"):
        return PushOutcome(True, False, "")
    if status is None:  # no per-ref line: the push never got to the refs
        raise _unreachable(remote, err, "push")
    reason = status.rsplit("\t", 1)[-1]
    told = [
        line.removeprefix("remote:").strip()
        for line in _text(err).splitlines()
        if line.startswith("remote:") and line.removeprefix("remote:").strip()
    ]
    ref = status.split("\t")[1].rpartition(":")[2] if status.count("\t") >= 2 else ""
    said = " ".join([line for line in told if ref and line.startswith(ref)] or told) or reason
    if any(word in reason for word in _REFUSED):
        return PushOutcome(False, False, said)
    # the ref moved under the lease (the server's lock, or the advertised value)
    return PushOutcome(False, any(word in reason for word in _LOST), said)


def cas_local(repo: Repo, ref: str, new: str | None, expected: str | None, message: str) -> bool:
    """``git update-ref`` CAS on this repository's refs (shared by its worktrees)."""
    zero = zero_oid(repo)
    return update_ref(repo, ref, new or zero, expected or zero, message) is None


def fetch_branch(repo: Repo, remote: str, ref: str) -> str | None:
    """Fetch ``ref`` from ``remote``; its commit id (objects here), or None when the remote
    has no such branch yet."""
    found = ls_remote(repo, remote, ref).get(ref)
    if found is None:
        return None
    if not has_object(repo, found):
        fetch_objects(repo, remote, [f"{ref}"])
    if not has_object(repo, found):  # it moved in between: what the fetch brought is newer
        again = ls_remote(repo, remote, ref).get(ref)
        fetch_objects(repo, remote, [ref])
        return again if again and has_object(repo, again) else None
    return found


def merge(repo: Repo, commit: str, message: str) -> tuple[bool, str]:
    """``git merge --no-edit`` of ``commit`` into the checked-out branch (the merge
    drivers run; the commit hooks do not: the caller guards the result). (merged, git's
    output when not)."""
    proc = _git(
        repo.root, *_QUIET, "merge", "--no-verify", "--no-edit", "-m", message, commit, check=False
    )
    return proc.returncode == 0, _text(proc.stdout + b"\n" + proc.stderr)


def merge_onto(repo: Repo, branch: str, tip: str, local: str, message: str) -> tuple[bool, str]:
    """Merge ``local`` into ``tip`` (so ``tip`` is the first parent: the remote's rows keep
    their IDs and the driver renumbers local ones), and point ``branch`` at the result.
    On a conflict the merge is undone and ``branch`` checked out again as it was."""
    before = _git(repo.root, "rev-parse", "HEAD").stdout.decode().strip()
    moved = _git(repo.root, *_QUIET, "checkout", "-q", "--detach", tip, check=False)
    if moved.returncode != 0:
        return False, _text(moved.stderr)
    proc = _git(
        repo.root, *_QUIET, "merge", "--no-verify", "--no-edit", "-m", message, local, check=False
    )
    if proc.returncode != 0:
        said = _text(proc.stdout + b"\n" + proc.stderr)
        _git(repo.root, "merge", "--abort", check=False)
        _git(repo.root, *_QUIET, "checkout", "-q", branch, check=False)
        return False, said
    new = _git(repo.root, "rev-parse", "HEAD").stdout.decode().strip()
    _git(repo.root, "update-ref", "-m", message, f"refs/heads/{branch}", new, before)
    _git(repo.root, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    return True, ""


def merge_in_progress(repo: Repo) -> bool:
    return _git(repo.root, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0


def is_ancestor(repo: Repo, old: str, new: str) -> bool:
    return _git(repo.root, "merge-base", "--is-ancestor", old, new, check=False).returncode == 0


def set_ref(repo: Repo, ref: str, oid: str | None) -> None:
    """Point ``ref`` at ``oid`` (None: delete it); best effort (a local mirror of what a
    remote holds: another process writing it at the same moment is as good)."""
    args = ("update-ref", "-d", ref) if oid is None else ("update-ref", ref, oid)
    _git(repo.root, *args, check=False)
