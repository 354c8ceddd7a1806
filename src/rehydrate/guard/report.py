"""What a guard run found: its refusals, the commits a waiver covered, and what it looked at
(``rehydrate/guard-v1``). Light to import: the hook's no-ledger-staged answer is one."""

from __future__ import annotations

from dataclasses import dataclass

from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .rules import Violation

WAIVER_KEY = "Rehydrate-Waiver:"


def waiver(trailers: Iterable[str]) -> str | None:
    """The first ``Rehydrate-Waiver:`` trailer whose reason shows something. The key is
    matched exactly (git matches trailer keys in any case; a waiver is spelled one way),
    and a reason of blanks or invisible characters is no reason."""
    from ..ledgers import visible

    for item in trailers:
        if item.startswith(WAIVER_KEY):
            reason = item[len(WAIVER_KEY) :].strip()
            if reason and visible(reason):
                return reason
    return None


@dataclass(frozen=True)
class Waived:
    """A commit whose violations a ``Rehydrate-Waiver:`` trailer turned into a report."""

    commit: str
    reason: str
    violations: tuple[Violation, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "commit": self.commit,
            "reason": self.reason,
            "violations": [v.to_json() for v in self.violations],
        }


@dataclass(frozen=True)
class GuardReport:
    """What a guard run found: refusals, waived commits, and what it looked at."""

    mode: str  # staged | range | pre-receive
    violations: tuple[Violation, ...] = ()
    waived: tuple[Waived, ...] = ()
    ledgers: tuple[str, ...] = ()  # ledger paths compared
    commits: int = 0  # commits checked (range modes)
    notes: tuple[str, ...] = ()  # warnings for stderr: what could not be judged

    def with_notes(self, notes: tuple[str, ...]) -> GuardReport:
        from dataclasses import replace

        return replace(self, notes=(*notes, *self.notes))

    @property
    def ok(self) -> bool:
        return not self.violations

    def to_json(self) -> dict[str, object]:
        return {
            "schema": "rehydrate/guard-v1",
            "ok": self.ok,
            "violations": [v.to_json() for v in self.violations],
            "waived": [w.to_json() for w in self.waived],
            "checked": {"mode": self.mode, "ledgers": list(self.ledgers), "commits": self.commits},
        }
