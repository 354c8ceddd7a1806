"""``rehydrate hook cline <event>``: Cline hook adapters (event JSON on stdin)."""

from __future__ import annotations

import click

from ..agents.cline import HELP
from ._hook_adapter import add_events


@click.group("cline", short_help="Cline hook adapters (event JSON on stdin).")
def group() -> None:
    """Cline hooks (documented JSON): task-start, task-resume, pre-tool-use, post-tool-use."""


add_events(group, "cline", HELP)
