"""``rehydrate hook claude <event>``: Claude Code hook adapters (event JSON on stdin)."""

from __future__ import annotations

import click


@click.group("claude", short_help="Claude Code hook adapters (event JSON on stdin).")
def group() -> None:
    """Claude Code hooks: session-start, subagent-start, pre-tool-use, post-tool-use-failure,
    pre-compact, post-compact, stop."""


def _adapter(name: str, help_text: str) -> None:
    # its line in `hook claude --help`: the first clause, whole
    @group.command(name, help=help_text, short_help=help_text.split(";")[0].rstrip("."))
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
    ("session-start", "Print the capped rehydration context; the full prompt goes to .rehydrate/."),
    (
        "subagent-start",
        "Print the ledger core for a subagent; it holds constraints, failures, next action.",
    ),
    ("pre-tool-use", "Deny a repeated failed attempt; hold the first call after a compaction."),
    (
        "post-tool-use-failure",
        "Capture a failed shell command; it stays until recorded or dismissed.",
    ),
    ("pre-compact", "Tell the summariser what to keep; refuse compacting uncommitted ledgers."),
    ("post-compact", "Verify the summary as the model sees it; print the verdict."),
    ("stop", "Hold the stop once while anything is unrecorded; ledger changes, captured failures."),
):
    _adapter(_name, _help)
