"""Cursor's hooks (``rehydrate init --agent cursor``): every event wired once, by a program
that runs rehydrate."""

from __future__ import annotations

from ..agents.cursor import HOOKS, HOOKS_FILE, LAYOUT
from .context import Context
from .findings import Outcome
from .hookfile import Codes, file_findings

NAME = "cursor"
FIX = "rehydrate init --agent cursor"
CODES = Codes(
    missing="cursor_event_missing",
    duplicated="cursor_hook_duplicated",
    broken="cursor_hook_interpreter_broken",
    invalid="cursor_hooks_invalid",
    bare="cursor_hook_bare",
)


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled or unrunnable hook of ours."""
    hooks, findings = file_findings(ctx, HOOKS_FILE, LAYOUT, HOOKS, NAME, FIX, CODES)
    if not hooks and not findings:
        return Outcome(None)
    return Outcome(f"{len(hooks)} hooks in {HOOKS_FILE}", findings)
