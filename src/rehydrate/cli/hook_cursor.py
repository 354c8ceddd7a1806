"""``rehydrate hook cursor <event>``: Cursor hook adapters (event JSON on stdin)."""

from __future__ import annotations

import click

from ..agents.cursor import HELP
from ._hook_adapter import add_events


@click.group("cursor", short_help="Cursor hook adapters (event JSON on stdin).")
def group() -> None:
    """Cursor hooks (documented JSON): session-start, before-shell-execution, stop."""


add_events(group, "cursor", HELP)
