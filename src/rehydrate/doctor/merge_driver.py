"""Is the semantic merge driver registered (git config) and attached to every ledger
(``git check-attr``, so ``.gitattributes`` anywhere and ``info/attributes`` count)?"""

from __future__ import annotations

import os
import shlex

from .. import git
from ..errors import ConfigError
from .context import Context
from .findings import Finding, Outcome

NAME = "merge-driver"
FIX = "rehydrate hook install"


def check(ctx: Context) -> Outcome:
    """Findings for the driver's command and for each ledger git would not give it."""
    from ..merge.driver import ATTRIBUTES, DRIVER

    key = f"merge.{DRIVER}.driver"
    findings: list[Finding] = []
    command = (git.config_get(ctx.repo, key) or "").strip()
    if not command:
        findings.append(
            Finding(
                "merge_driver_unset",
                NAME,
                f"git config {key} is not set: git merges the ledgers as text, which loses "
                "rows or conflicts on every concurrent append",
                FIX,
            )
        )
        detail = "not registered"
    else:
        problem = _command_problem(ctx, command)
        if problem is not None:
            findings.append(Finding("merge_driver_broken", NAME, f"{key}: {problem}", FIX))
        from ..launchline import parse_shell
        from . import launch_lines

        launch = parse_shell(command)
        if launch is not None and launch.kind != "bare":
            launch = launch._replace(args=launch.args[:1])  # %O %A %B %P: git's, not ours
            findings += launch_lines.findings(
                ctx, NAME, f"git config {key}", [("merge-driver", launch)], FIX, shared=False
            )
        detail = f"{key} = {command}"
    missing = _unattached(ctx, DRIVER)
    if missing:
        findings.append(
            Finding(
                "merge_attributes_missing",
                NAME,
                f"git does not give {', '.join(missing)} merge={DRIVER}",
                f"{FIX} (then commit {ATTRIBUTES})",
                file=ATTRIBUTES,
            )
        )
    return Outcome(detail, findings)


def _command_problem(ctx: Context, command: str) -> str | None:
    try:
        argv = shlex.split(command)
    except ValueError:
        return "cannot be parsed as a command"
    from ..launchline import parse

    launch = parse(argv)
    if launch is not None and launch.kind in ("isolated", "unisolated"):
        problem = ctx.python_problem(launch.program)
        return None if problem is None else f"{problem} (a moved or deleted virtualenv?)"
    if argv and os.path.basename(argv[0]) == "rehydrate":
        if ctx.which(argv[0]) is None:
            return f"{argv[0]} is not on PATH"
        return None
    return "runs something other than rehydrate"


def _unattached(ctx: Context, driver: str) -> list[str]:
    """The ledger paths whose ``merge`` attribute is not ``driver``."""
    from ..ledgers import KINDS

    config = ctx.config()
    if isinstance(config, ConfigError):
        return []  # the ledgers check reports the configuration
    paths = [config.path_of(kind) for kind in KINDS]
    out = git.check_attr(ctx.repo, "merge", paths)
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    given = {fields[i]: fields[i + 2] for i in range(0, len(fields) - 2, 3)}
    return [path for path in paths if given.get(path) != driver]
