"""Two-way verification of summaries and continuity envelopes (CONTRACT §7).

Everything here is a function over parsed state; the only git access is the
optional ``load_pinned`` callback that ``verify_text`` uses to re-read the
ledgers at the commit a manifest was pinned to, and the ``run_check`` /
``verify_source`` / ``write_envelope`` / ``after_prompt`` entries the CLI calls.
The manifest itself (build, serialise, extract, validate) lives in ``manifest.py``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import EXIT_OK, EXIT_REFUSED
from ..ledgers import normalize
from ..ledgers.model import LEVEL_POLARITY, LEVEL_STRENGTH, Ledger
from ..ledgers.task import next_action_problem
from ..state import CHECKSUM_PREFIX, State
from .decision import CONTINUITY_VALIDATION_FAILED, Decision, Reason, decide, shown
from .manifest import (
    MAX_MANIFEST_BYTES,
    build_manifest,
    check_pins,
    extract_manifest,
    parse_json,
    pins_of,
    safe_id,
    validate_manifest,
)

VERIFY_SCHEMA = "rehydrate/verify-v1"
ENVELOPE_SCHEMA = "rehydrate/continuity-envelope-v1"
RESET_REASONS = ("context_compaction", "context_reset", "process_restart", "handoff")


# Comparing a manifest with the ledgers.


def _weaker_or_other(claimed: str, actual: str) -> str:
    same_side = LEVEL_POLARITY[claimed] == LEVEL_POLARITY[actual] or claimed == "MAY"
    if same_side and LEVEL_STRENGTH[claimed] < LEVEL_STRENGTH[actual]:
        return "constraint_weakened"
    return "constraint_level_mismatch"


@dataclass(frozen=True)
class ListRule:
    """How one ID+status (or level) list of the manifest is compared with the ledgers."""

    field: str
    kind: str  # ledger kind
    section: str  # ledger section holding the IDs
    key: str  # "status" | "level"
    dropped: str  # code for an expected ID the manifest lacks
    claims: Mapping[str, str] = field(default_factory=dict)  # claimed value -> code
    mismatch: str = "status_mismatch"
    dropped_by_value: Mapping[str, str] = field(default_factory=dict)  # ledger value -> code
    classify: Callable[[str, str], str] | None = None


LIST_RULES: tuple[ListRule, ...] = (
    ListRule(
        "obligations",
        "task",
        "obligations",
        "status",
        "obligation_dropped",
        {"done": "obligation_claimed_done"},
        "obligation_status_mismatch",
    ),
    ListRule(
        "external_writes",
        "task",
        "external writes",
        "status",
        "write_dropped",
        {},
        "write_status_mismatch",
        {"unknown": "unknown_write_dropped"},
    ),
    ListRule(
        "consumed_approvals",
        "task",
        "approvals",
        "status",
        "consumed_approval_dropped",
        {"granted": "approval_reused"},
        "approval_status_mismatch",
    ),
    ListRule(
        "constraints",
        "spec",
        "constraints",
        "level",
        "constraint_dropped",
        classify=_weaker_or_other,
    ),
    ListRule(
        "open_decisions",
        "spec",
        "decisions",
        "status",
        "open_decision_dropped",
        {"decided": "decision_claimed_decided"},
        "decision_status_mismatch",
    ),
    ListRule(
        "completion_checks",
        "task",
        "completion checks",
        "status",
        "completion_check_dropped",
        {"passed": "completion_check_claimed_passed"},
        "completion_check_status_mismatch",
    ),
)


def _compare_list(
    rule: ListRule, claimed: list[dict[str, str]], expected: list[dict[str, str]], ledger: Ledger
) -> list[Reason]:
    out: list[Reason] = []
    have = {e["id"]: e[rule.key] for e in claimed}
    for entry in expected:
        if entry["id"] not in have:
            code = rule.dropped_by_value.get(entry[rule.key], rule.dropped)
            out.append(Reason(code, id=entry["id"], field=rule.field))
    records = {r.id: r for r in ledger.section(rule.section)}
    retired = ledger.retired_ids
    for entry in claimed:
        item_id, value = entry["id"], entry[rule.key]
        record = records.get(item_id)
        if record is None:
            out.append(Reason("unverified", id=safe_id(item_id), field=rule.field))
            continue
        actual = getattr(record, rule.key)
        if value == actual:
            # True of the ledger; only a claim about a retired item is out of place.
            if item_id in retired and not any(e["id"] == item_id for e in expected):
                out.append(Reason("item_retired", id=item_id, field=rule.field))
            continue
        if rule.classify is not None:
            code = rule.classify(value, actual)
        else:
            code = rule.claims.get(value, rule.mismatch)
        out.append(Reason(code, id=item_id, field=rule.field))
    return out


def _phase_code(claimed: str, actual: str) -> str:
    if actual == "done":
        return "phase_rolled_back"
    if claimed == "done":
        return "phase_claimed_done"
    return "phase_status_mismatch"


def _order_differs(claimed: Sequence[str], expected: Sequence[str]) -> bool:
    common = set(claimed) & set(expected)
    return [i for i in claimed if i in common] != [i for i in expected if i in common]


def _compare_phases(
    manifest: Mapping[str, Any], expected: Mapping[str, Any], task: Ledger
) -> list[Reason]:
    out: list[Reason] = []
    records = {p.id: p for p in task.section("phases")}
    claimed = manifest["phases"]
    claimed_ids = [p["id"] for p in claimed]
    for phase in expected["phases"]:
        if phase["id"] not in claimed_ids:
            out.append(Reason("phase_dropped", id=phase["id"], field="phases"))
    for phase in claimed:
        record = records.get(phase["id"])
        if record is None:
            out.append(Reason("unverified", id=safe_id(phase["id"]), field="phases"))
        elif phase["id"] in task.retired_ids:
            out.append(Reason("item_retired", id=phase["id"], field="phases"))
        elif phase["status"] != record.status:
            out.append(
                Reason(_phase_code(phase["status"], record.status), id=phase["id"], field="phases")
            )
    if _order_differs(claimed_ids, [p["id"] for p in expected["phases"]]):
        out.append(Reason("phase_order_mismatch", field="phases"))
    done = expected["completed_phases"]
    for phase_id in done:
        if phase_id not in manifest["completed_phases"]:
            out.append(Reason("phase_rolled_back", id=phase_id, field="completed_phases"))
    for phase_id in manifest["completed_phases"]:
        if phase_id in done:
            continue
        record = records.get(phase_id)
        code = "unverified" if record is None else "phase_claimed_done"
        out.append(Reason(code, id=safe_id(phase_id), field="completed_phases"))
    if _order_differs(manifest["completed_phases"], done):
        out.append(Reason("phase_order_mismatch", field="completed_phases"))
    return out


def _compare_next_action(claimed: str | None, expected: str | None) -> list[Reason]:
    if claimed is None:
        return [] if expected is None else [Reason("next_action_dropped", field="next_action")]
    if next_action_problem(claimed) or re.search(r"\band then\b", claimed, re.IGNORECASE):
        return [Reason("next_action_not_single", field="next_action")]
    if expected is None or normalize(claimed) != normalize(expected):
        return [Reason("next_action_mismatch", field="next_action")]
    return []


def compare(manifest: Mapping[str, Any], state: State) -> list[Reason]:
    """Both directions: what the manifest drops, and what it claims that the ledgers do not
    support, against the ledgers in ``state``. The manifest must already be valid."""
    expected = build_manifest(state)
    out: list[Reason] = []
    for name in ("task", "objective"):
        claimed, actual = manifest[name], expected[name]
        if (claimed is None) != (actual is None) or (
            claimed is not None and normalize(claimed) != normalize(actual)
        ):
            out.append(Reason(f"{name}_mismatch", field=name))
    out += _compare_next_action(manifest["next_action"], expected["next_action"])
    out += _compare_phases(manifest, expected, state.ledgers["task"])
    for rule in LIST_RULES:
        out += _compare_list(
            rule, manifest[rule.field], expected[rule.field], state.ledgers[rule.kind]
        )
    if manifest["checksum"] != expected["checksum"]:
        out.append(Reason("checksum_mismatch", field="checksum"))
    return out


# Verifying a summary or restatement.


@dataclass(frozen=True)
class Verification:
    """The verdict on one summary: faithful or not, ledgers changed or not, what to do."""

    summary: str  # "faithful" | "unfaithful"
    canonical_check: str  # "unchanged" | "changed"
    reasons: tuple[Reason, ...]

    @property
    def action(self) -> str:
        if self.canonical_check == "changed":
            return "restart_from_current"
        return "proceed" if self.summary == "faithful" else "regenerate_summary"

    @property
    def ok(self) -> bool:
        return self.summary == "faithful" and self.canonical_check == "unchanged"

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.ok else EXIT_REFUSED

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": VERIFY_SCHEMA,
            "summary": self.summary,
            "canonical_check": self.canonical_check,
            "action": self.action,
            "reasons": [
                {"code": r.code, "id": shown(r.id), "field": shown(r.field)} for r in self.reasons
            ],
        }


def _dedupe(reasons: Iterable[Reason]) -> tuple[Reason, ...]:
    return tuple(dict.fromkeys(reasons))


# Codes that are about the ledgers having moved, not about the summary.
CANONICAL_CODES = frozenset({"ledger_changed", "ledger_invalid"})


def _verdict(reasons: Iterable[Reason], changed: bool) -> Verification:
    reasons = _dedupe(reasons)
    summary_faults = [r for r in reasons if r.code not in CANONICAL_CODES]
    return Verification(
        "unfaithful" if summary_faults else "faithful",
        "changed" if changed else "unchanged",
        reasons,
    )


def ledger_invalid(path: str | None, item_id: str | None) -> Verification:
    """The verdict when the ledgers to compare with cannot be read: never 'proceed'."""
    return Verification(
        "unfaithful",
        "changed",
        (Reason("ledger_invalid", id=shown(item_id) or path, field="ledgers"),),
    )


def verify_text(
    text: str, state: State, load_pinned: Callable[[str], State | None] | None = None
) -> Verification:
    """Verify the manifest embedded in ``text`` against ``state``, in both directions.

    When the manifest's pins differ from ``state``'s and its commit can be read
    (``load_pinned``) and holds exactly the pinned blobs, the ledgers moved since the
    summary was made: the manifest is judged against the pinned commit and the ledger
    change is reported apart (``canonical_check: changed``, ``restart_from_current``).
    """
    found = extract_manifest(text)
    if found.problem is not None:
        return _verdict([found.problem], False)
    problems = validate_manifest(found.data)
    if problems:
        return _verdict(problems, False)
    manifest = found.data
    claimed: Mapping[str, str] = manifest["pins"]["ledgers"]
    current = {p.path: p.blob for p in state.pins.values()}
    reasons: list[Reason] = []
    for path in claimed:
        if path not in current:
            reasons.append(Reason("unverified", id=safe_id(path), field="pins.ledgers"))
    moved = [p for p in current if claimed.get(p) != current[p]]
    if not moved:
        return _verdict(reasons + compare(manifest, state), False)
    commit = manifest["pins"]["commit"]
    pinned = load_pinned(commit) if (commit and load_pinned) else None
    if pinned is not None:
        at_pin = {p.path: p.blob for p in pinned.pins.values()}
        wrong = [p for p in current if claimed.get(p) != at_pin.get(p)]
        if not wrong:
            # Genuine pins: the summary is judged against what it was made from.
            changed = [Reason("ledger_changed", id=p, field="pins.ledgers") for p in moved]
            return _verdict(changed + reasons + compare(manifest, pinned), True)
        reasons += [Reason("pin_mismatch", id=p, field="pins.ledgers") for p in wrong]
        changed_paths = [p for p in current if at_pin.get(p) != current[p]]
        if changed_paths:
            reasons += [Reason("ledger_changed", id=p, field="pins.ledgers") for p in changed_paths]
            return _verdict(reasons + compare(manifest, pinned), True)
        return _verdict(reasons + compare(manifest, state), False)
    # No readable pinned commit: the pins cannot be explained, so they are wrong, and the
    # ledgers may have moved too; restarting from the current ledgers is the safe action.
    reasons += [Reason("pin_mismatch", id=p, field="pins.ledgers") for p in moved]
    reasons.append(Reason("pin_unverifiable", field="pins.commit"))
    return _verdict(reasons + compare(manifest, state), True)


def _pinned_loader(repo: Any, config: Any) -> Callable[[str], State | None]:
    from .. import git
    from ..errors import LedgerParseError
    from ..state import Source, load_state

    def load_pinned(commit: str) -> State | None:
        if git.object_type(repo, commit) != "commit":
            return None
        try:
            return load_state(repo, config, Source("rev", commit))
        except (LedgerParseError, git.GitError):
            return None

    return load_pinned


def verify_source(
    repo: Any, config: Any, source: Any, text: str
) -> tuple[Verification, State | None]:
    """The git-backed entry: load the ledgers at ``source`` (and, when needed, at the
    manifest's pinned commit) and verify ``text``. An unreadable ledger is a verdict
    (``ledger_invalid``), not a crash."""
    from ..errors import LedgerParseError
    from ..state import load_state

    try:
        state = load_state(repo, config, source)
    except LedgerParseError as exc:
        return ledger_invalid(exc.file, exc.item_id), None
    return verify_text(text, state, _pinned_loader(repo, config)), state


# Continuity envelopes.


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def envelope_id(body: Mapping[str, Any]) -> str:
    """Deterministic from the content: same state and inputs, same id."""
    rest = {k: v for k, v in body.items() if k != "envelope_id"}
    return "ce-" + hashlib.sha256(_canonical(rest)).hexdigest()[:32]


def build_envelope(
    state: State, reset_reason: str = "context_compaction", summary: bytes | None = None
) -> dict[str, Any]:
    """A continuity envelope: pins, checksum, summary digest and the facts that never travel
    in a summary alone (pending obligations, unknown writes, consumed approvals)."""
    if reset_reason not in RESET_REASONS:
        raise ValueError(f"unknown reset reason {reset_reason!r}")
    manifest = build_manifest(state)
    body: dict[str, Any] = {
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


def _id_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and all(safe_id(i) is not None for i in value)
        and len(set(value)) == len(value)
    )


# field -> whether its value has the shape build_envelope gives it.
_ENVELOPE_FIELDS: Mapping[str, Callable[[Any], bool]] = {
    "schema": lambda v: v == ENVELOPE_SCHEMA,
    "envelope_id": lambda v: isinstance(v, str) and bool(_ENVELOPE_ID.match(v)),
    "reset_reason": lambda v: isinstance(v, str) and v in RESET_REASONS,
    "task": lambda v: v is None or (isinstance(v, str) and "\n" not in v and bool(v.strip())),
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


def parse_envelope(data: bytes) -> tuple[dict[str, Any] | None, list[Reason]]:
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
    return obj, []


def check_continuity(
    state: State,
    envelope: Mapping[str, Any] | None = None,
    envelope_problems: Sequence[Reason] = (),
    summary: bytes | None = None,
    verification: Verification | None = None,
) -> Decision:
    """The §7 decision for resuming on ``state``: failed on any continuity finding, else
    blocked on unknown writes, else reauthorization required. Never 'authorized'."""
    failed: list[Reason] = list(envelope_problems)
    if envelope is not None:
        current = {p.path: p.blob for p in state.pins.values()}
        pinned: Mapping[str, str] = envelope["pins"]["ledgers"]
        for path in list(current) + [p for p in pinned if p not in current]:
            if pinned.get(path) != current.get(path):
                failed.append(
                    Reason("ledger_changed", path=path if path in current else safe_id(path))
                )
        if summary is not None:
            expected = envelope["summary_sha256"]
            if expected is None:
                failed.append(Reason("summary_digest_missing", field="summary_sha256"))
            elif sha256_digest(summary) != expected:
                failed.append(Reason("summary_digest_mismatch", field="summary_sha256"))
        approvals = {a.id: a.status for a in state.ledgers["task"].section("approvals")}
        for approval_id in envelope["consumed_approvals"]:
            if approvals.get(approval_id) == "granted":
                failed.append(Reason("approval_consumed", id=approval_id))
    if verification is not None and not verification.ok:
        for reason in verification.reasons:
            if reason.code == "ledger_changed":
                failed.append(Reason("ledger_changed", path=reason.id))
            else:
                failed.append(Reason(reason.code, id=reason.id, field=reason.field))
        if not verification.reasons:
            failed.append(Reason("summary_unfaithful", field="summary"))
    outcome = decide(state.ledgers)
    if failed:
        return Decision(CONTINUITY_VALIDATION_FAILED, _dedupe(failed + list(outcome.reasons)))
    return outcome


@dataclass(frozen=True)
class CheckOutcome:
    """A ``check`` run: the decision, and the identifiers a trace event may carry."""

    decision: Decision
    pins: Mapping[str, Any] | None = None
    checksum: str | None = None
    envelope_id: str | None = None
    summary_sha256: str | None = None
    error: Any = None  # the RehydrateError behind ledger_invalid, for file/line/rule/fix


def run_check(
    repo: Any,
    config: Any,
    source: Any,
    envelope_data: bytes | None = None,
    summary_data: bytes | None = None,
) -> CheckOutcome:
    """The git-backed ``check``: load the ledgers, read the envelope, decide.

    With an envelope, a given summary is checked by digest; without one, the summary's
    resume manifest is verified. An unreadable ledger is ``ledger_invalid``.
    """
    from ..errors import LedgerParseError
    from ..state import load_state
    from .decision import invalid

    summary_digest = sha256_digest(summary_data) if summary_data is not None else None
    try:
        state = load_state(repo, config, source)
    except LedgerParseError as exc:
        return CheckOutcome(invalid(exc), summary_sha256=summary_digest, error=exc)
    envelope, problems = parse_envelope(envelope_data) if envelope_data is not None else (None, [])
    verification = None
    if summary_data is not None and envelope_data is None:
        try:
            text = summary_data.decode("utf-8")
        except UnicodeDecodeError:
            text = ""
        verification = verify_text(text, state, _pinned_loader(repo, config))
    decision = check_continuity(
        state, envelope, problems, summary_data if envelope is not None else None, verification
    )
    return CheckOutcome(
        decision,
        pins=pins_of(state),
        checksum=state.checksum,
        envelope_id=envelope["envelope_id"] if envelope else None,
        summary_sha256=summary_digest,
    )


def write_envelope(
    repo: Any,
    config: Any,
    source: Any,
    reset_reason: str,
    summary: bytes | None,
    output: str | None,
    *,
    record: bool = False,
    command: str = "envelope create",
) -> dict[str, Any]:
    """Build an envelope at ``source``, write it to ``output`` (if given) and, when asked,
    append the ``context_compaction`` event. Returns the envelope."""
    from ..state import load_state

    envelope = build_envelope(load_state(repo, config, source), reset_reason, summary)
    if output:
        from pathlib import Path

        from ..ledgers.atomicfile import atomic_write

        text = json.dumps(envelope, ensure_ascii=False, indent=2) + "\n"
        atomic_write(Path(output), text.encode("utf-8"))
    if record:
        from .trace import record_compaction

        record_compaction(repo.root, envelope, command=command)
    return envelope


def after_prompt(
    repo: Any,
    config: Any,
    source: Any,
    prompt: Any,
    text: str,
    *,
    envelope_out: str | None = None,
    record: bool = False,
) -> dict[str, Any] | None:
    """What ``prompt --envelope-out/--record`` adds: an envelope for the prompt's pins (its
    ``summary_sha256`` binds the prompt text itself), and the decision's trace event."""
    from ..errors import RehydrateError
    from ..state import load_state

    envelope = None
    pins = {p.path: p.blob for p in prompt.pins.values()}
    if envelope_out:
        state = load_state(repo, config, source)
        if pins_of(state)["ledgers"] != pins:
            raise RehydrateError(
                "the ledgers changed while the prompt was being built",
                code="ledger_changed",
                fix="run `rehydrate prompt` again",
            )
        envelope = build_envelope(state, "context_reset", text.encode("utf-8"))
        from pathlib import Path

        from ..ledgers.atomicfile import atomic_write

        atomic_write(
            Path(envelope_out),
            (json.dumps(envelope, ensure_ascii=False, indent=2) + "\n").encode("utf-8"),
        )
    if record:
        from .trace import record_decision

        record_decision(
            repo.root,
            prompt.decision,
            command="prompt",
            pins={"commit": prompt.commit, "ledgers": pins},
            checksum=prompt.checksum,
            envelope_id=envelope["envelope_id"] if envelope else None,
            summary_sha256=sha256_digest(text.encode("utf-8")),
        )
    return envelope
