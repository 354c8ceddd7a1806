"""``rehydrate doctor``: check the wiring of every installed integration."""

from __future__ import annotations

import click

from . import verdict
from ._common import emit_json


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print one rehydrate/doctor-v1 object.")
def command(as_json: bool) -> int:
    """Check that every installed integration is still wired, and say what fixes it.

    Checks the ledgers (they parse), the git hooks (present, executable, their interpreter
    can import rehydrate), the merge driver, Claude Code's settings hooks (every event,
    a command that runs without PATH) and rehydrate's Claude Code plugin. Exits 0 when
    all is wired, 1 with findings (each names the file and the command that fixes it).
    The report is the command's output: on stdout (``rehydrate doctor | head`` works).
    """
    from ..doctor import run
    from ..errors import EXIT_OK, EXIT_REFUSED
    from ..git import find_repo

    report = run(find_repo())
    code = verdict(EXIT_OK if report.ok else EXIT_REFUSED)
    if as_json:
        emit_json(report.to_json())
        return code
    from ._common import say as note  # the report is what this command prints: stdout

    width = max(len(i.name) for i in report.integrations)
    note(f"rehydrate doctor: {report.root}")
    for status in report.integrations:
        shown = status.state.upper() if status.state == "broken" else status.state
        note(f"  {shown:<8} {status.name:<{width}}  {status.detail}")
    if report.ok:
        note("rehydrate doctor: every installed integration is wired")
        return code
    note("")
    for finding in report.findings:
        note(f"{finding.integration}: {finding}")
        note(f"    fix: {finding.fix}")
    count = len(report.findings)
    note(f"rehydrate doctor: {count} finding{'s' if count != 1 else ''}")
    return code
