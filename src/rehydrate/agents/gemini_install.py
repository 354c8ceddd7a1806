"""Wiring rehydrate into Gemini CLI: its hooks merged into ``.gemini/settings.json``.

Each event of ``gemini.SETTINGS_HOOKS`` gets one group of ours (under its matcher) that
runs ``rehydrate hook gemini <event>`` through the portable launch line (launchline.py);
the user's other settings, groups and hooks stay as they were. Never ``PostCompact``:
Gemini CLI rejects the settings file then. Gemini CLI runs a project's hooks only in a
trusted folder (``docs/integrations/gemini.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config_merge import (
    Ours,
    command_for,
    invalid,
    parse_command,
    place,
    read_json,
    record_python,
    write_json,
)
from .gemini import SETTINGS_FILE, SETTINGS_HOOKS
from .runtimes import Installed

NAME = "gemini"
TRUST_NOTE = (
    "Gemini CLI runs project hooks only in a trusted folder: trust it when asked (or "
    "`gemini trust`), or set GEMINI_CLI_TRUST_WORKSPACE=true for headless runs; "
    "--skip-trust drops the project's settings, and with them these hooks"
)


def _group_for(groups: list[Any], matcher: str | None) -> dict[str, Any]:
    for group in groups:
        if isinstance(group, dict) and group.get("matcher") == matcher:
            if isinstance(group.get("hooks"), list):
                return group
    fresh: dict[str, Any] = {"hooks": []}
    if matcher is not None:
        fresh = {"matcher": matcher, **fresh}
    groups.append(fresh)
    return fresh


def _drop_elsewhere(groups: list[Any], keep: dict[str, Any], event: str) -> bool:
    """Take hooks of ours for ``event`` out of every group but ``keep``."""
    changed = False
    for group in list(groups):
        hooks = group.get("hooks") if isinstance(group, dict) else None
        if group is keep or not isinstance(hooks, list):
            continue
        before = len(hooks)
        hooks[:] = [e for e in hooks if not _ours_for(e, event)]
        if len(hooks) < before:
            changed = True
            if not hooks:
                groups.remove(group)
    return changed


def _ours_for(entry: Any, event: str) -> bool:
    command = entry.get("command") if isinstance(entry, dict) else None
    ours = parse_command(command, NAME) if isinstance(command, str) else None
    return ours is not None and ours.name == event


def merge_settings(current: dict[str, Any] | None) -> tuple[dict[str, Any], bool]:
    """``current`` with one hook of ours per event; (settings, changed)."""
    import json

    settings: dict[str, Any] = json.loads(json.dumps(current or {}))
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise invalid(SETTINGS_FILE, "'hooks' is not an object", "make 'hooks' an object")
    changed = False
    for event, (matcher, name) in SETTINGS_HOOKS.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise invalid(SETTINGS_FILE, f"hooks.{event} is not a list", "make it a list")
        group = _group_for(groups, matcher)
        wanted = {"type": "command", "command": command_for(NAME, name)}
        entry = {**wanted, "name": f"rehydrate-{name}"}
        changed = place(group["hooks"], NAME, name, entry) or changed
        changed = _drop_elsewhere(groups, group, name) or changed
    return settings, changed


def install_agent(root: Path, python: str) -> list[Installed]:
    """Merge rehydrate's hooks into ``.gemini/settings.json`` (idempotent)."""
    current = read_json(root, SETTINGS_FILE)
    record_python(root, python)
    settings, changed = merge_settings(current)
    if not changed and current is not None:
        return [Installed("unchanged", SETTINGS_FILE, TRUST_NOTE)]
    what = write_json(root, SETTINGS_FILE, settings, current is not None)
    return [Installed(what, SETTINGS_FILE, TRUST_NOTE)]


def wired(settings: dict[str, Any]) -> list[tuple[str, str | None, str, Ours]]:
    """Every hook of ours in ``settings``: (event, matcher, command, parsed)."""
    found = []
    hooks = settings.get("hooks")
    for event, groups in hooks.items() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            for entry in group["hooks"]:
                command = entry.get("command") if isinstance(entry, dict) else None
                ours = parse_command(command, NAME) if isinstance(command, str) else None
                if ours is not None:
                    found.append((event, matcher, str(command), ours))
    return found
