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
from dataclasses import dataclass, field

from .. import git
from ..config import Config
from ..coord import claims as coord
from ..coord.items import open_phases
from ..errors import EXIT_OK, EXIT_REFUSED, RehydrateError
from ..prompt.claims import ClaimRow, ClaimsView
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from .display import Display
from .loop import Prepare, RunResult, RunState, run_loop
from .options import RunOptions

if TYPE_CHECKING:
    pass

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


def _place_and_identity(repo: git.Repo, claim: ClaimOptions) -> tuple[coord.Place, coord.Identity]:
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
    return place, coord.default_identity(repo, claim.holder or default, secrets.token_hex(8))


@dataclass
class _Turns(RunState):
    """The state of one ``run --claim``: where, who, the claim held, the sessions so far."""

    claim: ClaimOptions
    held: str | None = field(default=None, init=False)
    waiting: str = field(default="", init=False)

    def __post_init__(self) -> None:
        self.place, self.me = _place_and_identity(self.repo, self.claim)
        self.poll = self.claim.poll_seconds or min(max(self.claim.ttl / 10, 0.5), 10.0)

    def open_ids(self) -> list[str]:
        return [p.id for p in open_phases(coord.read_task(self.repo, self.config))]

    def release(self, item: str | None) -> None:
        if item is not None:
            coord.release(self.repo, item, self.place, self.me)
        if item == self.held:
            self.held = None

    def others(self) -> dict[str, coord.Listed]:
        """The unexpired leases of other holders, by item."""
        now = coord.utc_now()
        return {
            x.lease.id: x
            for x in coord.list_claims(self.repo, self.place)
            if x.lease.holder != self.me.holder and not x.lease.expired(now)
        }

    def out_of_time(self) -> bool:
        total = self.options.max_total_minutes
        return total is not None and time.monotonic() - self.started >= total * 60

    def wait(self, others: Mapping[str, coord.Listed]) -> None:
        said = ", ".join(
            f"{i} by {x.lease.holder} until {x.lease.expires}" for i, x in sorted(others.items())
        )
        if said != self.waiting:
            self.display.note(f"rehydrate run: every open phase is claimed ({said}); waiting")
            self.waiting = said
        time.sleep(self.poll)

    def take(self, target: str) -> coord.ClaimResult | None:
        """Claim ``target``; None when another loop won it or it is no longer open."""
        taken = coord.claim(self.repo, target, self.place, self.me, self.claim.ttl)
        if taken.outcome == "held":
            return None
        if self.held not in (None, target):
            self.release(self.held)
        self.held = target
        # what was synced may predate the lease taken: its last holder pushes the phase
        # done before it releases, so read again now that it is held
        _sync(self.repo, self.place)
        return taken if target in self.open_ids() else None

    def session(
        self,
        taken: coord.ClaimResult,
        others: Mapping[str, coord.Listed],
        environ: Mapping[str, str],
    ) -> RunResult:
        assert taken.lease is not None
        target = taken.lease.id
        self.display.note(
            f"rehydrate run: claimed {target} as {self.me.holder} until "
            f"{taken.lease.expires} ({self.place.label})"
        )
        mine = ClaimRow(target, self.me.holder, self.me.host, taken.lease.expires, self.place.label)
        view = ClaimsView(tuple(_row(x) for x in others.values()) + (mine,), mine)
        with _Renewer(self.repo, self.place, self.me, target, self.claim.ttl, self.display):
            result = run_loop(
                self.repo,
                self.config,
                self.options._replace(max_sessions=1),
                self.display,
                {**environ, CLAIMED_ENV: target},
                prepare=_with_claims(view),
            )
        self.sessions.extend(result.sessions)
        _sync(self.repo, self.place)
        return result


def run_claimed(
    repo: git.Repo,
    config: Config,
    options: RunOptions,
    display: Display,
    environ: Mapping[str, str],
    claim: ClaimOptions,
) -> RunResult:
    """Take turns on the phases with other loops until none is open (see the module)."""
    turns = _Turns(repo, config, options, display, claim)
    try:
        while True:
            _sync(repo, turns.place)
            phases = turns.open_ids()
            if turns.held is not None and turns.held not in phases:
                turns.release(turns.held)  # done (or retired): free it
            if not phases:
                return turns.result(EXIT_OK, "done", "done: no open phase is left")
            others = turns.others()
            free = [p for p in phases if p not in others]
            if not free and turns.out_of_time():
                return turns.result(
                    EXIT_REFUSED,
                    "limit",
                    "limit: --max-total-minutes reached while every open phase was held",
                )
            if not free:
                turns.wait(others)
                continue
            turns.waiting = ""
            taken = turns.take(free[0])
            if taken is None:
                continue  # another loop won it, or it was done meanwhile: choose again
            result = turns.session(taken, others, environ)
            if result.reason != "limit" or result.code == EXIT_OK:
                return turns.result(result.code, result.reason, result.message)
            if len(turns.sessions) >= options.max_sessions:
                return turns.result(
                    EXIT_REFUSED,
                    "limit",
                    f"limit: --max-sessions {options.max_sessions} reached; open phases "
                    "remain (rerun to continue)",
                )
            if turns.out_of_time():
                return turns.result(EXIT_REFUSED, "limit", "limit: --max-total-minutes reached")
    finally:
        _release_at_end(turns)


def _release_at_end(turns: _Turns) -> None:
    if turns.held is None:
        return
    try:
        turns.release(turns.held)
    except RehydrateError as exc:
        turns.display.note(
            f"rehydrate run: could not release {turns.held}: {exc} (its lease expires by itself)"
        )


def _with_claims(view: ClaimsView) -> Prepare:
    return lambda options: options._replace(claims=view)


def _sync(repo: git.Repo, place: coord.Place) -> None:
    """Sync with the remote; a failure stops the run."""
    from ..merge.sync import sync

    result = sync(repo, place.remote)
    if result.outcome not in ("pushed", "up_to_date"):
        raise RehydrateError(
            f"rehydrate sync with {place.remote} failed ({result.outcome}): {result.message}"
            + "".join(f"; {line}" for line in result.details),
            code="sync_failed",
            fix="run `rehydrate sync` by hand, settle what it says, then rerun",
        )
