"""``rehydrate hook claude <event>``: Claude Code hook adapters (event JSON on stdin)."""

from __future__ import annotations

import click


@click.group("claude")
def group() -> None:
    """Claude Code hooks: session-start, pre-tool-use, pre-compact, post-compact, stop."""


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
        if result.message:
            click.echo(result.message, err=True)
        return result.exit_code


for _name, _help in (
    ("session-start", "Print the capped rehydration context (full prompt written to .rehydrate/)."),
    ("pre-tool-use", "Deny a Bash command that repeats an active failed attempt."),
    ("pre-compact", "Record the compaction; refuse a manual one over uncommitted ledgers."),
    ("post-compact", "Verify compact_summary against the ledgers; store the verdict."),
    ("stop", "Block the stop once while ledger changes are uncommitted."),
):
    _adapter(_name, _help)
