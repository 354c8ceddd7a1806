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
        import sys

        from ..agents.claude import run_hook
        from ..readlimit import InputTooLarge, read_text_stream

        try:
            raw = read_text_stream(sys.stdin, "stdin")
        except InputTooLarge:
            raw = ""  # an event no runtime sends: unparseable, let through with a message
        from ._hook_adapter import emit

        return emit(run_hook(name, raw))  # the one exit every hook's answer takes


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
