"""Codex CLI's project hooks (``rehydrate init --agent codex``): every event wired once by
a program that runs rehydrate, and trusted in $CODEX_HOME/config.toml (untrusted project
hooks silently never run)."""

from __future__ import annotations

from ..agents.codex_install import (
    HOOKS,
    HOOKS_FILE,
    LAYOUT,
    TRUST_COMMAND,
    codex_home,
    project_trusted,
    read_user_config,
    untrusted,
)
from ..errors import RehydrateError
from .context import Context
from .findings import Finding, Outcome
from .hookfile import Codes, file_findings

NAME = "codex"
FIX = "rehydrate init --agent codex"
CODES = Codes(
    missing="codex_event_missing",
    duplicated="codex_hook_duplicated",
    broken="codex_hook_interpreter_broken",
    invalid="codex_hooks_invalid",
    bare="codex_hook_bare",
)


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled, unrunnable or untrusted hook of ours."""
    hooks, findings = file_findings(ctx, HOOKS_FILE, LAYOUT, HOOKS, NAME, FIX, CODES)
    if not hooks and not findings:
        return Outcome(None)
    findings.extend(_trust(ctx))
    return Outcome(f"{len(hooks)} hooks in {HOOKS_FILE}", findings)


def _trust(ctx: Context) -> list[Finding]:
    home = codex_home(ctx.environ)
    where = str(home / "config.toml")
    try:
        _, config = read_user_config(home)
    except RehydrateError as exc:
        return [Finding("codex_config_invalid", NAME, exc.message, exc.fix or "", file=where)]
    findings = []
    if not project_trusted(config, ctx.root):
        findings.append(
            Finding(
                "codex_project_untrusted",
                NAME,
                f'{ctx.root} is not trust_level = "trusted" in {where}: Codex loads no '
                ".codex/ configuration from it, so none of its hooks run",
                TRUST_COMMAND,
                file=where,
            )
        )
    stale = untrusted(ctx.root, config)
    if stale:
        events = ", ".join(sorted({t.event for t in stale}))
        findings.append(
            Finding(
                "codex_hooks_untrusted",
                NAME,
                f"{len(stale)} rehydrate hooks ({events}) have no matching trusted_hash in "
                f"{where}: Codex silently skips them (a changed command needs trusting again)",
                TRUST_COMMAND,
                file=where,
            )
        )
    return findings
