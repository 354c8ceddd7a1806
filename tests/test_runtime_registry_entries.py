"""The runtime registry's entries for Gemini CLI, OpenCode and Copilot CLI: complete, each ✗
with its reason, the installer and page real, the version the one the real client pins."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

import pytest

from rehydrate.agents.runtimes import ACTIONS, RUNTIMES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "realclient"))
REAL = {"gemini": "GEMINI", "opencode": "OPENCODE", "copilot": "COPILOT"}


@pytest.mark.parametrize("name", sorted(REAL))
def test_entry_is_complete_and_true_to_its_real_client(name: str) -> None:
    import npm_client

    info = RUNTIMES[name]
    assert info.name == name and info.tested == "real client"
    assert info.version == getattr(npm_client, REAL[name]).version
    assert set(info.support) == set(ACTIONS)
    for action, support in info.support.items():
        assert support.ok or support.why, f"{name} {action}: a ✗ needs its reason"
    assert (ROOT / info.doc).is_file()
    module, function = info.installer.split(":")
    install = getattr(importlib.import_module(f"rehydrate.agents.{module}"), function)
    assert list(inspect.signature(install).parameters) == ["root", "python"]


def test_entries_are_in_alphabetical_order() -> None:
    assert list(RUNTIMES) == sorted(RUNTIMES)


@pytest.mark.parametrize("name", sorted(n for n, info in RUNTIMES.items() if info.hooks))
def test_the_hook_group_is_the_row_and_the_row_is_the_adapter(name: str) -> None:
    # the events a row offers are exactly the ones its adapter handles, and the group
    # `rehydrate hook NAME` has a subcommand for each (and nothing else but its own extras)
    import click

    from rehydrate.cli.hook import SUBCOMMANDS
    from rehydrate.cli.hook import group as hook

    hooks = RUNTIMES[name].hooks
    assert hooks is not None
    adapter = importlib.import_module(f"rehydrate.agents.{name}")
    assert list(hooks.events) == list(adapter.HANDLERS)
    assert all(text.strip() for text in hooks.events.values())
    assert name in SUBCOMMANDS
    ctx = click.Context(hook)
    group = hook.get_command(ctx, name)
    assert isinstance(group, click.Group)
    extras = {"codex": {"trust"}}.get(name, set())
    assert set(group.list_commands(ctx)) == set(hooks.events) | extras


def test_a_runtime_without_hook_events_has_no_hook_group() -> None:
    from rehydrate.cli.hook import SUBCOMMANDS

    quiet = [n for n, info in RUNTIMES.items() if info.hooks is None]
    assert quiet == ["aider"]
    assert not set(quiet) & set(SUBCOMMANDS)
