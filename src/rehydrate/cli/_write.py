"""Options and rendering shared by the ledger writers (``fail``, ``task``, ``spec``, ``retire``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NotRequired, TypedDict, TypeVar

import click

from ..errors import EXIT_OK
from ..ledgers.ids import split_id
from ..typecheck import TYPE_CHECKING
from ._common import emit_json, note, open_repo

if TYPE_CHECKING:
    from ..config import Config
    from ..git import Repo
    from ..writers.operations import Operation

F = TypeVar("F", bound=Callable[..., object])


class WriteOptions(TypedDict):
    """What ``write_options`` (and ``task_write_options``: --expect-revision) give a command."""

    expect_blob: str | None
    commit: bool
    as_json: bool
    expect_revision: NotRequired[int | None]


_EXPECT_REVISION = click.option(
    "--expect-revision",
    type=int,
    metavar="N",
    default=None,
    help="Write only if Task's revision is still N (compare-and-swap).",
)
_EXPECT_REVISION_ANY = click.option(
    "--expect-revision",
    type=int,
    metavar="N",
    default=None,
    help="Write only if Task's revision is still N (when ID is a Task item).",
)
_COMMON = (
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
    click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout."),
)


def apply_options(func: F, options: tuple[Callable[[F], F], ...]) -> F:
    """``options`` applied as decorators written in this order would be."""
    for option in reversed(options):
        func = option(func)
    return func


def write_options(func: F) -> F:
    """--expect-blob, --commit, --json: what a Spec or Failed-attempts writer takes."""
    return apply_options(func, _COMMON)


def task_write_options(func: F) -> F:
    """--expect-revision too: what a Task writer takes."""
    return apply_options(func, (_EXPECT_REVISION, *_COMMON))


def retire_options(func: F) -> F:
    """ID, --reason, --replaced-by, --date, --ledger: what every ``retire`` command takes."""
    return apply_options(
        func,
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
        ),
    )


def any_ledger_options(func: F) -> F:
    """--ledger and --expect-revision (Task items only): a retire that finds the ledger."""
    return apply_options(
        func,
        (
            click.option(
                "--ledger",
                "kind",
                type=click.Choice(["spec", "task", "failures"]),
                default=None,
                help="The ledger holding ID (default: found by ID).",
            ),
            _EXPECT_REVISION_ANY,
        ),
    )


def run_write(
    op: Operation | Callable[[Repo, Config], Operation],
    *,
    expect_revision: int | None = None,
    expect_blob: str | None,
    commit: bool,
    as_json: bool,
) -> int:
    """Perform one writer operation and report it: the ID on stdout, notes on stderr.

    ``op`` is the operation, or a function building it from the repository (``retire``
    finds the ledger holding an ID, ``verified add`` hashes the artifact)."""
    from ..writers.ledger import write

    repo, config = open_repo()
    if callable(op):
        op = op(repo, config)
    result = write(
        repo, config, op, expect_revision=expect_revision, expect_blob=expect_blob, commit=commit
    )
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.item_id)
    revision = f" (revision {result.revision})" if result.revision is not None else ""
    # an ID (F-002) is named; a key the action names already ("next action") is not
    named = f" {result.item_id}" if split_id(result.item_id) else ""
    note(f"rehydrate: {result.action}{named} -> {result.path}{revision}")
    if result.commit:
        note(f"committed {result.commit[:12]}")
    elif result.uncommitted:
        note(
            f"note: {result.path} differs from HEAD; `rehydrate commit` commits every ledger "
            "change in one commit (or pass --commit next time)"
        )
    return EXIT_OK
