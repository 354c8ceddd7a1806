"""Kiro CLI's hooks (``rehydrate init --agent kiro``): every event wired once, by a program
that runs rehydrate."""

from __future__ import annotations

from ..agents.kiro import AGENT_FILE, HOOKS, LAYOUT
from .context import Context
from .findings import Outcome
from .hookfile import event_findings, hooks_in, program_findings

NAME = "kiro"
FIX = "rehydrate init --agent kiro"


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled or unrunnable hook of ours."""
    hooks, findings = hooks_in(ctx, AGENT_FILE, LAYOUT, NAME, FIX)
    if not hooks and not findings:
        return Outcome(None)
    findings.extend(event_findings(hooks, HOOKS, NAME, NAME, AGENT_FILE, FIX))
    findings.extend(program_findings(ctx, hooks, NAME, NAME, AGENT_FILE, FIX))
    return Outcome(f"{len(hooks)} hooks in {AGENT_FILE}", findings)
