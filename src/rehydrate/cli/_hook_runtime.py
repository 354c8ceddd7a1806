"""One click group per runtime's hook adapter: each event a subcommand, JSON on stdin."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

import click


def adapter_group(name: str, module: str, events: Sequence[tuple[str, str]]) -> click.Group:
    """``rehydrate hook NAME EVENT``: runs ``rehydrate.agents.<module>.run_hook(EVENT, stdin)``
    and prints its JSON or text on stdout, its note on stderr, and exits with its code."""
    listed = ", ".join(event for event, _ in events)

    @click.group(name, help=f"{name} hooks: {listed}.", short_help=f"{name} hook adapters.")
    def group() -> None:
        pass

    for event, help_text in events:
        group.add_command(_command(module, event, help_text))
    return group


def _command(module: str, event: str, help_text: str) -> click.Command:
    @click.command(event, help=help_text, short_help=help_text.split(";")[0].rstrip("."))
    def run() -> int:
        import json
        import sys

        from ..readlimit import InputTooLarge, read_text_stream

        try:
            raw = read_text_stream(sys.stdin, "stdin")
        except InputTooLarge:
            raw = ""  # an event no runtime sends: unparseable, answered as such
        result = importlib.import_module(f"rehydrate.agents.{module}").run_hook(event, raw)
        if result.output is not None:
            click.echo(json.dumps(result.output, ensure_ascii=False))
        elif result.text:
            click.echo(result.text, nl=not result.text.endswith("\n"))
        if result.message:
            click.echo(result.message, err=True)
        return int(result.exit_code)

    return run
