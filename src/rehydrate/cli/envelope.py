"""``rehydrate envelope create``: a continuity envelope before a compaction or reset."""

from __future__ import annotations

from typing import BinaryIO

import click

from ..errors import EXIT_OK
from ._common import (
    choice_option,
    emit_json,
    note,
    open_repo,
    output_option,
    pick_source,
    source_options,
)
from ._record import record_option


@click.group("envelope")
def command() -> None:
    """Continuity envelopes (rehydrate/continuity-envelope-v1)."""


@command.command(
    "create", short_help="Write a continuity envelope: pins, checksum, pending writes."
)
@source_options()
@choice_option(
    "--reset-reason",
    choices=["context_compaction", "context_reset", "process_restart", "handoff"],
    default="context_compaction",
    help="Why the context is reset.",
)
@click.option(
    "--summary", type=click.File("rb"), default=None, help="The summary to bind by its sha256."
)
@output_option()
@record_option
def create(
    rev: str | None,
    worktree: bool,
    reset_reason: str,
    summary: BinaryIO | None,
    output: str | None,
    record: bool,
) -> int:
    """Write an envelope: pins, checksum, summary digest, pending obligations, unknown writes,
    consumed approvals. Its id is derived from its content."""
    from ..continuity.verify import write_envelope
    from ..readlimit import read_stream

    repo, config = open_repo()
    envelope = write_envelope(
        repo,
        config,
        pick_source(rev, worktree),
        reset_reason,
        read_stream(summary, summary.name) if summary else None,
        output,
        record=record or config.record_events,
        command="envelope create",
    )
    if output:
        note(f"wrote {output} ({envelope['envelope_id']})")
    else:
        emit_json(envelope)
    return EXIT_OK
