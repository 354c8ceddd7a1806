"""Cursor's hooks (``rehydrate init --agent cursor``): every event wired once, by a program
that runs rehydrate."""

from __future__ import annotations

from ..agents.cursor import HOOKS, HOOKS_FILE, LAYOUT
from .context import Context
from .findings import Outcome
from .hookfile import Codes, event_findings, hooks_in, program_findings

NAME = "cursor"
FIX = "rehydrate init --agent cursor"
CODES = Codes(
    "cursor_hooks_invalid",
    "cursor_event_missing",
    "cursor_hook_duplicated",
    "cursor_hook_bare",
    "cursor_hook_interpreter_broken",
)


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled or unrunnable hook of ours."""
    hooks, findings = hooks_in(ctx, HOOKS_FILE, LAYOUT, NAME, FIX, CODES)
    if not hooks and not findings:
        return Outcome(None)
    findings.extend(event_findings(hooks, HOOKS, NAME, NAME, HOOKS_FILE, FIX, CODES))
    findings.extend(program_findings(ctx, hooks, NAME, HOOKS_FILE, FIX, CODES))
    return Outcome(f"{len(hooks)} hooks in {HOOKS_FILE}", findings)
