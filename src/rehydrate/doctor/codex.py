"""Codex CLI's project hooks (``rehydrate init --agent codex``): every event wired once by
a program that runs rehydrate, and trusted in $CODEX_HOME/config.toml (untrusted project
hooks silently never run)."""

from __future__ import annotations

from ..agents.codex_install import (
    TRUST_COMMAND,
    codex_home,
    project_trusted,
    read_user_config,
    untrusted,
)
from ..errors import RehydrateError
from .context import Context
from .findings import Finding, Outcome
from .hookfile import row_check

NAME = "codex"


_HOOKS = row_check(NAME)


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled, unrunnable or untrusted hook of ours."""
    outcome = _HOOKS(ctx)
    if outcome.detail is None:
        return outcome
    return Outcome(outcome.detail, [*outcome.findings, *_trust(ctx)])


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
