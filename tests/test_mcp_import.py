"""The MCP SDK is an extra for `rehydrate mcp` only: ``python -X importtime`` shows that
the agent hook, the guard and the CLI's command group never import it (nor pydantic or
anyio, which come with it), and the MCP server does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# The SDK and what only it brings in; rehydrate's own server package too.
SDK = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "rehydrate.mcp_server")


def imported(cwd: Path, args: list[str], stdin: str = "") -> tuple[set[str], int]:
    """Every module ``python -X importtime ARGS`` imported, and its exit code."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "rehydrate" in modules, proc.stderr[-2000:]
    return modules, proc.returncode


def sdk_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in SDK or m.startswith(tuple(f"{s}." for s in SDK)))


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        pytest.param(
            ["-m", "rehydrate", "hook", "claude", "pre-tool-use"],
            json.dumps(
                {
                    "hook_event_name": "PreToolUse",
                    "session_id": "s1",
                    "tool_name": "Bash",
                    "tool_input": {"command": "go test -tags=musl ./..."},
                }
            ),
            id="hook-claude-pre-tool-use",
        ),
        pytest.param(["-m", "rehydrate", "guard", "--staged"], "", id="guard-staged"),
        pytest.param(["-c", "import rehydrate.cli"], "", id="cli-group"),
        pytest.param(["-m", "rehydrate", "--help"], "", id="cli-help"),
        pytest.param(["-c", "import rehydrate.cli.mcp"], "", id="mcp-command-module"),
    ],
)
def test_the_hot_paths_never_import_the_sdk(ledger_repo: Path, args: list[str], stdin: str) -> None:
    (ledger_repo / "docs/Failed_Attempts.md").write_text(
        (ledger_repo / "docs/Failed_Attempts.md").read_text() + "\n", encoding="utf-8"
    )
    subprocess.run(["git", "add", "-A"], cwd=ledger_repo, check=True)
    modules, code = imported(ledger_repo, args, stdin)
    assert code in (0, 1, 2), code
    assert sdk_modules(modules) == []


def test_the_server_does_import_it(ledger_repo: Path) -> None:
    """The check above can fail: the same measurement sees the SDK where it is used."""
    pytest.importorskip("mcp")
    modules, code = imported(ledger_repo, ["-c", "import rehydrate.mcp_server.server"])
    assert code == 0
    assert {"mcp", "pydantic", "anyio", "rehydrate.mcp_server.server"} <= modules


def test_the_sdk_has_one_door() -> None:
    """Only ``mcp_server/server.py`` imports the SDK or what it brings (STYLE: one door)."""
    import re

    src = Path(__file__).resolve().parents[1] / "src" / "rehydrate"
    importers = sorted(
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if re.search(r"^\s*(import|from) (mcp|mcp_types|pydantic|anyio)\b", p.read_text(), re.M)
    )
    assert importers == ["mcp_server/server.py"]
