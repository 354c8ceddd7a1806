"""Continuity envelopes (rehydrate/continuity-envelope-v1): what a reset carried over, pinned
to the ledgers' blobs and keyed by a content id; built, parsed strictly and written."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import TypedDict, cast

from .. import digests
from ..state import CHECKSUM_PREFIX, State
from .decision import Reason
from .manifest import (
    MAX_MANIFEST_BYTES,
    Pins,
    build_manifest,
    check_pins,
    parse_json,
    safe_id,
)

ENVELOPE_SCHEMA = "rehydrate/continuity-envelope-v1"


RESET_REASONS = ("context_compaction", "context_reset", "process_restart", "handoff")


def sha256_digest(data: bytes) -> str:
    return "sha256:" + digests.sha256(data).hexdigest()


def _canonical(obj: object) -> bytes:
    # surrogatepass: JSON's \ud800 escapes parse into lone surrogates, which plain UTF-8
    # cannot encode; such an envelope must come out as a mismatch, never a crash
    text = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


def _one_line(value: object) -> bool:
    """A non-blank line of text that UTF-8 can encode (no lone surrogate)."""
    if not isinstance(value, str) or "\n" in value or not value.strip():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Envelope(TypedDict):
    """What ``build_envelope`` gives and ``parse_envelope`` accepts (``_ENVELOPE_FIELDS``)."""

    schema: str
    envelope_id: str
    reset_reason: str
    task: str | None
    pins: Pins
    checksum: str
    summary_sha256: str | None
    pending_obligations: list[str]
    unknown_writes: list[str]
    consumed_approvals: list[str]
    constraint_refs: list[str]
    requires_reauthorization: bool


def envelope_id(body: Mapping[str, object]) -> str:
    """Deterministic from the content: same state and inputs, same id."""
    rest = {k: v for k, v in body.items() if k != "envelope_id"}
    return "ce-" + digests.sha256(_canonical(rest)).hexdigest()[:32]


def build_envelope(
    state: State, reset_reason: str = "context_compaction", summary: bytes | None = None
) -> Envelope:
    """A continuity envelope: pins, checksum, summary digest and the facts that never travel
    in a summary alone (pending obligations, unknown writes, consumed approvals)."""
    if reset_reason not in RESET_REASONS:
        raise ValueError(f"unknown reset reason {reset_reason!r}")
    manifest = build_manifest(state)
    body: Envelope = {
        "schema": ENVELOPE_SCHEMA,
        "envelope_id": "",
        "reset_reason": reset_reason,
        "task": manifest["task"],
        "pins": manifest["pins"],
        "checksum": state.checksum,
        "summary_sha256": sha256_digest(summary) if summary is not None else None,
        "pending_obligations": [o["id"] for o in manifest["obligations"]],
        "unknown_writes": [
            w["id"] for w in manifest["external_writes"] if w["status"] == "unknown"
        ],
        "consumed_approvals": [a["id"] for a in manifest["consumed_approvals"]],
        "constraint_refs": [c["id"] for c in manifest["constraints"]],
        "requires_reauthorization": True,
    }
    body["envelope_id"] = envelope_id(body)
    return body


_ENVELOPE_ID = re.compile(r"^ce-[0-9a-f]{32}$")


_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


def _id_list(value: object) -> bool:
    return (
        isinstance(value, list)
        and all(safe_id(i) is not None for i in value)
        and len(set(value)) == len(value)
    )


# field -> whether its value has the shape build_envelope gives it.
_ENVELOPE_FIELDS: Mapping[str, Callable[[object], bool]] = {
    "schema": lambda v: v == ENVELOPE_SCHEMA,
    "envelope_id": lambda v: isinstance(v, str) and bool(_ENVELOPE_ID.match(v)),
    "reset_reason": lambda v: isinstance(v, str) and v in RESET_REASONS,
    "task": lambda v: v is None or _one_line(v),
    "pins": lambda v: not check_pins(v),
    "checksum": lambda v: (
        isinstance(v, str) and bool(re.fullmatch(re.escape(CHECKSUM_PREFIX) + "[0-9a-f]{64}", v))
    ),
    "summary_sha256": lambda v: v is None or (isinstance(v, str) and bool(_DIGEST.match(v))),
    "pending_obligations": _id_list,
    "unknown_writes": _id_list,
    "consumed_approvals": _id_list,
    "constraint_refs": _id_list,
    "requires_reauthorization": lambda v: v is True,
}


def parse_envelope(data: bytes) -> tuple[Envelope | None, list[Reason]]:
    """Read an envelope fail-closed: strict JSON, known schema, intact id, every field typed
    (``envelope_invalid`` names the first field that is missing, unknown or ill-typed)."""
    if len(data) > MAX_MANIFEST_BYTES:
        return None, [Reason("envelope_invalid", field="envelope")]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, [Reason("envelope_invalid", field="envelope")]
    obj = parse_json(text)
    if not isinstance(obj, dict):
        return None, [Reason("envelope_invalid", field="envelope")]
    if obj.get("schema") != ENVELOPE_SCHEMA:
        return None, [Reason("schema_unsupported", field="schema")]
    for name in obj:
        if name not in _ENVELOPE_FIELDS:
            return None, [Reason("envelope_invalid", field=safe_id(name) or "envelope")]
    for name, valid in _ENVELOPE_FIELDS.items():
        if name not in obj or not valid(obj[name]):
            return None, [Reason("envelope_invalid", field=name)]
    if obj["envelope_id"] != envelope_id(obj):
        return None, [Reason("envelope_digest_mismatch", field="envelope_id")]
    return cast("Envelope", obj), []  # every field checked by _ENVELOPE_FIELDS above
