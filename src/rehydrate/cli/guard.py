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


_HELP = """Refuse ledger changes that delete, weaken or rewrite (exit 1).

\b
Modes (one at a time):
  --staged        the index against HEAD (the default; the pre-commit hook)
  --range A..B    every commit of B not in A against each of its parents; when B
                  does not descend from A (a force-push, rebase, amend), also A's
                  ledgers against B's. `--range B` checks B's whole history; an
                  all-zero A (a new branch) too.
  --pre-receive   '<old> <new> <ref>' lines on stdin (a server hook): each ref's
                  new commits, a forced update's old tip against its new tip; a
                  protected branch (the default branch, git config
                  rehydrate.protectedBranch) cannot be deleted; refs/replace/* is
                  refused.

\b
What to do about a refusal: each line names the file, the item, the rule and
the fix. To take an item out of force, retire it under `## Retired` with a
reason (its row stays). A commit that must break a rule on purpose carries a
'Rehydrate-Waiver: <reason>' trailer: the range and server checks report it as
waived (that commit only); the local hook never honours it.

Exit codes: 0 pass, 1 refused, 2 bad arguments or a repository the guard cannot
read (a shallow clone that lacks the history: fetch it in full).
"""


@click.command(
    "guard", help=_HELP, short_help="Refuse ledger changes that delete, weaken or rewrite (exit 1)."
)
@click.option(
    "--staged",
    is_flag=True,
    help="Check the index against HEAD (the default; what the pre-commit hook runs).",
)
@click.option(
    "--range",
    "range_",
    metavar="A..B",
    default=None,
    help="Check every commit in A..B against each of its parents, and A against B "
    "when B does not descend from A (CI).",
)
@click.option(
    "--pre-receive",
    "pre_receive",
    is_flag=True,
    help="Read '<old> <new> <ref>' lines on stdin (a server-side pre-receive hook).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def command(staged: bool, range_: str | None, pre_receive: bool, as_json: bool) -> int:
    from ..errors import RehydrateError
    from ..git import GitError, find_bare_repo, find_repo

    if staged + (range_ is not None) + pre_receive > 1:
        raise RehydrateError(
            "choose one of --staged, --range, --pre-receive",
            code="usage",
            fix="pass at most one mode",
        )
    if range_ is not None and (not range_.strip() or range_.startswith("-")):
        raise RehydrateError(
            f"invalid range {range_!r}", code="usage", fix="pass --range A..B (two revisions)"
        )
    try:
        repo = find_repo()
    except GitError:
        repo = find_bare_repo()  # a server: settings from a .rehydrate.toml in the git dir
    from_ref = os.environ.get("PRE_COMMIT_FROM_REF")
    to_ref = os.environ.get("PRE_COMMIT_TO_REF")
    if not (staged or range_ or pre_receive) and from_ref and to_ref:
        # the pre-commit framework's pre-push stage
        if from_ref.startswith("-") or to_ref.startswith("-"):
            raise RehydrateError(
                "invalid PRE_COMMIT_FROM_REF / PRE_COMMIT_TO_REF",
                code="usage",
                fix="set them to commit ids",
            )
        from ..guard.range import RangeSpec, check_range, resolve_range

        spec = (
            RangeSpec((to_ref, "--not", "--remotes"))
            if from_ref in _ZERO
            else resolve_range(repo, f"{from_ref}..{to_ref}")
        )
        return _finish(check_range(repo, spec), as_json)
    if range_ is not None:
        from ..guard.range import check_range, resolve_range

        return _finish(check_range(repo, resolve_range(repo, range_)), as_json)
    if pre_receive:
        from ..guard.receive import check_pre_receive
        from ..readlimit import read_text_stream

        lines = read_text_stream(sys.stdin, "stdin").splitlines()
        return _finish(check_pre_receive(repo, lines), as_json)
    return _staged(repo, as_json)


def _staged(repo: object, as_json: bool) -> int:
    """The index against HEAD, with the settings as staged (the work tree's settings file
    could point the guard elsewhere) and a settings change itself judged too."""
    from ..config import settings_changed, staged_settings
    from ..git import Repo, head, tree_entries
    from ..git.changes import diff_cached_head, merge_heads

    assert isinstance(repo, Repo)
    old_config, config = staged_settings(repo)
    paths = list(config.paths.values())
    extra = []
    if settings_changed(old_config, config):
        from ..guard.staged import settings_violations

        old_paths = list(old_config.paths.values())
        had = bool(tree_entries(repo, "HEAD", old_paths)) if head(repo) else False
        extra = settings_violations(old_config, config, had)
    first = diff_cached_head(repo, paths)
    if extra:
        from ..guard.staged import check_staged

        return _finish(
            check_staged(repo, config, first, old_config=old_config, extra=extra), as_json
        )
    if not first[1] and not merge_heads(repo):
        if as_json:
            click.echo(
                '{"schema": "rehydrate/guard-v1", "ok": true, "violations": [], '
                '"waived": [], "checked": {"mode": "staged", "ledgers": [], '
                '"commits": 0}}'
            )
        return 0
    from ..guard.staged import check_staged

    return _finish(check_staged(repo, config, first, old_config=old_config), as_json)


def _finish(report: object, as_json: bool) -> int:
    from ..errors import EXIT_OK, EXIT_REFUSED
    from ..guard.staged import GuardReport
    from . import verdict
    from ._common import emit_json, note

    assert isinstance(report, GuardReport)
    code = verdict(EXIT_REFUSED if report.violations else EXIT_OK)
    for waived in report.waived:
        note(f"waived: commit {waived.commit[:12]} (Rehydrate-Waiver: {waived.reason})")
        for violation in waived.violations:
            note(f"  {violation}")
    for violation in report.violations:
        note(str(violation))
    if as_json:
        emit_json(report.to_json())
    if report.violations:
        if report.mode != "staged":
            from ..guard.range import REWRITE_HINT

            note(REWRITE_HINT)
        note(
            f"rehydrate guard: refused ({len(report.violations)} violation"
            f"{'s' if len(report.violations) != 1 else ''}; see `rehydrate guard --help`)"
        )
    return code
