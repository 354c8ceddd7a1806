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
    missing="kiro_event_missing",
    duplicated="kiro_hook_duplicated",
    broken="kiro_hook_interpreter_broken",
    invalid="kiro_hooks_invalid",
    bare="kiro_hook_bare",
)


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled or unrunnable hook of ours."""
    hooks, findings = hooks_in(ctx, AGENT_FILE, LAYOUT, NAME, FIX, CODES)
    if not hooks and not findings:
        return Outcome(None)
    expected = [(event, sub) for event, (_, sub, _) in HOOKS.items()]
    found = [(w.event, w.hook.name) for w in hooks]
    findings.extend(event_findings(NAME, CODES, AGENT_FILE, FIX, expected, found))
    ours = [(w.event, w.hook) for w in hooks]
    findings.extend(program_findings(ctx, NAME, CODES, AGENT_FILE, FIX, ours, by_event=True))
    return Outcome(f"{len(hooks)} hooks in {AGENT_FILE}", findings)
