"""The launch-line check every integration shares: does each line that starts rehydrate
run it isolated, in the form this rehydrate writes, with no machine path in a file every
clone shares, and an interpreter that can run it (launchline.py)?

One check for all of them (git hooks, hook managers, merge driver, every runtime), so an
old ``python -m rehydrate`` line is named the same way wherever it is, with the command
that rewrites it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..launchline import PYTHON_KEY, Launch, machine_path, problem
from .context import Context
from .findings import Finding

UNSAFE = "launch_unsafe"
MACHINE_PATH = "launch_machine_path"
PYTHON_UNSET = "launch_python_unset"
PYTHON_BROKEN = "launch_python_broken"
CODES = (UNSAFE, MACHINE_PATH, PYTHON_UNSET, PYTHON_BROKEN)


def interpreter(ctx: Context, launch: Launch) -> str | None:
    """The interpreter ``launch`` runs here (the portable line: git config's; None: unset)."""
    return ctx.recorded_python() if launch.kind == "portable" else launch.program


def findings(
    ctx: Context,
    integration: str,
    file: str,
    launches: Sequence[tuple[str, Launch]],
    fix: str,
    *,
    shared: bool | None = None,
) -> list[Finding]:
    """Findings for the launch lines ``launches`` ((event or hook, launch)) in ``file``;
    ``shared``: whether every clone gets the file (default: it is in the work tree and
    git does not ignore it)."""
    if shared is None:
        shared = ctx.shared(file)
    found = []
    grouped: dict[str, list[str]] = {}
    for where, launch in launches:
        said = problem(launch)
        if said is not None and launch.kind != "bare":  # bare: the runtime's own finding
            grouped.setdefault(said, []).append(where)
    for said, wheres in grouped.items():
        message = f"{_hooks(wheres)} {said}"
        found.append(Finding(UNSAFE, integration, message, fix, file=file))
    machine = sorted({launch.program for _, launch in launches if machine_path(launch)})
    if shared and machine:
        message = (
            f"names {', '.join(machine)}, a path on this machine, in a file every clone "
            "shares: another clone's init rewrites it, and they overwrite each other"
        )
        found.append(Finding(MACHINE_PATH, integration, message, fix, file=file))
    portable = [where for where, launch in launches if launch.kind == "portable"]
    if portable:
        python = ctx.recorded_python()
        if python is None:
            message = (
                f"{_hooks(portable)} run the interpreter git config {PYTHON_KEY} records, "
                "and this clone records none: they refuse or warn instead of running"
            )
            found.append(Finding(PYTHON_UNSET, integration, message, fix, file=file))
        else:
            broken = ctx.python_problem(python)
            if broken is not None:
                message = (
                    f"git config {PYTHON_KEY}: {broken} (a moved or deleted virtualenv?); "
                    f"{_hooks(portable)} refuse or warn instead of running"
                )
                found.append(Finding(PYTHON_BROKEN, integration, message, fix, file=file))
    return found


def _hooks(wheres: Sequence[str]) -> str:
    shown = ", ".join(dict.fromkeys(wheres))
    return f"hook {shown}" if len(set(wheres)) == 1 else f"hooks {shown}"
