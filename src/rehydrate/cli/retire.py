"""``rehydrate retire ID``: take an item of any ledger out of force, with a reason."""

from __future__ import annotations

from functools import partial

import click

from ..typecheck import TYPE_CHECKING
from ._write import any_ledger_options, retire_options, run_write, write_options

if TYPE_CHECKING:
    from typing import Unpack

    from ._write import WriteOptions


@click.command("retire")
@retire_options
@any_ledger_options
@write_options
def command(
    item_id: str,
    reason: str,
    replaced_by: str,
    date: str | None,
    kind: str | None,
    **opts: Unpack[WriteOptions],
) -> int:
    """Retire item ID with a reason, in whichever ledger holds it; its row stays where it is.

    --replaced-by names the item that supersedes it (add that one first): never ID itself,
    never an ID no ledger holds.
    """
    from ..writers.verbs import retire_item

    build = partial(
        retire_item, kind=kind, item_id=item_id, reason=reason, replaced_by=replaced_by, date=date
    )
    return run_write(build, **opts)
