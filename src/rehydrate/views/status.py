"""``rehydrate status``: the one-screen view for people, as data (pure: state -> model).

Status is the one view allowed to depend on the date (overdue decisions); the date is
a parameter, so the model is still a pure function of its inputs. Reading git (artifact
blobs, what differs from HEAD) happens in ``gather``.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .. import git
from ..config import Config
from ..continuity.decision import Decision, decide
from ..continuity.sessions import SessionRecord, read_index
from ..continuity.verifications import Checked, artifact_blobs, split_stale
from ..state import Source, State, load_state, uncommitted_ledgers
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..ledgers import Ledger
    from ..ledgers.model import ExternalWrite, Phase

SCHEMA = "rehydrate/status-v1"
LAST_SESSIONS = 3  # `rehydrate run` sessions shown; `rehydrate run --status` shows more
BAR_WIDTH = 20  # one cell per phase up to this many phases, proportional beyond
# Sections counted as active/retired, in display order.
COUNTED: tuple[tuple[str, str], ...] = (
    ("spec", "constraints"),
    ("spec", "contracts"),
    ("failures", "failures"),
)
# (section, status counted as "open") for the open-item counts.
OPEN_COUNTS: tuple[tuple[str, str], ...] = (
    ("obligations", "open"),
    ("completion checks", "open"),
    ("approvals", "granted"),
)
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\b")


@dataclass(frozen=True)
class OpenDecision:
    id: str
    question: str
    owner: str
    due: str  # as written in the ledger
    overdue_days: int | None  # > 0 when overdue; None when Due is empty or not a date

    @property
    def overdue(self) -> bool:
        return self.overdue_days is not None and self.overdue_days > 0

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "question": self.question,
            "owner": self.owner,
            "due": self.due,
            "overdue": self.overdue,
            "overdue_days": self.overdue_days or 0,
        }


@dataclass(frozen=True)
class StatusView:
    """Everything ``status`` shows, computed once; rendering is the CLI's business."""

    task: str
    revision: int | None
    objective: str
    source: Source
    head: str | None
    branch: str | None
    today: _dt.date
    phases: tuple[Phase, ...]  # in order (active only)
    next_action: str | None
    decision: Decision
    blocked_writes: tuple[ExternalWrite, ...]  # their outcome is unknown
    pending_writes: tuple[ExternalWrite, ...]
    counts: Mapping[str, Mapping[str, int]]
    open_decisions: tuple[OpenDecision, ...]
    stale: tuple[Checked, ...]
    uncommitted: tuple[str, ...]  # ledger paths whose work tree differs from HEAD
    sessions: tuple[SessionRecord, ...] = ()  # the last `rehydrate run` sessions, oldest first

    @property
    def done(self) -> int:
        return sum(1 for p in self.phases if p.status == "done")

    @property
    def current_phases(self) -> tuple[Phase, ...]:
        return tuple(p for p in self.phases if p.status == "doing")

    @property
    def overdue(self) -> tuple[OpenDecision, ...]:
        return tuple(d for d in self.open_decisions if d.overdue)

    def to_json(self) -> dict[str, object]:
        """The view as JSON, every string through ``quote.outgoing`` (agents read it too:
        ``status --json`` and the MCP ``status`` tool)."""
        from ..quote import outgoing_json

        value = outgoing_json(self._json())
        assert isinstance(value, dict)
        return value

    def _json(self) -> dict[str, object]:
        return {
            "schema": SCHEMA,
            "source": self.source.kind,
            "head": self.head,
            "branch": self.branch,
            "today": self.today.isoformat(),
            "task": {"id": self.task, "revision": self.revision, "objective": self.objective},
            "phases": {
                "done": self.done,
                "total": len(self.phases),
                "items": [{"id": p.id, "phase": p.phase, "status": p.status} for p in self.phases],
            },
            "next_action": self.next_action,
            "decision": self.decision.to_json(),
            "blocked_writes": [_write_json(w) for w in self.blocked_writes],
            "pending_writes": [_write_json(w) for w in self.pending_writes],
            "counts": {k: dict(v) for k, v in self.counts.items()},
            "open_decisions": [d.to_json() for d in self.open_decisions],
            "stale_verifications": [
                {
                    "id": c.verification.id,
                    "check": c.verification.check,
                    "artifact": c.verification.artifact,
                    "recorded_blob": c.verification.blob,
                    "current_blob": c.current,
                }
                for c in self.stale
            ],
            "uncommitted": list(self.uncommitted),
            "last_sessions": [r.to_json() for r in self.sessions],
        }


def _write_json(write: ExternalWrite) -> dict[str, str]:
    return {
        "id": write.id,
        "operation": write.operation,
        "status": write.status,
        "idempotency_key": write.idempotency_key,
    }


def parse_due(text: str) -> _dt.date | None:
    """A Due cell's date when it starts with YYYY-MM-DD; anything else is not a date."""
    match = _ISO_DATE.match(text.strip())
    if not match:
        return None
    try:
        return _dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def open_decisions(spec: Ledger, today: _dt.date) -> tuple[OpenDecision, ...]:
    """Active open decisions, soonest due first (undated last), overdue ones flagged."""
    out = []
    for d in spec.active("decisions"):
        if d.status != "open":
            continue
        due = parse_due(d.due)
        days = (today - due).days if due else None
        out.append(
            (due or _dt.date.max, d.id, OpenDecision(d.id, d.question, d.owner, d.due, days))
        )
    return tuple(item for *_, item in sorted(out, key=lambda t: (t[0], t[1])))


def counts(ledgers: Mapping[str, Ledger]) -> dict[str, dict[str, int]]:
    """Active/retired counts per counted section, and open counts for task sections."""
    out: dict[str, dict[str, int]] = {}
    for kind, section in COUNTED:
        ledger = ledgers[kind]
        records = ledger.section(section)
        retired = sum(1 for r in records if r.id in ledger.retired_ids)
        out[section] = {"active": len(records) - retired, "retired": retired}
    task = ledgers["task"]
    for section, status in OPEN_COUNTS:
        active = task.active(section)
        count = len(task.active_with_status(section, status))
        out[section] = {status: count, "total": len(active)}
    spec = ledgers["spec"]
    decisions = spec.active("decisions")
    out["decisions"] = {
        "open": sum(1 for d in decisions if d.status == "open"),
        "total": len(decisions),
    }
    return out


def build_status(
    state: State,
    *,
    today: _dt.date,
    artifacts: Mapping[str, str | None],
    uncommitted: Sequence[str] = (),
    decision: Decision | None = None,
    sessions: Sequence[SessionRecord] = (),
) -> StatusView:
    """The status model of ``state`` on ``today`` (pure)."""
    task = state.ledgers["task"]
    writes = task.active("external writes")
    # Unknown writes block even when retired (decide() fails closed the same way).
    blocked = tuple(w for w in task.section("external writes") if w.status == "unknown")
    stale, _current = split_stale(task.active("verified"), artifacts)
    return StatusView(
        task=task.task_id,
        revision=task.revision,
        objective=task.objective,
        source=state.source,
        head=state.head,
        branch=state.branch,
        today=today,
        phases=task.active("phases"),
        next_action=task.next_action.text if task.next_action else None,
        decision=decision or decide(state.ledgers),
        blocked_writes=blocked,
        pending_writes=tuple(w for w in writes if w.status == "pending"),
        counts=counts(state.ledgers),
        open_decisions=open_decisions(state.ledgers["spec"], today),
        stale=tuple(stale),
        uncommitted=tuple(uncommitted),
        sessions=tuple(sessions),
    )


def progress_bar(phases: Sequence[Phase], width: int = BAR_WIDTH) -> str:
    """``[##>--]``: ``#`` done, ``>`` doing, ``-`` todo; one cell per phase up to ``width``."""
    if not phases:
        return "[]"
    if len(phases) <= width:
        cells = "".join({"done": "#", "doing": ">"}.get(p.status, "-") for p in phases)
        return f"[{cells}]"
    done = sum(1 for p in phases if p.status == "done")
    doing = sum(1 for p in phases if p.status == "doing")
    filled = done * width // len(phases)
    active = min(width - filled, -(-doing * width // len(phases)))
    return "[" + "#" * filled + ">" * active + "-" * (width - filled - active) + "]"


def gather(repo: git.Repo, config: Config, source: Source, today: _dt.date) -> StatusView:
    """Load the state at ``source`` and everything status shows about it (reads git)."""
    state = load_state(repo, config, source)
    return build_status(
        state,
        today=today,
        artifacts=artifact_blobs(repo, state),
        uncommitted=uncommitted_ledgers(repo, config),
        sessions=tuple(read_index(repo.root))[-LAST_SESSIONS:],
    )


def today_from_env(environ: Mapping[str, str]) -> _dt.date:
    """``REHYDRATE_TODAY`` (YYYY-MM-DD) when set, else the local date."""
    from ..environment import TODAY, raw

    value = raw(TODAY, environ)
    if value:
        parsed = parse_due(value)
        if parsed is None or len(value) != 10:
            from ..errors import RehydrateError

            raise RehydrateError(
                f"REHYDRATE_TODAY={value!r} is not a date",
                code="usage",
                fix="set it as YYYY-MM-DD, or unset it",
            )
        return parsed
    return _dt.date.today()
