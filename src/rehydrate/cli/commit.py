"""``rehydrate commit``: every uncommitted ledger change in one commit, named item by item."""

from __future__ import annotations

import click

from ..errors import EXIT_OK
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..diff import LedgerDiff

_SUBJECT_MAX = 72


@click.command("commit")
@click.option("-m", "--message", help="The commit's subject (default: what changed, in short).")
def command(message: str | None) -> int:
    """Commit the ledgers' uncommitted changes together, the guard hook running as usual.

    Writers run without --commit, then one `rehydrate commit`: a task set up in six
    writes is one commit whose body lists each item moved, as `rehydrate diff` shows it.
    Only the ledgers are committed; other staged work stays staged.
    """
    from ..diff import diff_sources
    from ..errors import GitError
    from ..git import changes as git_changes
    from ..state import Source
    from ._common import note, open_repo
    from .diff import render

    repo, config = open_repo()
    diffs = diff_sources(repo, config, Source("rev", "HEAD"), Source("worktree"))
    changed = [d for d in diffs if not d.empty]
    if not changed:
        note("nothing to commit: the ledgers are as HEAD has them")
        return EXIT_OK
    body = render(changed, "HEAD", "work tree").split("\n", 1)[1].strip("\n")
    subject = message.strip() if message and message.strip() else _subject(changed)
    paths = [d.path for d in changed]
    try:
        made = git_changes.commit_paths(repo, paths, f"{subject}\n\n{body}\n")
    except GitError as exc:
        if exc.code != "commit_failed":
            raise
        raise GitError(
            exc.message.replace("the ledger was written but the commit failed", "not committed"),
            file=exc.file,
            code=exc.code,
            fix="nothing was committed and the ledgers are as they were; `rehydrate guard "
            "--staged` names every refusal (the ledgers are staged): mend them, then run "
            "`rehydrate commit` again",
        ) from None
    click.echo(made)
    note(f"committed {', '.join(d.path for d in changed)} as {made[:12]}")
    return EXIT_OK


def _subject(changed: list[LedgerDiff]) -> str:
    ids = [c.item_id for d in changed for c in d.items]
    if any(d.next_action for d in changed):
        ids.append("the next action")
    what = ", ".join(ids) if ids else ", ".join(d.path for d in changed)
    subject = f"rehydrate: record {what}"
    return subject if len(subject) <= _SUBJECT_MAX else subject[: _SUBJECT_MAX - 1] + "…"
