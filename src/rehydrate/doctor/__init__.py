"""``rehydrate doctor``: is every installed integration still wired, and what fixes it?

Each integration is one row of ``CHECKS``: a name, its check (``Context -> Outcome``) and
what to say when it is not installed. Adding an agent runtime or a git hook manager is
adding a row (or a ``guard.managers.MANAGERS`` row); the checks never print.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from .. import git
from . import (
    aider,
    claude_plugin,
    claude_settings,
    cline,
    codex,
    copilot,
    cursor,
    gemini,
    git_hooks,
    kiro,
    ledgers,
    mcp,
    merge_driver,
    opencode,
)
from .context import Context
from .findings import SCHEMA, Finding, Integration, Outcome, Report, integration


class Check(NamedTuple):
    name: str
    run: Callable[[Context], Outcome]
    absent: str  # the status when the integration is not installed (never a finding)


CHECKS = (
    Check(ledgers.NAME, ledgers.check, "no ledgers"),
    Check(git_hooks.NAME, git_hooks.check, "not installed (rehydrate hook install)"),
    Check(merge_driver.NAME, merge_driver.check, "not registered (rehydrate hook install)"),
    Check(
        claude_settings.NAME,
        claude_settings.check,
        "no hooks in .claude/settings.json (rehydrate init --claude)",
    ),
    Check(
        claude_plugin.NAME,
        claude_plugin.check,
        "not installed (claude plugin install rehydrate@rehydrate)",
    ),
    Check(codex.NAME, codex.check, "no hooks in .codex/hooks.json (rehydrate init --agent codex)"),
    Check(
        cursor.NAME, cursor.check, "no hooks in .cursor/hooks.json (rehydrate init --agent cursor)"
    ),
    Check(cline.NAME, cline.check, "no hooks in .clinerules/hooks (rehydrate init --agent cline)"),
    Check(kiro.NAME, kiro.check, "no .kiro/agents/rehydrate.json (rehydrate init --agent kiro)"),
    Check(aider.NAME, aider.check, "no .aider.conf.yml settings (rehydrate init --agent aider)"),
    Check(
        copilot.NAME,
        copilot.check,
        "no .github/hooks/rehydrate.json (rehydrate init --agent copilot)",
    ),
    Check(
        gemini.NAME,
        gemini.check,
        "no hooks in .gemini/settings.json (rehydrate init --agent gemini)",
    ),
    Check(
        opencode.NAME,
        opencode.check,
        "no .opencode/plugins/rehydrate.js (rehydrate init --agent opencode)",
    ),
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
