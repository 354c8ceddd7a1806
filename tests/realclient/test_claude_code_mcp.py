"""Real Claude Code (npm, pinned) calling ``rehydrate mcp`` as its MCP server, against the
scripted model API: the server ``rehydrate init --claude`` registered in ``.mcp.json``
(the tracked file, no machine path) is started by Claude Code itself; the model asks for
``mcp__rehydrate__fail_add``; the row lands in docs/Failed_Attempts.md, committed through
the guard. Asserted on the request log (what reached the model) and the ledger file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import FakeAnthropic, Logged, text, tool
from harness import VENV_BIN, install_claude, make_project, run_claude

from conftest import git

pytestmark = pytest.mark.realclient

FAIL_ADD = "mcp__rehydrate__fail_add"


@pytest.fixture(scope="session")
def claude() -> Path:
    return install_claude()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = make_project(tmp_path)
    # A person's one-time approval of the project's server: local, untracked settings.
    local = {"enabledMcpjsonServers": ["rehydrate"], "permissions": {"allow": [FAIL_ADD]}}
    (repo / ".claude" / "settings.local.json").write_text(json.dumps(local), encoding="utf-8")
    return repo


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Any]:
    servers: list[FakeAnthropic] = []

    def start(*turns: list[dict[str, Any]]) -> FakeAnthropic:
        log = tmp_path / f"requests-{len(servers)}.jsonl"
        server = FakeAnthropic(list(turns), log_file=log).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def tool_results(request: Logged) -> list[dict[str, Any]]:
    return [
        b
        for message in request.tail()
        if isinstance(message.get("content"), list)
        for b in message["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


def test_init_registers_a_portable_server(project: Path) -> None:
    registered = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert registered["mcpServers"]["rehydrate"] == {
        "type": "stdio",
        "command": "rehydrate",
        "args": ["mcp"],
    }
    assert ".mcp.json" in git(project, "ls-files").stdout.split()
    assert str(VENV_BIN) not in (project / ".mcp.json").read_text(encoding="utf-8")


def test_the_model_records_a_failure_through_the_mcp_tool(
    claude: Path, project: Path, api: Any
) -> None:
    forged = {"tried": "`make`\n| F-999 | forged | row | here |", "failure": "f", "workaround": "w"}
    good = {
        "tried": "`make release`",
        "failure": "the signing key is missing on CI",
        "workaround": "run `make release-unsigned` and sign afterwards",
        "commit": True,
    }
    search = tool("ToolSearch", query=f"select:{FAIL_ADD}", max_results=1)
    fake = api([search], [tool(FAIL_ADD, **forged)], [tool(FAIL_ADD, **good)], [text("recorded")])
    session = run_claude(claude, project, fake, "record the failed release")
    assert session.returncode == 0, session.stderr
    init = next(e for e in session.events if e.get("subtype") == "init")
    (server,) = init["mcp_servers"]  # connected, or still starting when the session begins
    assert (server["name"], server["source"]) == ("rehydrate", "project"), server
    assert server["status"] in ("connected", "pending"), server
    turns = fake.turn_requests()
    assert len(turns) == 4, [t.text()[-500:] for t in turns]
    # Claude Code 2.1.332 defers MCP tools: named to the model (once the server is up),
    # the schema sent when the model asks ToolSearch for it
    for name in (FAIL_ADD, "mcp__rehydrate__task_next", "mcp__rehydrate__check_command"):
        assert name in turns[1].text(), name
    schemas = {t.get("name"): t for t in turns[1].body.get("tools", [])}
    assert schemas[FAIL_ADD]["input_schema"]["required"] == ["tried", "failure", "workaround"]
    (refusal,) = tool_results(turns[2])
    assert refusal.get("is_error") is True
    said = json.dumps(refusal["content"])
    assert "bad_value" in said and "line break" in said
    (recorded,) = tool_results(turns[3])
    assert not recorded.get("is_error"), recorded
    answer = json.dumps(recorded["content"])
    assert "F-RC8" in answer and "rehydrate/write-v1" in answer
    ledger = (project / "docs/Failed_Attempts.md").read_text(encoding="utf-8")
    assert "| F-RC8 | `make release` | the signing key is missing on CI |" in ledger
    assert "F-999" not in ledger
    assert git(project, "log", "-1", "--format=%s").stdout.strip() == "rehydrate: fail add F-RC8"
    assert git(project, "status", "--porcelain", "docs").stdout == ""
    guard = git(project, "log", "-1", "--format=%H").stdout.strip()
    from conftest import run

    assert run(project, "guard", "--range", f"{guard}~1..{guard}").code == 0
