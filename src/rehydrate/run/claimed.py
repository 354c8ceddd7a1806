"""``rehydrate run --claim``: loops on many clones take turns on the Task's phases.

Each turn syncs with the remote, takes the first open phase no one else holds (a lease
by CAS, ``coord.claims``), runs one session of the ordinary loop (``loop.run_loop``)
whose prompt names the phase it holds and who holds the others, renews the lease while
the session runs, syncs what the session committed, and goes on (the same phase while it
is open, else the next free one). When every open phase is held by another, it waits for
a release or an expiry: a loop killed mid-session frees its phase when its lease expires.
Its claim is released when the run ends. Core code: it reports to the ``Display``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import NamedTuple

from .. import git
from ..config import Config
from ..coord import claims as coord
from ..coord.items import open_phases
from ..errors import EXIT_OK, EXIT_REFUSED, RehydrateError
from ..prompt.claims import ClaimRow, ClaimsView
from .display import Display
from .loop import Prepare, RunResult, run_loop
from .options import RunOptions

CLAIMED_ENV = "REHYDRATE_CLAIMED_ITEM"  # the item the session holds, for the agent


class ClaimOptions(NamedTuple):
    remote: str | None = None  # None: the claim command's default
    ttl: int = 30 * 60
    holder: str | None = None  # None: "<user.name>@<host>/run-<token>"
    poll_seconds: float | None = None  # None: a tenth of the TTL, 0.5 to 10 s


class _Renewer:
    """Renews the lease every third of its TTL while a session runs (a thread)."""

    def __init__(
        self,
        repo: git.Repo,
        place: coord.Place,
        me: coord.Identity,
        item: str,
        ttl: int,
        display: Display,
    ) -> None:
        self.args = (repo, item, place, me, ttl)
        self.display = display
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        repo, item, place, me, ttl = self.args
        while not self.stop.wait(max(ttl / 3, 0.5)):
            try:
                result = coord.claim(repo, item, place, me, ttl, renew=True)
            except RehydrateError as exc:
                self.display.note(f"rehydrate run: could not renew the claim on {item}: {exc}")
                continue
            if result.outcome == "held" and result.lease is not None:
                self.display.note(
                    f"rehydrate run: the claim on {item} was lost to {result.lease.holder} "
                    "(the lease expired before it was renewed)"
                )

    def __enter__(self) -> _Renewer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def _row(listed: coord.Listed) -> ClaimRow:
    lease = listed.lease
    return ClaimRow(lease.id, lease.holder, lease.host, lease.expires, listed.place.label)


def run_claimed(
    repo: git.Repo,
    config: Config,
    options: RunOptions,
    display: Display,
    environ: Mapping[str, str],
    claim: ClaimOptions,
) -> RunResult:
    """Take turns on the phases with other loops until none is open (see the module)."""
    import secrets

    place = coord.default_place(repo, claim.remote)
    if place.remote is None:  # local refs alone cannot carry one loop's progress to another
        raise RehydrateError(
            "run --claim needs a remote: the loops share their progress by `rehydrate sync`",
            code="no_remote",
            fix="pass --remote NAME or add origin (a bare repository on this machine will do: "
            "git init --bare ../shared.git && git remote add origin ../shared.git)",
        )
    token = secrets.token_hex(3)
    default = coord.default_identity(repo, None, token).holder + f"/run-{token}"
    me = coord.default_identity(repo, claim.holder or default, secrets.token_hex(8))
    poll = claim.poll_seconds or min(max(claim.ttl / 10, 0.5), 10.0)
    started = time.monotonic()
    sessions = 0
    held: str | None = None
    waiting = ""
    try:
        while True:
            _sync(repo, place, display)
            task = coord.read_task(repo, config)
            phases = open_phases(task)
            if held is not None and held not in {p.id for p in phases}:
                coord.release(repo, held, place, me)  # done (or retired): free it
                held = None
            if not phases:
                return RunResult(EXIT_OK, "done", "done: no open phase is left", ())
            now = coord.utc_now()
            listed = coord.list_claims(repo, place)
            others = {
                x.lease.id: x
                for x in listed
                if x.lease.holder != me.holder and not x.lease.expired(now)
            }
            free = [p for p in phases if p.id not in others]
            if not free:
                left = _left(options, started)
                if left is not None and left <= 0:
                    return RunResult(
                        EXIT_REFUSED,
                        "limit",
                        "limit: --max-total-minutes "
                        "reached while every open phase was held by another",
                        (),
                    )
                said = ", ".join(
                    f"{i} by {x.lease.holder} until {x.lease.expires}"
                    for i, x in sorted(others.items())
                )
                if said != waiting:
                    display.note(f"rehydrate run: every open phase is claimed ({said}); waiting")
                    waiting = said
                time.sleep(poll)
                continue
            waiting = ""
            target = free[0].id
            taken = coord.claim(repo, target, place, me, claim.ttl)
            if taken.outcome == "held":
                continue  # another loop won it just now: choose again
            if held is not None and held != target:
                coord.release(repo, held, place, me)
            held = target
            # what we synced may predate the lease we took: its last holder pushes the
            # phase done before it releases, so read again now that we hold it
            _sync(repo, place, display)
            if target not in {p.id for p in open_phases(coord.read_task(repo, config))}:
                continue
            assert taken.lease is not None
            display.note(
                f"rehydrate run: claimed {target} as {me.holder} until "
                f"{taken.lease.expires} ({place.label})"
            )
            mine = ClaimRow(target, me.holder, me.host, taken.lease.expires, place.label)
            view = ClaimsView(tuple(_row(x) for x in others.values()) + (mine,), mine)
            with _Renewer(repo, place, me, target, claim.ttl, display):
                result = run_loop(
                    repo,
                    config,
                    options._replace(max_sessions=1),
                    display,
                    {**environ, CLAIMED_ENV: target},
                    prepare=_with_claims(view),
                )
            sessions += 1
            _sync(repo, place, display)
            if result.reason != "limit" or result.code == EXIT_OK:
                return result
            if sessions >= options.max_sessions:
                return RunResult(
                    EXIT_REFUSED,
                    "limit",
                    f"limit: --max-sessions "
                    f"{options.max_sessions} reached; open phases remain "
                    "(rerun to continue)",
                    result.sessions,
                )
            left = _left(options, started)
            if left is not None and left <= 0:
                return RunResult(
                    EXIT_REFUSED, "limit", "limit: --max-total-minutes reached", result.sessions
                )
    finally:
        if held is not None:
            try:
                coord.release(repo, held, place, me)
            except RehydrateError as exc:
                display.note(
                    f"rehydrate run: could not release {held}: {exc} (its lease expires by itself)"
                )


def _with_claims(view: ClaimsView) -> Prepare:
    return lambda options: options._replace(claims=view)


def _left(options: RunOptions, started: float) -> float | None:
    if options.max_total_minutes is None:
        return None
    return options.max_total_minutes * 60 - (time.monotonic() - started)


def _sync(repo: git.Repo, place: coord.Place, display: Display) -> None:
    """Sync with the remote; a failure stops the run."""
    from ..coord.sync import sync

    result = sync(repo, place.remote)
    if result.outcome not in ("pushed", "up_to_date"):
        raise RehydrateError(
            f"rehydrate sync with {place.remote} failed ({result.outcome}): {result.message}"
            + "".join(f"; {line}" for line in result.details),
            code="sync_failed",
            fix="run `rehydrate sync` by hand, settle what it says, then rerun",
        )
