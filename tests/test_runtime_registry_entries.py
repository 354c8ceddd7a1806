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
