"""What ``rehydrate doctor`` reports: one status per integration, and findings.

A finding is data with a stable ``code``: what is wrong, where, and the exact command
that fixes it. An integration is ``ok``, ``broken`` (it has findings), ``absent`` (not
installed, which is no finding for an optional one) or ``disabled``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

SCHEMA = "rehydrate/doctor-v1"


@dataclass(frozen=True)
class Finding:
    """One thing wrong with the wiring, and its fix (a command to run, or an edit)."""

    code: str
    integration: str
    message: str
    fix: str
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}{f':{self.line}' if self.line else ''}: " if self.file else ""
        return f"{where}{self.code}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "integration": self.integration,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class Outcome:
    """What one check found: ``detail`` None when the integration is not installed."""

    detail: str | None
    findings: Sequence[Finding] = field(default_factory=tuple)
    active: bool = True  # False: installed but switched off (a disabled plugin)


@dataclass(frozen=True)
class Integration:
    name: str
    state: str  # ok | broken | absent | disabled
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "state": self.state, "detail": self.detail}


def integration(name: str, outcome: Outcome, absent: str) -> Integration:
    """The status line for ``outcome`` (``absent``: what to say when it is not installed)."""
    if outcome.findings:
        state = "broken"
    elif outcome.detail is None:
        state = "absent"
    else:
        state = "ok" if outcome.active else "disabled"
    return Integration(name, state, outcome.detail if outcome.detail is not None else absent)


@dataclass(frozen=True)
class Report:
    root: str
    integrations: Sequence[Integration]
    findings: Sequence[Finding]

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, object]:
        return {
            "schema": SCHEMA,
            "ok": self.ok,
            "root": self.root,
            "integrations": [i.to_json() for i in self.integrations],
            "findings": [f.to_json() for f in self.findings],
        }
