"""Taking, renewing, releasing and listing leases, by compare-and-swap on a ref.

``Place`` says where the claim refs live: a remote (CAS by ``git push --atomic
--force-with-lease``) or this repository's own refs (``git update-ref`` CAS). Every
write names the value it read; a writer that lost the race reads again and judges the
new lease, so of any number of racers exactly one takes a free or expired item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from .. import git
from ..config import Config
from ..errors import CASConflict, GitError, Refused, RehydrateError
from ..git import refs as git_refs
from ..ledgers.model import Ledger
from ..records import NamedTuple
from .lease import (
    MIRROR,
    PREFIX,
    Lease,
    format_lease,
    id_problem,
    judge,
    new_lease,
    parse_lease,
    parse_time,
)
from .lease import ref_of as ref_of

ATTEMPTS = 8  # reads and writes before giving up on a ref that keeps moving
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def clock_from_env(environ: Mapping[str, str]) -> Clock:
    """The clock leases are judged by: UTC now, or a fixed ``REHYDRATE_NOW``
    (``YYYY-MM-DDTHH:MM:SSZ``) for tests and for replaying what a clone saw."""
    from ..environment import NOW, raw

    fixed = raw(NOW, environ)
    if not fixed:
        return utc_now
    try:
        moment = parse_time(fixed)
    except ValueError:
        raise RehydrateError(
            f"REHYDRATE_NOW={fixed!r} is not a UTC time",
            code="bad_clock",
            fix="unset it, or give YYYY-MM-DDTHH:MM:SSZ",
        ) from None
    return lambda: moment


class Place(NamedTuple):
    """Where the claim refs live: ``remote`` (a name or URL), or None for the local refs."""

    remote: str | None

    @property
    def label(self) -> str:
        return f"remote {self.remote}" if self.remote else "local refs"


class Identity(NamedTuple):
    holder: str
    host: str
    session: str


class ClaimResult(NamedTuple):
    """``claimed`` | ``renewed`` | ``taken_over`` | ``held`` | ``released`` | ``free``."""

    outcome: str
    lease: Lease | None  # the lease now in force (held: the other holder's)
    ref: str
    place: Place
    previous: Lease | None = None  # taken_over: the expired lease it replaced


class Listed(NamedTuple):
    lease: Lease
    ref: str
    place: Place


def default_place(repo: git.Repo, remote: str | None) -> Place:
    """``--remote``, else the branch's upstream remote, else ``origin``, else local refs."""
    if remote is not None:
        if not remote or remote.startswith("-") or any(ord(c) < 32 for c in remote):
            raise RehydrateError(
                f"--remote {remote!r} is no remote name",
                code="bad_remote",
                fix="name a remote from `git remote -v`",
            )
        return Place(remote)
    tracked, _ = git_refs.upstream(repo, git.branch(repo))
    if tracked:
        return Place(tracked)
    return Place("origin") if "origin" in git_refs.remotes(repo) else Place(None)


def default_identity(repo: git.Repo, holder: str | None, session: str | None) -> Identity:
    """``--as`` or ``<user.name>@<host>``; the session: given, or a fresh random token."""
    import getpass
    import secrets
    import socket

    host = socket.gethostname() or "localhost"
    name = holder or f"{git_refs.config_value(repo, 'user.name') or getpass.getuser()}@{host}"
    from .lease import value_problem

    for what, value in (("--as", name), ("the session", session or "x"), ("the host", host)):
        problem = value_problem(value)
        if problem is not None:
            raise RehydrateError(
                f"{what} {value[:80]!r} {problem}",
                code="bad_holder",
                fix="pass --as NAME: one line, 1 to 200 characters",
            )
    return Identity(name, host, session or secrets.token_hex(8))


def check_id(item_id: str) -> str:
    problem = id_problem(item_id)
    if problem is not None:
        raise RehydrateError(
            problem,
            item_id=item_id[:40],
            code="unknown_item",
            fix="name a phase (P...) or an obligation (O...) of the Task ledger",
        )
    return ref_of(item_id)


def read_task(repo: git.Repo, config: Config) -> Ledger:
    """The work tree's Task ledger (fail closed: unreadable is an error)."""
    from ..state import parse_file

    path = config.path_of("task")
    return parse_file("task", git.read_worktree(repo, [path])[path], config, "worktree")


def _lease_at(repo: git.Repo, oid: str, ref: str) -> Lease:
    """The lease commit ``oid`` (a root commit of the empty tree), or an error naming it."""
    lease = lease_of_commit(repo, oid)
    if lease is None or ref != ref_of(lease.id):
        raise RehydrateError(
            f"{ref} points at {oid[:12]}, which is no lease commit for that ID",
            code="bad_lease",
            fix=f"inspect it (git show {oid[:12]}); delete the ref to free the item "
            f"(git update-ref -d {ref}, or `git push <remote> :{ref}`)",
        )
    return lease


def lease_of_commit(repo: git.Repo, oid: str) -> Lease | None:
    """The lease a commit carries, None unless it is exactly a lease commit: no parent
    (a claim ref can never make other history reachable), the empty tree, a lease message."""
    read = git_refs.read_commit(repo, oid)
    if read is None:
        return None
    headers, message = read
    if not headers or headers[0] != f"tree {git_refs.empty_tree_id(repo)}":
        return None
    if any(line.startswith("parent ") for line in headers):
        return None
    return parse_lease(message)


def _read(repo: git.Repo, place: Place, ref: str) -> tuple[str | None, Lease | None]:
    """(the ref's object id, its lease) now; (None, None) when the item is unclaimed."""
    if place.remote is None:
        oid = git.read_ref(repo, ref)
    else:
        oid = git_refs.ls_remote(repo, place.remote, ref).get(ref)
        if oid is not None and not git_refs.has_object(repo, oid):
            git_refs.fetch_objects(repo, place.remote, [ref])
            if not git_refs.has_object(repo, oid):
                return _read(repo, place, ref)  # it moved meanwhile: read the new value
    if oid is None:
        return None, None
    return oid, _lease_at(repo, oid, ref)


def _write(repo: git.Repo, place: Place, ref: str, new: str | None, expected: str | None) -> bool:
    """CAS ``ref`` from ``expected`` to ``new`` (None: absent); False when it moved first."""
    if place.remote is None:
        return git_refs.cas_local(repo, ref, new, expected, "rehydrate claim")
    outcome = git_refs.push_cas(repo, place.remote, ref, new, expected)
    if outcome.ok:
        _mirror(repo, place, ref, new)
        return True
    if outcome.lost:
        return False
    raise RehydrateError(
        f"{place.label} refused the update of {ref}: {outcome.message}",
        code="claim_refused",
        fix="the server claims only items its default branch has: push the commit that adds "
        "the item first (`rehydrate sync`); a server running another rehydrate may need "
        "the same version",
    )


def _mirror(repo: git.Repo, place: Place, ref: str, oid: str | None) -> None:
    if place.remote and _mirror_name(place.remote):
        git_refs.set_ref(repo, mirror_ref(place.remote, ref), oid)


def _mirror_name(remote: str) -> bool:
    return id_problem(remote.replace("-", "_")) is None


def mirror_ref(remote: str, ref: str) -> str:
    return f"{MIRROR}{remote}/claims/{ref[len(PREFIX) :]}"


def _commit(repo: git.Repo, lease: Lease) -> str:
    return git_refs.commit_message_object(repo, format_lease(lease), f"{lease.since} +0000")


def claim(
    repo: git.Repo,
    item_id: str,
    place: Place,
    me: Identity,
    ttl: int,
    *,
    renew: bool = False,
    clock: Clock = utc_now,
) -> ClaimResult:
    """Take ``item_id`` (or, ``renew``, extend one's own lease) by CAS; ``held`` when
    another holds it unexpired. The caller checked that the item is open."""
    ref = check_id(item_id)
    for _ in range(ATTEMPTS):
        oid, current = _read(repo, place, ref)
        now = clock()
        verdict = judge(current, me.holder, now)
        if verdict.kind == "held":
            return ClaimResult("held", current, ref, place)
        if renew and verdict.kind != "mine":
            raise Refused(
                f"you ({me.holder}) hold no claim on it"
                + (f"; {current.holder} held it until {current.expires}" if current else ""),
                item_id=item_id,
                code="not_holder",
                fix=f"claim it first: rehydrate claim {item_id}",
            )
        lease = new_lease(item_id, me.holder, me.host, me.session, now, ttl)
        if verdict.kind == "mine" and current is not None and not current.expired(now):
            lease = lease._replace(since=current.since)
        if _write(repo, place, ref, _commit(repo, lease), oid):
            outcome = {"free": "claimed", "mine": "renewed", "expired": "taken_over"}
            return ClaimResult(outcome[verdict.kind], lease, ref, place, current)
    raise _kept_moving(ref, place)


def release(
    repo: git.Repo, item_id: str, place: Place, me: Identity, *, clock: Clock = utc_now
) -> ClaimResult:
    """Free one's own claim by CAS (deleting the ref); ``held`` when another holds it
    (expired or not: take an expired one over with ``claim``), ``free`` when unclaimed."""
    ref = check_id(item_id)
    for _ in range(ATTEMPTS):
        oid, current = _read(repo, place, ref)
        if current is None:
            return ClaimResult("free", None, ref, place)
        if current.holder != me.holder:
            return ClaimResult("held", current, ref, place)
        if _write(repo, place, ref, None, oid):
            _mirror(repo, place, ref, None)
            return ClaimResult("released", current, ref, place)
    raise _kept_moving(ref, place)


def _kept_moving(ref: str, place: Place) -> CASConflict:
    return CASConflict(
        f"{ref} on the {place.label} changed {ATTEMPTS} times while it was being updated",
        code="claim_contended",
        fix="retry in a moment",
    )


def list_claims(repo: git.Repo, place: Place) -> list[Listed]:
    """Every lease at ``place``, by ID (the remote's are mirrored locally for the prompt
    and ``status``)."""
    if place.remote is None:
        found = dict(git.for_each_ref(repo, PREFIX))
    else:
        found = git_refs.ls_remote(repo, place.remote, PREFIX + "*")
        missing = [ref for ref, oid in found.items() if not git_refs.has_object(repo, oid)]
        if missing:
            git_refs.fetch_objects(repo, place.remote, missing)
            found = {r: o for r, o in found.items() if git_refs.has_object(repo, o)}
        if _mirror_name(place.remote):
            mirrored = {
                ref: oid for ref, oid in git.for_each_ref(repo, f"{MIRROR}{place.remote}/claims/")
            }
            wanted = {mirror_ref(place.remote, ref): oid for ref, oid in found.items()}
            for ref in mirrored.keys() - wanted.keys():
                git_refs.set_ref(repo, ref, None)
            for ref, oid in wanted.items():
                if mirrored.get(ref) != oid:
                    git_refs.set_ref(repo, ref, oid)
    return sorted(
        (Listed(_lease_at(repo, oid, ref), ref, place) for ref, oid in found.items()),
        key=lambda x: x.lease.id,
    )


def known_claims(repo: git.Repo, now: datetime) -> list[Listed]:
    """The unexpired leases this clone knows without asking the network: its local claim
    refs and the mirror of each remote's, as last read. Unreadable ones are left out."""
    out: list[Listed] = []
    try:
        pairs = git.for_each_ref(repo, "refs/rehydrate/")
    except GitError:
        return out
    for ref, oid in pairs:
        if ref.startswith(PREFIX):
            place, name = Place(None), ref
        elif ref.startswith(MIRROR) and "/claims/" in ref:
            remote, _, rest = ref[len(MIRROR) :].partition("/claims/")
            place, name = Place(remote), PREFIX + rest
        else:
            continue
        lease = lease_of_commit(repo, oid)
        if lease is not None and name == ref_of(lease.id) and not lease.expired(now):
            out.append(Listed(lease, name, place))
    return sorted(out, key=lambda x: (x.lease.id, x.place.remote or "", x.lease.holder))
