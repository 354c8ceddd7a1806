"""``rehydrate spec <item> <verb>``: constraints, contracts and decisions, without hand-editing.

``spec decide`` (= ``spec decision decide``) and ``spec retire`` (= ``rehydrate retire``)
are the older spellings, kept.
"""

from __future__ import annotations

import click

from ..typecheck import TYPE_CHECKING
from ._write import F, apply_options, run_write, write_options
from .retire import command as retire_command

if TYPE_CHECKING:
    from typing import Unpack

    from ._write import WriteOptions


@click.group("spec")
def command() -> None:
    """Edit docs/Spec.md without hand-editing tables."""


@command.group("constraint", short_help="Constraints: add, strengthen.")
def constraint() -> None:
    """Constraints: add, strengthen (supersede one: add a new one, retire the old)."""


@constraint.command("add")
@click.option("--level", "level_", required=True, help="MUST, MUST NOT, SHOULD, SHOULD NOT or MAY.")
@click.option("--rule", required=True, help="The rule, one line.")
@click.option("--source", default="", help="Where it comes from (person, ticket, doc).")
@write_options
def constraint_add(level_: str, rule: str, source: str, **opts: Unpack[WriteOptions]) -> int:
    """Add a constraint with the next free ID; print the ID."""
    from ..writers.verbs import constraint_add as build

    return run_write(build(level_, rule, source), **opts)


@constraint.command("strengthen", short_help="Raise constraint ID's level (never lower it).")
@click.argument("item_id", metavar="ID")
@click.option("--level", "level_", required=True, help="The stricter level (SHOULD -> MUST, ...).")
@write_options
def constraint_strengthen(item_id: str, level_: str, **opts: Unpack[WriteOptions]) -> int:
    """Raise constraint ID's level (MAY -> anything, SHOULD -> MUST, SHOULD NOT -> MUST NOT)."""
    from ..writers.verbs import constraint_strengthen as build

    return run_write(build(item_id, level_), **opts)


@command.group("contract", short_help="Contracts: add (immutable).")
def contract() -> None:
    """Contracts: add (immutable; supersede one by adding a new one and retiring the old)."""


@contract.command("add")
@click.option("--subject", required=True, help="What the contract is about.")
@click.option("--contract", "text", required=True, help="What other code may rely on.")
@click.option("--source", default="", help="Where it comes from (person, ticket, doc).")
@write_options
def contract_add(subject: str, text: str, source: str, **opts: Unpack[WriteOptions]) -> int:
    """Add a contract with the next free ID; print the ID."""
    from ..writers.verbs import contract_add as build

    return run_write(build(subject, text, source), **opts)


@command.group("decision")
def decision() -> None:
    """Decisions: add an open question, assign it, decide it."""


@decision.command("add", short_help="Add an open decision; print its ID.")
@click.option("--question", required=True, help="The open question, one line.")
@click.option("--owner", default="", help="Who decides it.")
@click.option("--due", default="", metavar="DATE", help="When it must be decided.")
@click.option("--source", default="", help="Where the question comes from.")
@write_options
def decision_add(
    question: str, owner: str, due: str, source: str, **opts: Unpack[WriteOptions]
) -> int:
    """Add an open (not decided) decision with the next free ID; print the ID."""
    from ..writers.verbs import decision_add as build

    return run_write(build(question, owner, due, source), **opts)


@decision.command("assign", short_help="Change an open decision's Owner or Due.")
@click.argument("item_id", metavar="ID")
@click.option("--owner", default="", help="Who decides it now.")
@click.option("--due", default="", metavar="DATE", help="When it must be decided now.")
@write_options
def decision_assign(item_id: str, owner: str, due: str, **opts: Unpack[WriteOptions]) -> int:
    """Change the Owner and/or Due of open decision ID (a decided one is immutable)."""
    from ..writers.verbs import decision_assign as build

    return run_write(build(item_id, owner, due), **opts)


def _decide_options(func: F) -> F:
    return apply_options(
        func,
        (
            click.argument("item_id", metavar="ID"),
            click.option("--decision", required=True, help="The answer."),
            click.option("--source", required=True, help="Who or what decided it."),
            write_options,
        ),
    )


@decision.command("decide")
@_decide_options
def decision_decide(item_id: str, decision: str, source: str, **opts: Unpack[WriteOptions]) -> int:
    """Move open decision ID to decided, with the decision and its source."""
    from ..writers.verbs import decision_decide as build

    return run_write(build(item_id, decision, source), **opts)


@command.command("decide", short_help="Decide open decision ID (= spec decision decide).")
@_decide_options
def decide(item_id: str, decision: str, source: str, **opts: Unpack[WriteOptions]) -> int:
    """Move open decision ID to decided (the same as `spec decision decide`)."""
    from ..writers.verbs import decision_decide as build

    return run_write(build(item_id, decision, source, "spec decide"), **opts)


# the same command as `rehydrate retire`, told apart by its help only
retire = click.Command(
    "retire",
    callback=retire_command.callback,
    params=retire_command.params,
    help="Retire item ID of any ledger with a reason (the same as `rehydrate retire`).",
    short_help="Retire item ID of any ledger (= rehydrate retire).",
)
command.add_command(retire)
