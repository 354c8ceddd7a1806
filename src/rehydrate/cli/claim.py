"""``rehydrate claim`` / ``release`` / ``claims``: leases on Task items, by CAS on a ref."""

from __future__ import annotations

import click

from ..errors import EXIT_OK, EXIT_REFUSED
from ..typecheck import TYPE_CHECKING
from . import verdict
from ._common import emit_json, note, open_repo

if TYPE_CHECKING:
    from ..coord.claims import ClaimResult

_REMOTE = click.option(
    "--remote",
    metavar="NAME",
    default=None,
    help="Where the claim refs live (default: the branch's upstream remote, else "
    "origin, else this repository's own refs).",
)
_AS = click.option(
    "--as",
    "holder",
    metavar="NAME",
    default=None,
    help='Who holds the claim (default "<user.name>@<host>").',
)
_JSON = click.option("--json", "as_json", is_flag=True, help="Print the lease as JSON.")


def _held(result: ClaimResult) -> str:
    lease = result.lease
    assert lease is not None
    return (
        f"rehydrate: claim_held: {lease.id}: held by {lease.holder} (host {lease.host}) "
        f"until {lease.expires} on the {result.place.label}; pick another item, or wait "
        "until it expires and claim it again"
    )


def _report(result: ClaimResult, as_json: bool, done: str) -> int:
    lease = result.lease
    if as_json and lease is not None:
        emit_json(lease.to_json(result.ref, result.place.remote))
    if result.outcome == "held":
        note(_held(result))
        return verdict(EXIT_REFUSED)
    if lease is not None and result.outcome == "released":
        note(f"rehydrate: {lease.id}: released ({result.ref} on the {result.place.label})")
    elif lease is not None:
        note(
            f"rehydrate: {lease.id}: {done} by {lease.holder} until {lease.expires} "
            f"({result.ref} on the {result.place.label})"
        )
    return verdict(EXIT_OK)


@click.command("claim")
@click.argument("item_id", metavar="ID")
@_REMOTE
@click.option(
    "--ttl",
    default="30m",
    show_default=True,
    metavar="DURATION",
    help="How long the lease lasts (s, m, h: 90s, 30m, 1h30m).",
)
@_AS
@click.option(
    "--renew", is_flag=True, help="Extend your own lease on ID (exit 1 if you hold none)."
)
@_JSON
def claim_command(
    item_id: str, remote: str | None, ttl: str, holder: str | None, renew: bool, as_json: bool
) -> int:
    """Claim Task item ID (an open phase or obligation) for this agent, with a lease.

    The lease is a commit at refs/rehydrate/claims/ID, taken by an atomic compare-and-swap
    on the remote (git push --force-with-lease) or on the local refs: of any number of
    racers exactly one wins. An expired lease is taken over the same way.

    \b
    Exit codes:
      0  claimed (or renewed)
      1  held by another, unexpired (stderr names the holder and the expiry)
      2  bad input: unknown ID, item not open, bad duration, unreachable remote
    """
    from ..coord.claims import (
        check_id,
        claim,
        clock_from_env,
        default_identity,
        default_place,
        read_task,
    )
    from ..coord.items import claimable, has_item
    from ..coord.lease import parse_ttl

    seconds = parse_ttl(ttl)
    check_id(item_id)
    repo, config = open_repo()
    task = read_task(repo, config)
    if renew:
        if not has_item(task, item_id):
            claimable(task, item_id, path=config.path_of("task"))
    else:
        claimable(task, item_id, path=config.path_of("task"))
    place = default_place(repo, remote)
    me = default_identity(repo, holder, None)
    import os

    clock = clock_from_env(os.environ)
    result = claim(repo, item_id, place, me, seconds, renew=renew, clock=clock)
    done = {"claimed": "claimed", "renewed": "renewed", "taken_over": "taken over"}
    if result.outcome == "taken_over" and result.previous is not None:
        note(
            f"rehydrate: {item_id}: the lease of {result.previous.holder} expired at "
            f"{result.previous.expires}; taken over"
        )
    return _report(result, as_json, done.get(result.outcome, result.outcome))


@click.command("release")
@click.argument("item_id", metavar="ID")
@_REMOTE
@_AS
@_JSON
def release_command(item_id: str, remote: str | None, holder: str | None, as_json: bool) -> int:
    """Release your own claim on ID (exit 1 if another holds it; 0 if nobody does).

    \b
    Exit codes:
      0  released, or not claimed at all
      1  another holds it (expired or not: `rehydrate claim ID` takes an expired one over)
      2  bad input or an unreachable remote
    """
    import os

    from ..coord.claims import clock_from_env, default_identity, default_place, release

    repo, _ = open_repo()
    place = default_place(repo, remote)
    me = default_identity(repo, holder, None)
    result = release(repo, item_id, place, me, clock=clock_from_env(os.environ))
    if result.outcome == "free":
        note(f"rehydrate: {item_id}: not claimed on the {place.label}; nothing to release")
        return verdict(EXIT_OK)
    return _report(result, as_json, "released")


@click.command("claims")
@_REMOTE
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def claims_command(remote: str | None, as_json: bool) -> int:
    """List the claims: ID, holder, expiry, and whether it has expired."""
    import os

    from ..coord.claims import clock_from_env, default_place, list_claims

    repo, _ = open_repo()
    place = default_place(repo, remote)
    listed = list_claims(repo, place)
    now = clock_from_env(os.environ)()
    if as_json:
        emit_json(
            {
                "schema": "rehydrate/claims-v1",
                "remote": place.remote,
                "claims": [
                    {
                        **x.lease.to_json(x.ref, place.remote),
                        "host": x.lease.host,
                        "since": x.lease.since,
                        "expired": x.lease.expired(now),
                    }
                    for x in listed
                ],
            }
        )
        return verdict(EXIT_OK)
    if not listed:
        click.echo(f"No claims on the {place.label}.")
    for x in listed:
        state = "EXPIRED" if x.lease.expired(now) else "held"
        click.echo(f"{x.lease.id}  {x.lease.holder}  until {x.lease.expires}  {state}")
    return verdict(EXIT_OK)
