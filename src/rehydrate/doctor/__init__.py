"""``rehydrate doctor``: is every installed integration still wired, and what fixes it?

Each integration is one row of ``CHECKS``: a name, its check (``Context -> Outcome``) and
what to say when it is not installed. An agent runtime's checks come from its
``RUNTIMES`` row (``doctor``: its own check, or the row's hook-file check, doctor/hookfile.py),
so adding a runtime adds them; a git hook manager is a ``guard.managers.MANAGERS`` row. The
checks never print.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from .. import git
from ..agents.runtimes import DOCTOR_ORDER, RUNTIMES, RuntimeInfo
from ..agents.runtimes import Doctor as RowCheck
from ..records import NamedTuple
from . import git_hooks, ledgers, mcp, merge_driver
from .context import Context
from .findings import SCHEMA, Finding, Integration, Outcome, Report, integration


class Check(NamedTuple):
    name: str
    run: Callable[[Context], Outcome]
    absent: str  # the status when the integration is not installed (never a finding)


def _runtime_check(info: RuntimeInfo, row: RowCheck) -> Check:
    """A runtime's check from its row: its own function, or the row's hook-file check."""
    from .hookfile import row_check

    if row.check:
        module, _, function = row.check.partition(":")
        run = getattr(importlib.import_module(f"rehydrate.doctor.{module}"), function)
    else:
        run = row_check(info.name)
    path = info.hook_file.path if info.hook_file is not None else info.name
    absent = row.absent or f"no hooks in {path} ({info.init})"
    return Check(row.name or info.name, run, absent)


CHECKS = (
    Check(ledgers.NAME, ledgers.check, "no ledgers"),
    Check(git_hooks.NAME, git_hooks.check, "not installed (rehydrate hook install)"),
    Check(merge_driver.NAME, merge_driver.check, "not registered (rehydrate hook install)"),
    *(_runtime_check(RUNTIMES[n], row) for n in DOCTOR_ORDER for row in RUNTIMES[n].doctor),
    Check(mcp.NAME, mcp.check, "no MCP server registered (rehydrate init --agent NAME)"),
)

__all__ = ["CHECKS", "SCHEMA", "Check", "Context", "Finding", "Integration", "Report", "run"]


def run(repo: git.Repo, environ: Mapping[str, str] | None = None) -> Report:
    """Run every check against ``repo`` (``environ``: the hooks' environment, default ours)."""
    ctx = Context(repo) if environ is None else Context(repo, dict(environ))
    statuses = []
    findings: list[Finding] = []
    for check in CHECKS:
        outcome = check.run(ctx)
        statuses.append(integration(check.name, outcome, check.absent))
        findings.extend(outcome.findings)
    return Report(str(repo.root), statuses, findings)
