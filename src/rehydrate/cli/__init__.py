"""The ``rehydrate`` command line: a lazy click group and the one place errors become exit codes.

Each command lives in its own module under ``rehydrate.cli`` and is imported
only when invoked, so the pre-commit hook pays for click and nothing else.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import click

from ..errors import EXIT_INTERRUPTED, EXIT_USAGE, RehydrateError
from ..exits import INTERRUPTED, fatal

# command name -> "module:attribute" under rehydrate.cli
COMMANDS: dict[str, str] = {
    "init": "init:command",
    "state": "state:command",
    "guard": "guard:command",
    "diff": "diff:command",
    "hook": "hook:group",
    "prompt": "prompt:command",
    "fail": "fail:command",
    "task": "task:command",
    "spec": "spec:command",
    "retire": "retire:command",
    "check-command": "check_command:command",
    "manifest": "manifest:command",
    "verify": "verify:command",
    "check": "check:command",
    "envelope": "envelope:command",
    "summary": "summary:command",
    "merge": "merge:group",
    "merge-driver": "merge_driver:command",
    "status": "status:command",
    "log": "log:command",
    "commit": "commit:command",
    "run": "run:command",
    "demo": "demo:command",
    "doctor": "doctor:command",
    "mcp": "mcp:command",
    "claim": "claim:claim_command",
    "release": "claim:release_command",
    "claims": "claim:claims_command",
    "sync": "sync:command",
}

# command name -> its one line in `rehydrate --help` (the command's own --help says more)
SUMMARIES: dict[str, str] = {
    "init": "Scaffold the ledgers, hooks and AGENTS.md section.",
    "state": "The parsed ledgers, pinned to blobs and commits (JSON).",
    "guard": "Refuse ledger changes that delete or weaken items.",
    "diff": "Item-by-item ledger changes between two commits.",
    "hook": "Install or remove the git hooks; agent hook adapters.",
    "prompt": "Build the rehydration prompt for a fresh session.",
    "fail": "Record or retire failed attempts.",
    "task": "Record the task's objective, phases, writes and checks.",
    "spec": "Record constraints, contracts and decisions.",
    "retire": "Retire an item of any ledger, with a reason.",
    "commit": "Commit the ledgers' uncommitted changes as one commit.",
    "check-command": "Exit 1 if a command repeats a failed attempt.",
    "manifest": "Emit the resume manifest (JSON).",
    "verify": "Verify a compaction summary against the ledgers.",
    "check": "Print the continuity decision (its exit code says it).",
    "envelope": "Create or check continuity envelopes.",
    "summary": "Propose and promote compaction summaries.",
    "merge": "Resolve a ledger conflict in a stopped git merge.",
    "merge-driver": "The ledger merge driver git runs (%O %A %B %P).",
    "status": "Where the task stands, for people.",
    "log": "What each commit did to the ledgers.",
    "demo": "Build and show a worked example repository.",
    "doctor": "Check that every integration is still wired.",
    "run": "Fresh agent sessions from the ledgers until done.",
    "mcp": "Serve the ledgers and writers over MCP (stdio).",
    "claim": "Claim a Task item with a lease on the git remote.",
    "release": "Release your own claim on a Task item.",
    "claims": "List the claims on Task items and their leases.",
    "sync": "Fetch, merge the ledgers, guard and push, retrying.",
}


_verdict: list[int | None] = [None]


def verdict(code: int) -> int:
    """Record a command's verdict before its output is printed, and return it.

    A reader that goes away (``rehydrate guard --json | true``) makes printing fail; the
    exit code is then still the verdict (a refusal stays 1), never 0 by accident.
    """
    _verdict[0] = code
    return code


class LazyGroup(click.Group):
    """A group whose subcommands (``lazy_commands``: name -> "module:attribute" under
    ``rehydrate.cli``, the attribute a command or a function of the name returning one)
    are imported on first use."""

    def __init__(
        self,
        *args: Any,  # Any: click.Group.__init__'s own parameters, passed on as they are
        lazy_commands: Mapping[str, str] | None = None,
        summaries: Mapping[str, str] | None = None,
        **kwargs: Any,  # Any: the same
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands if lazy_commands is not None else {}
        self.summaries = summaries if summaries is not None else {}

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """One whole line per command: its summary (``summaries``), never a cut sentence;
        a command without one shows its own short help. Nothing is imported for it."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(name) for name in names), default=0)
        rows = []
        for name in names:
            summary = self.summaries.get(name)
            if summary is None:
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
                summary = command.get_short_help_str(limit)
            rows.append((name, summary))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy_commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands:
            import importlib

            module, _, attr = self.lazy_commands[cmd_name].partition(":")
            found = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
            # a command, or a function making the command of that name (cli/hook.py's
            # runtime groups, built from their RUNTIMES rows)
            command: click.Command = found if isinstance(found, click.Command) else found(cmd_name)
            return command
        return super().get_command(ctx, cmd_name)


@click.group(
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    summaries=SUMMARIES,
    context_settings={"help_option_names": ["-h", "--help"]},
    invoke_without_command=True,
    # said explicitly: click before 8.3 wrote "COMMAND [ARGS]..." even when it is optional
    subcommand_metavar="[COMMAND] [ARGS]...",
)
@click.version_option(package_name="rehydrate", message="rehydrate %(version)s")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Keep an agent's working state in three git ledgers; guard them; rehydrate from them.

    Start with `rehydrate demo` (a worked example) or `rehydrate init` (in your repository).
    """
    if ctx.invoked_subcommand is None:  # bare `rehydrate`: asked for nothing, so help, exit 0
        click.echo(ctx.get_help())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and map every outcome to the contract's exit codes."""
    _verdict[0] = None
    try:
        result = cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="rehydrate",
            standalone_mode=False,
        )
    except RehydrateError as exc:
        return fatal(exc, _say)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo(INTERRUPTED, err=True)
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        import io

        from ..quote import outgoing

        shown = io.StringIO()  # click quotes the bad value: it leaves through outgoing too
        exc.show(file=shown)
        click.echo(outgoing(shown.getvalue()), err=True, nl=False)
        return EXIT_USAGE if exc.exit_code not in (0, 1) else exc.exit_code
    except BrokenPipeError:
        return _verdict[0] or 0
    except SystemExit as exc:
        # click turns EPIPE (`rehydrate log | head`) into exit 1, which here means a
        # refusal; the reader stopping early is no failure, and a verdict recorded before
        # printing (``verdict``) is kept
        # (click 8.1 names the wrapper PacifyFlushWrapper, later ones _PacifyFlushWrapper)
        if isinstance(exc.__context__, BrokenPipeError) or (
            type(sys.stdout).__name__.lstrip("_") == "PacifyFlushWrapper"
        ):
            return _verdict[0] or 0
        raise
    except OSError as exc:  # a file we were told to read or write: the user's input
        from ..quote import line

        if _verdict[0] is not None and exc.filename is None:
            # the verdict was reached and only printing it failed (stdout on a full disk,
            # /dev/full, EIO): the exit code still says it (docs/exit-codes.md)
            with contextlib.suppress(OSError):  # stderr may be gone too
                click.echo(
                    f"rehydrate: output_lost: stdout could not be written "
                    f"({line(exc.strerror or exc)}); the exit code {_verdict[0]} is the verdict",
                    err=True,
                )
            return _verdict[0]
        return fatal(exc, _say)
    except Exception as exc:  # a bug: never let a traceback pass for an answer
        return fatal(exc, _say)
    return result if isinstance(result, int) else 0


def _say(text: str) -> None:
    click.echo(text, err=True)
