"""Is the guard wired into git's commit hooks, and can the hook run rehydrate?

The native hooks (``rehydrate hook install``) are checked line by line: present, ours,
executable, their interpreter there and able to import rehydrate, a chained hook still
executable. When a hook manager (husky, lefthook, the pre-commit framework: the
``guard.managers.MANAGERS`` table) wrote git's hook, the guard is wired when that
manager's configuration runs it; when it does not (the manager was installed after the
guard, or its reinstall moved rehydrate's hook aside), the finding names the fix.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from ..guard import managers
from ..launchline import PYTHON_KEY
from ..readlimit import read_text
from .context import Context
from .findings import Finding, Outcome

NAME = "git-hooks"
INSTALL = "rehydrate hook install"
ASIDE = (".old", ".legacy")  # where lefthook / pre-commit put a hook they replace


def _read(path: Path) -> str | None:
    try:
        return read_text(path, errors="replace")
    except OSError:
        return None


def _configured(ctx: Context) -> managers.Manager | None:
    """The manager whose configuration runs the guard from pre-commit, if any."""
    return next(
        (m for m in managers.MANAGERS if managers.runs_guard(ctx.repo, m, "pre-commit")), None
    )


def hook_python(text: str) -> str | None:
    """The interpreter a hook of ours runs: PYTHON in ``if [ -x PYTHON ]; then`` followed
    by ``exec PYTHON [-I] -m rehydrate guard --staged`` (guard/install.py's script), or None."""
    lines = text.splitlines()
    for line, after in zip(lines, lines[1:], strict=False):
        body = after.strip()
        if not (line.startswith("if [ -x ") and line.endswith(" ]; then")):
            continue
        if not (body.startswith("exec ") and body.endswith(" guard --staged")):
            continue
        try:
            words = shlex.split(line[len("if [ -x ") : -len(" ]; then")])
        except ValueError:
            return None
        return words[0] if len(words) == 1 else None
    return None


def check(ctx: Context) -> Outcome:
    """Findings for each of pre-commit and pre-merge-commit."""
    from ..guard.install import HOOKS, hooks_dir

    folder = hooks_dir(ctx.repo)
    manager = _configured(ctx)
    findings: list[Finding] = []
    runs: dict[str, list[str]] = {}  # what runs the guard -> the hooks it runs from
    for hook in HOOKS:
        problems, runner = _check_hook(ctx, folder, hook, manager)
        findings.extend(problems)
        if runner:
            runs.setdefault(runner, []).append(hook)
    shown = [f"{', '.join(hooks)} run {runner}" for runner, hooks in runs.items()]
    return Outcome("; ".join(shown) or "no guard hook", findings)


def _check_hook(
    ctx: Context, folder: Path, hook: str, manager: managers.Manager | None
) -> tuple[list[Finding], str | None]:
    """(findings, what runs the guard from this hook: an interpreter, a manager, None)."""
    from ..guard.install import CHAINED, MARKER

    path = folder / hook
    shown = ctx.shown(path)
    text = _read(path) if path.is_file() else None
    if text is None:
        if manager is not None and hook != "pre-commit":
            return [], None  # optional under a manager (docs/integrations/hook-managers.md)
        fix = manager.reinstall if manager is not None else INSTALL
        what = f"no {hook} hook: commits are not guarded"
        if manager is not None:
            what += f" (the {manager.name} configuration runs the guard, but git does not run it)"
        return [_finding("hook_missing", what, fix, shown)], None
    if MARKER not in text:
        return _foreign(ctx, folder, hook, shown)
    findings = []
    if not os.access(path, os.X_OK):
        what = f"git skips the {hook} hook"
        findings.append(_finding("hook_not_executable", what, _chmod(shown), shown))
    chained = ctx.shown(folder / (hook + CHAINED))
    if (ctx.root / chained).exists() and not os.access(ctx.root / chained, os.X_OK):
        what = "the hook chained before the guard is not executable, so it is skipped"
        findings.append(_finding("chained_hook_not_executable", what, _chmod(chained), chained))
    python = hook_python(text)
    problem = ctx.python_problem(python) if python else "names no interpreter"
    if problem is not None:
        findings.append(_interpreter_finding(ctx, hook, problem, shown))
    findings += _launch(ctx, hook, text, shown, python)
    return findings, python


def _launch(ctx: Context, hook: str, text: str, shown: str, python: str | None) -> list[Finding]:
    """The shared launch-line check of the hook's ``exec`` line (launch_lines.py); an old
    hook of ours that is otherwise current is named as stale."""
    from ..guard.install import script
    from ..launchline import argv, parse_shell
    from . import launch_lines

    execs = [line.strip()[5:] for line in text.splitlines() if line.strip().startswith("exec ")]
    launches = [(hook, launch) for launch in map(parse_shell, execs) if launch is not None]
    found = launch_lines.findings(ctx, NAME, shown, launches, INSTALL, shared=False)
    if not found and python and text != script(hook, argv(python)):
        message = f"the {hook} hook is not the one this rehydrate writes (older, or edited)"
        found.append(_finding("hook_stale", message, INSTALL, shown))
    return found


def _foreign(ctx: Context, folder: Path, hook: str, shown: str) -> tuple[list[Finding], str | None]:
    """Git's hook is another tool's: a manager's that runs the guard, or a gap."""
    from ..guard.install import CHAINED, MARKER

    owner = managers.hook_owner(folder, hook)
    if owner is managers.HUSKY and not managers.husky_active(ctx.repo):
        owner = None  # husky's stub outside husky's folder: git runs it, husky is not set up
    aside = [n for n in (hook + s for s in ASIDE) if MARKER in (_read(folder / n) or "")]
    if owner is None:
        fix = f"{INSTALL} (it keeps that hook running: {hook}{CHAINED})"
        message = (
            f"the {hook} hook is not rehydrate's (another tool wrote it): the guard does not run"
        )
        return [_finding("hook_not_ours", message, fix, shown)], None
    where = managers.runs_guard(ctx.repo, owner, hook)
    if where is not None:
        uses = PYTHON_KEY in (_read(ctx.root / where) or "")  # not the remote hook
        found = _manager_python(ctx, hook, shown, where) if uses else []
        return found, f"{owner.name} ({where})"
    if owner is managers.PRE_COMMIT and aside:
        return [], f"pre-commit ({aside[0]}, migration mode)"  # pre-commit runs .legacy first
    message = f"git's {hook} hook is {owner.name}'s, and {owner.name} does not run the guard"
    native = ctx.repo.common_dir / "hooks" / hook
    if aside:
        message += f" (rehydrate's hook was moved aside to {aside[0]}, which never runs)"
    elif owner is managers.HUSKY and MARKER in (_read(native) or ""):
        message += f" (core.hooksPath moved git away from rehydrate's {ctx.shown(native)})"
    fix = f"{INSTALL} (adds the guard to {owner.name}'s configuration; commit that file)"
    return [_finding("hook_manager_unwired", message, fix, shown)], None


def _manager_python(ctx: Context, hook: str, shown: str, where: str) -> list[Finding]:
    """A manager's hook runs ``git config --local rehydrate.python``, isolated; an older
    block of ours ran it without ``-I`` (or ``rehydrate`` on PATH): named, with the fix."""
    from ..guard.managers import guard_lines
    from ..launchline import ISOLATED

    python = ctx.recorded_python()
    problem = ctx.python_problem(python) if python else f"git config {PYTHON_KEY} unset"
    found = [] if problem is None else [_interpreter_finding(ctx, hook, problem, shown)]
    current = guard_lines("")[2].strip()  # the line that runs the guard
    if current not in (_read(ctx.root / where) or ""):
        message = (
            f"{where} runs the guard without {ISOLATED} (an older rehydrate's block): a "
            "rehydrate.py or click.py in the repository, or PYTHONPATH, would run instead"
        )
        found.append(_finding("launch_unsafe", message, f"{INSTALL} (then commit {where})", where))
    return found


def _chmod(shown: str) -> str:
    return f"chmod +x {shlex.quote(shown)}"


def _interpreter_finding(ctx: Context, hook: str, problem: str, shown: str) -> Finding:
    """The hook refuses every commit then (no PATH fallback: a console script honours
    PYTHONPATH), saying how to reinstall or unhook."""
    then = "every commit is refused (the hook says how to reinstall or unhook)"
    return _finding(
        "hook_interpreter_broken",
        f"the {hook} hook's interpreter: {problem} (a moved or deleted virtualenv?); {then}",
        f"{INSTALL} (run by the rehydrate you use now)",
        shown,
    )


def _finding(code: str, message: str, fix: str, file: str) -> Finding:
    return Finding(code, NAME, message, fix, file=file)
