"""Shared by commands that can append trace events (``--record`` or ``record_events``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])


def record_option(func: F) -> F:
    """The `--record` flag."""
    return click.option(
        "--record",
        is_flag=True,
        help="Append a trace event to .rehydrate/events.jsonl (also: record_events = true).",
    )(func)
