"""Options and rendering shared by the ledger writers (``fail``, ``task``, ``spec``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ._common import emit_json, note, open_repo

F = TypeVar("F", bound=Callable[..., Any])


def write_options(func: F) -> F:
    """--expect-revision, --expect-blob, --commit, --json."""
    for option in reversed((
        click.option("--expect-revision", type=int, metavar="N", default=None,
                     help="Write only if Task's revision is still N (compare-and-swap)."),
        click.option("--expect-blob", metavar="SHA", default=None,
                     help="Write only if the ledger's git blob id is still SHA (prefix >= 7)."),
        click.option("--commit", is_flag=True,
                     help="Commit just this ledger with a generated message (hooks run)."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout."),
    )):
        func = option(func)
    return func


def run_write(op: Any, *, expect_revision: int | None, expect_blob: str | None, commit: bool,
              as_json: bool) -> int:
    """Perform one writer operation and report it: the ID on stdout, notes on stderr."""
    from ..writers import write

    repo, config = open_repo()
    result = write(repo, config, op, expect_revision=expect_revision, expect_blob=expect_blob,
                   commit=commit)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.item_id)
    revision = f" (revision {result.revision})" if result.revision is not None else ""
    note(f"rehydrate: {result.action} {result.item_id} -> {result.path}{revision}")
    if result.commit:
        note(f"committed {result.commit[:12]}")
    elif result.uncommitted:
        note(f"note: {result.path} differs from HEAD; commit it "
             f"(git add {result.path} && git commit), or pass --commit next time")
    return 0
