"""Cline's hook files (``rehydrate init --agent cline``): one executable per event in
.clinerules/hooks/, each running a Python that runs rehydrate."""

from __future__ import annotations

import os
import shlex

from ..agents.cline import HOOKS, HOOKS_DIR
from ..agents.config_merge import parse_command
from ..readlimit import read_text
from .context import Context
from .findings import Finding, Outcome

NAME = "cline"
FIX = "rehydrate init --agent cline"


def _exec_line(path: str) -> str | None:
    try:
        lines = read_text(path)[:4096].splitlines()
    except (OSError, ValueError):
        return None
    return next((line[5:] for line in lines if line.startswith("exec ")), None)


def check(ctx: Context) -> Outcome:
    """Findings for each hook file missing, not executable or running a broken Python."""
    found = {}
    for event, name in HOOKS.items():
        path = str(ctx.root / HOOKS_DIR / event)
        line = _exec_line(path)
        ours = parse_command(line, "cline") if line else None
        if ours is not None and ours.name == name:
            found[event] = (path, ours)
    if not found:
        return Outcome(None)
    findings = []
    for event in HOOKS:
        relpath = f"{HOOKS_DIR}/{event}"
        if event not in found:
            findings.append(
                Finding(
                    "cline_event_missing", NAME, f"no rehydrate {event} hook", FIX, file=relpath
                )
            )
            continue
        path, ours = found[event]
        if not os.access(path, os.X_OK):
            findings.append(
                Finding(
                    "cline_hook_not_executable",
                    NAME,
                    f"{relpath} is not executable",
                    f"chmod +x {shlex.quote(relpath)}",
                    file=relpath,
                )
            )
        direct = ours.kind in ("isolated", "unisolated")
        problem = ctx.python_problem(ours.program) if direct else None
        if problem is not None:
            findings.append(
                Finding(
                    "cline_hook_interpreter_broken",
                    NAME,
                    f"{problem} (a moved virtualenv?)",
                    FIX,
                    file=relpath,
                )
            )
    from . import launch_lines

    for event, (_, ours) in found.items():
        relpath = f"{HOOKS_DIR}/{event}"
        launches = [(event, ours.launch)] if ours.launch is not None else []
        findings += launch_lines.findings(ctx, NAME, relpath, launches, FIX)
    return Outcome(f"{len(found)} hook files in {HOOKS_DIR}", findings)
