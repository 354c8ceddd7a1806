"""``rehydrate guard``: refuse non-monotone ledger changes (hook, CI range, pre-receive).

The hook runs on every commit, so the common case (no ledger staged) is answered
with one ``git diff-index`` and nothing heavier than click, git.py and config.py
imported; the rules (``rehydrate.guard``) load only when a ledger changed.
"""

from __future__ import annotations

import os
import sys

import click

_ZERO = frozenset({"0" * 40, "0" * 64})


@click.command("guard")
@click.option("--staged", is_flag=True, help="Check the index against HEAD (the default; "
              "what the pre-commit hook runs).")
@click.option("--range", "range_", metavar="A..B", default=None,
              help="Check every commit in A..B against each of its parents (CI).")
@click.option("--pre-receive", "pre_receive", is_flag=True,
              help="Read '<old> <new> <ref>' lines on stdin (a server-side pre-receive hook).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def command(staged: bool, range_: str | None, pre_receive: bool, as_json: bool) -> int:
    """Refuse ledger changes that delete, weaken or rewrite (exit 1); see docs/guard.md."""
    from ..config import load_config
    from ..errors import RehydrateError
    from ..git import GitError, find_bare_repo, find_repo

    if staged + (range_ is not None) + pre_receive > 1:
        raise RehydrateError("choose one of --staged, --range, --pre-receive", code="usage",
                             fix="pass at most one mode")
    if range_ is not None and (not range_.strip() or range_.startswith("-")):
        raise RehydrateError(f"invalid range {range_!r}", code="usage",
                             fix="pass --range A..B (two revisions)")
    try:
        repo = find_repo()
    except GitError:
        repo = find_bare_repo()  # a server: settings from a .rehydrate.toml in the git dir
    if staged or not (range_ or pre_receive or os.environ.get("PRE_COMMIT_TO_REF")):
        return _staged(repo, as_json)  # settings as staged and as in HEAD, not the work tree
    config = load_config(repo.root)
    from_ref = os.environ.get("PRE_COMMIT_FROM_REF")
    to_ref = os.environ.get("PRE_COMMIT_TO_REF")
    if not (staged or range_ or pre_receive) and from_ref and to_ref:
        if from_ref.startswith("-") or to_ref.startswith("-"):
            raise RehydrateError("invalid PRE_COMMIT_FROM_REF / PRE_COMMIT_TO_REF",
                                 code="usage", fix="set them to commit ids")
        revs = ([to_ref, "--not", "--remotes"] if from_ref in _ZERO
                else [f"{from_ref}..{to_ref}"])
        return _finish(_range(repo, config, revs), as_json)
    if range_ is not None:
        return _finish(_range(repo, config, [range_]), as_json)
    if pre_receive:
        from ..guard_git import check_pre_receive
        from ..readlimit import read_text_stream

        lines = read_text_stream(sys.stdin, "stdin").splitlines()
        return _finish(check_pre_receive(repo, config, lines), as_json)
    return _staged(repo, as_json)


def _range(repo: object, config: object, revs: list[str]) -> object:
    from ..guard_git import check_range

    return check_range(repo, config, revs)  # an unknown revision is a GitError: exit 2


def _staged(repo: object, as_json: bool) -> int:
    """The index against HEAD, with the settings as staged (the work tree's settings file
    could point the guard elsewhere) and a settings change itself judged too."""
    from ..config import settings_changed, staged_settings
    from ..git import Repo, head, tree_entries
    from ..git_changes import diff_cached_head, merge_heads

    assert isinstance(repo, Repo)
    old_config, config = staged_settings(repo)
    paths = list(config.paths.values())
    extra = []
    if settings_changed(old_config, config):
        from ..guard_git import settings_violations

        old_paths = list(old_config.paths.values())
        had = bool(tree_entries(repo, "HEAD", old_paths)) if head(repo) else False
        extra = settings_violations(old_config, config, had)
    first = diff_cached_head(repo, paths)
    if extra:
        from ..guard_git import check_staged

        return _finish(check_staged(repo, config, first, old_config=old_config, extra=extra),
                       as_json)
    if not first[1] and not merge_heads(repo):
        if as_json:
            click.echo('{"schema": "rehydrate/guard-v1", "ok": true, "violations": [], '
                       '"waived": [], "checked": {"mode": "staged", "ledgers": [], '
                       '"commits": 0}}')
        return 0
    from ..guard_git import check_staged

    return _finish(check_staged(repo, config, first, old_config=old_config), as_json)


def _finish(report: object, as_json: bool) -> int:
    from ..guard_git import GuardReport
    from ._common import emit_json, note

    assert isinstance(report, GuardReport)
    for waived in report.waived:
        note(f"waived: commit {waived.commit[:12]} (Rehydrate-Waiver: {waived.reason})")
        for violation in waived.violations:
            note(f"  {violation}")
    for violation in report.violations:
        note(str(violation))
    if as_json:
        emit_json(report.to_json())
    if report.violations:
        note(f"rehydrate guard: refused ({len(report.violations)} violation"
             f"{'s' if len(report.violations) != 1 else ''}; see docs/guard.md)")
        return 1
    return 0
