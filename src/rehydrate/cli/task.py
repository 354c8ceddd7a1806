"""``rehydrate task …``: move Task items forward; every write raises ``revision`` by one."""

from __future__ import annotations

from typing import Any

import click

from ._write import run_write, write_options


@click.group("task")
def command() -> None:
    """Edit docs/Task.md without hand-editing tables (each write bumps revision)."""


@command.command("next")
@click.argument("text")
@write_options
def next_(text: str, **opts: Any) -> int:
    """Set the single Next action to TEXT."""
    from ..writers.operations import cell, next_action

    return run_write(next_action(cell("TEXT", text)), **opts)


@command.command("phase")
@click.argument("item_id", metavar="ID")
@click.argument("status", metavar="STATUS")
@write_options
def phase(item_id: str, status: str, **opts: Any) -> int:
    """Move phase ID to STATUS (todo, doing, done; forward only)."""
    from ..writers.operations import cell, update_row
    from ..writers.operations import status as check_status

    op = update_row(
        "task",
        "task phase",
        "phases",
        cell("ID", item_id),
        {"status": check_status("phases", status)},
    )
    return run_write(op, **opts)


@command.group("obligation")
def obligation() -> None:
    """Obligations: add, done."""


@obligation.command("add")
@click.argument("text")
@write_options
def obligation_add(text: str, **opts: Any) -> int:
    """Add an open obligation; print its ID."""
    from ..writers.operations import add_row, cell

    op = add_row(
        "task",
        "task obligation add",
        "obligations",
        {"obligation": cell("TEXT", text), "status": "open"},
    )
    return run_write(op, **opts)


@command.group("write")
def write_group() -> None:
    """External writes: add, settle."""


@write_group.command("add")
@click.option("--operation", required=True, help="The side effect outside the repository.")
@click.option("--idempotency-key", default="", help="The key that makes a retry safe.")
@write_options
def write_add(operation: str, idempotency_key: str, **opts: Any) -> int:
    """Record a pending external write before performing it; print its ID."""
    from ..writers.operations import add_row, cell

    values = {"operation": cell("--operation", operation), "status": "pending"}
    key = cell("--idempotency-key", idempotency_key, required=False)
    if key:
        values["idempotency key"] = key
    return run_write(add_row("task", "task write add", "external writes", values), **opts)


@write_group.command("settle")
@click.argument("item_id", metavar="ID")
@click.option(
    "--status",
    "new_status",
    required=True,
    type=click.Choice(["unknown", "confirmed", "not_applied"]),
    help="What is now known about the write.",
)
@click.option("--evidence", default="", help="How it was established (required unless unknown).")
@write_options
def write_settle(item_id: str, new_status: str, evidence: str, **opts: Any) -> int:
    """Record the outcome of external write ID (pending -> unknown/confirmed/not_applied)."""
    from ..writers.operations import cell, update_row

    values = {"status": new_status}
    proof = cell("--evidence", evidence, required=new_status != "unknown")
    if proof:
        values["evidence"] = proof
    op = update_row("task", "task write settle", "external writes", cell("ID", item_id), values)
    return run_write(op, **opts)


@command.group("approval")
def approval() -> None:
    """Approvals: consume, expire, revoke (never back to granted)."""


@command.group("verified")
def verified() -> None:
    """Verifications pinned to the artifact's git blob id."""


@verified.command("add")
@click.option("--check", "check_text", required=True, help="What was checked.")
@click.option("--artifact", required=True, metavar="PATH", help="The file that was checked.")
@click.option("--report", default="", help="Where the evidence is (path or URL).")
@write_options
def verified_add(check_text: str, artifact: str, report: str, **opts: Any) -> int:
    """Record a passed check with the artifact's current blob id; print its ID."""
    from ..writers.operations import add_row, artifact_blob, cell
    from ._common import open_repo

    repo, _ = open_repo()
    path, blob = artifact_blob(repo, cell("--artifact", artifact))
    values = {"check": cell("--check", check_text), "artifact": path, "blob": blob}
    extra = cell("--report", report, required=False)
    if extra:
        values["report"] = extra
    return run_write(add_row("task", "task verified add", "verified", values), **opts)


@command.group("check")
def check() -> None:
    """Completion checks: add, pass."""


@check.command("add")
@click.argument("text")
@write_options
def check_add(text: str, **opts: Any) -> int:
    """Add an open completion check; print its ID."""
    from ..writers.operations import add_row, cell

    op = add_row(
        "task",
        "task check add",
        "completion checks",
        {"check": cell("TEXT", text), "status": "open"},
    )
    return run_write(op, **opts)


def _status_move(
    group: click.Group, verb: str, section: str, new_status: str, help_text: str
) -> None:
    """Register ``task <group> <verb> ID``: move one row of ``section`` to ``new_status``."""
    action = f"task {group.name} {verb}"

    @group.command(verb, help=help_text)
    @click.argument("item_id", metavar="ID")
    @write_options
    def move(item_id: str, **opts: Any) -> int:
        from ..writers.operations import cell, update_row

        op = update_row("task", action, section, cell("ID", item_id), {"status": new_status})
        return run_write(op, **opts)


_status_move(obligation, "done", "obligations", "done", "Mark obligation ID done.")
_status_move(check, "pass", "completion checks", "passed", "Mark completion check ID passed.")
for _verb, _status in (("consume", "consumed"), ("expire", "expired"), ("revoke", "revoked")):
    _status_move(
        approval, _verb, "approvals", _status, f"Mark approval ID {_status} (never usable again)."
    )
