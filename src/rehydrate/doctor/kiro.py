"""Kiro CLI's hooks (``rehydrate init --agent kiro``): every event wired once, by a program
that runs rehydrate."""

from __future__ import annotations

from ..agents.kiro import AGENT_FILE, HOOKS, LAYOUT
from .context import Context
from .findings import Outcome
from .hookfile import Codes, event_findings, hooks_in, program_findings

NAME = "kiro"
FIX = "rehydrate init --agent kiro"
CODES = Codes(
    "kiro_hooks_invalid",
    "kiro_event_missing",
    "kiro_hook_duplicated",
    "kiro_hook_bare",
    "kiro_hook_interpreter_broken",
)


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled or unrunnable hook of ours."""
    hooks, findings = hooks_in(ctx, AGENT_FILE, LAYOUT, NAME, FIX, CODES)
    if not hooks and not findings:
        return Outcome(None)
    findings.extend(event_findings(hooks, HOOKS, NAME, NAME, AGENT_FILE, FIX, CODES))
    findings.extend(program_findings(ctx, hooks, NAME, AGENT_FILE, FIX, CODES))
    return Outcome(f"{len(hooks)} hooks in {AGENT_FILE}", findings)
