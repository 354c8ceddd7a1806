"""``rehydrate verify FILE``: check a summary's resume manifest against the ledgers."""

from __future__ import annotations

from typing import BinaryIO

import click

from . import verdict
from ._common import emit_json, note, open_repo, pick_source, source_options
from ._record import record_option


@click.command("verify")
@click.argument("file", type=click.File("rb"))
@source_options()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@record_option
def command(file: BinaryIO, rev: str | None, worktree: bool, as_json: bool, record: bool) -> int:
    """Verify a compaction summary or restatement in both directions (exit 0 only when
    faithful and the ledgers are unchanged since its pins)."""
    from ..continuity.decision import shown
    from ..continuity.envelopes import sha256_digest
    from ..continuity.manifest import pins_of
    from ..continuity.verify import check_continuity, verify_source
    from ..errors import RehydrateError
    from ..readlimit import read_stream

    data = read_stream(file, file.name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RehydrateError(
            "the summary is not valid UTF-8",
            file=file.name,
            code="summary_invalid",
            fix="save it as UTF-8",
        ) from None
    repo, config = open_repo()
    verification, state = verify_source(repo, config, pick_source(rev, worktree), text)
    verdict(verification.exit_code)
    if as_json:
        emit_json(verification.to_json())
    else:
        click.echo(
            f"{verification.summary}, ledgers {verification.canonical_check}: {verification.action}"
        )
        for reason in verification.reasons:
            click.echo(
                "  " + " ".join(x for x in map(shown, (reason.code, reason.field, reason.id)) if x)
            )
    if (record or config.record_events) and state is not None:
        from ..continuity.trace import record_decision

        decision = check_continuity(state, verification=verification)
        record_decision(
            repo.root,
            decision,
            command="verify",
            pins=pins_of(state),
            checksum=state.checksum,
            summary_sha256=sha256_digest(data),
        )
    if any(r.code == "manifest_invalid" for r in verification.reasons):
        from ..continuity.manifest import extract_manifest

        detail = extract_manifest(text).detail
        if detail:
            note(f"{file.name}: manifest_invalid: the resume manifest is {detail}")
    if verification.action == "regenerate_summary":
        note(
            "the summary dropped or invented something: regenerate it from the ledgers "
            "(rehydrate manifest) before acting on it"
        )
    elif state is None:
        note("a ledger cannot be parsed: `rehydrate state` names the file, line and fix")
    elif verification.action == "restart_from_current":
        note(
            "the ledgers changed since the summary's pins: restart from the current ledgers "
            "(rehydrate prompt)"
        )
    return verification.exit_code
