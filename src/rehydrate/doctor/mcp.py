"""The MCP server's registrations (``rehydrate init --agent NAME``, docs/mcp.md): each
runtime's MCP file names ``rehydrate mcp`` portably, and the ``rehydrate`` a client finds
on PATH can serve it (the ``mcp`` extra is installed behind it)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..agents.mcp_config import PROGRAM, REGISTRATIONS, SERVER, registered
from ..errors import RehydrateError
from ..readlimit import read_head
from .context import Context
from .findings import Finding, Outcome

NAME = "mcp"
EXTRA = "pip install 'rehydrate[mcp]'"


def check(ctx: Context) -> Outcome:
    """Findings for each registration that is unreadable, names a machine path or another
    program, or that no ``rehydrate`` on PATH can serve."""
    findings: list[Finding] = []
    found: list[str] = []
    for runtime, row in REGISTRATIONS.items():
        fix = f"rehydrate init --agent {runtime}"
        try:
            entry = registered(ctx.root, runtime)
        except RehydrateError as exc:
            findings.append(
                Finding("mcp_config_invalid", NAME, exc.message, exc.fix or fix, row.path)
            )
            continue
        if entry is None:
            continue
        found.append(row.path)
        problem = _entry_problem(entry, row.entry)
        if problem:
            findings.append(
                Finding(
                    "mcp_server_stale",
                    NAME,
                    f"{row.table}.{SERVER} {problem}",
                    f"{fix} (it rewrites the entry as {dict(row.entry)})",
                    row.path,
                )
            )
    if not found and not findings:
        return Outcome(None)
    if found:
        problem = _program_problem(ctx)
        if problem:
            findings.append(
                Finding(
                    "mcp_server_unrunnable",
                    NAME,
                    problem,
                    f"{EXTRA} into the environment whose `rehydrate` is on PATH",
                    found[0],
                )
            )
    return Outcome(f"rehydrate mcp registered in {', '.join(found) or 'none'}", findings)


def _entry_problem(entry: object, wanted: Mapping[str, object]) -> str | None:
    if not isinstance(entry, dict):
        return "is not a table of command and args"
    command = entry.get("command")
    if isinstance(command, str) and os.path.isabs(command):
        return (
            f"runs {command}, a path on one machine: a clone elsewhere cannot start it "
            "(a tracked file names the console script)"
        )
    for key, value in wanted.items():
        if entry.get(key) != value:
            return f"has {key} {entry.get(key)!r}, not {value!r}"
    return None


def _program_problem(ctx: Context) -> str | None:
    """Why the ``rehydrate`` on PATH cannot serve MCP (None: it can)."""
    program = ctx.which(PROGRAM)
    if program is None:
        return f"no `{PROGRAM}` on PATH: the runtime cannot start the server"
    python = _shebang(program)
    if python is None:
        return None  # not a script we can look into: starting it is the runtime's test
    problem = ctx.import_problem(python, "rehydrate.mcp_server.server", "the MCP SDK")
    if problem is None:
        return None
    return f"{program} cannot serve MCP: {problem}"


def _shebang(program: str) -> str | None:
    """The interpreter a console script's ``#!`` line names, when it is a plain path."""
    try:
        first = read_head(program, 4096).split(b"\n", 1)[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words or not os.path.isabs(words[0]):
        return None
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        return None
    return words[0]
