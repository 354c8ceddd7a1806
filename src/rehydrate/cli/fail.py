"""``rehydrate fail add|retire|pending|dismiss``: record a failed attempt without hand-editing
the table, and settle the failed commands the agent hooks captured."""

from __future__ import annotations

from functools import partial

import click

from ..typecheck import TYPE_CHECKING
from ._write import retire_options, run_write, write_options

if TYPE_CHECKING:
    from typing import Unpack

    from ._write import WriteOptions


@click.group("fail")
def command() -> None:
    """Append to (or retire from) the failed-attempts ledger; settle captured failures."""


@command.command("add")
@click.option("--tried", required=True, help="What was tried (put the command in `backticks`).")
@click.option("--failure", required=True, help="How it failed.")
@click.option("--workaround", required=True, help="What to do instead.")
@write_options
def add(tried: str, failure: str, workaround: str, **opts: Unpack[WriteOptions]) -> int:
    """Append a failed attempt with the next free ID; print the ID."""
    from ..agents.outcomes import check_warning
    from ..writers.verbs import fail_add
    from ._common import note

    operation = fail_add(tried, failure, workaround)
    warning = check_warning(tried)
    if warning:
        note(warning)
    return run_write(operation, **opts)


@command.command("retire")
@retire_options
@write_options
def retire(
    item_id: str, reason: str, replaced_by: str, date: str | None, **opts: Unpack[WriteOptions]
) -> int:
    """Retire failed attempt ID with a reason (its row stays)."""
    from ..writers.verbs import retire_item

    build = partial(
        retire_item,
        kind="failures",
        item_id=item_id,
        reason=reason,
        replaced_by=replaced_by,
        date=date,
    )
    return run_write(build, **opts)


@command.command("pending", short_help="List captured failed commands not recorded yet.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def pending(as_json: bool) -> int:
    """List the failed commands captured by the agent hooks and not recorded yet."""
    from ..agents.captured import listing, unrecorded
    from ..agents.core import Project
    from ._common import emit_json, note, open_repo

    project = Project(*open_repo())
    left = unrecorded(project)
    if as_json:
        emit_json(
            {"schema": "rehydrate/pending-failures-v1", "failures": [p._asdict() for p in left]}
        )
    elif left:
        click.echo(listing(left, project.config.path_of("failures")))
    else:
        note("rehydrate: no captured failure is waiting to be recorded")
    return 0


@command.command("dismiss", short_help="Dismiss captured failures N... (or all).")
@click.argument("numbers", metavar="N...", nargs=-1, type=int)
@click.option("--all", "everything", is_flag=True, help="Dismiss every pending failure.")
def dismiss(numbers: tuple[int, ...], everything: bool) -> int:
    """Dismiss captured failures N... (`fail pending` lists them): they teach nothing."""
    from ..agents.captured import dismiss as drop
    from ..agents.core import Project
    from ..errors import RehydrateError
    from ._common import note, open_repo

    if bool(numbers) == everything:
        raise RehydrateError(
            "give the numbers of the failures to dismiss, or --all",
            code="usage",
            fix="rehydrate fail pending lists them; then rehydrate fail dismiss N",
        )
    dropped, missing = drop(Project(*open_repo()), None if everything else numbers)
    if missing:
        raise RehydrateError(
            f"no pending failure numbered {', '.join(map(str, missing))} (nothing dismissed)",
            code="not_found",
            fix="rehydrate fail pending lists the pending failures and their numbers",
        )
    for item in dropped:
        note(f"rehydrate: dismissed pending failure {item.number}: {item.command[:120]}")
    return 0
