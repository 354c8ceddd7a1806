"""``rehydrate check``: the continuity decision alone (CONTRACT §7), cheap enough for hooks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import BinaryIO

import click

from ..typecheck import TYPE_CHECKING
from . import verdict
from ._common import emit_json, note, open_repo, pick_source, source_options
from ._record import record_option

if TYPE_CHECKING:
    from ..config import Config
    from ..git import Repo


@click.command("check")
@source_options()
@click.option(
    "--envelope",
    type=click.File("rb"),
    default=None,
    help="A continuity envelope to check against the ledgers.",
)
@click.option(
    "--summary",
    type=click.File("rb"),
    default=None,
    help="The summary: its digest is checked against the envelope; without "
    "--envelope its resume manifest is verified.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@record_option
def command(
    rev: str | None,
    worktree: bool,
    envelope: BinaryIO | None,
    summary: BinaryIO | None,
    as_json: bool,
    record: bool,
) -> int:
    """Print the decision: reauthorization_required (0), blocked_on_reconciliation (3) or
    continuity_validation_failed (2). There is no 'authorized' result."""
    from ..continuity.decision import shown
    from ..continuity.verify import run_check
    from ..readlimit import read_stream

    repo, config = open_repo()
    outcome = run_check(
        repo,
        config,
        pick_source(rev, worktree),
        read_stream(envelope, envelope.name) if envelope else None,
        read_stream(summary, summary.name) if summary else None,
    )
    decision = outcome.decision
    error = outcome.error
    verdict(decision.exit_code)
    if as_json:
        extra = (
            {}
            if error is None
            else {
                "error": {
                    "code": error.code,
                    "file": error.file,
                    "line": error.line,
                    "id": shown(error.item_id),
                }
            }
        )
        emit_json(
            {
                "schema": "rehydrate/check-v1",
                **decision.to_json(),
                "checksum": outcome.checksum,
                "envelope_id": outcome.envelope_id,
                **extra,
            }
        )
    else:
        click.echo(decision.decision)
        for reason in decision.reasons:
            click.echo(
                "  "
                + " ".join(
                    x for x in map(shown, (reason.code, reason.path, reason.field, reason.id)) if x
                ),
                err=True,
            )
    if error is not None:
        from ..redact import redact

        note(redact(f"rehydrate: {error}"))
    if rev is None and not worktree:
        _note_uncommitted(repo, config, outcome.pins)
    if record or config.record_events:
        from ..continuity.trace import record_decision

        record_decision(
            repo.root,
            decision,
            command="check",
            pins=outcome.pins,
            checksum=outcome.checksum,
            envelope_id=outcome.envelope_id,
            summary_sha256=outcome.summary_sha256,
        )
    return decision.exit_code


def _note_uncommitted(repo: Repo, config: Config, pins: Mapping[str, object] | None) -> None:
    """Say so when the decision was taken on HEAD but the work tree holds newer ledgers.

    The blobs just read at HEAD are compared with the work tree; no second git read."""
    from ..errors import RehydrateError
    from ..git import read_worktree
    from ..state import uncommitted_ledgers

    try:
        committed = pins["ledgers"] if pins else None  # path -> blob id, as pinned
        if isinstance(committed, Mapping):
            current = read_worktree(repo, list(committed))
            differ = [p for p, blob in committed.items() if current[p].blob != blob]
        else:  # the ledgers at HEAD could not be read: ask git
            differ = uncommitted_ledgers(repo, config)
    except RehydrateError:
        return
    if differ:
        note(
            f"note: decided on HEAD; the work tree's {', '.join(differ)} differ from it "
            "(uncommitted). `rehydrate check --worktree` includes them; commit them."
        )
