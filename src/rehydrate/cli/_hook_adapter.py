"""``rehydrate hook NAME``: one click group per runtime, built from its ``RUNTIMES`` row
(agents/runtimes.py: the events and their help). Each event subcommand takes the event
JSON on stdin and prints the adapter's answer on stdout (JSON or text), its note on
stderr, with its exit code. What is one runtime's own (Codex's ``trust``) is added by
``cli/hook.py`` from its own module."""

from __future__ import annotations

from collections.abc import Iterable

import click

from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..agents.events import HookResult


def runtime_group(name: str, extra: Iterable[click.Command] = ()) -> click.Group:
    """The ``rehydrate hook NAME`` group of runtime ``name``: one subcommand per event of
    its row, answered by ``agents/hookcore.run_hook`` (imported when the hook runs),
    then ``extra``."""
    from ..agents.runtimes import RUNTIMES

    hooks = RUNTIMES[name].hooks
    if hooks is None:
        raise LookupError(f"runtime {name!r} has no hook events in RUNTIMES")
    group = click.Group(
        name, help=hooks.help, short_help=f"{hooks.title} hook adapters (event JSON on stdin)."
    )
    for event, help_text in hooks.events.items():
        group.add_command(_event(event, name, help_text))
    for command in extra:
        group.add_command(command)
    return group


def _event(name: str, adapter: str, help_text: str) -> click.Command:
    # its line in `hook NAME --help`: the first clause, whole
    @click.command(name, help=help_text, short_help=help_text.split(";")[0].rstrip("."))
    def run() -> int:
        import sys

        from ..agents.hookcore import run_hook
        from ..readlimit import InputTooLarge, read_text_stream

        try:
            raw = read_text_stream(sys.stdin, "stdin")
        except InputTooLarge:
            raw = ""  # an event no runtime sends: unparseable, let through with a message
        return emit(run_hook(adapter, name, raw))

    return run


def emit(result: HookResult) -> int:
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
