"""Wiring rehydrate into Claude Code: the hook commands ``init --claude`` merges into
``.claude/settings.json``, the plugin's ``hooks/hooks.json``, and reading both back.

The events, matchers and subcommands come from one table, ``claude.SETTINGS_HOOKS``; both
wirings are built from it, so they cannot drift apart.

A settings hook is the portable launch line (launchline.py): the same words on every clone,
no machine path in the committed file; it runs the interpreter this clone's git config
``rehydrate.python`` records (``init --claude`` records it), isolated (``-I``), and when
that is unset or gone it says so and exits 2 on PreToolUse (Claude Code blocks the tool
call) or 1 elsewhere (shown, never a stop held forever). It never depends on the PATH
Claude Code runs hooks with. A hook of ours is recognised by its parsed command (the
portable line, an older ``/venv/bin/python -m rehydrate …`` or a bare ``rehydrate …``):
running ``init --claude`` again rewrites it in place and never adds a second one.

The plugin cannot know the user's interpreter. Its hooks run the launcher
``hooks/rehydrate-hook`` shipped in the plugin, which finds rehydrate (``$REHYDRATE_PYTHON``,
git config ``rehydrate.python``, the interpreter of ``rehydrate`` on PATH, ``python3``) and
runs it isolated (``-I``). When none is there it answers the way each event fails closed,
never with 127, except in a project that has not opted in, where it does nothing.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import RehydrateError
from ..launchline import Launch, argv, parse, portable
from .claude import SETTINGS_HOOKS

if TYPE_CHECKING:
    from .runtimes import Installed

SETTINGS_FILE = ".claude/settings.json"
LOCAL_SETTINGS_FILE = ".claude/settings.local.json"  # read by doctor, never written
PLUGIN_NAME = "rehydrate"
PLUGIN_LAUNCHER = "hooks/rehydrate-hook"  # relative to the plugin root
PLUGIN_HOOKS_FILE = "hooks/hooks.json"
# Claude Code substitutes ${CLAUDE_PLUGIN_ROOT}; quoted, since the path may hold spaces.
PLUGIN_PREFIX = ("sh", "${CLAUDE_PLUGIN_ROOT}/" + PLUGIN_LAUNCHER)
_ALL = (None, "", "*")  # matchers that match everything


class OurHook(NamedTuple):
    """A hook command of rehydrate's, parsed: how it finds rehydrate, and the subcommand."""

    kind: str  # launchline.Launch.kind ("portable", "isolated", ...) or "plugin"
    program: str  # the interpreter, the rehydrate executable, the launcher, or ""
    name: str  # the `rehydrate hook claude` subcommand: session-start, stop, ...
    launch: Launch | None = None  # None for the plugin's launcher


class WiredHook(NamedTuple):
    """One hook of ours found in a settings file."""

    file: str
    event: str
    matcher: str | None
    command: str
    hook: OurHook


def interpreter_command() -> list[str]:
    """This Python's rehydrate, by absolute path, isolated (for an untracked place)."""
    return argv()


def hook_command(name: str, prefix: Sequence[str] | None = None) -> str:
    """The shell command that runs ``rehydrate hook claude NAME``: the portable launch
    line, or through ``prefix`` when one is given."""
    if prefix is None:
        return portable("hook", "claude", name)
    return shlex.join([*prefix, "hook", "claude", name])


def plugin_command(name: str) -> str:
    """The plugin's command for ``name``: the launcher, by ${CLAUDE_PLUGIN_ROOT}."""
    sh, launcher = PLUGIN_PREFIX
    return f'{sh} "{launcher}" hook claude {name}'


def parse_command(command: str) -> OurHook | None:
    """The hook of ours ``command`` runs, or None when it is someone else's."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) == 5 and tuple(words[:2]) == PLUGIN_PREFIX and words[2:4] == ["hook", "claude"]:
        return OurHook("plugin", words[1], words[4])
    launch = parse(words)
    if launch is None or len(launch.args) != 3 or launch.args[:2] != ("hook", "claude"):
        return None
    return OurHook(launch.kind, launch.program, launch.args[2], launch)


def matches(matcher: Any, wanted: str | None) -> bool:
    """Whether a group's ``matcher`` is ``wanted`` (None: any match-everything spelling)."""
    return matcher in _ALL if wanted is None else matcher == wanted


def _entries(group: Any) -> list[Any]:
    entries = group.get("hooks") if isinstance(group, dict) else None
    return entries if isinstance(entries, list) else []


def _ours(entry: Any) -> OurHook | None:
    if not isinstance(entry, dict) or entry.get("type") != "command":
        return None
    command = entry.get("command")
    return parse_command(command) if isinstance(command, str) else None


def _place(groups: list[Any], matcher: str | None, name: str, wanted: str) -> bool:
    """Leave exactly one hook of ours for ``name`` in ``groups``: command ``wanted``, in a
    group of ``matcher``. A stale command is rewritten in place (its other keys kept); a
    duplicate, or one under another matcher, is taken out. True when anything changed."""
    kept = changed = False
    for group in list(groups):
        entries = _entries(group)
        removed = False
        for entry in list(entries):
            ours = _ours(entry)
            if ours is None or ours.name != name:
                continue
            if kept or not matches(group.get("matcher"), matcher):
                entries.remove(entry)
                removed = changed = True
                continue
            kept = True
            if entry["command"] != wanted:
                entry["command"] = wanted
                changed = True
        if removed and not entries:
            groups.remove(group)
    if not kept:
        fresh: dict[str, Any] = {"hooks": [{"type": "command", "command": wanted}]}
        groups.append({"matcher": matcher, **fresh} if matcher is not None else fresh)
        changed = True
    return changed


def _invalid(what: str, fix: str, file: str = SETTINGS_FILE) -> RehydrateError:
    return RehydrateError(f"{file}: {what}", file=file, code="settings_invalid", fix=fix)


def merge_settings(
    current: Mapping[str, Any] | None, prefix: Sequence[str] | None = None
) -> tuple[dict[str, Any], bool]:
    """``current`` settings with one hook of ours per ``SETTINGS_HOOKS`` event; (settings,
    changed). Every other key, hook and matcher of the user's is kept as it was."""
    settings: dict[str, Any] = json.loads(json.dumps(current or {}))
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise _invalid("'hooks' is not an object", "make 'hooks' an object of event name -> list")
    changed = False
    for event, (matcher, name) in SETTINGS_HOOKS.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise _invalid(
                f"hooks.{event} is not a list", f"make hooks.{event} a list of matcher groups"
            )
        changed = _place(groups, matcher, name, hook_command(name, prefix)) or changed
    return settings, changed


def read_settings(root: Path, relpath: str = SETTINGS_FILE) -> dict[str, Any] | None:
    """A project settings file as a JSON object; None when it does not exist."""
    from .config_merge import read_json

    return read_json(root, relpath)


def install_settings(root: Path, prefix: Sequence[str] | None = None) -> str:
    """Write or merge ``.claude/settings.json``; returns 'created', 'updated' or 'kept'."""
    from ..ledgers.atomicfile import write_in_repo

    current = read_settings(root)
    settings, changed = merge_settings(current, prefix)
    if not changed:
        return "kept"
    text = json.dumps(settings, ensure_ascii=False, indent=2) + "\n"
    write_in_repo(root, SETTINGS_FILE, text.encode("utf-8"), create_dirs=True)
    return "created" if current is None else "updated"


def wired_hooks(settings: Mapping[str, Any], file: str) -> list[WiredHook]:
    """Every hook of ours in ``settings``, under whichever event and matcher it sits."""
    hooks = settings.get("hooks")
    found = []
    for event, groups in hooks.items() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            matcher = group.get("matcher") if isinstance(group, dict) else None
            for entry in _entries(group):
                ours = _ours(entry)
                if ours is not None:
                    shown = matcher if isinstance(matcher, str) else None
                    found.append(WiredHook(file, event, shown, entry["command"], ours))
    return found


def plugin_hooks() -> dict[str, Any]:
    """The plugin's ``hooks/hooks.json``: the settings hooks, run through the launcher."""
    hooks: dict[str, Any] = {}
    for event, (matcher, name) in SETTINGS_HOOKS.items():
        entry: dict[str, Any] = {"hooks": [{"type": "command", "command": plugin_command(name)}]}
        hooks[event] = [{"matcher": matcher, **entry} if matcher is not None else entry]
    return {
        "description": "rehydrate: the ledger core at session start, failed attempts refused, "
        "compaction checked, the stop held while ledgers are uncommitted",
        "hooks": hooks,
    }


def install_agent(root: Path, python: str) -> list[Installed]:
    """``init --agent claude``: the settings hooks (portable), ``python`` recorded as this
    clone's interpreter."""
    from .config_merge import record_python
    from .runtimes import Installed

    record_python(root, python)
    what = install_settings(root)
    return [Installed("unchanged" if what == "kept" else what, SETTINGS_FILE)]
