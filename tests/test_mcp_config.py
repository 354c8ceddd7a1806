"""``rehydrate init --agent NAME`` registers ``rehydrate mcp`` in the runtime's MCP file
(agents/mcp_config.py), portably and without losing the user's own servers; ``doctor``
reads it back (doctor/mcp.py)."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import commit, git, run, write
from rehydrate.agents.mcp_config import REGISTRATIONS, registered
from rehydrate.doctor import run as doctor
from rehydrate.git import find_repo

BIN = str(Path(sys.executable).parent)  # this venv's bin: its `rehydrate` has the mcp extra


def read(repo: Path, runtime: str) -> dict[str, Any]:
    path = repo / REGISTRATIONS[runtime].path
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text())
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def report(repo: Path, path: str = BIN + os.pathsep + "/usr/bin:/bin") -> Any:
    return doctor(find_repo(repo), {**os.environ, "PATH": path})


def mcp_codes(repo: Path, **kwargs: Any) -> list[str]:
    return [f.code for f in report(repo, **kwargs).findings if f.integration == "mcp"]


@pytest.mark.parametrize("runtime", sorted(REGISTRATIONS))
def test_init_registers_the_server_once(repo: Path, runtime: str) -> None:
    first = run(repo, "init", "--agent", runtime)
    assert first.code == 0, first.err
    row = REGISTRATIONS[runtime]
    assert f"created   {row.path}" in first.err or f"updated   {row.path}" in first.err
    assert registered(repo, runtime) == dict(row.entry)
    entry = json.dumps(dict(row.entry))
    assert str(repo) not in entry and sys.executable not in entry and BIN not in entry
    before = (repo / row.path).read_bytes()
    again = run(repo, "init", "--agent", runtime)
    assert f"unchanged {row.path}" in again.err
    assert (repo / row.path).read_bytes() == before
    commit(repo, "init")
    assert mcp_codes(repo) == []
    states = {i.name: i.state for i in report(repo).integrations}
    assert states["mcp"] == "ok"


def test_two_clones_get_the_same_bytes(tmp_path: Path) -> None:
    made = []
    for name in ("one", "elsewhere/two"):
        repo = tmp_path / name
        repo.mkdir(parents=True)
        git(repo, "init", "-q")
        agents = [a for runtime in sorted(REGISTRATIONS) for a in ("--agent", runtime)]
        assert run(repo, "init", *agents).code == 0
        made.append({r.path: (repo / r.path).read_bytes() for r in REGISTRATIONS.values()})
    mcp_only = [
        {p: b for p, b in files.items() if p in (".mcp.json", ".cursor/mcp.json")} for files in made
    ]
    assert mcp_only[0] == mcp_only[1]
    for files in made:
        text = b"".join(files.values()).decode()
        assert "mcpServers" in text and "[mcp_servers.rehydrate]" in text


def test_the_user_s_servers_and_keys_are_kept(repo: Path) -> None:
    mine = {"command": "npx", "args": ["-y", "other-server"]}
    write(repo, ".mcp.json", json.dumps({"mcpServers": {"other": mine}, "x-note": 1}))
    cursor = {"mcpServers": {"rehydrate": {"command": "old", "env": {"DEBUG": "1"}}}}
    write(repo, ".cursor/mcp.json", json.dumps(cursor))
    write(repo, ".gemini/settings.json", json.dumps({"theme": "dark", "mcpServers": {}}))
    toml = '# my codex settings\nmodel = "o4"  # keep me\n\n[mcp_servers.other]\ncommand = "x"\n'
    write(repo, ".codex/config.toml", toml, dedent=False)
    agents = ("--agent", "claude", "--agent", "cursor", "--agent", "gemini", "--agent", "codex")
    assert run(repo, "init", *agents).code == 0
    claude = read(repo, "claude")
    assert claude["mcpServers"]["other"] == mine and claude["x-note"] == 1
    cursor_now = read(repo, "cursor")["mcpServers"]["rehydrate"]
    assert cursor_now["env"] == {"DEBUG": "1"}  # the user's key stays
    assert cursor_now["command"] == "rehydrate"  # ours is rewritten
    gemini = read(repo, "gemini")
    assert gemini["theme"] == "dark" and "hooks" in gemini
    assert gemini["mcpServers"]["rehydrate"] == {"command": "rehydrate", "args": ["mcp"]}
    text = (repo / ".codex/config.toml").read_text()
    assert text.startswith(toml)  # every byte of the user's kept
    codex = tomllib.loads(text)
    assert codex["model"] == "o4" and codex["mcp_servers"]["other"] == {"command": "x"}
    assert codex["mcp_servers"]["rehydrate"] == {"command": "rehydrate", "args": ["mcp"]}


def test_a_stale_codex_table_is_rewritten_where_it_stands(repo: Path) -> None:
    toml = (
        '[mcp_servers.rehydrate]\ncommand = "/home/me/.venv/bin/rehydrate"\nargs = ["mcp"]\n\n'
        '[mcp_servers.after]\ncommand = "y"\n'
    )
    write(repo, ".codex/config.toml", toml, dedent=False)
    assert mcp_codes(repo) == ["mcp_server_stale"]
    assert run(repo, "init", "--agent", "codex").code == 0
    codex = tomllib.loads((repo / ".codex/config.toml").read_text())
    assert codex["mcp_servers"] == {
        "rehydrate": {"command": "rehydrate", "args": ["mcp"]},
        "after": {"command": "y"},
    }
    assert mcp_codes(repo) == []


def test_a_codex_file_in_a_form_it_does_not_edit_is_refused_untouched(repo: Path) -> None:
    toml = '[mcp_servers]\nrehydrate = { command = "mine" }\n'
    write(repo, ".codex/config.toml", toml, dedent=False)
    result = run(repo, "init", "--agent", "codex")
    assert result.code == 2
    assert ".codex/config.toml" in result.err and "add the table yourself" in result.err
    assert (repo / ".codex/config.toml").read_text() == toml


# what is wrong in the registration -> the doctor's code
BROKEN = [
    pytest.param(".mcp.json", "{ nope", "mcp_config_invalid", id="json-unparseable"),
    pytest.param(".mcp.json", '{"mcpServers": []}', None, id="servers-not-an-object"),
    pytest.param(
        ".mcp.json",
        json.dumps({"mcpServers": {"rehydrate": {"command": "/opt/venv/bin/rehydrate"}}}),
        "mcp_server_stale",
        id="machine-path",
    ),
    pytest.param(
        ".mcp.json",
        json.dumps({"mcpServers": {"rehydrate": {"type": "stdio", "command": "rehydrate"}}}),
        "mcp_server_stale",
        id="no-args",
    ),
    pytest.param(
        ".gemini/settings.json",
        json.dumps({"mcpServers": {"rehydrate": "rehydrate mcp"}}),
        "mcp_server_stale",
        id="entry-not-a-table",
    ),
    pytest.param(".codex/config.toml", "[mcp_servers.rehydrate\n", "mcp_config_invalid", id="toml"),
]


@pytest.mark.parametrize(("path", "text", "code"), BROKEN)
def test_doctor_names_a_broken_registration(
    repo: Path, path: str, text: str, code: str | None
) -> None:
    write(repo, path, text, dedent=False)
    found = report(repo).findings
    mine = [f for f in found if f.integration == "mcp"]
    assert [f.code for f in mine] == ([code] if code else [])
    for item in mine:
        assert item.file == path and item.fix


def test_doctor_sees_no_rehydrate_on_path(repo: Path) -> None:
    assert run(repo, "init", "--agent", "claude").code == 0
    found = [f for f in report(repo, path="/usr/bin:/bin").findings if f.integration == "mcp"]
    assert [f.code for f in found] == ["mcp_server_unrunnable"]
    assert "pip install 'rehydrate[mcp]'" in found[0].fix


def test_doctor_sees_a_rehydrate_without_the_extra(repo: Path, tmp_path: Path) -> None:
    python = "/usr/bin/python3"
    if not os.path.exists(python):
        pytest.skip("no system python to stand for an environment without the extra")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "rehydrate"
    script.write_text(f"#!{python}\nimport sys\nsys.exit(0)\n")
    script.chmod(0o755)
    assert run(repo, "init", "--agent", "claude").code == 0
    found = [
        f for f in report(repo, path=f"{bin_dir}:/usr/bin:/bin").findings if f.integration == "mcp"
    ]
    assert [f.code for f in found] == ["mcp_server_unrunnable"]
    assert "cannot serve MCP" in found[0].message and python in found[0].message
