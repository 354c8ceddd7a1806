"""What the Gemini CLI, OpenCode and Copilot CLI checks share: the expected hooks wired
once each, and every interpreter they run able to import rehydrate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..agents.config_merge import Ours
from .context import Context
from .findings import Finding


class Codes(NamedTuple):
    """One runtime's finding codes (literal, so docs/doctor.md's table can be checked)."""

    missing: str
    duplicated: str


def event_findings(
    name: str, codes: Codes, file: str, fix: str, expected: Sequence[str], wired: Sequence[str]
) -> list[Finding]:
    """A finding per expected subcommand missing from ``wired`` or wired more than once."""
    findings = []
    for event in expected:
        count = list(wired).count(event)
        if count == 0:
            message = f"no rehydrate hook runs `rehydrate hook {name} {event}`"
            findings.append(Finding(codes.missing, name, message, fix, file=file))
        elif count > 1:
            message = f"`rehydrate hook {name} {event}` is wired {count} times"
            findings.append(Finding(codes.duplicated, name, message, fix, file=file))
    return findings


def program_findings(
    ctx: Context, name: str, code: str, file: str, fix: str, hooks: Sequence[Ours]
) -> list[Finding]:
    """A finding per interpreter (or bare executable) that cannot run rehydrate, and the
    shared launch-line findings (launch_lines.py)."""
    from . import launch_lines

    findings = []
    programs = [h.program for h in hooks if h.kind != "portable"]
    for program in sorted(set(programs)):
        problem = ctx.python_problem(program)
        if problem is not None:
            message = f"{problem} (a moved or deleted virtualenv?): the hooks cannot run"
            findings.append(Finding(code, name, message, fix, file=file))
    launches = [(h.name, h.launch) for h in hooks]
    return findings + launch_lines.findings(ctx, name, file, launches, fix)
