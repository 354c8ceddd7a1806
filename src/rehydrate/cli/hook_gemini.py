"""``rehydrate hook gemini <event>``: Gemini CLI hook adapters (event JSON on stdin)."""

from __future__ import annotations

import click

from ._hook_adapter import add_events


@click.group("gemini", short_help="Gemini CLI hook adapters (event JSON on stdin).")
def group() -> None:
    """Gemini CLI hooks: one subcommand per event (below), the event JSON on stdin."""


add_events(
    group,
    "gemini",
    {
        "session-start": "Build the capped core for the session.",
        "before-model": "Put the core before the first message; check a summary.",
        "before-tool": "Deny a shell command that repeats a failed attempt.",
        "after-tool": "Capture a failed shell command.",
        "after-agent": "Deny the end of the turn once while unrecorded.",
    },
)
