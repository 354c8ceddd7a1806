"""``rehydrate hook opencode <event>``: what the OpenCode plugin calls (JSON on stdin)."""

from __future__ import annotations

import click

from ._hook_adapter import add_events


@click.group("opencode", short_help="OpenCode hook adapters (event JSON on stdin).")
def group() -> None:
    """OpenCode hooks: one subcommand per event (below), the event JSON on stdin."""


add_events(
    group,
    "opencode",
    {
        "system": "The capped core for the system prompt.",
        "compacting": "What the compaction summary must keep, for the summariser.",
        "tool-before": "Deny a bash command that repeats a failed attempt.",
        "tool-after": "Capture a failed bash command.",
        "idle": "Continue the session once while ledgers are unrecorded.",
    },
)
