"""``rehydrate manifest``: the resume manifest a compactor embeds in its summary."""

from __future__ import annotations

import click

from ..errors import EXIT_OK
from ._common import choice_option, open_repo, output_option, pick_source, source_options


@click.command("manifest")
@source_options()
@choice_option(
    "--format",
    "fmt",
    choices=["yaml", "json"],
    default="yaml",
    help="Serialisation of the manifest.",
)
@click.option(
    "--fenced",
    is_flag=True,
    help="Wrap it in a ```resume-manifest block, ready to paste into a summary.",
)
@output_option()
def command(rev: str | None, worktree: bool, fmt: str, fenced: bool, output: str | None) -> int:
    """Emit the resume manifest (rehydrate/resume-manifest-v1): IDs, statuses, pins, checksum."""
    from ..continuity.manifest import FENCE_INFO, build_manifest, dump_manifest
    from ..state import load_state

    repo, config = open_repo()
    state = load_state(repo, config, pick_source(rev, worktree))
    text = dump_manifest(build_manifest(state), fmt)
    if fenced:
        text = f"```{FENCE_INFO}\n{text}```\n"
    if output:
        from pathlib import Path

        from ..ledgers.atomicfile import atomic_write

        atomic_write(Path(output), text.encode("utf-8"))
    else:
        click.echo(text, nl=False)
    return EXIT_OK
