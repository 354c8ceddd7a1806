"""``rehydrate fail add|retire``: record a failed attempt without hand-editing the table."""

from __future__ import annotations

from typing import Any

import click

from ._write import retire_operation, retire_options, run_write, write_options


@click.group("fail")
def command() -> None:
    """Append to (or retire from) the failed-attempts ledger."""


@command.command("add")
@click.option("--tried", required=True, help="What was tried (put the command in `backticks`).")
@click.option("--failure", required=True, help="How it failed.")
@click.option("--workaround", required=True, help="What to do instead.")
@write_options
def add(tried: str, failure: str, workaround: str, **opts: Any) -> int:
    """Append a failed attempt with the next free ID; print the ID."""
    from ..writers.operations import add_row, cell

    values = {
        "tried": cell("--tried", tried),
        "failure": cell("--failure", failure),
        "workaround": cell("--workaround", workaround),
    }
    return run_write(add_row("failures", "fail add", "failures", values), **opts)


@command.command("retire")
@retire_options
@write_options
def retire(item_id: str, reason: str, replaced_by: str, date: str | None, **opts: Any) -> int:
    """Retire failed attempt ID with a reason (its row stays)."""
    return run_write(retire_operation("failures", item_id, reason, replaced_by, date), **opts)
