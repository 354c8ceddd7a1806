"""Options and rendering shared by the ledger writers (``fail``, ``task``, ``spec``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..errors import EXIT_OK
from ._common import emit_json, note, open_repo

if TYPE_CHECKING:
    from ..writers.operations import Operation

F = TypeVar("F", bound=Callable[..., Any])


def write_options(func: F) -> F:
    """--expect-revision, --expect-blob, --commit, --json."""
    for option in reversed(
        (
            click.option(
                "--expect-revision",
                type=int,
                metavar="N",
                default=None,
                help="Write only if Task's revision is still N (compare-and-swap).",
            ),
            click.option(
                "--expect-blob",
                metavar="SHA",
                default=None,
                help="Write only if the ledger's git blob id is still SHA (prefix >= 7).",
            ),
            click.option(
                "--commit",
                is_flag=True,
                help="Commit just this ledger with a generated message (hooks run).",
            ),
            click.option(
                "--json", "as_json", is_flag=True, help="Print one JSON object on stdout."
            ),
        )
    ):
        func = option(func)
    return func


def retire_options(func: F) -> F:
    """ID, --reason, --replaced-by, --date: what every ``retire`` command takes."""
    for option in reversed(
        (
            click.argument("item_id", metavar="ID"),
            click.option("--reason", required=True, help="Why it no longer applies."),
            click.option("--replaced-by", default="", help="The ID that supersedes it."),
            click.option(
                "--date",
                default=None,
                metavar="YYYY-MM-DD",
                help="Retirement date (default: today, UTC).",
            ),
        )
    ):
        func = option(func)
    return func


def retire_operation(
    kind: str | None, item_id: str, reason: str, replaced_by: str, date: str | None
) -> Operation:
    """The writer operation retiring ``item_id`` (``kind`` None: the ledger holding it)."""
    from ..writers.ledger import find_holder
    from ..writers.operations import cell, retire

    item_id = cell("ID", item_id)
    if kind is None:
        repo, config = open_repo()
        kind = find_holder(repo, config, item_id)
    return retire(
        kind,
        item_id,
        cell("--reason", reason),
        cell("--replaced-by", replaced_by, required=False),
        cell("--date", date, required=False) or None,
    )


def run_write(
    op: Operation,
    *,
    expect_revision: int | None,
    expect_blob: str | None,
    commit: bool,
    as_json: bool,
) -> int:
    """Perform one writer operation and report it: the ID on stdout, notes on stderr."""
    from ..writers.ledger import write

    repo, config = open_repo()
    result = write(
        repo, config, op, expect_revision=expect_revision, expect_blob=expect_blob, commit=commit
    )
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.item_id)
    revision = f" (revision {result.revision})" if result.revision is not None else ""
    note(f"rehydrate: {result.action} {result.item_id} -> {result.path}{revision}")
    if result.commit:
        note(f"committed {result.commit[:12]}")
    elif result.uncommitted:
        note(
            f"note: {result.path} differs from HEAD; commit it "
            f"(git add {result.path} && git commit), or pass --commit next time"
        )
    return EXIT_OK
