"""Two-way verification of summaries and continuity envelopes (CONTRACT §7).

Everything here is a function over parsed state; the only git access is the
optional ``load_pinned`` callback that ``verify_text`` uses to re-read the
ledgers at the commit a manifest was pinned to, and the ``run_check`` /
``verify_source`` / ``write_envelope`` / ``after_prompt`` entries the CLI calls.
The manifest itself (build, serialise, extract, validate) lives in ``manifest.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from ..errors import EXIT_OK, EXIT_REFUSED
from ..state import State
from ..typecheck import TYPE_CHECKING
from .compare import compare
from .decision import CONTINUITY_VALIDATION_FAILED, Decision, Reason, decide, shown
from .envelopes import build_envelope, parse_envelope, sha256_digest
from .manifest import (
    extract_manifest,
    pins_of,
    safe_id,
    validate_manifest,
)

if TYPE_CHECKING:
    from typing import Protocol

    from ..config import Config
    from ..errors import RehydrateError
    from ..git import Repo
    from ..state import Pin, Source
    from .envelopes import Envelope
    from .manifest import Manifest, Pins

    class _Built(Protocol):
        """What ``after_prompt`` reads of a ``prompt.build.Prompt`` (prompt imports this
        package, so not that class)."""

        @property
        def decision(self) -> Decision: ...

        @property
        def pins(self) -> Mapping[str, Pin]: ...

        @property
        def commit(self) -> str | None: ...

        @property
        def checksum(self) -> str: ...


VERIFY_SCHEMA = "rehydrate/verify-v1"


# Comparing a manifest with the ledgers.


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

    def to_json(self) -> dict[str, object]:
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
    # validate_manifest checked every field's type: the data has the Manifest's shape
    manifest = cast("Manifest", found.data)
    claimed = manifest["pins"]["ledgers"]
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


def _pinned_loader(repo: Repo, config: Config) -> Callable[[str], State | None]:
    from .. import git
    from ..errors import GitError, LedgerParseError
    from ..state import Source, load_state

    def load_pinned(commit: str) -> State | None:
        if git.object_type(repo, commit) != "commit":
            return None
        try:
            return load_state(repo, config, Source("rev", commit))
        except (LedgerParseError, GitError):
            return None

    return load_pinned


def verify_source(
    repo: Repo, config: Config, source: Source, text: str
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


def check_continuity(
    state: State,
    envelope: Envelope | None = None,
    envelope_problems: Sequence[Reason] = (),
    summary: bytes | None = None,
    verification: Verification | None = None,
) -> Decision:
    """The §7 decision for resuming on ``state``: failed on any continuity finding, else
    blocked on unknown writes, else reauthorization required. Never 'authorized'."""
    failed: list[Reason] = list(envelope_problems)
    if envelope is not None:
        current = {p.path: p.blob for p in state.pins.values()}
        pinned = envelope["pins"]["ledgers"]
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
    pins: Pins | None = None
    checksum: str | None = None
    envelope_id: str | None = None
    summary_sha256: str | None = None
    error: RehydrateError | None = None  # behind ledger_invalid, for file/line/rule/fix


def run_check(
    repo: Repo,
    config: Config,
    source: Source,
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
    repo: Repo,
    config: Config,
    source: Source,
    reset_reason: str,
    summary: bytes | None,
    output: str | None,
    *,
    record: bool = False,
    command: str = "envelope create",
) -> Envelope:
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
    repo: Repo,
    config: Config,
    source: Source,
    prompt: _Built,
    text: str,
    *,
    envelope_out: str | None = None,
    record: bool = False,
) -> Envelope | None:
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
