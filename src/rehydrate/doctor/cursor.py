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
    missing="cursor_event_missing",
    duplicated="cursor_hook_duplicated",
    broken="cursor_hook_interpreter_broken",
    invalid="cursor_hooks_invalid",
    bare="cursor_hook_bare",
)


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled or unrunnable hook of ours."""
    hooks, findings = hooks_in(ctx, HOOKS_FILE, LAYOUT, NAME, FIX, CODES)
    if not hooks and not findings:
        return Outcome(None)
    expected = [(event, sub) for event, (_, sub, _) in HOOKS.items()]
    found = [(w.event, w.hook.name) for w in hooks]
    findings.extend(event_findings(NAME, CODES, HOOKS_FILE, FIX, expected, found))
    ours = [(w.event, w.hook) for w in hooks]
    findings.extend(program_findings(ctx, NAME, CODES, HOOKS_FILE, FIX, ours, by_event=True))
    return Outcome(f"{len(hooks)} hooks in {HOOKS_FILE}", findings)
