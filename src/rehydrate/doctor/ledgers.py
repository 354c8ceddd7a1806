"""Are the configuration and the three ledgers readable? (from the work tree, which is
what the agent hooks read)"""

from __future__ import annotations

from .. import git
from ..errors import ConfigError, LedgerParseError
from .context import Context
from .findings import Finding, Outcome

NAME = "ledgers"


def check(ctx: Context) -> Outcome:
    """One finding per configuration or ledger that cannot be read, with its line and fix."""
    from ..ledgers import KINDS
    from ..state import parse_file

    config = ctx.config()
    if isinstance(config, ConfigError):
        return Outcome(
            "configuration unreadable",
            [
                Finding(
                    "config_invalid",
                    NAME,
                    f"{config.code}: {config.message}",
                    config.fix or "fix the configuration file",
                    file=config.file,
                    line=config.line,
                )
            ],
        )
    findings = []
    paths = [config.path_of(kind) for kind in KINDS]
    for kind, path in zip(KINDS, paths, strict=True):
        try:
            blob = git.read_worktree(ctx.repo, [path])[path]
            parse_file(kind, blob, config, "work tree")
        except LedgerParseError as exc:
            missing = exc.code == "ledger_missing"
            findings.append(
                Finding(
                    "ledger_missing" if missing else "ledger_unreadable",
                    NAME,
                    exc.message if missing else f"{exc.code}: {exc.message}",
                    exc.fix or f"`rehydrate state --worktree` shows the problem; fix {path}",
                    file=exc.file or path,
                    line=exc.line,
                )
            )
        except OSError as exc:
            findings.append(
                Finding(
                    "ledger_unreadable",
                    NAME,
                    f"cannot read it ({exc.strerror or exc})",
                    f"check the permissions of {path}",
                    file=path,
                )
            )
    return Outcome(", ".join(paths) + (" parse" if not findings else ""), findings)
