"""The server's judgement of an update under ``refs/rehydrate/claims/``.

A well-formed claim update is a deletion (a release), or a lease commit: a root commit
of the empty tree (so a claim ref can never make other history reachable, which would
let a later branch push skip the guard's ``--not --all``), whose message is a lease
(``coord.lease.parse_lease``) for the ID the ref names, an ID that is a phase or an
obligation of the Task ledger on the server's default branch. The server does not judge
expiry: clocks differ; the compare-and-swap and the clients' clocks do.
"""

from __future__ import annotations

from ..coord.claims import lease_of_commit
from ..coord.items import has_item
from ..coord.lease import PREFIX, id_problem
from ..errors import RehydrateError
from ..git import Repo, read_at, verify_commit
from .judge import ZERO
from .range import settings_at
from .rules import FIXES, Violation

CODE = "claim_ref_refused"


def check_claim_update(repo: Repo, old: str, new: str, ref: str) -> Violation | None:
    """None when the update of ``ref`` is a well-formed claim update, else why not."""
    item_id = ref[len(PREFIX) :]
    problem = id_problem(item_id)
    if problem is None and new not in ZERO:
        problem = _lease_problem(repo, new, item_id)
    if problem is None:
        return None
    return Violation(CODE, ref, None, item_id[:40] or None, problem, FIXES[CODE])


def _lease_problem(repo: Repo, new: str, item_id: str) -> str | None:
    lease = lease_of_commit(repo, new)
    if lease is None:
        return (
            f"{new[:12]} is no lease commit (a root commit of the empty tree whose message is "
            "a rehydrate lease)"
        )
    if lease.id != item_id:
        return f"the lease is for {lease.id}, the ref names {item_id}"
    head = verify_commit(repo, "HEAD") or ""
    if not head:
        return "the server's default branch has no commits, so no Task item can be claimed"
    from ..state import parse_file

    config = settings_at(repo, head)
    path = config.path_of("task")
    try:
        task = parse_file("task", read_at(repo, head, [path])[path], config, f"rev {head[:12]}")
    except RehydrateError as exc:
        return f"the Task ledger on the default branch cannot be read ({exc})"
    if not has_item(task, item_id):
        return f"{item_id} is no phase or obligation of {path} on the default branch"
    return None
