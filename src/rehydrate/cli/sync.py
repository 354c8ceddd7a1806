"""``rehydrate sync``: merge the upstream ledgers, guard, push, retrying until it lands."""

from __future__ import annotations

import click

from ..errors import EXIT_OK, EXIT_REFUSED
from . import verdict
from ._common import emit_json, note, open_repo


@click.command("sync")
@click.option(
    "--remote",
    metavar="NAME",
    default=None,
    help="The remote (default: the branch's upstream remote, else origin).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def command(remote: str | None, as_json: bool) -> int:
    """Fetch the upstream branch, merge it with the ledger merge driver, guard, push.

    A push that the remote rejects as not a fast-forward (another clone pushed first)
    is retried after fetching and merging again, a bounded number of times with jitter.
    Nothing is ever forced.

    \b
    Exit codes:
      0  pushed (or already up to date)
      1  a real ledger conflict (resolve it with `rehydrate merge resolve`), a guard
         refusal, or the remote moved before every attempt
      2  no remote, unreachable remote, detached HEAD, local changes in the way
    """
    from ..merge.sync import sync

    repo, _ = open_repo()
    result = sync(repo, remote)
    code = EXIT_OK if result.outcome in ("pushed", "up_to_date") else EXIT_REFUSED
    if as_json:
        emit_json(
            {
                "outcome": result.outcome,
                "remote": result.remote,
                "ref": result.ref,
                "head": result.head,
                "attempts": result.attempts,
                "details": list(result.details),
            }
        )
    where = f"{result.ref.removeprefix('refs/heads/')} on {result.remote}"
    if result.outcome == "pushed":
        note(
            f"rehydrate sync: pushed {(result.head or '')[:12]} to {where} "
            f"(attempt {result.attempts})"
        )
    elif result.outcome == "up_to_date":
        note(f"rehydrate sync: {where} is up to date at {(result.head or '')[:12]}")
    else:
        note(f"rehydrate sync: {result.outcome}: {result.message}")
        for line in result.details:
            note(f"  {line}")
    return verdict(code)
