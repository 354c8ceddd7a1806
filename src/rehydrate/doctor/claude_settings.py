"""Claude Code's project settings hooks (``rehydrate init --claude``): every event of
``SETTINGS_HOOKS`` wired once, under its matcher, by a command that runs rehydrate
without depending on PATH."""

from __future__ import annotations

from collections.abc import Sequence

from ..agents.claude import SETTINGS_HOOKS
from ..agents.claude_install import (
    HOOK_FILE,
    LOCAL_SETTINGS_FILE,
    SETTINGS_FILE,
    WiredHook,
    read_settings,
    wired_hooks,
)
from ..agents.config_merge import matches
from ..errors import RehydrateError
from .context import Context
from .findings import Finding, Outcome

NAME = "claude-settings"
FIX = "rehydrate init --claude"


def project_hooks(ctx: Context) -> tuple[list[WiredHook], list[Finding]]:
    """Every hook of ours in the project's settings files, and the files that cannot be read."""
    wired: list[WiredHook] = []
    findings = []
    for relpath in (SETTINGS_FILE, LOCAL_SETTINGS_FILE):
        try:
            data = read_settings(ctx.root, relpath)
        except RehydrateError as exc:
            findings.append(
                Finding(
                    "claude_settings_invalid",
                    NAME,
                    exc.message,
                    exc.fix or "fix the file",
                    file=relpath,
                )
            )
            continue
        if data is not None:
            wired.extend(wired_hooks(data, relpath))
    return wired, findings


def check(ctx: Context) -> Outcome:
    """Findings for each missing, doubled, misplaced or unrunnable hook of ours."""
    wired, findings = project_hooks(ctx)
    if not wired and not findings:
        return Outcome(None)
    findings.extend(_events(wired))
    findings.extend(_programs(ctx, wired))
    recorded = f"git config rehydrate.python ({ctx.recorded_python() or 'unset'})"
    programs = sorted({w.hook.program or recorded for w in wired})
    files = sorted({w.file for w in wired}) or [SETTINGS_FILE]
    return Outcome(f"{len(wired)} hooks in {', '.join(files)} run {', '.join(programs)}", findings)


def _events(hooks: Sequence[WiredHook]) -> list[Finding]:
    findings = []
    expected = {(event, name) for event, (_, name) in SETTINGS_HOOKS.items()}
    for event, (matcher, name) in SETTINGS_HOOKS.items():
        here = [w for w in hooks if (w.event, w.hook.name) == (event, name)]
        if not here:
            findings.append(
                Finding(
                    "claude_event_missing",
                    NAME,
                    f"no rehydrate hook for {event} (`rehydrate hook claude {name}`)",
                    FIX,
                    file=SETTINGS_FILE,
                )
            )
        elif len(here) > 1:
            findings.append(
                Finding(
                    "claude_hook_duplicated",
                    NAME,
                    f"{event} runs `rehydrate hook claude {name}` {len(here)} times",
                    FIX,
                    file=here[-1].file,
                )
            )
        for w in here:
            if not matches(HOOK_FILE.layout, w.matcher, matcher):
                findings.append(
                    Finding(
                        "claude_matcher_wrong",
                        NAME,
                        f"{event}'s rehydrate hook has matcher {w.matcher!r}, not {matcher!r}",
                        FIX,
                        file=w.file,
                    )
                )
    for w in hooks:
        if (w.event, w.hook.name) not in expected:
            findings.append(
                Finding(
                    "claude_hook_misplaced",
                    NAME,
                    f"hooks.{w.event} runs `rehydrate hook claude {w.hook.name}`, which is "
                    "not rehydrate's hook for that event",
                    f"remove that hook from {w.file}, then {FIX}",
                    file=w.file,
                )
            )
    return findings


def _programs(ctx: Context, wired: Sequence[WiredHook]) -> list[Finding]:
    """One finding per program that cannot run rehydrate, naming the events it breaks."""
    by_program: dict[tuple[str, str, str], list[str]] = {}
    for w in wired:
        by_program.setdefault((w.file, w.hook.kind, w.hook.program), []).append(w.event)
    from . import launch_lines

    findings = []
    for file in dict.fromkeys(w.file for w in wired):
        launches = [(w.event, w.hook.launch) for w in wired if w.file == file and w.hook.launch]
        findings += launch_lines.findings(ctx, NAME, file, launches, FIX)
    for (file, kind, program), events in by_program.items():
        problem = _program_problem(ctx, kind, program)
        if problem is not None:
            code, message = problem
            findings.append(
                Finding(code, NAME, f"{message}; hooks {', '.join(events)}", FIX, file=file)
            )
    return findings


def _program_problem(ctx: Context, kind: str, program: str) -> tuple[str, str] | None:
    if kind == "bare":
        where = ctx.which(program)
        found = f"found at {where}" if where else "not on this PATH"
        return (
            "claude_hook_bare",
            f"the command runs `{program}` by name ({found}): "
            "where Claude Code's PATH lacks it the hook exits 127, which Claude Code "
            "ignores, so the hook fails open",
        )
    if kind == "plugin":
        return (
            "claude_hook_plugin_command",
            "the command uses the plugin's ${CLAUDE_PLUGIN_ROOT}, which only a plugin's hooks get",
        )
    if kind == "portable":
        return None  # its interpreter is git config's: launch_lines' check
    problem = ctx.python_problem(program)
    if problem is None:
        return None
    return (
        "claude_hook_interpreter_broken",
        f"{problem} (a moved or deleted virtualenv?): the hook exits non-zero, which "
        "Claude Code ignores, so the hook fails open",
    )
