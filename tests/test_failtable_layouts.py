"""The one failure-table reader (ledgers/failtable.py) on every layout docs/ledgers.md
allows: a heading and prose above the table, CRLF line ends, extra columns. Each layout
is run through every runtime's pre-tool hook entry point, in a real repository: an
unrelated command is allowed, the recorded one refused (issue 27: with a heading above
the table, every runtime denied every command with an internal error)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, run, scaffold
from rehydrate.agents.events import HookResult
from rehydrate.config import Config
from rehydrate.failtable import find, row
from rehydrate.ledgers import parse_ledger

ROW = "| F-001 | `go test -tags=musl ./...` | crashes in the dynamic linker | default tags |"
LAYOUTS = {
    "plain": ["| ID | Tried | Failure | Workaround |", "|---|---|---|---|", ROW],
    "heading-and-prose": [
        "# Failed attempts",
        "",
        "Prose above the table, as docs/ledgers.md allows.",
        "",
        "## Active",
        "",
        "Another paragraph, with `code` and a | pipe.",
        "",
        "| ID | Tried | Failure | Workaround |",
        "|---|---|---|---|",
        ROW,
    ],
    "extra-columns": [
        "## Failures",
        "",
        "| ID | Date | Tried | Failure | Workaround | Owner |",
        "|---|---|---|---|---|---|",
        "| F-001 | 2026-01-01 | `go test -tags=musl ./...` | crashes | default tags | ana |",
    ],
}
TAIL = ["", "## Retired", "", "| ID | Reason | Date | Replaced by |", "|---|---|---|---|", ""]


def _ledger(layout: str, newline: str) -> str:
    return newline.join(["---", "ledger: failures", "---", *LAYOUTS[layout], *TAIL])


def _events(cwd: str, command: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each runtime's pre-tool hook: (hook name, the event it is given)."""
    bash = {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": cwd}
    return {
        "claude": ("pre-tool-use", bash),
        "codex": ("pre-tool-use", bash),
        "gemini": ("before-tool", {**bash, "tool_name": "run_shell_command"}),
        "opencode": ("tool-before", {"tool": "bash", "command": command, "cwd": cwd}),
        "copilot": (
            "pre-tool-use",
            {"toolName": "bash", "toolArgs": {"command": command}, "cwd": cwd},
        ),
        "cursor": ("before-shell-execution", {"command": command, "cwd": cwd}),
        "cline": (
            "pre-tool-use",
            {
                "preToolUse": {"toolName": "execute_command", "parameters": {"command": command}},
                "workspaceRoots": [cwd],
            },
        ),
        "kiro": ("pre-tool-use", {**bash, "tool_name": "execute_bash"}),
    }


def _denied(runtime: str, result: HookResult) -> bool:
    out = result.output or {}
    specific = out.get("hookSpecificOutput", {})
    return bool(
        specific.get("permissionDecision") == "deny"
        or out.get("decision") in ("deny", "block")
        or out.get("deny")
        or out.get("permissionDecision") == "deny"
        or out.get("permission") == "deny"
        or out.get("cancel") is True
        or result.exit_code == 2
    )


def _hook(runtime: str) -> Callable[[str, str], HookResult]:
    import importlib

    module = importlib.import_module(f"rehydrate.agents.{runtime}")
    hook: Callable[[str, str], HookResult] = module.run_hook
    return hook


@pytest.fixture(params=[(layout, nl) for layout in LAYOUTS for nl in ("\n", "\r\n")], ids=str)
def layout_repo(request: pytest.FixtureRequest, repo: Path) -> Path:
    layout, newline = request.param
    scaffold(repo)
    (repo / "docs" / "Failed_Attempts.md").write_bytes(_ledger(layout, newline).encode())
    commit(repo, "ledgers")
    return repo


RUNTIMES = ("claude", "codex", "gemini", "opencode", "copilot", "cursor", "cline", "kiro")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_every_pre_tool_hook_reads_every_table_layout(layout_repo: Path, runtime: str) -> None:
    hook = _hook(runtime)
    for attempt in range(2):  # the first check parses in full, the second reads the bytes
        name, event = _events(str(layout_repo), "ls -la")[runtime]
        allowed = hook(name, json.dumps(event))
        assert not _denied(runtime, allowed), (attempt, allowed)
        assert "internal error" not in json.dumps(allowed.output or {}) + (allowed.message or "")
        name, event = _events(str(layout_repo), "go test -tags musl ./...")[runtime]
        refused = hook(name, json.dumps(event))
        assert _denied(runtime, refused), (attempt, refused)
        assert "F-001" in json.dumps(refused.output or {}) + (refused.message or "")


def test_check_command_exits_by_the_contract_on_a_heading_above_the_table(
    layout_repo: Path,
) -> None:
    for _ in range(2):
        assert run(layout_repo, "check-command", "--", "ls").code == 0
        refused = run(layout_repo, "check-command", "--", "go", "test", "-tags=musl", "./...")
        assert refused.code == 1 and "F-001" in refused.err


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_reader_agrees_with_the_parser(layout: str, newline: str) -> None:
    data = _ledger(layout, newline).encode()
    config = Config()
    table = find(data, config.section_aliases, config.column_aliases)
    assert table is not None
    parsed = parse_ledger("failures", "F.md", data).active("failures")
    lines = data.decode().split("\n")
    fast = row(lines[table.first_line - 1], table.header, table.first_line)
    assert fast is not None and fast == parsed[0]


# Where the row reaches the model with an allowed call (docs/check-command.md).
CONTEXT_FIELD = {
    "claude": ("hookSpecificOutput", "additionalContext"),
    "codex": ("hookSpecificOutput", "additionalContext"),
    "cline": ("contextModification",),
}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_close_command_is_allowed_naming_the_row(repo: Path, runtime: str) -> None:
    """Same program and subcommand, the failing option left out: every runtime allows it;
    the runtimes that carry context with an allowed call name the row to the model, the
    others to the person's log."""
    scaffold(repo)
    (repo / "docs" / "Failed_Attempts.md").write_bytes(_ledger("heading-and-prose", "\n").encode())
    commit(repo, "ledgers")
    name, event = _events(str(repo), "go test ./...")[runtime]
    result = _hook(runtime)(name, json.dumps(event))
    assert not _denied(runtime, result), result
    assert "close to failed attempt F-001" in (result.message or "")
    if runtime in CONTEXT_FIELD:
        value: Any = result.output
        for key in CONTEXT_FIELD[runtime]:
            value = value[key]
        assert "close to failed attempt F-001" in value and "default tags" in value
