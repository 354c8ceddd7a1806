"""Trace events in ``.rehydrate/events.jsonl``: IDs, pins and reason codes, never prose.

Three kinds (seed 002): ``context_compaction`` (an envelope was written before a
reset), ``context_rehydration`` (continuity held; the next action still needs
authorization) and ``continuity_validation_failed`` (a stop: failed validation,
or blocked on reconciliation). A rehydration event is never written while the
decision is ``blocked_on_reconciliation``.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Required, TypedDict, Unpack

from ..readlimit import load_json, read_text
from ..typecheck import TYPE_CHECKING
from .decision import BLOCKED_ON_RECONCILIATION, REAUTHORIZATION_REQUIRED, Decision, Reason

if TYPE_CHECKING:
    from .envelopes import Envelope
    from .manifest import Pins

EVENTS_DIR = ".rehydrate"
EVENTS_FILE = "events.jsonl"
EVENT_SCHEMA = "rehydrate/event-v1"
CONTEXT_COMPACTION = "context_compaction"
CONTEXT_REHYDRATION = "context_rehydration"
CONTINUITY_VALIDATION_FAILED = "continuity_validation_failed"
KINDS = (CONTEXT_COMPACTION, CONTEXT_REHYDRATION, CONTINUITY_VALIDATION_FAILED)


class EventRefused(ValueError):
    """An event that must not be written (a rehydration while blocked)."""


def events_path(root: Path) -> Path:
    return root / EVENTS_DIR / EVENTS_FILE


def make_event(
    kind: str,
    *,
    command: str,
    decision: str | None = None,
    reasons: Sequence[Reason] = (),
    pins: Pins | None = None,
    checksum: str | None = None,
    envelope_id: str | None = None,
    summary_sha256: str | None = None,
    reset_reason: str | None = None,
    now: datetime | None = None,
) -> dict[str, object]:
    """One event record. Only identifiers, digests and codes go in: no ledger text."""
    if kind not in KINDS:
        raise ValueError(f"unknown event kind {kind!r}")
    if kind == CONTEXT_REHYDRATION and decision != REAUTHORIZATION_REQUIRED:
        raise EventRefused(f"no {CONTEXT_REHYDRATION} event while the decision is {decision}")
    event: dict[str, object] = {
        "schema": EVENT_SCHEMA,
        "event": kind,
        "event_id": "ev-" + uuid.uuid4().hex,
        "time": (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command,
    }
    optional: dict[str, object] = {
        "decision": decision,
        "reasons": [r.to_json() for r in reasons] if reasons else None,
        "pins": dict(pins) if pins is not None else None,
        "checksum": checksum,
        "envelope_id": envelope_id,
        "summary_sha256": summary_sha256,
        "reset_reason": reset_reason,
    }
    event.update({k: v for k, v in optional.items() if v is not None})
    if kind == CONTEXT_REHYDRATION:
        event["requires_reauthorization"] = True
    return event


def append_event(root: Path, event: Mapping[str, object]) -> Path:
    """Append one JSON line with a single O_APPEND write (concurrent writers never interleave
    within a line). ``.rehydrate/`` gets a ``.gitignore`` so the log is never committed."""
    if (
        event.get("event") == CONTEXT_REHYDRATION
        and event.get("decision") == BLOCKED_ON_RECONCILIATION
    ):
        raise EventRefused("no rehydration event while blocked on reconciliation")
    folder = root / EVENTS_DIR
    if folder.is_symlink():
        raise OSError(f"{folder} is a symlink; refusing to write events through it")
    folder.mkdir(exist_ok=True)
    if not os.path.lexists(folder / ".gitignore"):  # a symlink there is never written through
        from ..ledgers.atomicfile import write_in_repo

        write_in_repo(root, f"{EVENTS_DIR}/.gitignore", b"*\n", exclusive=True)
    line = (
        json.dumps(event, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
    ).encode("utf-8")
    path = folder / EVENTS_FILE
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    return path


def decision_event(
    decision: Decision,
    *,
    command: str,
    pins: Pins | None = None,
    checksum: str | None = None,
    envelope_id: str | None = None,
    summary_sha256: str | None = None,
) -> dict[str, object]:
    """The event a decision calls for: rehydration only when reauthorization is required;
    a blocked or failed decision is a stop (``continuity_validation_failed``)."""
    kind = (
        CONTEXT_REHYDRATION
        if decision.decision == REAUTHORIZATION_REQUIRED
        else CONTINUITY_VALIDATION_FAILED
    )
    return make_event(
        kind,
        command=command,
        decision=decision.decision,
        reasons=decision.reasons,
        pins=pins,
        checksum=checksum,
        envelope_id=envelope_id,
        summary_sha256=summary_sha256,
    )


class DecisionFields(TypedDict, total=False):
    """The keyword arguments of ``decision_event`` (``command`` required)."""

    command: Required[str]
    pins: Pins | None
    checksum: str | None
    envelope_id: str | None
    summary_sha256: str | None


def record_decision(
    root: Path, decision: Decision, **fields: Unpack[DecisionFields]
) -> dict[str, object]:
    """Append the event for ``decision`` (see ``decision_event``) and return it."""
    event = decision_event(decision, **fields)
    append_event(root, event)
    return event


def record_compaction(root: Path, envelope: Envelope, *, command: str) -> dict[str, object]:
    """Append a ``context_compaction`` event for an envelope just written."""
    event = make_event(
        CONTEXT_COMPACTION,
        command=command,
        pins=envelope["pins"],
        checksum=envelope["checksum"],
        envelope_id=envelope["envelope_id"],
        summary_sha256=envelope.get("summary_sha256"),
        reset_reason=envelope["reset_reason"],
    )
    append_event(root, event)
    return event


def read_events(root: Path) -> list[dict[str, object]]:
    """Every recorded event, oldest first (for tests and tools); a line that is not a JSON
    object is an error (``ValueError``), never skipped."""
    path = events_path(root)
    if not path.exists():
        return []
    events: list[dict[str, object]] = []
    for number, line in enumerate(read_text(path, 64 << 20).splitlines(), 1):
        if line:
            event = load_json(line)
            if not isinstance(event, dict):
                raise ValueError(f"{path}:{number}: an event is a JSON object")
            events.append(event)
    return events
