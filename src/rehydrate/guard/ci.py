"""Which commits a CI job judges, from the CI's own description of the event
(``rehydrate guard --ci github|gitlab``).

A CI recipe that writes ``before..sha`` breaks on real pushes: after a force-push the old
tip is not an ancestor and often not even fetched (git: ``Invalid revision range``), a new
branch's ``before`` is all zeros. ``plan`` turns an ``Event`` into a ``RangeSpec``:

* a pull or merge request: from the merge base of its base and head to the head;
* a merge queue group (``merge_group``): ``base_sha..head_sha``;
* a push that fast-forwards: ``before..after``;
* a new branch (zero ``before``): the commits on no other remote-tracking branch (a
  branch cut from main: its own commits; nothing to compare: its whole history);
* a forced push: the commits on neither the old tip nor another remote-tracking branch,
  and the old tip's ledgers against the new tip's, as the server does. When the old tip
  is not in the clone (the recipes fetch it; a host may have pruned it), nothing was
  compared, so nothing passes: exit 2 with the fix (fetch it, or ``fetch-depth: 0``),
  unless the new tip's own commit carries a ``Rehydrate-Waiver:`` trailer, which accepts
  that the old tip's rows go uncompared (the new commits are still judged).

Each plan carries notes for stderr saying what was chosen and why. Pure but for the git
reads of ``plan``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..errors import GitError, RehydrateError
from ..git import Repo, commit_exists, merge_base, ref_names
from ..readlimit import load_json
from ..records import NamedTuple
from .judge import ZERO
from .range import RangeSpec, is_ancestor
from .rules import FIXES

PROVIDERS = ("github", "gitlab")
EVENT_LIMIT = 8 * 1024 * 1024  # GitHub's event payloads are far smaller


class Event(NamedTuple):
    """One CI event, reduced to what the range needs."""

    name: str  # push | pull_request | merge_group | merge_request | delete
    new: str
    old: str | None = None  # push: the old tip (zeros: a new branch); requests: the base
    branch: str | None = None  # push: the branch name, to skip its own remote ref
    from_merge_base: bool = False  # requests: start at merge-base(old, new)


class Plan(NamedTuple):
    spec: RangeSpec | None  # None: nothing to check (a deleted branch)
    notes: tuple[str, ...]


def _usage(message: str, fix: str) -> RehydrateError:
    return RehydrateError(message, code="usage", fix=fix)


def _sha(value: object, what: str) -> str:
    text = value if isinstance(value, str) else ""
    if len(text) not in (40, 64) or any(c not in "0123456789abcdef" for c in text):
        raise _usage(f"{what} is not a commit id: {str(value)[:80]!r}", "run inside the CI job")
    return text


def _dig(payload: Mapping[str, object], *keys: str) -> object:
    node: object = payload
    for key in keys:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def github_event(environ: Mapping[str, str], read: Callable[[str], bytes]) -> Event:
    """The event of a GitHub Actions job: ``GITHUB_EVENT_NAME`` and the JSON payload at
    ``GITHUB_EVENT_PATH``."""
    name, path = environ.get("GITHUB_EVENT_NAME", ""), environ.get("GITHUB_EVENT_PATH", "")
    if not name or not path:
        raise _usage(
            "--ci github needs GITHUB_EVENT_NAME and GITHUB_EVENT_PATH",
            "run it in a GitHub Actions job, or pass --range A..B",
        )
    try:
        payload = load_json(read(path))
    except (OSError, ValueError) as exc:
        raise _usage(f"cannot read the event payload {path}: {exc}", "run inside the job") from exc
    if not isinstance(payload, dict):
        raise _usage(f"the event payload {path} is not a JSON object", "run inside the job")
    if name in ("pull_request", "pull_request_target"):
        base = _sha(_dig(payload, "pull_request", "base", "sha"), "pull_request.base.sha")
        head = _sha(_dig(payload, "pull_request", "head", "sha"), "pull_request.head.sha")
        return Event("pull_request", head, base, from_merge_base=True)
    if name == "merge_group":
        base = _sha(_dig(payload, "merge_group", "base_sha"), "merge_group.base_sha")
        head = _sha(_dig(payload, "merge_group", "head_sha"), "merge_group.head_sha")
        return Event("merge_group", head, base)
    if name == "push":
        ref = _dig(payload, "ref")
        branch = ref[len("refs/heads/") :] if isinstance(ref, str) else None
        if payload.get("deleted") is True:
            return Event("delete", "", None, branch)
        old = _sha(payload.get("before"), "before")
        return Event("push", _sha(payload.get("after"), "after"), old, branch)
    raise _usage(
        f"GitHub event {name!r} has no commit range",
        "run the guard on push, pull_request and merge_group, or pass --range A..B",
    )


def gitlab_event(environ: Mapping[str, str]) -> Event:
    """The event of a GitLab CI job: a merge request pipeline (its diff base) or a push
    (``CI_COMMIT_BEFORE_SHA``, all zeros for a new branch and for pipelines not made by
    a push)."""
    new = _sha(environ.get("CI_COMMIT_SHA"), "CI_COMMIT_SHA")
    base = environ.get("CI_MERGE_REQUEST_DIFF_BASE_SHA")
    if base:
        return Event("merge_request", new, _sha(base, "CI_MERGE_REQUEST_DIFF_BASE_SHA"), None, True)
    old = _sha(environ.get("CI_COMMIT_BEFORE_SHA", "0" * len(new)), "CI_COMMIT_BEFORE_SHA")
    return Event("push", new, old, environ.get("CI_COMMIT_BRANCH") or None)


def _exists(repo: Repo, sha: str) -> bool:
    return commit_exists(repo, sha)


def _need(repo: Repo, sha: str, what: str) -> str:
    if not _exists(repo, sha):
        raise GitError(
            f"{what} {sha[:12]} is not in this clone",
            code="history_missing",
            fix=FIXES["history_missing"],
        )
    return sha


def _tip_waiver(repo: Repo, new: str) -> str | None:
    """The ``Rehydrate-Waiver:`` trailer of the pushed commit itself, if any."""
    from ..git.changes import log_entries
    from .report import waiver

    entries = log_entries(repo, ["--max-count=1", new])
    return waiver(entries[-1].trailers) if entries else None


def _other_remote_tips(repo: Repo, branch: str | None) -> list[str]:
    """Remote-tracking refs other than the pushed branch's own (and ``*/HEAD``)."""
    out = []
    for ref in ref_names(repo, "refs/remotes/"):
        name = ref.split("/", 3)[3] if ref.count("/") >= 3 else ""
        if name == "HEAD" or (branch is not None and name == branch):
            continue
        out.append(ref)
    return out


def plan(repo: Repo, event: Event) -> Plan:
    """What to check for ``event``; a missing head or request base is exit 2 (fetch it)."""
    if event.name == "delete":
        return Plan(None, (f"push deleted {event.branch or 'a ref'}: nothing to check",))
    new = _need(repo, event.new, "the pushed commit")
    label = f"{event.name} {event.old[:12] if event.old else '-'} -> {new[:12]}"
    if event.from_merge_base:
        assert event.old is not None
        base = _need(repo, event.old, "the request's base")
        found = merge_base(repo, base, new)
        if found is None:
            return Plan(RangeSpec((new,)), (f"{label}: no merge base: the head's whole history",))
        return Plan(
            RangeSpec((new, "--not", found)),
            (f"{label}: from the merge base {found[:12]} to the head",),
        )
    old = event.old
    if event.name == "merge_group" and old is not None:
        _need(repo, old, "the merge group's base")
    others = _other_remote_tips(repo, event.branch)
    if old is None or old in ZERO:
        what = "other remote-tracking branch" if others else "ref (no other branch: all of it)"
        return Plan(
            RangeSpec((new, "--not", *others) if others else (new,)),
            (f"{label}: a new branch: its commits on no {what}",),
        )
    if not _exists(repo, old):
        waiver = _tip_waiver(repo, new)
        if waiver is None:
            raise GitError(
                f"the old tip {old[:12]} of this forced push is not in this clone, so its "
                "rows cannot be compared with the new tip's",
                code="old_tip_missing",
                fix=FIXES["old_tip_missing"].replace("<old tip>", old),
            )
        return Plan(
            RangeSpec((new, "--not", *others) if others else (new,)),
            (
                f"{label}: the old tip {old[:12]} is not in this clone (a forced push): "
                "judging the commits on no other remote-tracking branch; the old tip's "
                f"rows were NOT compared with the new tip's, waived by {new[:12]}'s "
                f"Rehydrate-Waiver: {waiver}",
            ),
        )
    if is_ancestor(repo, old, new):
        return Plan(RangeSpec((new, "--not", old)), (f"{label}: {old[:12]}..{new[:12]}",))
    return Plan(
        RangeSpec((new, "--not", old, *others), ((new, old),)),
        (
            f"{label}: a forced push: the new commits, and the old tip's ledgers against "
            "the new tip's",
        ),
    )


def ci_event(provider: str, environ: Mapping[str, str]) -> Event:
    if provider == "github":
        from ..readlimit import read_path

        return github_event(environ, lambda path: read_path(path, EVENT_LIMIT))
    if provider == "gitlab":
        return gitlab_event(environ)
    raise _usage(f"unknown CI {provider!r}", f"pass --ci {' or --ci '.join(PROVIDERS)}")
