"""``rehydrate run``: fresh agent sessions from the ledgers until the work is done."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import TypedDict

import click

from ..errors import EXIT_OK
from ..typecheck import TYPE_CHECKING
from ._common import F, choice_option, count_option, json_option

if TYPE_CHECKING:
    from types import FrameType
    from typing import Unpack

    from ..config import Config
    from ..continuity.sessions import SessionRecord
    from ..git import Repo
    from ..run.claimed import ClaimOptions
    from ..run.options import RunOptions


class _Limits(TypedDict):
    """The options ``run`` hands to ``RunOptions`` as they are."""

    max_sessions: int
    stall: int
    max_minutes: float | None
    max_total_minutes: float | None
    max_cost: float | None
    wrap_up_seconds: float
    grace_seconds: float
    on_violation: str
    end_at_phase: bool
    commit_ledgers: bool
    max_tokens: int | None


_HELP = """Run agent sessions from the ledgers until every completion check passed.

\b
  rehydrate run [OPTIONS] -- CMD [ARGS...]

Each session gets the rehydration prompt (built from the work tree) on stdin, or in
ARGS as {prompt} (the text) or {prompt_file} (a path); its output goes to the terminal
and to .rehydrate/sessions/<n>.log. When it exits, it is judged from the ledgers: the
guard over its commits and uncommitted ledger changes, and the items it moved.

\b
Exit codes:
  0    done: every completion check passed
  1    a session weakened the ledgers (named), the run would start on top of a
       refused state (the repair named), the run stalled (--stall), or a limit
       was reached (--max-sessions, --max-minutes, --max-total-minutes,
       --max-cost)
  2    bad arguments, another run holds this work tree (run_busy, its pid
       named), an unreadable ledger, a prompt over --max-tokens
  3    blocked on reconciliation: an external write's outcome is unknown
  130  interrupted (Ctrl-C): the session's process group got SIGTERM, then
       SIGKILL; rerun to resume

The loop adds no permission and no "skip permissions" flag: the agent runs with
exactly the command line you wrote (docs/run.md).
"""


def _positive(name: str, *, help: str, metavar: str | None = None) -> Callable[[F], F]:
    """A number of minutes or dollars > 0, no limit when not given."""
    return click.option(
        name, type=click.FloatRange(min=0, min_open=True), default=None, metavar=metavar, help=help
    )


def _seconds(name: str, default: float, help: str) -> Callable[[F], F]:
    """A number of seconds >= 0, the default shown."""
    return click.option(
        name, type=click.FloatRange(min=0), default=default, show_default=True, help=help
    )


@click.command(
    "run",
    help=_HELP,
    short_help="Fresh agent sessions from the ledgers until the work is done.",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@count_option(
    "--max-sessions",
    minimum=1,
    default=10,
    help="Run at most N sessions (then exit 1 if the task is not done).",
)
@count_option(
    "--stall",
    minimum=1,
    default=2,
    help="Stop (exit 1) after N sessions in a row without ledger progress.",
)
@_positive("--max-minutes", help="End a session after M minutes (then exit 1).")
@_positive("--max-total-minutes", help="End the run after M minutes in all (then exit 1).")
@_positive(
    "--max-cost",
    metavar="USD",
    help="Stop once the agents reported this much cost (claude: "
    "total_cost_usd of --output-format stream-json or json).",
)
@click.option(
    "--context-limit",
    default=None,
    metavar="N|P%",
    help="Tell the agent to record its state and end the session at this context "
    "use (e.g. 50% of --context-window; Claude Code hooks).",
)
@count_option(
    "--context-window",
    minimum=1,
    metavar="TOKENS",
    help="The model's context window, for a percentage limit (default 200000).",
)
@_seconds(
    "--wrap-up-seconds",
    120.0,
    "After the context-limit instruction, end the session "
    "at the latest this long after it (sooner once the ledgers are committed).",
)
@_seconds("--grace-seconds", 10.0, "Between SIGTERM and SIGKILL when a session is ended.")
@choice_option(
    "--on-violation",
    choices=["stop", "revert"],
    default="stop",
    help="stop: exit 1 and leave everything as it is; revert: "
    "git reset --keep to the session's start (its commits kept under "
    "refs/rehydrate/run/), then go on.",
)
@click.option(
    "--end-at-phase",
    is_flag=True,
    help="End a session once it has committed a phase done; the next starts fresh.",
)
@click.option(
    "--commit-ledgers",
    is_flag=True,
    help="Commit ledger changes a session left uncommitted (hooks run).",
)
@count_option("--max-tokens", minimum=1, metavar="N", help="The prompt's token budget.")
@click.option(
    "--status",
    "show_status",
    is_flag=True,
    help="Show the last sessions from .rehydrate/sessions/index.jsonl and exit.",
)
@json_option("With --status: one JSON object.")
@click.option(
    "--claim",
    is_flag=True,
    help="Take turns with loops on other clones: each session claims the next open, "
    "unclaimed phase (docs/parallel-agents.md).",
)
@click.option("--remote", metavar="NAME", default=None, help="With --claim: where the claims live.")
@click.option("--ttl", metavar="DURATION", default="30m", help="With --claim: the lease's TTL.")
@click.option("--as", "holder", metavar="NAME", default=None, help="With --claim: who holds it.")
@click.option(
    "--raw",
    is_flag=True,
    help="Show the agent's output as it wrote it (default: Claude Code, Codex and "
    "Gemini JSON streams rendered as readable lines).",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def command(
    show_status: bool,
    as_json: bool,
    raw: bool,
    command: tuple[str, ...],
    context_limit: str | None,
    context_window: int | None,
    claim: bool,
    remote: str | None,
    ttl: str,
    holder: str | None,
    **limits: Unpack[_Limits],
) -> int:
    from ..run.options import check_command

    if show_status:
        return _status(as_json)
    if as_json:
        from ..errors import RehydrateError

        raise RehydrateError(
            "--json goes with --status",
            code="usage",
            fix="run `rehydrate run --status --json`; the loop itself reports on stderr",
        )
    check_command(command)
    from ..config import Config
    from ..git import find_repo_and_head
    from ..run.options import DEFAULT_WINDOW, RunOptions, context_tokens
    from ..run.settings import committed

    # settings as HEAD has them, never the work tree's (which the agent can write)
    repo, head = find_repo_and_head()
    config = committed(repo, head)[0] if head is not None else Config()
    claimed = None
    if claim:
        from ..coord.lease import parse_ttl
        from ..run.claimed import ClaimOptions

        claimed = ClaimOptions(remote, parse_ttl(ttl), holder)
    window = context_window or DEFAULT_WINDOW
    tokens = context_tokens(context_limit, window) if context_limit else None
    options = RunOptions(command=command, context_limit=tokens, **limits)
    return _run(repo, config, options, claimed, raw)


def _run(
    repo: Repo, config: Config, options: RunOptions, claim: ClaimOptions | None, raw: bool
) -> int:
    from ..run.claimed import run_claimed
    from ..run.loop import run_loop
    from . import verdict

    def interrupted(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupted)
    display = LiveDisplay(sys.stderr.isatty(), raw)
    try:
        if claim is not None:
            result = run_claimed(repo, config, options, display, os.environ, claim)
        else:
            result = run_loop(repo, config, options, display, os.environ)
    finally:
        signal.signal(signal.SIGTERM, previous)
        display.clear()
    from ..terminal import printable

    click.echo(printable(f"rehydrate run: {result.message}"), err=True)
    return verdict(result.code)


def _status(as_json: bool) -> int:
    from ..continuity.sessions import read_index, summary_line, to_json_list
    from ..git import find_repo
    from ..quote import outgoing_json
    from ._common import emit_json

    repo = find_repo()
    index = read_index(repo.root)
    last = list(index)[-10:]
    if as_json:
        emit_json(
            {
                "schema": "rehydrate/run-status-v1",
                "sessions": outgoing_json(to_json_list(last)),
                "skipped_lines": index.skipped,
            }
        )
        return EXIT_OK
    if not last:
        click.echo("No sessions recorded yet (rehydrate run -- CMD starts some).")
    for entry in last:
        click.echo(summary_line(entry))
    if index.skipped:
        click.echo(f"({index.skipped} unreadable line(s) in the index skipped)")
    return EXIT_OK


class LiveDisplay:
    """The agent's output on stdout (the known JSON streams rendered as readable lines,
    run/stream.py, unless ``raw``); one live status line on stderr, fitted to the
    terminal's width and redrawn with ``\\r`` on a terminal, a plain line per change
    elsewhere."""

    def __init__(self, tty: bool, raw: bool = False) -> None:
        from ..run.stream import Render

        self.tty = tty
        self.raw = raw
        self.render = Render()
        self.line = ""
        self.shown = ""
        self.header = ""
        self.next_action = ""
        self.last_line = ""  # the status line last drawn, drawn again below new output
        self.last_plain = 0.0

    def started(self, number: int, nth: int, options: RunOptions, next_action: str) -> None:
        from ..run.stream import Render

        self.header = f"session {nth}/{options.max_sessions} (#{number})"
        self.next_action = next_action
        self.render = Render()
        self._note(f"rehydrate run: {self.header} started; next: {next_action or '(none)'}")

    def output(self, chunk: bytes) -> None:
        if self.raw:
            self._wipe()
            out = sys.stdout.buffer
            out.write(chunk)
            out.flush()
            return
        self._lines(self.render.feed(chunk))

    def _lines(self, lines: list[str]) -> None:
        if not lines:
            return
        self._wipe()
        sys.stdout.write("".join(f"{line}\n" for line in lines))
        sys.stdout.flush()
        if self.tty and self.last_line:
            self._draw(self.last_line)

    def tick(self, elapsed: float, changed: tuple[str, ...]) -> None:
        from ..terminal import fit_width, one_line

        minutes, seconds = divmod(int(elapsed), 60)
        moved = ", ".join(changed) if changed else "none yet"
        clock = f"{minutes:02d}:{seconds:02d}"
        line = one_line(f"[{self.header} {clock}] next: {self.next_action} | changed: {moved}")
        if self.tty:
            fitted = fit_width(line, _columns())
            if fitted != self.line:
                self._draw(fitted)
        elif changed and moved != self.shown:
            self.shown = moved
            click.echo(line, err=True)

    def ended(self, entry: SessionRecord) -> None:
        from ..continuity.sessions import summary_line

        if not self.raw:
            self._lines(self.render.close())
        self.last_line = ""
        self._note(f"rehydrate run: {summary_line(entry)}")
        for violation in entry.violations:
            self._note(f"  refused: {violation}")

    def note(self, text: str) -> None:
        self._note(text)

    def clear(self) -> None:
        self.last_line = ""
        self._wipe()

    def _note(self, text: str) -> None:
        from ..terminal import printable

        self._wipe()
        click.echo(printable(text), err=True)
        if self.tty and self.last_line:
            self._draw(self.last_line)

    def _wipe(self) -> None:
        if self.tty and self.line:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.line = ""

    def _draw(self, line: str) -> None:
        self.line = self.last_line = line
        sys.stderr.write("\r\x1b[K" + line)
        sys.stderr.flush()


def _columns() -> int:
    """The terminal's width (stderr's, else COLUMNS, else 80)."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns or 80
    except (OSError, ValueError):
        import shutil

        return shutil.get_terminal_size((80, 24)).columns
