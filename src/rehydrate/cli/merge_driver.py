"""``rehydrate merge-driver %O %A %B %P``: git's merge driver for the three ledgers."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("merge-driver")
@click.argument("base", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("path")
@click.option(
    "--marker-size",
    type=click.IntRange(3, 100),
    default=7,
    show_default=True,
    help="Length of conflict markers (git's %L).",
)
def command(base: Path, ours: Path, theirs: Path, path: str, marker_size: int) -> int:
    """Merge a ledger semantically: git passes %O %A %B %P; the result is written into %A.

    Exit 0 when merged cleanly; 1 on a conflict (the file keeps conflict markers and each
    conflicting ID is named on stderr). `rehydrate init` and `rehydrate hook install`
    register it in .gitattributes and the repository's git config.
    """
    from ..merge.driver import run_driver
    from ._common import note

    outcome = run_driver(base, ours, theirs, path, marker_size=marker_size)
    for message in outcome.messages:
        note(message)
    return outcome.code
