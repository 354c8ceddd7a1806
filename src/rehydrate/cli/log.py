"""``rehydrate log``: the ledgers' semantic history, commit by commit."""

from __future__ import annotations

from collections.abc import Sequence

import click

from ..errors import EXIT_OK
from ..typecheck import TYPE_CHECKING
from ._common import emit_json, note, open_repo

if TYPE_CHECKING:
    from ..views.log import Entry


@click.command("log")
@click.argument("rev_range", metavar="[REV_RANGE]", required=False)
@click.option(
    "-n",
    "--max-count",
    type=click.IntRange(min=1),
    metavar="N",
    help="Show only the newest N commits that changed the ledgers.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one rehydrate/log-v1 object.")
def command(rev_range: str | None, max_count: int | None, as_json: bool) -> int:
    """What each commit did to the ledgers: items added, retired, strengthened, moved.

    REV_RANGE is anything `git log` takes as one argument (`main`, `A..B`, `HEAD~5..`);
    the default is the whole history of HEAD. Built on the semantic diff, item by item,
    never on text diffs; ledger paths and aliases come from the work tree's configuration.
    """
    from ..errors import RehydrateError
    from ..views.log import history_to_json, ledger_history

    if rev_range is not None and (not rev_range.strip() or rev_range.startswith("-")):
        raise RehydrateError(
            f"invalid revision range {rev_range!r}",
            code="usage",
            fix="name a revision or a range such as A..B",
        )
    repo, config = open_repo()
    revs = [rev_range or "HEAD"]
    entries = ledger_history(repo, config, revs)
    if max_count is not None:
        entries = entries[-max_count:]  # oldest first: the newest N are the tail
    if as_json:
        emit_json(history_to_json(entries, revs))
    elif entries:
        from ..terminal import printable

        click.echo(printable(render(entries)))
    if not entries:
        note("no commit in this range changed the ledgers")
    return EXIT_OK


def render(entries: Sequence[Entry]) -> str:
    """Newest first, like `git log`: a header line per commit, one line per event."""
    from ..views.log import event_line

    blocks = []
    for entry in reversed(entries):
        lines = [f"{entry.commit[:12]}  {entry.date[:10]}  {entry.author}  {entry.subject}"]
        lines += [f"  {event_line(event)}" for event in entry.events]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
