"""``rehydrate mcp`` driven as clients drive it: the MCP Python SDK's own client over
stdio (``stdio_client`` + ``ClientSession``) against a real server process in a real
repository. Every tool, resource and prompt; refusals as tool errors carrying the CLI's
code and fix; two sessions writing at once; hostile input with nothing written."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from adversarial.cells import CELLS  # noqa: E402
from conftest import commit, git, run, run_subprocess, write  # noqa: E402
from rehydrate.ledgers import parse_ledger  # noqa: E402

T = TypeVar("T")
LEDGERS = ("docs/Spec.md", "docs/Task.md", "docs/Failed_Attempts.md")
FAILURES = "docs/Failed_Attempts.md"
TODAY = {"REHYDRATE_TODAY": "2030-06-01"}
TIMEOUT = 120.0

TOOLS = {
    "prompt",
    "status",
    "check_command",
    "fail_add",
    "fail_retire",
    "constraint_add",
    "constraint_strengthen",
    "contract_add",
    "decision_add",
    "decision_assign",
    "decision_decide",
    "retire",
    "task_next",
    "task_objective",
    "task_phase_add",
    "task_phase_start",
    "task_phase_done",
    "task_phase_move",
    "task_obligation_add",
    "task_obligation_done",
    "task_write_add",
    "task_write_unknown",
    "task_write_settle",
    "task_approval_consume",
    "task_approval_expire",
    "task_approval_revoke",
    "task_verified_add",
    "task_check_add",
    "task_check_pass",
}


@asynccontextmanager
async def session(repo: Path, errlog: Path) -> AsyncIterator[ClientSession]:
    """A client session with a ``rehydrate mcp --repo REPO`` server process of its own."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rehydrate", "mcp", "--repo", str(repo)],
        env={**os.environ, **TODAY},
        cwd=str(repo.parent),  # --repo, not the working directory, names the repository
    )
    with errlog.open("a") as log:
        async with stdio_client(params, errlog=log) as (read, write_stream):
            async with ClientSession(read, write_stream) as client:
                await client.initialize()
                yield client


def drive(repo: Path, body: Callable[[ClientSession], Awaitable[T]]) -> T:
    """Run ``body`` against one fresh server for ``repo``."""

    async def main() -> T:
        async with session(repo, repo.parent / "server.log") as client:
            return await asyncio.wait_for(body(client), TIMEOUT)

    return asyncio.run(main())


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def call(client: ClientSession, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool call that must succeed: its JSON answer."""
    result = await client.call_tool(tool, args)
    assert not result.is_error, f"{tool} {args}: {text_of(result)}"
    answer: dict[str, Any] = json.loads(text_of(result))
    return answer


async def refused(client: ClientSession, tool: str, args: dict[str, Any]) -> str:
    """A tool call that must be refused: its error text."""
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool} {args} was not refused: {text_of(result)[:300]}"
    return text_of(result)


def snapshot(repo: Path) -> dict[str, bytes]:
    return {path: (repo / path).read_bytes() for path in LEDGERS}


def guard_passes(repo: Path) -> None:
    git(repo, "add", "-A")
    result = run(repo, "guard", "--staged")
    assert result.code == 0, result.err


@pytest.fixture
def served(ledger_repo: Path) -> Path:
    """The example ledgers committed, with a tracked file to verify against."""
    write(ledger_repo, "README.md", "# demo\n")
    commit(ledger_repo, "readme")
    return ledger_repo


def test_lists_the_tools_resources_and_prompt_with_typed_schemas(served: Path) -> None:
    async def body(client: ClientSession) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            schema = tool.input_schema
            assert schema["type"] == "object", tool.name
            assert tool.description, tool.name
            for name, prop in schema.get("properties", {}).items():
                assert {"type", "anyOf", "enum"} & set(prop), (tool.name, name, prop)
        fail = tools["fail_add"].input_schema
        assert fail["required"] == ["tried", "failure", "workaround"]
        assert fail["properties"]["commit"]["type"] == "boolean"
        level = tools["constraint_add"].input_schema["properties"]["level"]
        assert level["enum"] == ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]
        assert tools["check_command"].input_schema["required"] == ["command"]
        assert tools["status"].input_schema.get("required", []) == []
        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
        assert set(resources) == {"rehydrate://prompt", "rehydrate://state"}
        assert resources["rehydrate://state"].mime_type == "application/json"
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        assert prompts == ["rehydrate"]

    drive(served, body)


def test_prompt_and_state_are_the_cli_s_bytes(served: Path) -> None:
    task = (served / "docs/Task.md").read_text()
    task = task.replace("revision: 1", "revision: 2")
    write(served, "docs/Task.md", task.replace("Example: write the", "Uncommitted: write the"))
    cli_prompt = run_subprocess(served, "prompt")
    cli_worktree = run_subprocess(served, "prompt", "--worktree")
    cli_state = run_subprocess(served, "state", "--json")
    cli_status = run_subprocess(served, "status", "--json", env=TODAY)
    assert cli_prompt.code == cli_worktree.code == cli_state.code == cli_status.code == 0

    async def body(client: ClientSession) -> dict[str, str]:
        resource = (await client.read_resource("rehydrate://prompt")).contents[0]
        state = (await client.read_resource("rehydrate://state")).contents[0]
        message = (await client.get_prompt("rehydrate")).messages[0].content
        return {
            "resource": getattr(resource, "text", ""),
            "state": getattr(state, "text", ""),
            "prompt": getattr(message, "text", ""),
            "tool": text_of(await client.call_tool("prompt", {})),
            "worktree": text_of(await client.call_tool("prompt", {"worktree": True})),
            "status": text_of(await client.call_tool("status", {})),
        }

    got = drive(served, body)
    assert got["resource"] == got["prompt"] == got["tool"] == cli_prompt.out
    assert got["worktree"] == cli_worktree.out
    assert "Uncommitted: write the failing" in got["worktree"]
    assert "Uncommitted" not in got["tool"]
    assert got["state"] == cli_state.out
    assert got["status"] == cli_status.out
    assert json.loads(got["status"])["task"]["revision"] == 2


def test_check_command_names_the_row_and_its_workaround(served: Path) -> None:
    async def body(client: ClientSession) -> tuple[dict[str, Any], dict[str, Any]]:
        hit = await call(client, "check_command", {"command": "go test -tags=musl ./..."})
        twin = await call(client, "check_command", {"command": "go test ./..."})
        return hit, twin

    hit, twin = drive(served, body)
    assert hit["verdict"] == "refused"
    assert hit["matches"][0]["id"] == "F-001"
    assert hit["matches"][0]["workaround"] == "Example: use the default build tags"
    assert twin["verdict"] == "allowed" and twin["matches"] == []
    cli = run(served, "check-command", "--json", "--", "go test -tags=musl ./...")
    assert json.loads(cli.out) == hit


# tool, arguments, the ledger it writes, the ID the answer names
WRITES: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "fail_add",
        {"tried": "`make mcp`", "failure": "segfault", "workaround": "make"},
        "failures",
        "F-002",
    ),  # noqa: E501
    ("fail_retire", {"id": "F-001", "reason": "the example is gone"}, "failures", "F-001"),
    (
        "constraint_add",
        {"level": "SHOULD", "rule": "keep cells short", "source": "team"},
        "spec",
        "C-002",
    ),  # noqa: E501
    ("constraint_strengthen", {"id": "C-002", "level": "MUST"}, "spec", "C-002"),
    ("contract_add", {"subject": "API", "contract": "v1 stays", "source": "doc"}, "spec", "K-002"),
    (
        "decision_add",
        {"question": "which cache?", "owner": "ana", "due": "2031-01-01"},
        "spec",
        "D-002",
    ),  # noqa: E501
    ("decision_assign", {"id": "D-002", "owner": "bo"}, "spec", "D-002"),
    ("decision_decide", {"id": "D-002", "decision": "redis", "source": "bo"}, "spec", "D-002"),
    ("retire", {"id": "K-002", "reason": "superseded", "ledger": "spec"}, "spec", "K-002"),
    ("task_next", {"action": "write the failing test"}, "task", "next action"),
    ("task_objective", {"text": "ship the MCP server"}, "task", "objective"),
    ("task_phase_add", {"phase": "serve MCP"}, "task", "P2"),
    ("task_phase_start", {"id": "P1"}, "task", "P1"),
    ("task_phase_done", {"id": "P1"}, "task", "P1"),
    ("task_phase_move", {"id": "P2", "status": "doing"}, "task", "P2"),
    ("task_obligation_add", {"text": "tell the lead"}, "task", "O-002"),
    ("task_obligation_done", {"id": "O-002"}, "task", "O-002"),
    ("task_write_add", {"operation": "publish", "idempotency_key": "k1"}, "task", "E-002"),
    ("task_write_unknown", {"id": "E-002"}, "task", "E-002"),
    (
        "task_write_settle",
        {"id": "E-002", "status": "confirmed", "evidence": "the registry page"},
        "task",
        "E-002",
    ),  # noqa: E501
    ("task_approval_consume", {"id": "A-001"}, "task", "A-001"),
    ("task_approval_expire", {"id": "A-002"}, "task", "A-002"),
    ("task_approval_revoke", {"id": "A-003"}, "task", "A-003"),
    ("task_verified_add", {"check": "it renders", "artifact": "README.md"}, "task", "V-001"),
    ("task_check_add", {"text": "docs updated"}, "task", "X-002"),
    ("task_check_pass", {"id": "X-002"}, "task", "X-002"),
]


def test_every_writer_tool_writes_what_its_cli_verb_writes(served: Path) -> None:
    assert {tool for tool, *_ in WRITES} | {"prompt", "status", "check_command"} == TOOLS
    # two more granted approvals, recorded by a person (no tool adds one)
    task_md = (served / "docs/Task.md").read_text()
    granted = "| A-001 | Example: one deploy to staging | granted |\n"
    more = granted + "| A-002 | one more deploy | granted |\n| A-003 | a third | granted |\n"
    write(
        served, "docs/Task.md", task_md.replace(granted, more).replace("revision: 1", "revision: 2")
    )
    commit(served, "approvals")

    async def body(client: ClientSession) -> list[dict[str, Any]]:
        return [await call(client, tool, args) for tool, args, _, _ in WRITES]

    answers = drive(served, body)
    for (tool, _, kind, item_id), answer in zip(WRITES, answers, strict=True):
        assert answer["schema"] == "rehydrate/write-v1", tool
        assert (answer["ledger"], answer["id"]) == (kind, item_id), tool
    state = json.loads(run(served, "state", "--json").out)
    task = parse_ledger("task", "docs/Task.md", (served / "docs/Task.md").read_bytes())
    assert task.revision == 2 + sum(1 for _, _, kind, _ in WRITES if kind == "task")
    approvals = {r.id: r.status for r in task.section("approvals")}
    assert approvals == {"A-001": "consumed", "A-002": "expired", "A-003": "revoked"}
    assert task.objective == "ship the MCP server"
    assert task.next_action is not None and task.next_action.text == "write the failing test"
    spec = parse_ledger("spec", "docs/Spec.md", (served / "docs/Spec.md").read_bytes())
    rows = {r.id: r.cells() for r in spec.all_items()}
    assert rows["D-002"]["status"] == "decided" and rows["D-002"]["decision"] == "redis"
    assert rows["D-002"]["owner"] == "bo" and rows["D-002"]["due"] == "2031-01-01"
    assert rows["C-002"]["level"] == "MUST" and rows["C-002"]["rule"] == "keep cells short"
    assert "K-002" in spec.retired_ids
    verified = {r.id: r.cells() for r in task.section("verified")}
    blob = git(served, "hash-object", "README.md").stdout.strip()
    assert verified["V-001"]["blob"] == blob and verified["V-001"]["artifact"] == "README.md"
    assert "F-001" in json.dumps(state["ledgers"]["failures"]["retired"])
    guard_passes(served)


def test_commit_true_commits_just_that_ledger_through_the_hooks(served: Path) -> None:
    assert run(served, "hook", "install").code == 0
    write(served, "unrelated.txt", "staged, not committed\n")
    git(served, "add", "unrelated.txt")

    async def body(client: ClientSession) -> dict[str, Any]:
        args = {"tried": "`npm ci`", "failure": "EACCES", "workaround": "npm ci --cache .npm"}
        return await call(client, "fail_add", {**args, "commit": True})

    answer = drive(served, body)
    assert answer["id"] == "F-002" and answer["commit"]
    assert git(served, "log", "-1", "--format=%s").stdout.strip() == "rehydrate: fail add F-002"
    assert git(served, "rev-parse", "HEAD").stdout.strip() == answer["commit"]
    assert git(served, "show", "--name-only", "--format=", "HEAD").stdout.split() == [FAILURES]
    assert "A  unrelated.txt" in git(served, "status", "--porcelain").stdout


def test_a_hook_can_neither_read_nor_write_the_protocol_stream(served: Path) -> None:
    """``commit: true`` runs git's hooks; one that drains stdin and prints to stdout
    must not eat the client's requests nor corrupt the server's answers."""
    hook = served / ".git/hooks/post-commit"
    hook.write_text('#!/bin/sh\ncat > /dev/null\necho \'{"jsonrpc": "2.0", "id": 1}\'\n')
    hook.chmod(0o755)

    async def body(client: ClientSession) -> list[dict[str, Any]]:
        args = {"tried": "`make hooks`", "failure": "f", "workaround": "w", "commit": True}
        first = await call(client, "fail_add", args)
        second = await call(client, "fail_add", {**args, "tried": "`make hooks 2`"})
        return [first, second, await call(client, "status", {})]

    first, second, status = drive(served, body)
    assert (first["id"], second["id"]) == ("F-002", "F-003")
    assert first["commit"] and second["commit"]
    assert status["schema"] == "rehydrate/status-v1"


def _cli_line(result: Any) -> str:
    return result.err.strip().splitlines()[0]


# tool, arguments, the CLI command that makes the same refusal, the code
REFUSALS: list[tuple[str, dict[str, Any], tuple[str, ...], str]] = [
    (
        "fail_add",
        {"tried": "a\nb", "failure": "f", "workaround": "w"},
        ("fail", "add", "--tried", "a\nb", "--failure", "f", "--workaround", "w"),
        "bad_value",
    ),
    (
        "constraint_strengthen",
        {"id": "C-001", "level": "MAY"},
        ("spec", "constraint", "strengthen", "C-001", "--level", "MAY"),
        "level_weakened",
    ),
    (
        "fail_add",
        {"tried": "t", "failure": "f", "workaround": "w", "expect_blob": "0000000"},
        (
            "fail",
            "add",
            "--tried",
            "t",
            "--failure",
            "f",
            "--workaround",
            "w",
            "--expect-blob",
            "0000000",
        ),  # noqa: E501
        "cas_conflict",
    ),
    (
        "task_next",
        {"action": "next", "expect_revision": 7},
        ("task", "next", "next", "--expect-revision", "7"),
        "cas_conflict",
    ),
    ("task_phase_start", {"id": "P9"}, ("task", "phase", "start", "P9"), "unknown_id"),
    ("decision_assign", {"id": "D-001"}, ("spec", "decision", "assign", "D-001"), "usage"),
    (
        "task_approval_revoke",
        {"id": "A-001", "expect_revision": 1},
        ("task", "approval", "revoke", "A-001", "--expect-revision", "1"),
        "",  # whatever the CLI says: the second revoke of one approval
    ),
]


def test_refusals_are_tool_errors_with_the_cli_s_code_and_fix(served: Path) -> None:
    # make the last case a refusal: A-001 revoked once already
    assert run(served, "task", "approval", "revoke", "A-001").code == 0
    commit(served, "revoke")
    before = snapshot(served)
    cli = [run(served, *argv) for _, _, argv, _ in REFUSALS]
    assert snapshot(served) == before
    for (tool, _, _, code), result in zip(REFUSALS, cli, strict=True):
        assert result.code in (1, 2), (tool, result)
        assert not code or f"{code}:" in result.err, (tool, result.err)

    async def body(client: ClientSession) -> list[str]:
        texts = [await refused(client, tool, args) for tool, args, _, _ in REFUSALS]
        await call(client, "status", {})  # still up
        return texts

    texts = drive(served, body)
    for result, text in zip(cli, texts, strict=True):
        assert _cli_line(result) in text
    assert snapshot(served) == before


WRONG_TYPES: list[tuple[str, dict[str, Any]]] = [
    ("fail_add", {"tried": 5, "failure": "f", "workaround": "w"}),
    ("fail_add", {"tried": ["`a`"], "failure": "f", "workaround": "w"}),
    ("fail_add", {"tried": None, "failure": "f", "workaround": "w"}),
    ("fail_add", {"tried": {"$ne": ""}, "failure": "f", "workaround": "w"}),
    ("fail_add", {"failure": "f", "workaround": "w"}),
    ("fail_add", {"tried": "t", "failure": "f", "workaround": "w", "commit": "true"}),
    ("fail_add", {"tried": "t", "failure": "f", "workaround": "w", "commit": 1}),
    ("task_next", {"action": "a", "expect_revision": "1"}),
    ("task_next", {"action": "a", "expect_revision": 1.5}),
    ("constraint_add", {"level": "must", "rule": "r", "source": "s"}),
    ("constraint_add", {"level": "MUST  NOT", "rule": "r", "source": "s"}),
    ("constraint_add", {"level": "MUSTN'T", "rule": "r", "source": "s"}),
    ("task_phase_move", {"id": "P1", "status": "finished"}),
    ("task_write_settle", {"id": "E-001", "status": "pending"}),
    ("check_command", {"command": ["rm", "-rf", "/"]}),
    ("retire", {"id": "C-001", "reason": "r", "ledger": "../../etc"}),
    ("prompt", {"worktree": "yes"}),
]


def test_hostile_input_writes_nothing_and_the_server_stays_up(served: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (served / "escape").symlink_to(outside)
    (served / "escape-dir").symlink_to(tmp_path)
    commit(served, "symlinks")
    before = snapshot(served)
    five_mb = "x" * (5 * 1024 * 1024)
    paths = [
        "../outside.txt",
        str(outside),
        "/etc/passwd",
        "escape",
        "escape-dir/outside.txt",
        ".git/config",
        "docs/../../outside.txt",
        "missing.txt",
    ]

    async def body(client: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        unknown = await client.call_tool("fail_delete", {"id": "F-001"})
        out["unknown"] = (unknown.is_error, text_of(unknown))
        out["types"] = [await refused(client, tool, args) for tool, args in WRONG_TYPES]
        big = {"tried": five_mb, "failure": five_mb, "workaround": five_mb}
        out["big"] = await refused(client, "fail_add", big)
        out["big_next"] = await refused(client, "task_next", {"action": "\n" * len(five_mb)})
        out["paths"] = [
            await refused(client, "task_verified_add", {"check": "c", "artifact": path})
            for path in paths
        ]
        loop = asyncio.get_running_loop()
        start = loop.time()
        out["big_command"] = await call(client, "check_command", {"command": five_mb})
        out["big_command_seconds"] = loop.time() - start
        out["status"] = await call(client, "status", {})
        return out

    got = drive(served, body)
    assert got["unknown"][0] and "fail_delete" in got["unknown"][1]
    assert all("validation error" in text for text in got["types"]), got["types"]
    assert "value_too_long: --tried" in got["big"] and len(got["big"]) < 1000
    assert "value_too_long" in got["big_next"]
    for path, text in zip(paths, got["paths"], strict=True):
        code = "artifact_missing" if path == "missing.txt" else "path_outside_repo"
        assert f"{code}:" in text, (path, text)
    assert got["big_command"]["verdict"] == "allowed"
    assert got["big_command_seconds"] < 30
    assert got["status"]["schema"] == "rehydrate/status-v1"
    assert snapshot(served) == before


def test_the_cell_table_through_fail_add(served: Path) -> None:
    async def body(client: ClientSession) -> list[Any]:
        results = []
        for case in CELLS:
            args = {"tried": case.value, "failure": "f", "workaround": "w"}
            results.append(await client.call_tool("fail_add", args))
        return results

    results = drive(served, body)
    ledger = parse_ledger("failures", FAILURES, (served / FAILURES).read_bytes())
    rows = {r.id: r.cells() for r in ledger.section("failures")}
    for case, result in zip(CELLS, results, strict=True):
        if case.refused:
            assert result.is_error and f"{case.refused}: --tried" in text_of(result), case.name
            continue
        assert not result.is_error, (case.name, text_of(result))
        item_id = json.loads(text_of(result))["id"]
        assert rows[item_id]["tried"] == (case.expect or case.value), case.name
    assert len(rows) == 1 + sum(1 for c in CELLS if not c.refused)
    guard_passes(served)


def test_two_sessions_writing_at_once(served: Path) -> None:
    count = 6

    async def writer(client: ClientSession, who: str) -> list[str]:
        args = [{"tried": f"`{who} {n}`", "failure": "f", "workaround": "w"} for n in range(count)]
        return [(await call(client, "fail_add", a))["id"] for a in args]

    async def main() -> tuple[list[list[str]], list[Any]]:
        log = served.parent / "server.log"
        async with session(served, log) as one, session(served, log) as two:
            ids = await asyncio.gather(writer(one, "one"), writer(two, "two"))
            blob = json.loads(text_of(await one.call_tool("status", {})))  # both up
            assert blob["schema"] == "rehydrate/status-v1"
            state = json.loads((await one.read_resource("rehydrate://state")).contents[0].text)  # type: ignore[union-attr]
            sha = state["ledgers"]["failures"]["blob"]
            args = {"tried": "`race`", "failure": "f", "workaround": "w", "expect_blob": sha}
            raced = await asyncio.gather(
                one.call_tool("fail_add", args), two.call_tool("fail_add", args)
            )
            return list(ids), list(raced)

    ids, raced = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    every = ids[0] + ids[1]
    assert len(set(every)) == 2 * count
    text = (served / FAILURES).read_text()
    for who in ("one", "two"):
        for n in range(count):
            assert f"`{who} {n}`" in text
    errors = [r for r in raced if r.is_error]
    assert len(errors) == 1, [text_of(r) for r in raced]
    assert "cas_conflict" in text_of(errors[0])
    assert text.count("`race`") == 1
    guard_passes(served)


def test_without_the_extra_it_exits_2_with_the_install_fix(served: Path) -> None:
    import subprocess

    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from rehydrate.cli import main\n"
        "sys.exit(main(['mcp']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=served, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2, proc.stderr
    assert "mcp_missing" in proc.stderr
    assert "pip install 'rehydrate[mcp]'" in proc.stderr
    assert proc.stdout == ""


def test_outside_a_repository_it_exits_2(tmp_path: Path) -> None:
    result = run_subprocess(tmp_path, "mcp", "--repo", str(tmp_path))
    assert result.code == 2
    assert "rehydrate:" in result.err


def test_an_unreadable_ledger_is_an_error_never_empty(served: Path) -> None:
    from mcp.shared.exceptions import MCPError

    task = served / "docs/Task.md"
    task.write_text(task.read_text().replace("| P1 |", "| P1 | extra |", 1))
    broken = task.read_bytes()
    cli = run(served, "state")
    assert cli.code == 2

    async def body(client: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for uri in ("rehydrate://prompt", "rehydrate://state"):
            try:
                await client.read_resource(uri)
                out[uri] = "read"
            except MCPError as exc:
                out[uri] = str(exc)
        out["worktree"] = await refused(client, "prompt", {"worktree": True})
        out["status"] = await refused(client, "status", {})
        out["next"] = await refused(client, "task_next", {"action": "go on"})
        out["fail"] = await call(
            client, "fail_add", {"tried": "t", "failure": "f", "workaround": "w"}
        )  # noqa: E501
        return out

    got = drive(served, body)
    assert (
        "docs/Task.md" in got["rehydrate://state"] and "table_malformed" in got["rehydrate://state"]
    )
    assert got["rehydrate://prompt"] == "read"  # the prompt resource reads HEAD, still sound
    for key in ("worktree", "status", "next"):
        assert "docs/Task.md" in got[key] and "table_malformed" in got[key], (key, got[key])
    assert task.read_bytes() == broken
    assert got["fail"]["id"] == "F-002"  # another ledger's writer is not held up
