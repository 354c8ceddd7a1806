"""``rehydrate summary propose|promote|show``: two-phase, compare-and-swap summary promotion."""

from __future__ import annotations

from typing import BinaryIO

import click

from ..errors import EXIT_OK, EXIT_REFUSED
from ._common import emit_json, json_option, note, open_repo


@click.group("summary")
def command() -> None:
    """Compaction summaries kept as git blobs under refs/rehydrate/summaries/."""


@command.command("propose", short_help="Store FILE as a candidate summary; print its id.")
@click.argument("file", type=click.File("rb"))
def propose(file: BinaryIO) -> int:
    """Store FILE as a candidate summary and print its id (nothing is promoted yet)."""
    from ..continuity.summaries import candidate_ref
    from ..continuity.summaries import propose as store
    from ..readlimit import read_stream

    repo, _ = open_repo()
    blob = store(repo, read_stream(file, file.name))
    click.echo(blob)
    note(
        f"candidate stored as {candidate_ref(blob)}; promote it with: "
        f"rehydrate summary promote {blob} --expect <current id or none>"
    )
    return EXIT_OK


@command.command("promote", short_help="Verify CANDIDATE, then make it the current summary.")
@click.argument("candidate")
@click.option(
    "--expect",
    required=True,
    metavar="CURRENT",
    help="The current summary id you verified against, or 'none' for the first.",
)
@json_option()
def promote(candidate: str, expect: str, as_json: bool) -> int:
    """Verify CANDIDATE against HEAD, then move the current summary ref with a
    compare-and-swap; a failed verification keeps the candidate under rejected/."""
    from ..continuity.summaries import CURRENT, rejected_ref
    from ..continuity.summaries import promote as run

    repo, config = open_repo()
    result = run(repo, config, candidate, expect)
    if as_json:
        emit_json(
            {
                "schema": "rehydrate/summary-promotion-v1",
                "outcome": result.outcome,
                "candidate": result.candidate,
                "previous": result.previous,
                "verification": result.verification.to_json(),
            }
        )
    else:
        click.echo(f"{result.outcome} {result.candidate}")
    if result.outcome == "promoted":
        note(f"{CURRENT} -> {result.candidate}")
        return EXIT_OK
    from ..continuity.decision import shown

    for reason in result.verification.reasons:
        note("  " + " ".join(x for x in map(shown, (reason.code, reason.field, reason.id)) if x))
    note(
        f"verification failed ({result.verification.action}); current summary untouched; "
        f"candidate kept as {rejected_ref(result.candidate)}"
    )
    return EXIT_REFUSED


@command.command("show")
@click.argument("which", default="current")
@click.option("--id", "only_id", is_flag=True, help="Print the summary's id only.")
def show(which: str, only_id: bool) -> int:
    """Print the current summary (or a candidate / rejected one by id)."""
    from ..continuity.summaries import show as read

    repo, _ = open_repo()
    blob, data = read(repo, which)
    if only_id:
        click.echo(blob)
    else:
        click.echo(data.decode("utf-8", "replace"), nl=False)
    return EXIT_OK
