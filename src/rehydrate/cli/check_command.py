"""``rehydrate check-command``: refuse a command that a failed attempt already covers."""

from __future__ import annotations

import click

from . import verdict
from ._common import emit_json, note, open_repo


@click.command("check-command", context_settings={"ignore_unknown_options": True})
@click.argument("argv", nargs=-1, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
@click.option(
    "--stdin-json",
    is_flag=True,
    help="Read a Claude Code PreToolUse event on stdin (tool_input.command).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def command(argv: tuple[str, ...], stdin_json: bool, as_json: bool) -> int:
    """Exit 1 if CMD repeats an active failed attempt, else 0 (naming close ones)."""
    import shlex
    import sys

    from ..agents.commands import check, command_from_hook, load_failures
    from ..errors import EXIT_OK, EXIT_REFUSED, RehydrateError

    if stdin_json == bool(argv):
        raise RehydrateError(
            "give either -- CMD ARGS... or --stdin-json",
            code="usage",
            fix="rehydrate check-command -- go test ./...",
        )
    if stdin_json:
        try:
            from ..readlimit import load_json, read_text_stream

            text = command_from_hook(load_json(read_text_stream(sys.stdin, "stdin")))
        except ValueError as exc:
            raise RehydrateError(
                f"stdin is not JSON: {exc}",
                code="bad_input",
                fix="pass the hook event JSON on stdin",
            ) from None
        if text is None:
            raise RehydrateError(
                "no tool_input.command in the event",
                code="bad_input",
                fix="pass a PreToolUse event for the Bash tool",
            )
    else:
        text = argv[0] if len(argv) == 1 else shlex.join(argv)
    repo, config = open_repo()
    checked = check(text, load_failures(repo, config))
    hits = checked.hits
    code = verdict(EXIT_REFUSED if hits else EXIT_OK)
    if as_json:
        from ..agents.commands import check_json

        emit_json(check_json(text, checked))  # agents read it: quoted like the deny reason
    for hit in hits:
        note(f"refused: this repeats a failed attempt\n{hit}")
    if not hits:
        for hit in checked.advice:
            note(hit.advice())
    if checked.note:
        note(checked.note)
    return code
