"""``rehydrate hook claude <event>``: Claude Code hook adapters (event JSON on stdin)."""

from __future__ import annotations

import click


@click.group("claude")
def group() -> None:
    """Claude Code hooks: session-start, subagent-start, pre-tool-use, post-tool-use-failure,
    pre-compact, post-compact, stop."""


def _adapter(name: str, help_text: str) -> None:
    @group.command(name, help=help_text)
    def run() -> int:
        import json
        import sys

        from ..agents.claude import run_hook
        from ..readlimit import InputTooLarge, read_text_stream

        try:
            raw = read_text_stream(sys.stdin, "stdin")
        except InputTooLarge:
            raw = ""  # an event no runtime sends: unparseable, let through with a message
        result = run_hook(name, raw)
        if result.output is not None:
            click.echo(json.dumps(result.output, ensure_ascii=False))
        elif result.text:
            click.echo(result.text, nl=not result.text.endswith("\n"))
        if result.message:
            click.echo(result.message, err=True)
        return result.exit_code


for _name, _help in (
    ("session-start", "Print the capped rehydration context (full prompt written to .rehydrate/)."),
    ("subagent-start", "Print the ledger core for a subagent: constraints, failures, next action."),
    ("pre-tool-use", "Hold the first call after a compaction; deny a repeated failed attempt."),
    ("post-tool-use-failure", "Capture a failed shell command until it is recorded or dismissed."),
    ("pre-compact", "Tell the summariser what to keep; refuse compacting uncommitted ledgers."),
    ("post-compact", "Verify the summary as the model sees it; print the verdict."),
    ("stop", "Block the stop once while ledgers or captured failures are unrecorded."),
):
    _adapter(_name, _help)
