"""Cline adapter (documented JSON, Cline 3.36 hooks): its event JSON in, its answer out.

What this adapter knows of Cline, from its hook reference (not run here):

* a hook is an executable named after its event in ``.clinerules/hooks/`` (no
  extension), given one JSON object on stdin: ``clineVersion``, ``hookName``,
  ``timestamp``, ``taskId``, ``workspaceRoots``, ``userId`` and one object named after
  the hook (``taskStart``, ``taskResume``, ``preToolUse`` with ``toolName`` and
  ``parameters``, ``postToolUse`` adding ``result`` and ``success``);
* it answers ``{"cancel": bool, "contextModification": str, "errorMessage": str}``:
  ``contextModification`` is added to the conversation, ``cancel`` stops the tool call
  with ``errorMessage``;
* the shell tool is ``execute_command`` (``parameters.command``);
* TaskComplete cannot keep the task going, and PreCompact gives no summary to verify.

Files under ``.rehydrate/`` start with ``cline-``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from . import hookcore
from .core import INJECT, REFUSE, Outcome, Runtime
from .events import Event, HookResult
from .runtimes import Installed
from .units import CODE_POINTS, Cap

RUNTIME = Runtime("cline", Cap(10000, CODE_POINTS))
HOOKS_DIR = ".clinerules/hooks"
SHELL_TOOL = "execute_command"
# Cline's hook file name -> our subcommand
HOOKS: Mapping[str, str] = {
    "TaskStart": "task-start",
    "TaskResume": "task-resume",
    "PreToolUse": "pre-tool-use",
    "PostToolUse": "post-tool-use",
}
ALLOW: Mapping[str, object] = {"cancel": False}


def _where(event: Event) -> str:
    return event.located(keys=("workspaceRoots",))


def _command(event: Event, part: str) -> str | None:
    if event.nested(part, "toolName") != SHELL_TOOL:
        return None
    command = event.nested(part, "parameters", "command")
    return command if isinstance(command, str) and command.strip() else None


def _note(_event: str, note: str | None) -> HookResult:
    return HookResult(output=ALLOW, message=note)


def _cancel(reason: str) -> HookResult:
    return HookResult(output={"cancel": True, "errorMessage": reason})


def _modified(_event_name: str, outcome: Outcome) -> HookResult:
    if outcome.action != INJECT:
        return HookResult(output=ALLOW, message=outcome.note)
    return HookResult(output={"cancel": False, "contextModification": outcome.text})


# Cline has no stop to hold: a "block" is never asked of it (its row has no stop event).
ANSWERS = hookcore.Answers(_note, _cancel, _cancel, _modified)


def _context(event: Event, source: str) -> HookResult:
    from .context import session_context

    outcome = session_context(_where(event), RUNTIME, source, event.text("taskId"))
    return _modified("TaskStart", outcome)


def task_start(event: Event) -> HookResult:
    return _context(event, "startup")


def task_resume(event: Event) -> HookResult:
    return _context(event, "resume")


def pre_tool_use(event: Event) -> HookResult:
    from .tools import ADVISE, check_tool_call

    shell = event.nested("preToolUse", "toolName") == SHELL_TOOL
    outcome = check_tool_call(
        _where(event), RUNTIME, _command(event, "preToolUse"), shell, event.text("taskId")
    )
    if outcome.action == REFUSE:
        return _cancel(outcome.text)
    if outcome.action == ADVISE:  # allowed, the close failed attempt named to the model
        advised = {**ALLOW, "contextModification": outcome.text}
        return HookResult(output=advised, message=outcome.note)
    return _note("pre-tool-use", outcome.note)


def post_tool_use(event: Event) -> HookResult:
    from .captured import capture_failed_command

    command = _command(event, "postToolUse")
    if command is None or event.nested("postToolUse", "success") is not False:
        return HookResult(output=ALLOW)
    result = event.nested("postToolUse", "result")
    outcome = capture_failed_command(
        _where(event), command, result if isinstance(result, str) else ""
    )
    return _modified("PostToolUse", outcome)


ADAPTER = hookcore.adapter(RUNTIME.name, vars())  # a handler per event of the row
HANDLERS = ADAPTER.handlers
run_hook = hookcore.runner(RUNTIME.name)  # read, dispatched, failed closed by the row


def script(name: str) -> str:
    """The hook file for subcommand ``name``: the portable launch line (launchline.py), so
    the committed file is the same on every clone."""
    from .config_merge import command_for

    return (
        f"#!/bin/sh\n# rehydrate: the {name} hook (rehydrate init --agent cline)\n"
        f"exec {command_for('cline', name)}\n"
    )


def install_agent(root: Path, python: str) -> list[Installed]:
    """One executable per event in ``.clinerules/hooks/``; a file of the user's is kept."""
    from ..ledgers.atomicfile import read_at, repo_dir, write_in_repo
    from .config_merge import place_file, record_python

    record_python(root, python)
    done = []
    for event, name in HOOKS.items():
        relpath = f"{HOOKS_DIR}/{event}"
        text = script(name)
        with repo_dir(root, relpath, create=True) as (fd, base):
            current = read_at(fd, base)
        if (
            current is not None
            and current.startswith(b"#!/bin/sh\n# rehydrate:")
            and current != text.encode()
        ):
            write_in_repo(root, relpath, text.encode("utf-8"), mode=0o755)  # ours, stale
            done.append(Installed("updated", relpath))
            continue
        what = place_file(root, relpath, text, mode=0o755)
        note = f"not ours, kept: make it also run `{text.split('exec ', 1)[1].strip()}`"
        done.append(
            Installed(
                "unchanged" if what == "kept" else what, relpath, note if what == "kept" else ""
            )
        )
    return done
