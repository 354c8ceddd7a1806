"""``rehydrate merge …``: finish a merge whose ledgers conflict (``merge resolve``)."""

from __future__ import annotations

import click

from ..errors import EXIT_OK
from ._common import json_option


@click.group("merge")
def group() -> None:
    """Finish a merge whose ledgers conflict (the driver itself is `merge-driver`)."""


@group.command("resolve", short_help="Keep one side of conflict ID; record the other.")
@click.argument("target", metavar="ID")
@click.option(
    "--take",
    type=click.Choice(["ours", "theirs"]),
    required=True,
    help="The side whose version stays; the other is recorded, never dropped.",
)
@click.option(
    "--ledger",
    "kind",
    type=click.Choice(["spec", "task", "failures"]),
    default=None,
    help="The ledger holding ID (default: the one unmerged ledger where it conflicts).",
)
@click.option(
    "--date",
    default=None,
    metavar="YYYY-MM-DD",
    help="Date of the copy's retirement (default: today, UTC).",
)
@json_option()
def resolve(target: str, take: str, kind: str | None, date: str | None, as_json: bool) -> int:
    """Resolve conflict ID of a stopped `git merge` by keeping one side's version.

    ID is an item the merge driver reported as CONFLICT, or `next-action` / `objective`
    (Task.md). The other side's version is recorded: an item's row is copied under a new
    ID and retired with `Replaced by` ID, and a question naming both is added (an open
    decision in Spec.md, an unknown external write for a write, else an open
    obligation); a next action or objective is quoted in an open obligation. The ledger
    is written atomically, and staged once no conflict is left in it; then `git commit`.
    Prints the question's ID.
    """
    from ..merge.session import check_target
    from ..merge.session import resolve as run
    from ._common import emit_json, note, open_repo

    repo, config = open_repo()
    outcome = run(repo, config, check_target(target), take, kind=kind, date=_date(date))
    recorded = outcome.recorded
    if as_json:
        emit_json(outcome.to_json())
    else:
        click.echo(recorded.question)
    kept, other = recorded.sides
    note(f"rehydrate: {outcome.path}: {target}: kept {take} ({kept}): {recorded.kept}")
    if recorded.copy:
        note(
            f"rehydrate: {outcome.path}: {recorded.copy}: {other}'s version ({recorded.other}), "
            f"retired, replaced by {target}"
        )
    note(f"rehydrate: {outcome.path}: {recorded.question}: {recorded.question_text}")
    if outcome.remaining:
        ids = ", ".join(sorted({c.item_id or c.code for c in outcome.remaining}))
        note(
            f"rehydrate: {outcome.path}: {len(outcome.remaining)} conflict(s) left ({ids}); "
            "resolve each with `rehydrate merge resolve ID --take ours|theirs`"
        )
    else:
        note(f"rehydrate: {outcome.path}: resolved and staged; finish with `git commit`")
    return EXIT_OK


def _date(value: str | None) -> str | None:
    from datetime import datetime

    from ..errors import RehydrateError

    if value is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").strftime("%Y-%m-%d")
    except ValueError:
        raise RehydrateError(
            f"--date {value[:20]!r} is not a date", code="usage", fix="pass --date YYYY-MM-DD"
        ) from None
