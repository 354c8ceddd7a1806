"""``rehydrate guard``: refuse non-monotone ledger changes (hook, CI range, pre-receive).

Thin: the options become a ``guard.modes.Request``, ``guard.modes.run`` checks, and
this module prints the report (refusals on stderr, ``--json`` on stdout) and picks
the exit code.
"""

from __future__ import annotations

import os
import sys

import click

from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..guard.report import GuardReport


_HELP = """Refuse ledger changes that delete, weaken or rewrite (exit 1).

\b
Modes (one at a time):
  --staged        the index against HEAD (the default; the pre-commit hook)
  --range A..B    every commit of B not in A against each of its parents; when B
                  does not descend from A (a force-push, rebase, amend), also A's
                  ledgers against B's. `--range B` checks B's whole history; an
                  all-zero A (a new branch) too.
  --ci github|gitlab
                  the range of the CI job's event: a push (before..after; a
                  forced push: the new commits and the old tip against the new),
                  a new branch (its commits on no other remote branch), a pull or
                  merge request (from the merge base), a merge queue group.
  --pre-receive   '<old> <new> <ref>' lines on stdin (a server hook): each ref's
                  new commits, a forced update's old tip against its new tip (a
                  rebase's renumbered rows pass); a protected branch (the default
                  branch, git config rehydrate.protectedBranch) cannot be deleted,
                  another deleted branch's tip is kept under refs/rehydrate/deleted/
                  and a branch created again is judged against it; refs/replace/*
                  and refs/rehydrate/* are refused; a tip with no ledger at the
                  paths in force is a warning on stderr.

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
@click.option(
    "--ci",
    type=click.Choice(["github", "gitlab"]),
    default=None,
    help="Work out the range from the CI job's event (push, forced push, new branch, "
    "pull/merge request, merge queue) and check it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def command(
    staged: bool, range_: str | None, pre_receive: bool, ci: str | None, as_json: bool
) -> int:
    from ..guard import modes

    req = modes.request(staged, range_, pre_receive, os.environ, ci=ci)
    return _finish(modes.run(modes.open_repo(), req, _read_stdin, os.environ), as_json)


def _read_stdin() -> str:
    from ..readlimit import read_text_stream

    return read_text_stream(sys.stdin, "stdin")


def _finish(report: GuardReport, as_json: bool) -> int:
    from ..errors import EXIT_OK, EXIT_REFUSED
    from . import verdict
    from ._common import emit_json, note

    code = verdict(EXIT_REFUSED if report.violations else EXIT_OK)
    for line in report.notes:
        note(f"rehydrate guard: {line}")
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
