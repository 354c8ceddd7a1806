"""``rehydrate task <item> <verb>``: Task items recorded and moved forward; every write raises
``revision`` by one. ``task phase ID STATUS`` is the older spelling of ``task phase move``."""

from __future__ import annotations

import click

from ..typecheck import TYPE_CHECKING
from ._write import run_write, task_write_options

if TYPE_CHECKING:
    from typing import Unpack

    from ._write import WriteOptions


@click.group("task")
def command() -> None:
    """Edit docs/Task.md without hand-editing tables (each write bumps revision)."""


@command.command("next")
@click.argument("text")
@task_write_options
def next_(text: str, **opts: Unpack[WriteOptions]) -> int:
    """Set the single Next action to TEXT."""
    from ..writers.operations import cell, next_action

    return run_write(next_action(cell("TEXT", text)), **opts)


@command.command("objective")
@click.argument("text")
@task_write_options
def objective(text: str, **opts: Unpack[WriteOptions]) -> int:
    """Set the task's objective (front matter) to TEXT, one line."""
    from ..writers.verbs import objective as build

    return run_write(build(text), **opts)


@command.command("rollback", short_help="Set the Rollback section (how to undo the task).")
@click.argument("text")
@task_write_options
def rollback(text: str, **opts: Unpack[WriteOptions]) -> int:
    """Set the Rollback section (how to undo this task's changes) to TEXT, replacing it."""
    from ..writers.verbs import rollback as build

    return run_write(build(text), **opts)


class _PhaseGroup(click.Group):
    """``task phase add|start|done|move``, and ``task phase ID STATUS`` read as ``move``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["move", *args]
        return super().parse_args(ctx, args)


@command.group(
    "phase",
    cls=_PhaseGroup,
    subcommand_metavar="COMMAND [ARGS]... | ID STATUS",
    short_help="Phases: add, start, done, move.",
)
def phase() -> None:
    """Phases, in order: add, start, done, move (`task phase ID STATUS` = move)."""


@phase.command("add")
@click.option("--phase", "text", required=True, help="What the phase achieves, one line.")
@click.option(
    "--before", default="", metavar="ID", help="Insert it above todo phase ID (default: last)."
)
@task_write_options
def phase_add(text: str, before: str, **opts: Unpack[WriteOptions]) -> int:
    """Add a todo phase (last, or above a todo phase); print its ID."""
    from ..writers.verbs import phase_add as build

    return run_write(build(text, before), **opts)


@phase.command("move")
@click.argument("item_id", metavar="ID")
@click.argument("status", metavar="STATUS")
@task_write_options
def phase_move(item_id: str, status: str, **opts: Unpack[WriteOptions]) -> int:
    """Move phase ID to STATUS (todo, doing, done; forward only)."""
    from ..writers.verbs import phase_move as build

    return run_write(build(item_id, status), **opts)


@command.group("obligation")
def obligation() -> None:
    """Obligations: add, done."""


@obligation.command("add")
@click.argument("text")
@task_write_options
def obligation_add(text: str, **opts: Unpack[WriteOptions]) -> int:
    """Add an open obligation; print its ID."""
    from ..writers.verbs import obligation_add as build

    return run_write(build(text), **opts)


@command.group("write")
def write_group() -> None:
    """External writes: add (before the side effect), unknown, settle."""


@write_group.command("add")
@click.option("--operation", required=True, help="The side effect outside the repository.")
@click.option("--idempotency-key", default="", help="The key that makes a retry safe.")
@task_write_options
def write_add(operation: str, idempotency_key: str, **opts: Unpack[WriteOptions]) -> int:
    """Record a pending external write before performing it; print its ID."""
    from ..writers.verbs import write_add as build

    return run_write(build(operation, idempotency_key), **opts)


@write_group.command("settle", short_help="Record the outcome of external write ID.")
@click.argument("item_id", metavar="ID")
@click.option(
    "--status",
    "new_status",
    required=True,
    type=click.Choice(["unknown", "confirmed", "not_applied"]),
    help="What is now known about the write.",
)
@click.option("--evidence", default="", help="How it was established (required unless unknown).")
@task_write_options
def write_settle(item_id: str, new_status: str, evidence: str, **opts: Unpack[WriteOptions]) -> int:
    """Record the outcome of external write ID (pending -> unknown/confirmed/not_applied)."""
    from ..writers.verbs import write_settle as build

    return run_write(build(item_id, new_status, evidence), **opts)


@command.group("approval", short_help="Approvals: add, consume, expire, revoke.")
def approval() -> None:
    """Approvals: add what a person granted; consume, expire, revoke (never back)."""


@approval.command("add")
@click.option("--scope", required=True, help="Exactly what the person allowed.")
@click.option("--source", required=True, help="Who granted it, where and when.")
@task_write_options
def approval_add(scope: str, source: str, **opts: Unpack[WriteOptions]) -> int:
    """Record an approval a person granted; print its ID.

    It records a fact and grants nothing: the runtime decides what an agent may do.
    """
    from ..writers.verbs import approval_add as build

    return run_write(build(scope, source), **opts)


@command.group("verified")
def verified() -> None:
    """Verifications pinned to the artifact's git blob id."""


@verified.command("add", short_help="Record a passed check pinned to the artifact's blob.")
@click.option("--check", "check_text", required=True, help="What was checked.")
@click.option("--artifact", required=True, metavar="PATH", help="The file that was checked.")
@click.option("--report", default="", help="Where the evidence is (path or URL).")
@task_write_options
def verified_add(check_text: str, artifact: str, report: str, **opts: Unpack[WriteOptions]) -> int:
    """Record a passed check with the artifact's current blob id; print its ID."""
    from ..writers.verbs import verified_add as build

    return run_write(lambda repo, _: build(repo, check_text, artifact, report), **opts)


@command.group("check")
def check() -> None:
    """Completion checks: add, pass."""


@check.command("add")
@click.argument("text")
@task_write_options
def check_add(text: str, **opts: Unpack[WriteOptions]) -> int:
    """Add an open completion check; print its ID."""
    from ..writers.verbs import check_add as build

    return run_write(build(text), **opts)


def _status_move(group: click.Group, verb: str, help_text: str) -> None:
    """Register ``task <group> <verb> ID``: one row of ``writers.verbs.STATUS_MOVES``."""
    action = f"task {group.name} {verb}"

    @group.command(verb, help=help_text)
    @click.argument("item_id", metavar="ID")
    @task_write_options
    def move(item_id: str, **opts: Unpack[WriteOptions]) -> int:
        from ..writers.verbs import move as build

        return run_write(build(action, item_id), **opts)


_status_move(phase, "start", "Move todo phase ID to doing.")
_status_move(phase, "done", "Move phase ID to done (from todo or doing).")
_status_move(obligation, "done", "Mark obligation ID done.")
_status_move(
    write_group, "unknown", "Mark pending external write ID unknown: it blocks until settled."
)
_status_move(check, "pass", "Mark completion check ID passed.")
for _verb, _status in (("consume", "consumed"), ("expire", "expired"), ("revoke", "revoked")):
    _status_move(approval, _verb, f"Mark approval ID {_status} (never usable again).")
