"""``rehydrate hook kiro <event>``: Kiro CLI hook adapters (event JSON on stdin)."""

from __future__ import annotations

import click

from ..agents.kiro import HELP
from ._hook_adapter import add_events


@click.group("kiro", short_help="Kiro CLI hook adapters (event JSON on stdin).")
def group() -> None:
    """Kiro CLI hooks (documented JSON): agent-spawn, pre-tool-use."""


add_events(group, "kiro", HELP)
