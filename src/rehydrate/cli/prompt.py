"""``rehydrate prompt``: the rehydration prompt (CONTRACT §6), pinned to a revision."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..config import load_config
from ..git import find_repo_and_head
from ._common import (
    choice_option,
    count_option,
    file_option,
    note,
    output_option,
    pick_source,
    source_options,
)


@click.command("prompt")
@source_options()
@count_option(
    "--max-tokens",
    minimum=1,
    metavar="N",
    help="Token budget; optional parts are cut first, mandatory ones never.",
)
@count_option(
    "--diff-lines",
    minimum=0,
    metavar="N",
    help="Show at most N lines of the latest commit's diff (default 200).",
)
@file_option("--template", help="Working protocol template (default: templates/protocol.md).")
@choice_option(
    "--format",
    "fmt",
    choices=["md", "json"],
    default="md",
    help="Markdown text, or one rehydrate/prompt-v1 JSON object.",
)
@output_option("Write to FILE atomically instead of stdout.", metavar="FILE")
@file_option(
    "--envelope-out", help="Also write a continuity envelope for the prompt's pins to FILE."
)
@click.option(
    "--record",
    is_flag=True,
    help="Append a trace event to .rehydrate/events.jsonl (also: record_events = true).",
)
def command(
    rev: str | None,
    worktree: bool,
    max_tokens: int | None,
    diff_lines: int | None,
    template: str | None,
    fmt: str,
    output: str | None,
    envelope_out: str | None = None,
    record: bool = False,
) -> int:
    """The rehydration prompt: header, Spec, Task, Failed attempts, latest commit, protocol.

    Exits 3 (after writing the whole prompt) when an external write's outcome is
    unknown, 2 when a ledger cannot be parsed or the mandatory parts exceed --max-tokens.
    """
    from ..errors import EXIT_USAGE, LedgerParseError
    from ..prompt.build import load_prompt, read_protocol
    from ..prompt.sections import PromptOptions

    repo, head = find_repo_and_head()
    config = load_config(repo.root)
    source = pick_source(rev, worktree)
    options = PromptOptions(
        max_tokens=max_tokens if max_tokens is not None else config.max_tokens,
        diff_lines=diff_lines if diff_lines is not None else config.diff_lines,
        protocol=read_protocol(repo, config, template),
    )
    try:
        prompt = load_prompt(repo, config, source, options, head, head_known=True)
    except LedgerParseError as exc:
        note(f"rehydrate: continuity_validation_failed (ledger_invalid): {exc}")
        if record or config.record_events:
            from ..continuity.decision import invalid
            from ..continuity.trace import record_decision

            record_decision(repo.root, invalid(exc), command="prompt")
        return EXIT_USAGE
    if fmt == "md":
        text = prompt.text
    else:
        import json

        text = json.dumps(prompt.to_json(), ensure_ascii=False, indent=2) + "\n"
    if output:
        from ..ledgers.atomicfile import atomic_write

        atomic_write(Path(output), text.encode("utf-8"))
    else:
        _emit(text)
    if envelope_out or record or config.record_events:
        from ..continuity.verify import after_prompt

        after_prompt(
            repo,
            config,
            source,
            prompt,
            text,
            envelope_out=envelope_out,
            record=record or config.record_events,
        )
    if prompt.decision.exit_code:
        ids = ", ".join(r.id or r.code for r in prompt.decision.reasons)
        note(
            f"rehydrate: {prompt.decision.decision}: reconcile {ids} by reading before "
            "anything else; the prompt says how"
        )
    return prompt.decision.exit_code


def _emit(text: str) -> None:
    """UTF-8 bytes on stdout whatever the locale (click.echo rescans 1 MB prompts for ANSI)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    step = 1 << 16  # encoded piece by piece: no second copy of a megabyte prompt in memory
    try:
        sys.stdout.flush()
        for start in range(0, len(text), step):
            buffer.write(text[start : start + step].encode("utf-8", "surrogateescape"))
        buffer.flush()
    except BrokenPipeError:
        # the reader stopped early (`rehydrate prompt | head`); the exit code still says
        # what the continuity decision was
        pass
