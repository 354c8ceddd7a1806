"""Helpers shared by commands: repository, configuration, sources, options, output.

Importing it costs click only (a command module imports it at its top, ``--help``
included); the library is imported by the helper that needs it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import click

from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Config
    from ..git import Repo
    from ..state import Source

F = TypeVar("F", bound=Callable[..., object])


def open_repo() -> tuple[Repo, Config]:
    from ..config import load_config
    from ..git import find_repo

    repo = find_repo()
    return repo, load_config(repo.root)


def source_options(*, staged: bool = False, default: str = "rev") -> Callable[[F], F]:
    """--rev R | --worktree (and --staged where allowed)."""

    def decorate(func: F) -> F:
        func = click.option(
            "--worktree", is_flag=True, help="Read the ledgers from the work tree."
        )(func)
        if staged:
            func = click.option("--staged", is_flag=True, help="Read the ledgers from the index.")(
                func
            )
        suffix = " (default HEAD)" if default == "rev" else ""
        func = click.option(
            "--rev", metavar="R", default=None, help=f"Read the ledgers at revision R{suffix}."
        )(func)
        return func

    return decorate


def json_option(help: str = "Print one JSON object on stdout.") -> Callable[[F], F]:
    """--json (``as_json``): the command's output as one JSON object."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def file_option(*names: str, help: str, metavar: str | None = "FILE") -> Callable[[F], F]:
    """An optional path to a file to write or read (None when not given)."""
    return click.option(
        *names, type=click.Path(dir_okay=False), default=None, metavar=metavar, help=help
    )


def output_option(
    help: str = "Write to FILE instead of stdout.", metavar: str | None = None
) -> Callable[[F], F]:
    """-o/--output: where the command's output goes instead of stdout."""
    return file_option("-o", "--output", metavar=metavar, help=help)


def choice_option(*names: str, choices: Sequence[str], default: str, help: str) -> Callable[[F], F]:
    """One of ``choices``, the default shown in the help."""
    return click.option(
        *names, type=click.Choice(choices), default=default, show_default=True, help=help
    )


def count_option(
    *names: str, minimum: int, default: int | None = None, metavar: str | None = None, help: str
) -> Callable[[F], F]:
    """A whole number >= ``minimum``; the default, when there is one, shown in the help."""
    return click.option(
        *names,
        type=click.IntRange(min=minimum),
        default=default,
        show_default=True if default is not None else None,
        metavar=metavar,
        help=help,
    )


def pick_source(
    rev: str | None, worktree: bool, staged: bool = False, default: str = "rev"
) -> Source:
    from ..errors import RehydrateError
    from ..state import Source

    chosen = [
        name
        for name, on in (("rev", rev is not None), ("worktree", worktree), ("staged", staged))
        if on
    ]
    if len(chosen) > 1:
        raise RehydrateError(
            "choose one of --rev, --staged, --worktree",
            code="usage",
            fix="pass at most one source option",
        )
    kind = chosen[0] if chosen else default
    return Source(kind, (rev or "HEAD") if kind == "rev" else None)


def emit_json(obj: object) -> None:
    """One JSON object on stdout, deterministic."""
    import json

    click.echo(json.dumps(obj, ensure_ascii=False, indent=2))


def note(message: str) -> None:
    """A message for people: stderr, through ``quote.outgoing``."""
    from ..quote import outgoing

    click.echo(outgoing(message), err=True)


def say(message: str) -> None:
    """A report for people that is the command's output (``doctor``): stdout, through
    ``quote.outgoing`` like every other text for people."""
    from ..quote import outgoing

    click.echo(outgoing(message))


def action_line(what: str, path: str) -> str:
    """One line of what `init` or `hook install` did: the word left-aligned, then the path
    (the merge driver's lines use the same 9 columns)."""
    return f"{what:<9} {path}"
