"""Registering ``rehydrate mcp`` where each runtime looks for its MCP servers.

One row of ``REGISTRATIONS`` per runtime: the project file (committed with the project,
so every clone gets it), its format and our server's entry, under the key ``rehydrate``.
The entry names the console script and its arguments, never a machine path: a clone on
another machine runs the ``rehydrate`` its own PATH finds (docs/mcp.md). The merge keeps
every other key and server of the user's, rewrites a stale entry of ours in place and
changes nothing on a second run. ``doctor.mcp`` reads the same rows back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ..readlimit import read_text
from ..records import NamedTuple
from .config_merge import invalid, no_link, read_json, write_json, write_text
from .runtimes import Installed

SERVER = "rehydrate"
PROGRAM = "rehydrate"  # the console script; `pip install 'rehydrate[mcp]'` puts it on PATH


class Registration(NamedTuple):
    title: str
    path: str  # repository-relative
    table: str  # the key (JSON) or table (TOML) holding the servers
    entry: Mapping[str, object]  # our server, as the runtime's file spells it
    note: str = ""  # what the runtime still needs before it starts the server


REGISTRATIONS: Mapping[str, Registration] = {
    "claude": Registration(
        "Claude Code",
        ".mcp.json",
        "mcpServers",
        {"type": "stdio", "command": PROGRAM, "args": ["mcp"]},
        "Claude Code asks once per person to approve a project's .mcp.json server "
        "(or list it in enabledMcpjsonServers in .claude/settings.local.json)",
    ),
    "cursor": Registration(
        "Cursor",
        ".cursor/mcp.json",
        "mcpServers",
        # Cursor starts stdio servers outside the project; it expands ${workspaceFolder}
        {"type": "stdio", "command": PROGRAM, "args": ["mcp", "--repo", "${workspaceFolder}"]},
    ),
    "gemini": Registration(
        "Gemini CLI",
        ".gemini/settings.json",
        "mcpServers",
        {"command": PROGRAM, "args": ["mcp"]},
    ),
    "codex": Registration(
        "Codex",
        ".codex/config.toml",
        "mcp_servers",
        {"command": PROGRAM, "args": ["mcp"]},
        "Codex reads a project's .codex/config.toml only once the project is trusted",
    ),
}


def register(root: Path, runtime: str) -> Installed | None:
    """Add (or refresh) our server in ``runtime``'s MCP file; None for a runtime without
    one. 'created', 'updated' or 'unchanged'."""
    row = REGISTRATIONS.get(runtime)
    if row is None:
        return None
    if row.path.endswith(".toml"):
        what = _register_toml(root, row)
    else:
        what = _register_json(root, row)
    return Installed(what, row.path, row.note if what != "unchanged" else "")


def registered(root: Path, runtime: str) -> object:
    """Our entry in ``runtime``'s MCP file as the runtime reads it (None: absent).

    Raises the file's ``RehydrateError`` when it cannot be read or parsed."""
    row = REGISTRATIONS[runtime]
    data = _read_toml(root, row.path) if row.path.endswith(".toml") else read_json(root, row.path)
    if data is None:
        return None
    servers = data.get(row.table)
    return servers.get(SERVER) if isinstance(servers, dict) else None


def _register_json(root: Path, row: Registration) -> str:
    current = read_json(root, row.path)
    data = dict(current) if current is not None else {}
    servers = data.get(row.table, {})
    if not isinstance(servers, dict):
        raise invalid(
            row.path,
            f"its {row.table!r} is not a JSON object",
            f"make {row.table!r} an object of servers; rehydrate never overwrites it",
        )
    mine = servers.get(SERVER)
    mine = dict(mine) if isinstance(mine, dict) else {}
    if current is not None and all(mine.get(k) == v for k, v in row.entry.items()):
        return "unchanged"
    # our keys rewritten, the user's own (env, timeout, trust) kept
    data[row.table] = {**servers, SERVER: {**mine, **row.entry}}
    return write_json(root, row.path, data, current is not None)


def _read_toml(root: Path, relpath: str) -> dict[str, object] | None:
    import tomllib

    text = _toml_text(root, relpath)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise invalid(
            relpath, f"is not TOML ({exc})", "fix it; rehydrate never overwrites it"
        ) from None


def _toml_text(root: Path, relpath: str) -> str | None:
    path = no_link(root, relpath)
    try:
        return read_text(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise invalid(relpath, f"cannot be read ({exc})", "fix it") from None


def _toml_block(row: Registration) -> list[str]:
    import json

    # a TOML basic string and a JSON string agree for the plain ASCII values used here
    lines = [f"[{row.table}.{SERVER}]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in row.entry.items()]
    return lines


def _register_toml(root: Path, row: Registration) -> str:
    """Our ``[mcp_servers.rehydrate]`` table appended, or rewritten where it stands; the
    rest of the file byte for byte as it was."""
    import tomllib

    current = _read_toml(root, row.path)
    text = _toml_text(root, row.path) or ""
    servers = (current or {}).get(row.table, {})
    if current is not None and isinstance(servers, dict) and servers.get(SERVER) == row.entry:
        return "unchanged"
    lines = text.splitlines()
    header = re.compile(rf"^\s*\[\s*{re.escape(row.table)}\s*\.\s*{SERVER}\s*\]\s*(#.*)?$")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        lines = [*lines, *([""] if lines and lines[-1].strip() else []), *_toml_block(row)]
    else:
        end = start + 1
        while end < len(lines) and not lines[end].lstrip().startswith("["):
            end += 1
        lines[start:end] = [*_toml_block(row), *([""] if end < len(lines) else [])]
    result = "\n".join(lines) + "\n"
    try:
        parsed = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        parsed = {"error": str(exc)}
    table = parsed.get(row.table)
    if not isinstance(table, dict) or table.get(SERVER) != row.entry:
        raise invalid(
            row.path,
            f"defines [{row.table}] in a form rehydrate does not edit",
            f"add the table yourself: {' '.join(_toml_block(row))}",
        )
    return write_text(root, row.path, result, current is not None)
