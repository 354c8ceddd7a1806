"""Merging rehydrate's hook commands into a runtime's JSON settings (Gemini CLI, Copilot CLI).

A hook of ours runs this Python by absolute path (``/venv/bin/python -m rehydrate hook
NAME EVENT``), quoted for the shell the runtime runs it through, so that it does not
depend on the runtime's PATH. It is recognised by its parsed command (any interpreter, or
a bare ``rehydrate``), so installing again, say from a moved virtualenv, rewrites it in
place and never adds a second one. Every other key, group and hook of the user's is kept.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import RehydrateError


class OurHook(NamedTuple):
    """A hook command of rehydrate's, parsed."""

    kind: str  # "interpreter" (python -m rehydrate) | "bare" (rehydrate)
    program: str  # the interpreter, or the rehydrate executable
    event: str  # the `rehydrate hook NAME` subcommand: before-tool, ...


def command_for(python: str, runtime: str, event: str) -> str:
    """The shell command that runs ``rehydrate hook RUNTIME EVENT`` with ``python``."""
    return shlex.join([python, "-m", "rehydrate", "hook", runtime, event])


def parse_command(command: str, runtime: str) -> OurHook | None:
    """The hook of ours ``command`` runs for ``runtime``, or None when it is someone else's."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if len(argv) < 4 or argv[-3:-1] != ["hook", runtime]:
        return None
    head, event = argv[:-3], argv[-1]
    if len(head) == 1 and os.path.basename(head[0]) == "rehydrate":
        return OurHook("bare", head[0], event)
    if len(head) == 3 and head[1:] == ["-m", "rehydrate"]:
        return OurHook("interpreter", head[0], event)
    return None


def invalid(file: str, what: str, fix: str) -> RehydrateError:
    return RehydrateError(f"{file}: {what}", file=file, code="settings_invalid", fix=fix)


def read_json(root: Path, relpath: str) -> dict[str, Any] | None:
    """A project settings file as a JSON object; None when it does not exist."""
    path = root / relpath
    if path.is_symlink() or path.parent.is_symlink():
        raise RehydrateError(
            f"{relpath} is a symlink",
            file=relpath,
            code="unsafe_path",
            fix="replace the symlink with a file",
        )
    never = "fix it; rehydrate never overwrites it"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise invalid(relpath, f"cannot be read ({exc})", never) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise invalid(relpath, f"is not JSON ({exc})", never) from None
    if not isinstance(data, dict):
        raise invalid(relpath, "is not a JSON object", never)
    return data


def write_json(root: Path, relpath: str, data: Any, existed: bool) -> str:
    """Write ``data`` as indented JSON; 'created' or 'updated'."""
    from ..ledgers.atomicfile import write_in_repo

    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    write_in_repo(root, relpath, text.encode("utf-8"), create_dirs=True)
    return "updated" if existed else "created"


def place(
    entries: list[Any], runtime: str, event: str, wanted: dict[str, Any], key: str = "command"
) -> bool:
    """Leave exactly one hook of ours for ``event`` in ``entries`` (hook objects whose
    ``key`` is a command): a stale one is rewritten in place, a duplicate removed, none
    added. True when anything changed."""
    kept = changed = False
    for entry in list(entries):
        command = entry.get(key) if isinstance(entry, dict) else None
        ours = parse_command(command, runtime) if isinstance(command, str) else None
        if ours is None or ours.event != event:
            continue
        if kept:
            entries.remove(entry)
            changed = True
            continue
        kept = True
        for name, value in wanted.items():
            if entry.get(name) != value:
                entry[name] = value
                changed = True
    if not kept:
        entries.append(dict(wanted))
        changed = True
    return changed
