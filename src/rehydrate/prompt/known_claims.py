"""The leases this clone knows without the network, as the prompt and ``status`` show them:
its local claim refs and the mirror of each remote's (written by ``claim``, ``claims``,
``release`` and ``run --claim``), those unexpired now."""

from __future__ import annotations

import os
from datetime import datetime

from .. import git
from ..readlimit import read_head
from .claims import ClaimRow, ClaimsView

_SCAN = 1 << 20  # bytes of packed-refs scanned; past that, one for-each-ref is cheaper


def may_have_claims(repo: git.Repo) -> bool:
    """False only when no ref under refs/rehydrate/ can exist (no process started: the
    prompt is built on every agent session start)."""
    common = repo.common_dir
    if (common / "refs" / "rehydrate").is_dir() or (common / "reftable").exists():
        return True
    try:
        head = read_head(common / "packed-refs", _SCAN + 1)  # a FIFO there: no wait
    except OSError:
        return False
    return len(head) > _SCAN or b" refs/rehydrate/" in head  # a huge file: ask git


def known_rows(repo: git.Repo, now: datetime | None = None) -> tuple[ClaimRow, ...]:
    if not may_have_claims(repo):
        return ()
    from ..coord.claims import clock_from_env, known_claims

    listed = known_claims(repo, now or clock_from_env(os.environ)())
    return tuple(
        ClaimRow(x.lease.id, x.lease.holder, x.lease.host, x.lease.expires, x.place.label)
        for x in listed
    )


def known_view(repo: git.Repo, now: datetime | None = None) -> ClaimsView:
    return ClaimsView(known_rows(repo, now))
