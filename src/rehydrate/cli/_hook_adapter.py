"""The event subcommands of one runtime's ``rehydrate hook NAME`` group: the event JSON on
stdin, the adapter's answer on stdout (JSON or text), its note on stderr, its exit code."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import click


def add_events(group: click.Group, adapter: str, helps: Mapping[str, str]) -> None:
    """One subcommand per event of ``helps``, run by ``rehydrate.agents.<adapter>.run_hook``
    (imported when the hook runs)."""
    for name, help_text in helps.items():
        group.add_command(_event(name, adapter, help_text))


def _event(name: str, adapter: str, help_text: str) -> click.Command:
    # its line in `hook NAME --help`: the first clause, whole
    @click.command(name, help=help_text, short_help=help_text.split(";")[0].rstrip("."))
    def run() -> int:
        import importlib
        import sys

        from ..readlimit import InputTooLarge, read_text_stream

        try:
            raw = read_text_stream(sys.stdin, "stdin")
        except InputTooLarge:
            raw = ""  # an event no runtime sends: unparseable, let through with a message
        module = importlib.import_module(f"rehydrate.agents.{adapter}")
        run_hook: Callable[[str, str], Any] = module.run_hook
        return emit(run_hook(name, raw))

    return run


def emit(result: Any) -> int:
    """Print a ``HookResult`` (every string through ``quote.outgoing``); its exit code."""
    import json

    from ..quote import outgoing, outgoing_json

    if result.output is not None:
        click.echo(json.dumps(outgoing_json(result.output), ensure_ascii=False))
    elif result.text:
        text = outgoing(result.text)
        click.echo(text, nl=not text.endswith("\n"))
    if result.message:
        click.echo(outgoing(result.message), err=True)
    code: int = result.exit_code
    return code
