"""Which check a ``rehydrate guard`` run asks for, and running it: the staged index (the
pre-commit hook), a CI range, the pre-commit framework's pre-push stage, or a server's
pre-receive lines.

The hook runs on every commit, so the common case (no ledger staged, no merge) is
answered from one ``git diff-index`` with nothing heavier than config and git imported;
the rules load only when a ledger changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .. import git
from ..errors import GitError, RehydrateError
from ..records import NamedTuple
from .report import GuardReport

STAGED, RANGE, PRE_PUSH, PRE_RECEIVE, CI = "staged", "range", "pre-push", "pre-receive", "ci"
_ZERO = frozenset({"0" * 40, "0" * 64})


class Request(NamedTuple):
    """One guard run: its mode and, for a range or pre-push, its two ends."""

    mode: str
    spec: str | None = None  # A..B for RANGE; the provider for CI
    from_ref: str | None = None  # PRE_PUSH
    to_ref: str | None = None


def request(
    staged: bool,
    range_: str | None,
    pre_receive: bool,
    environ: Mapping[str, str],
    *,
    ci: str | None = None,
) -> Request:
    """The run the options ask for; a bad combination is a usage error naming the fix."""
    if staged + (range_ is not None) + pre_receive + (ci is not None) > 1:
        raise RehydrateError(
            "choose one of --staged, --range, --ci, --pre-receive",
            code="usage",
            fix="pass at most one mode",
        )
    if ci is not None:
        return Request(CI, ci)
    if range_ is not None:
        if not range_.strip() or range_.startswith("-"):
            raise RehydrateError(
                f"invalid range {range_!r}", code="usage", fix="pass --range A..B (two revisions)"
            )
        return Request(RANGE, range_)
    if pre_receive:
        return Request(PRE_RECEIVE)
    from_ref, to_ref = environ.get("PRE_COMMIT_FROM_REF"), environ.get("PRE_COMMIT_TO_REF")
    if not staged and from_ref and to_ref:
        if from_ref.startswith("-") or to_ref.startswith("-"):
            raise RehydrateError(
                "invalid PRE_COMMIT_FROM_REF / PRE_COMMIT_TO_REF",
                code="usage",
                fix="set them to commit ids",
            )
        return Request(PRE_PUSH, from_ref=from_ref, to_ref=to_ref)
    return Request(STAGED)


def open_repo() -> git.Repo:
    """The work tree's repository, or a bare one (a server: settings from its git dir)."""
    try:
        return git.find_repo()
    except GitError:
        return git.find_bare_repo()


def run(
    repo: git.Repo,
    req: Request,
    read_stdin: Callable[[], str],
    environ: Mapping[str, str] | None = None,
) -> GuardReport:
    """Run the requested check; ``read_stdin`` is called for pre-receive only, ``environ``
    read for CI only."""
    if req.mode == PRE_PUSH:
        from .range import RangeSpec, check_range, resolve_range

        assert req.from_ref is not None and req.to_ref is not None
        spec = (
            RangeSpec((req.to_ref, "--not", "--remotes"))
            if req.from_ref in _ZERO
            else resolve_range(repo, f"{req.from_ref}..{req.to_ref}")
        )
        return check_range(repo, spec)
    if req.mode == RANGE:
        from .range import check_range, resolve_range

        assert req.spec is not None
        return check_range(repo, resolve_range(repo, req.spec))
    if req.mode == CI:
        from .ci import ci_event, plan
        from .range import check_range_at
        from .report import GuardReport

        assert req.spec is not None
        chosen = plan(repo, ci_event(req.spec, environ or {}))
        if chosen.spec is None:
            return GuardReport(RANGE, notes=chosen.notes)
        from .unjudged import unjudged

        new = chosen.spec.revs[0]
        report, config = check_range_at(repo, chosen.spec, new, mode=RANGE)
        found = unjudged(repo, "the CI commit", new, config)
        return report.with_notes((*chosen.notes, *found))
    if req.mode == PRE_RECEIVE:
        from .receive import check_pre_receive

        return check_pre_receive(repo, read_stdin().splitlines())
    return staged(repo)


def staged(repo: git.Repo) -> GuardReport:
    """The index against HEAD, with the settings as staged (the work tree's settings file
    could point the guard elsewhere) and a settings change itself judged too."""
    from ..config import settings_changed, staged_settings
    from ..git.changes import diff_cached_head, merge_heads

    old_config, config = staged_settings(repo)
    paths = list(config.paths.values())
    extra = []
    changed = settings_changed(old_config, config)  # once: check_staged is told, not asks
    if changed:
        from .staged import settings_violations

        old_paths = list(old_config.paths.values())
        had = bool(git.tree_entries(repo, "HEAD", old_paths)) if git.head(repo) else False
        extra = settings_violations(old_config, config, had)
    first = diff_cached_head(repo, paths)
    if not extra and not first[1] and not merge_heads(repo):
        return GuardReport(STAGED)
    from .staged import check_staged

    before = old_config if changed else None
    return check_staged(repo, config, first, old_config=before, extra=extra)
