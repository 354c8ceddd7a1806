"""Argv bytes that are not UTF-8 reach Python as lone surrogates: every writer refuses them
by name (exit 2, ``bad_value``) and leaves the ledger as it was; UTF-8 text passes."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from conftest import run
from rehydrate.cli import cli
from rehydrate.errors import EXIT_INTERNAL

NOT_UTF8 = "a\udcff"  # what Python makes of the argv bytes b"a\xff"
WRITER_GROUPS = ("spec", "task", "fail", "retire", "commit", "claim", "release")


def _leaves(
    command: click.Command, path: tuple[str, ...]
) -> list[tuple[tuple[str, ...], click.Command]]:
    if isinstance(command, click.Group):
        found = []
        for name in command.list_commands(click.Context(command)):
            sub = command.get_command(click.Context(command), name)
            assert sub is not None
            found += _leaves(sub, (*path, name))
        return found
    return [(path, command)]


def _text_inputs() -> list[tuple[str, ...]]:
    cases = []
    for path, command in _leaves(cli, ()):
        if path[0] not in WRITER_GROUPS:
            continue
        for param in command.params:
            if isinstance(param, click.Argument):
                cases.append((*path, NOT_UTF8))
            elif isinstance(param, click.Option) and param.type == click.STRING:
                cases.append((*path, param.opts[0], NOT_UTF8))
    return cases


@pytest.mark.parametrize("args", _text_inputs(), ids=" ".join)
def test_no_writer_fails_inside_on_text_that_is_not_utf8(
    ledger_repo: Path, args: tuple[str, ...]
) -> None:
    before = {p.name: p.read_bytes() for p in (ledger_repo / "docs").iterdir()}
    result = run(ledger_repo, *args)
    assert result.code != EXIT_INTERNAL, result.err
    assert "internal error" not in result.err
    assert {p.name: p.read_bytes() for p in (ledger_repo / "docs").iterdir()} == before


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (
            ("fail", "add", "--tried", f"`make {NOT_UTF8}`", "--failure", "x", "--workaround", "y"),
            "--tried",
        ),
        (("task", "rollback", "--", f"- undo {NOT_UTF8}"), "TEXT"),
        (("spec", "constraint", "add", "--level", "MUST", "--rule", NOT_UTF8), "--rule"),
    ],
)
def test_text_that_is_not_utf8_is_refused_by_name(
    ledger_repo: Path, args: tuple[str, ...], option: str
) -> None:
    result = run(ledger_repo, *args)
    assert result.code == 2, result.err
    assert f"bad_value: {option} holds bytes that are not UTF-8 text" in result.err


@pytest.mark.parametrize(
    "args",
    [
        (
            "fail",
            "add",
            "--tried",
            "`make café`",
            "--failure",
            "naïve — ü",
            "--workaround",
            "日本語",
        ),
        ("task", "rollback", "--", "- undo the café migration"),
    ],
)
def test_utf8_text_beyond_ascii_is_written(ledger_repo: Path, args: tuple[str, ...]) -> None:
    before = {p.name: p.read_bytes() for p in (ledger_repo / "docs").iterdir()}
    result = run(ledger_repo, *args)
    assert result.code == 0, result.err
    assert {p.name: p.read_bytes() for p in (ledger_repo / "docs").iterdir()} != before
