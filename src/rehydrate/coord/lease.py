"""Lease records and the judgement of a claim: pure functions, no git, no clock.

A lease is the message of a root commit of the empty tree at
``refs/rehydrate/claims/<ID>``::

    rehydrate lease v1

    id: P2
    holder: Ada@build-3
    host: build-3
    session: 3f1c9a...
    since: 2026-12-02T01:00:00Z
    expires: 2026-12-02T01:30:00Z

The format is read in exactly one place (``parse_lease``), strictly: the six keys in
this order, one line each, no control characters, bounded lengths. Anything else is no
lease (the server refuses it; a client treats it as held, never as free).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from ..errors import RehydrateError
from ..ledgers.ids import ID_PATTERN
from ..records import NamedTuple

PREFIX = "refs/rehydrate/claims/"
MIRROR = "refs/rehydrate/remotes/"  # + <remote>/claims/<ID>: the last seen remote leases
MAGIC = "rehydrate lease v1"
FIELDS = ("id", "holder", "host", "session", "since", "expires")
MAX_VALUE = 200
DEFAULT_TTL = 30 * 60
MAX_TTL = 7 * 24 * 3600
_TIME = "%Y-%m-%dT%H:%M:%SZ"
_ID = re.compile(ID_PATTERN)
_TTL = re.compile(r"(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?")
_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


class Lease(NamedTuple):
    id: str
    holder: str
    host: str
    session: str
    since: str  # UTC, _TIME
    expires: str

    def expired(self, now: datetime) -> bool:
        return parse_time(self.expires) <= now

    def to_json(self, ref: str, remote: str | None) -> dict[str, object]:
        return {
            "id": self.id,
            "holder": self.holder,
            "expires": self.expires,
            "ref": ref,
            "remote": remote,
        }


class Verdict(NamedTuple):
    """What a claim may do given the current lease: ``free`` (no lease), ``mine`` (one's
    own, renew it), ``expired`` (another's, past its expiry: take it over) or ``held``."""

    kind: str
    lease: Lease | None


def ref_of(item_id: str) -> str:
    return PREFIX + item_id


def id_problem(item_id: str) -> str | None:
    """Why ``item_id`` cannot name a claim ref, or None (the ledger ID shape, no '..',
    not ending in '.lock' or '.')."""
    if not _ID.fullmatch(item_id) or ".." in item_id or item_id.endswith((".lock", ".")):
        return "not a ledger ID (a letter, then up to 31 letters, digits, '.', '_' or '-')"
    return None


def value_problem(value: str) -> str | None:
    if not value or len(value) > MAX_VALUE:
        return f"must be 1 to {MAX_VALUE} characters"
    if any(ord(c) < 32 or ord(c) == 127 or c in "\u2028\u2029\x85" for c in value):
        return "must be one line without control characters"
    if value != value.strip():
        return "must not start or end with spaces"
    return None


def parse_ttl(text: str) -> int:
    """``--ttl``: seconds from ``90s``, ``30m``, ``2h``, ``1h30m``; raises on anything else."""
    match = _TTL.fullmatch(text.strip())
    if not text.strip() or match is None or not any(match.groups()):
        raise _bad_ttl(text, "not a duration")
    h, m, s = (int(g or 0) for g in match.groups())
    seconds = h * 3600 + m * 60 + s
    if not 0 < seconds <= MAX_TTL:
        raise _bad_ttl(text, f"must be more than 0 and at most {MAX_TTL // 3600}h")
    return seconds


def _bad_ttl(text: str, why: str) -> RehydrateError:
    return RehydrateError(
        f"--ttl {text!r}: {why}",
        code="bad_duration",
        fix="give a number with s, m or h, e.g. --ttl 30m, --ttl 90s, --ttl 1h30m",
    )


def format_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(_TIME)


def parse_time(text: str) -> datetime:
    return datetime.strptime(text, _TIME).replace(tzinfo=UTC)


def new_lease(item_id: str, holder: str, host: str, session: str, now: datetime, ttl: int) -> Lease:
    return Lease(
        item_id,
        holder,
        host,
        session,
        format_time(now),
        format_time(now + timedelta(seconds=ttl)),
    )


def format_lease(lease: Lease) -> str:
    body = "".join(f"{key}: {value}\n" for key, value in zip(FIELDS, lease, strict=True))
    return f"{MAGIC}\n\n{body}"


def parse_lease(message: str) -> Lease | None:
    """The lease in a commit message, or None when it is not exactly one."""
    lines = message.split("\n")
    if len(lines) != len(FIELDS) + 3 or lines[:2] != [MAGIC, ""] or lines[-1] != "":
        return None
    values: list[str] = []
    for key, line in zip(FIELDS, lines[2:-1], strict=True):
        name, sep, value = line.partition(": ")
        if name != key or not sep or value_problem(value) is not None:
            return None
        values.append(value)
    lease = Lease(*values)
    if id_problem(lease.id) is not None:
        return None
    if not (_STAMP.fullmatch(lease.since) and _STAMP.fullmatch(lease.expires)):
        return None
    try:
        if parse_time(lease.expires) < parse_time(lease.since):
            return None
    except ValueError:
        return None
    return lease


def judge(current: Lease | None, holder: str, now: datetime) -> Verdict:
    """What a claim by ``holder`` may do at ``now`` against the ``current`` lease."""
    if current is None:
        return Verdict("free", None)
    if current.holder == holder:
        return Verdict("mine", current)
    if current.expired(now):
        return Verdict("expired", current)
    return Verdict("held", current)
