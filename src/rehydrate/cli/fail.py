"""``rehydrate fail add|retire``: record a failed attempt without hand-editing the table."""

from __future__ import annotations

from functools import partial
from typing import Any

import click

from ._write import retire_options, run_write, write_options


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
    from ..writers.verbs import fail_add

    return run_write(fail_add(tried, failure, workaround), **opts)


@command.command("retire")
@retire_options
@write_options
def retire(item_id: str, reason: str, replaced_by: str, date: str | None, **opts: Any) -> int:
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
