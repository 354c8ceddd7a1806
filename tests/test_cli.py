"""The CLI's one error handler: every outcome maps to the contract's exit codes."""

from __future__ import annotations

import click
import pytest

from conftest import run
from rehydrate import errors


def test_bad_flag_is_a_usage_error(ledger_repo):
    result = run(ledger_repo, "state", "--no-such-flag")
    assert result.code == errors.EXIT_USAGE and "no-such-flag" in result.err


def test_conflicting_sources_are_a_usage_error(ledger_repo):
    result = run(ledger_repo, "state", "--rev", "HEAD", "--worktree")
    assert result.code == errors.EXIT_USAGE and "choose one" in result.err


def test_internal_error_exits_70_without_a_traceback(ledger_repo, monkeypatch):
    import rehydrate.state

    def boom(*args, **kwargs):
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(rehydrate.state, "load_state", boom)
    result = run(ledger_repo, "state")
    assert result.code == errors.EXIT_INTERNAL
    assert "This is a bug" in result.err and "Traceback" not in result.err


def test_interrupt_exits_130(ledger_repo, monkeypatch):
    import rehydrate.state

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(rehydrate.state, "load_state", interrupted)
    assert run(ledger_repo, "state").code == errors.EXIT_INTERRUPTED


@pytest.mark.parametrize(
    "exc,code",
    [
        pytest.param(errors.CASConflict("stale"), errors.EXIT_REFUSED, id="cas-conflict"),
        pytest.param(errors.Refused("no"), errors.EXIT_REFUSED, id="refused"),
        pytest.param(
            errors.LedgerParseError("bad", file="docs/Spec.md", line=3),
            errors.EXIT_USAGE,
            id="parse-error",
        ),
        pytest.param(errors.GitError("git broke"), errors.EXIT_USAGE, id="git-error"),
    ],
)
def test_error_types_map_to_exit_codes(ledger_repo, monkeypatch, exc, code):
    import rehydrate.state

    def fail(*args, **kwargs):
        raise exc

    monkeypatch.setattr(rehydrate.state, "load_state", fail)
    result = run(ledger_repo, "state")
    assert result.code == code and result.out == ""
    assert str(exc) in result.err


def test_every_command_has_a_docstring_and_loads():
    import click

    from rehydrate.cli import COMMANDS, cli

    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None, name
        assert command.help and command.help.strip(), f"{name} has no docstring"


def test_version(ledger_repo):
    result = run(ledger_repo, "--version")
    assert result.code == 0 and "rehydrate" in result.out


def test_unwritable_output_is_an_input_error_not_a_bug(ledger_repo, tmp_path):
    result = run(ledger_repo, "prompt", "-o", str(tmp_path / "missing-dir" / "p.md"))
    assert result.code == errors.EXIT_USAGE
    assert "io_error" in result.err and "missing-dir" in result.err and result.out == ""


def _every_group(group: click.Group, ctx: click.Context, path: str):
    yield path, group, ctx
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _every_group(command, click.Context(command, ctx, name), f"{path} {name}")


def test_every_help_line_is_whole_and_short():
    """Each command's line in its group's --help is one whole phrase at 80 columns: never
    cut mid-sentence by click ('...'), never wrapped (issue 17)."""
    from rehydrate.cli import cli

    cut = []
    top = click.Context(cli, info_name="rehydrate")
    for path, group, ctx in _every_group(cli, top, "rehydrate"):
        formatter = click.HelpFormatter(width=80)
        group.format_commands(ctx, formatter)
        rows = formatter.getvalue().splitlines()[1:]  # after "Commands:"
        names = [n for n in group.list_commands(ctx) if not group.get_command(ctx, n).hidden]
        assert len(rows) == len(names), f"{path}: a wrapped or missing line:\n" + "\n".join(rows)
        cut += [f"{path}: {row.strip()}" for row in rows if row.rstrip().endswith("...")]
    assert not cut, "cut help lines (give the command a short_help):\n" + "\n".join(cut)


def test_every_command_has_a_summary():
    from rehydrate.cli import COMMANDS, SUMMARIES

    assert sorted(SUMMARIES) == sorted(COMMANDS)


def test_bare_rehydrate_shows_help_and_exits_0(tmp_path):
    bare = run(tmp_path)
    assert bare.code == errors.EXIT_OK, bare.err
    assert "Commands:" in bare.out and "rehydrate demo" in bare.out
    unknown = run(tmp_path, "no-such-command")
    assert unknown.code == errors.EXIT_USAGE and "No such command" in unknown.err
