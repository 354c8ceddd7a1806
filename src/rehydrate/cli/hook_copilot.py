"""``rehydrate hook copilot <event>``: Copilot CLI hook adapters (event JSON on stdin)."""

from __future__ import annotations

import click

from ._hook_adapter import add_events


@click.group("copilot", short_help="Copilot CLI hook adapters (event JSON on stdin).")
def group() -> None:
    """Copilot CLI hooks: one subcommand per event (below), the event JSON on stdin."""


add_events(
    group,
    "copilot",
    {
        "session-start": "Rebuild the core file the next session reads.",
        "session-end": "Rebuild the core file the next session reads.",
        "pre-tool-use": "Deny a bash command that repeats a failed attempt.",
        "post-tool-use": "Capture a failed bash command.",
        "agent-stop": "Block the end of the turn once while ledgers are unrecorded.",
    },
)
