"""Kiro CLI's hooks (``rehydrate init --agent kiro``): every event wired once, by a program
that runs rehydrate."""

from __future__ import annotations

from ..agents.kiro import AGENT_FILE, HOOKS, LAYOUT
from .context import Context
from .findings import Outcome
from .hookfile import Codes, file_findings

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
    hooks, findings = file_findings(ctx, AGENT_FILE, LAYOUT, HOOKS, NAME, FIX, CODES)
    if not hooks and not findings:
        return Outcome(None)
    return Outcome(f"{len(hooks)} hooks in {AGENT_FILE}", findings)
