"""Aider's configuration (``rehydrate init --agent aider``): the three ledgers in
``read:`` and ``git-commit-verify: true`` in .aider.conf.yml."""

from __future__ import annotations

from ..agents.aider_install import CONFIG_FILE, missing, read_config, wanted
from ..errors import RehydrateError
from .context import Context
from .findings import Finding, Outcome

NAME = "aider"
FIX = "rehydrate init --agent aider"


def check(ctx: Context) -> Outcome:
    """Findings for a ledger Aider does not read, or commits that skip the guard."""
    try:
        data = read_config(ctx.root)
    except RehydrateError as exc:
        finding = Finding(
            "aider_config_invalid", NAME, exc.message, exc.fix or FIX, file=CONFIG_FILE
        )
        return Outcome("unreadable", [finding])
    if data is None or ("read" not in data and "git-commit-verify" not in data):
        return Outcome(None)
    try:
        ledgers = wanted(ctx.root)
    except RehydrateError:  # the ledgers check reports the configuration
        return Outcome("ledger paths unknown (configuration unreadable)")
    absent, verify_off = missing(data, ledgers)
    findings = []
    if absent:
        findings.append(
            Finding(
                "aider_ledger_not_read",
                NAME,
                f"read: lacks {', '.join(absent)}",
                FIX,
                file=CONFIG_FILE,
            )
        )
    if verify_off:
        findings.append(
            Finding(
                "aider_commit_verify_off",
                NAME,
                "git-commit-verify is not true: Aider commits with --no-verify, so the "
                "pre-commit guard never runs on its commits",
                FIX,
                file=CONFIG_FILE,
            )
        )
    return Outcome(f"{CONFIG_FILE} reads {len(ledgers) - len(absent)} ledgers", findings)
