"""Wiring rehydrate into Claude Code: the hook commands ``init --claude`` merges into
``.claude/settings.json``, the plugin's ``hooks/hooks.json``, and reading both back.

The events, matchers and subcommands come from one table, the ``hook_file`` of Claude
Code's ``RUNTIMES`` row; both wirings are built from it by ``config_merge`` (the one merger
and reader of hook files), so they cannot drift apart.

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

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..launchline import argv, portable
from ..typecheck import TYPE_CHECKING
from . import config_merge
from .config_merge import Ours, Wired
from .runtimes import hook_file

if TYPE_CHECKING:
    from .runtimes import Installed

HOOK_FILE = hook_file("claude")
SETTINGS_FILE = HOOK_FILE.path
LOCAL_SETTINGS_FILE = ".claude/settings.local.json"  # read by doctor, never written
PLUGIN_NAME = "rehydrate"
PLUGIN_LAUNCHER = "hooks/rehydrate-hook"  # relative to the plugin root
PLUGIN_HOOKS_FILE = "hooks/hooks.json"
# Claude Code substitutes ${CLAUDE_PLUGIN_ROOT}; quoted, since the path may hold spaces.
PLUGIN_PREFIX = ("sh", "${CLAUDE_PLUGIN_ROOT}/" + PLUGIN_LAUNCHER)
if HOOK_FILE.layout.launcher != PLUGIN_PREFIX:  # pragma: no cover - the row and the plugin
    raise ImportError("RUNTIMES['claude'].hook_file.layout.launcher is not the plugin's")

OurHook = Ours  # a hook command of rehydrate's, parsed ("plugin": the plugin's launcher)
WiredHook = Wired  # one hook of ours found in a settings file


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
    return config_merge.parse_command(command, "claude", PLUGIN_PREFIX)


def merge_settings(
    current: Mapping[str, object] | None, prefix: Sequence[str] | None = None
) -> tuple[dict[str, object], bool]:
    """``current`` settings with one hook of ours per ``SETTINGS_HOOKS`` event; (settings,
    changed). Every other key, hook and matcher of the user's is kept as it was."""
    return config_merge.merge(current, HOOK_FILE, lambda name: hook_command(name, prefix))


def read_settings(root: Path, relpath: str = SETTINGS_FILE) -> dict[str, object] | None:
    """A project settings file as a JSON object; None when it does not exist."""
    return config_merge.read_json(root, relpath)


def install_settings(root: Path, prefix: Sequence[str] | None = None) -> str:
    """Write or merge ``.claude/settings.json``; returns 'created', 'updated' or 'kept'."""
    current = read_settings(root)
    settings, changed = merge_settings(current, prefix)
    if not changed:
        return "kept"
    return config_merge.write_json(root, SETTINGS_FILE, settings, current is not None)


def wired_hooks(settings: Mapping[str, object], file: str) -> list[WiredHook]:
    """Every hook of ours in ``settings``, under whichever event and matcher it sits."""
    return config_merge.wired(settings, HOOK_FILE.layout, file)


def plugin_hooks() -> dict[str, object]:
    """The plugin's ``hooks/hooks.json``: the settings hooks, run through the launcher."""
    merged, _ = config_merge.merge(None, HOOK_FILE, plugin_command)
    return {
        "description": "rehydrate: the ledger core at session start, failed attempts refused, "
        "compaction checked, the stop held while ledgers are uncommitted",
        "hooks": merged["hooks"],
    }


def install_agent(root: Path, python: str) -> list[Installed]:
    """``init --agent claude``: the settings hooks (portable), ``python`` recorded as this
    clone's interpreter."""
    from .runtimes import Installed

    config_merge.record_python(root, python)
    what = install_settings(root)
    return [Installed("unchanged" if what == "kept" else what, SETTINGS_FILE)]
