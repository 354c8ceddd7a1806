"""The checks every runtime wired through a JSON hook file shares (Codex, Cursor, Kiro):
each event of its table wired once, by a program that runs rehydrate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ..agents.config_merge import Layout, Wired, read_json, wired
from ..errors import RehydrateError
from .context import Context
from .findings import Finding


class Codes(NamedTuple):
    """One runtime's finding codes (spelled out in its module, so docs/doctor.md's table
    can be checked against them)."""

    invalid: str
    missing: str
    duplicated: str
    bare: str
    broken: str


def hooks_in(
    ctx: Context, relpath: str, layout: Layout, name: str, fix: str, codes: Codes
) -> tuple[list[Wired], list[Finding]]:
    """Our hooks in ``relpath``, and a finding when the file cannot be read."""
    try:
        data = read_json(ctx.root, relpath)
    except RehydrateError as exc:
        return [], [Finding(codes.invalid, name, exc.message, exc.fix or fix, file=relpath)]
    return (wired(data, layout) if data is not None else []), []


def event_findings(
    hooks: Sequence[Wired],
    table: Mapping[str, tuple[str | None, str, Mapping[str, Any]]],
    runtime: str,
    name: str,
    relpath: str,
    fix: str,
    codes: Codes,
) -> list[Finding]:
    """A finding per event of ``table`` missing or wired twice."""
    findings = []
    for event, (_, sub, _) in table.items():
        here = [w for w in hooks if (w.event, w.hook.name) == (event, sub)]
        if not here:
            message = f"no rehydrate hook for {event} (`rehydrate hook {runtime} {sub}`)"
            findings.append(Finding(codes.missing, name, message, fix, file=relpath))
        elif len(here) > 1:
            message = f"{event} runs `rehydrate hook {runtime} {sub}` {len(here)} times"
            findings.append(Finding(codes.duplicated, name, message, fix, file=relpath))
    return findings


def program_findings(
    ctx: Context, hooks: Sequence[Wired], name: str, relpath: str, fix: str, codes: Codes
) -> list[Finding]:
    """One finding per program that cannot run rehydrate (a stale or bare path), and the
    shared launch-line findings (launch_lines.py)."""
    from . import launch_lines

    events: dict[tuple[str, str], list[str]] = {}
    for w in hooks:
        if w.hook.kind != "portable":  # its interpreter: launch_lines' check
            events.setdefault((w.hook.kind, w.hook.program), []).append(w.event)
    findings = []
    for (kind, program), names in events.items():
        if kind == "bare":
            where = ctx.which(program)
            found = f"found at {where}" if where else "not on this PATH"
            message = (
                f"the command runs `{program}` by name ({found}); where the runtime's PATH "
                f"lacks it the hook fails; hooks {', '.join(names)}"
            )
            findings.append(Finding(codes.bare, name, message, fix, file=relpath))
            continue
        problem = ctx.python_problem(program)
        if problem is not None:
            message = f"{problem} (a moved or deleted virtualenv?); hooks {', '.join(names)}"
            findings.append(Finding(codes.broken, name, message, fix, file=relpath))
    launches = [(w.event, w.hook.launch) for w in hooks]
    return findings + launch_lines.findings(ctx, name, relpath, launches, fix)
