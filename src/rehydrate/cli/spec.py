"""``rehydrate spec …``: add constraints, decide decisions, retire items of any ledger."""

from __future__ import annotations

from typing import Any

import click

from ._write import retire_operation, retire_options, run_write, write_options


@click.group("spec")
def command() -> None:
    """Edit docs/Spec.md without hand-editing tables."""


@command.group("constraint")
def constraint() -> None:
    """Constraints: add (supersede by adding a new one and retiring the old)."""


@constraint.command("add")
@click.option("--level", "level_", required=True, help="MUST, MUST NOT, SHOULD, SHOULD NOT or MAY.")
@click.option("--rule", required=True, help="The rule, one line.")
@click.option("--source", default="", help="Where it comes from (person, ticket, doc).")
@write_options
def constraint_add(level_: str, rule: str, source: str, **opts: Any) -> int:
    """Add a constraint with the next free ID; print the ID."""
    from ..writers.operations import add_row, cell, level

    values = {"rule": cell("--rule", rule), "level": level(level_)}
    origin = cell("--source", source, required=False)
    if origin:
        values["source"] = origin
    return run_write(add_row("spec", "spec constraint add", "constraints", values), **opts)


@command.command("retire")
@retire_options
@click.option(
    "--ledger",
    "kind",
    type=click.Choice(["spec", "task", "failures"]),
    default=None,
    help="The ledger holding ID (default: found by ID).",
)
@write_options
def retire(
    item_id: str, reason: str, replaced_by: str, date: str | None, kind: str | None, **opts: Any
) -> int:
    """Retire item ID of any ledger with a reason (its row stays where it is)."""
    return run_write(retire_operation(kind, item_id, reason, replaced_by, date), **opts)


@command.command("decide")
@click.argument("item_id", metavar="ID")
@click.option("--decision", required=True, help="The answer.")
@click.option("--source", required=True, help="Who or what decided it.")
@write_options
def decide(item_id: str, decision: str, source: str, **opts: Any) -> int:
    """Move open decision ID to decided, with the decision and its source."""
    from ..writers.operations import cell, update_row

    values = {
        "status": "decided",
        "decision": cell("--decision", decision),
        "source": cell("--source", source),
    }
    return run_write(
        update_row("spec", "spec decide", "decisions", cell("ID", item_id), values), **opts
    )
