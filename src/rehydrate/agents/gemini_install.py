"""Wiring rehydrate into Gemini CLI: its hooks merged into ``.gemini/settings.json``.

Each event of the row's ``hook_file`` (agents/runtimes.py) gets one hook of ours, in the
first group of its matcher, that runs ``rehydrate hook gemini <event>`` through the
portable launch line (launchline.py); the user's other settings, groups and hooks stay as
they were (the merge is ``config_merge``'s). Never ``PostCompact``:
Gemini CLI rejects the settings file then. Gemini CLI runs a project's hooks only in a
trusted folder (``docs/integrations/gemini.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from . import config_merge
from .config_merge import Ours
from .runtimes import Installed, hook_file

HOOK_FILE = hook_file("gemini")
SETTINGS_FILE = HOOK_FILE.path
TRUST_NOTE = (
    "Gemini CLI runs project hooks only in a trusted folder: trust it when asked (or "
    "`gemini trust`), or set GEMINI_CLI_TRUST_WORKSPACE=true for headless runs; "
    "--skip-trust drops the project's settings, and with them these hooks"
)


def merge_settings(current: Mapping[str, object] | None) -> tuple[dict[str, object], bool]:
    """``current`` with one hook of ours per event; (settings, changed)."""
    return config_merge.merge(current, HOOK_FILE)


def install_agent(root: Path, python: str) -> list[Installed]:
    """Merge rehydrate's hooks into ``.gemini/settings.json`` (idempotent)."""
    what = config_merge.install_json(root, HOOK_FILE, python)
    return [Installed(what, SETTINGS_FILE, TRUST_NOTE)]


def wired(settings: Mapping[str, object]) -> list[tuple[str, str | None, str, Ours]]:
    """Every hook of ours in ``settings``: (event, matcher, command, parsed)."""
    found = config_merge.wired(settings, HOOK_FILE.layout, SETTINGS_FILE)
    return [(w.event, w.matcher, w.command, w.hook) for w in found]
