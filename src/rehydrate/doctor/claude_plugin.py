"""rehydrate's Claude Code plugin, as ``claude plugin install`` recorded it: installed for
this project, enabled, its hooks file current, its launcher able to find rehydrate, and
not wired a second time by the project's settings hooks.

Claude Code keeps installs in ``<config dir>/plugins/installed_plugins.json`` (``plugins``:
``name@marketplace`` -> records with ``scope``, ``installPath`` and, for the project and
local scopes, ``projectPath``) and the switch in each scope's ``enabledPlugins``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..agents.claude import SETTINGS_HOOKS
from ..agents.claude_install import (
    LOCAL_SETTINGS_FILE,
    PLUGIN_HOOKS_FILE,
    PLUGIN_LAUNCHER,
    PLUGIN_NAME,
    SETTINGS_FILE,
    wired_hooks,
)
from ..readlimit import load_json, read_text
from ..records import NamedTuple
from .claude_settings import project_hooks
from .context import Context
from .findings import Finding, Outcome

NAME = "claude-plugin"
REGISTRY = "plugins/installed_plugins.json"  # under Claude Code's config dir


class Install(NamedTuple):
    plugin_id: str  # rehydrate@<marketplace>
    scope: str
    path: Path


def _json(path: Path) -> object:
    try:
        return load_json(read_text(path))
    except (OSError, ValueError):
        return None


def _same(a: object, b: Path) -> bool:
    return isinstance(a, str) and os.path.realpath(a) == os.path.realpath(b)


def installs(ctx: Context) -> list[Install]:
    """rehydrate's installs that apply to this project (user scope, or this project)."""
    data = _json(ctx.claude_home() / REGISTRY)
    plugins = data.get("plugins") if isinstance(data, dict) else None
    found = []
    for plugin_id, records in plugins.items() if isinstance(plugins, dict) else []:
        if plugin_id.partition("@")[0] != PLUGIN_NAME or not isinstance(records, list):
            continue
        for record in records:
            if not isinstance(record, dict) or not isinstance(record.get("installPath"), str):
                continue
            scope = record.get("scope")
            if scope == "user" or _same(record.get("projectPath"), ctx.root):
                found.append(Install(plugin_id, str(scope), Path(record["installPath"])))
    return found


def _settings(ctx: Context) -> list[Mapping[str, object]]:
    """User, project and local settings, lowest precedence first (unreadable ones: empty)."""
    out: list[Mapping[str, object]] = []
    for path in (
        ctx.claude_home() / "settings.json",
        ctx.root / SETTINGS_FILE,
        ctx.root / LOCAL_SETTINGS_FILE,
    ):
        data = _json(path)
        out.append(data if isinstance(data, dict) else {})
    return out


def _enabled(ctx: Context, plugin_id: str) -> bool:
    value = None
    for settings in _settings(ctx):
        switches = settings.get("enabledPlugins")
        if isinstance(switches, dict) and plugin_id in switches:
            value = switches[plugin_id]
    return value is True


def check(ctx: Context) -> Outcome:
    """Findings for the installed plugin (absent when Claude Code has none for here)."""
    found = installs(ctx)
    if not found:
        return Outcome(None)
    enabled = [i for i in found if _enabled(ctx, i.plugin_id)]
    if not enabled:
        ids = ", ".join(sorted({i.plugin_id for i in found}))
        return Outcome(f"{ids} installed, disabled (claude plugin enable {ids})", active=False)
    findings = []
    for install in enabled:
        findings.extend(_check_files(install))
    findings.extend(_check_launcher(ctx))
    wired, _ = project_hooks(ctx)
    if wired:
        plugin_id = enabled[0].plugin_id
        findings.append(
            Finding(
                "claude_hooks_twice",
                NAME,
                f"both the plugin {plugin_id} and {wired[0].file} wire rehydrate's hooks: "
                "each runs twice (the context is given twice, every command checked twice)",
                f"keep one: `claude plugin disable {plugin_id}`, or remove rehydrate's hooks "
                f"from {wired[0].file}",
                file=wired[0].file,
            )
        )
    shown = ", ".join(f"{i.plugin_id} ({i.scope}) at {i.path}" for i in enabled)
    return Outcome(shown, findings)


def _check_files(install: Install) -> list[Finding]:
    update = f"claude plugin update {install.plugin_id}"
    if not (install.path / PLUGIN_LAUNCHER).is_file():
        return [
            Finding(
                "claude_plugin_files_missing",
                NAME,
                f"{install.path / PLUGIN_LAUNCHER} is missing: the plugin's hooks cannot run",
                f"claude plugin uninstall {install.plugin_id} && claude plugin install "
                f"{install.plugin_id}",
                file=str(install.path),
            )
        ]
    found = []
    try:
        launcher = read_text(install.path / PLUGIN_LAUNCHER, errors="replace")
    except OSError:
        launcher = ""
    if "-m rehydrate" in launcher and " -I -m rehydrate" not in launcher:
        found.append(
            Finding(
                "launch_unsafe",
                NAME,
                f"the installed plugin's {PLUGIN_LAUNCHER} runs `python -m rehydrate` without "
                "-I: a rehydrate.py or click.py in the project, or PYTHONPATH, would run "
                "instead of rehydrate",
                f"{update} (after `claude plugin marketplace update`), then restart Claude Code",
                file=str(install.path / PLUGIN_LAUNCHER),
            )
        )
    data = _json(install.path / PLUGIN_HOOKS_FILE)
    if not isinstance(data, dict):
        data = {}
    present = {(w.event, w.hook.name) for w in wired_hooks(data, PLUGIN_HOOKS_FILE)}
    missing = [e for e, (_, name) in SETTINGS_HOOKS.items() if (e, name) not in present]
    if not missing:
        return found
    return found + [
        Finding(
            "claude_plugin_outdated",
            NAME,
            f"the installed plugin's {PLUGIN_HOOKS_FILE} does not wire {', '.join(missing)}",
            f"{update} (after `claude plugin marketplace update`), then restart Claude Code",
            file=str(install.path / PLUGIN_HOOKS_FILE),
        )
    ]


def _check_launcher(ctx: Context) -> list[Finding]:
    """The launcher's search (hooks/rehydrate-hook), made here: does it find rehydrate?"""
    from ..environment import PYTHON, raw

    chosen = raw(PYTHON, ctx.environ) or _settings_env(ctx)
    tried = []
    if chosen:
        problem = ctx.python_problem(chosen)
        if problem is None:
            return []
        tried.append(f"REHYDRATE_PYTHON: {problem}")
    recorded = ctx.recorded_python()  # the launcher's second place: this clone's git config
    if recorded and ctx.python_problem(recorded) is None:
        return []
    if ctx.which("rehydrate"):
        return []
    for python in ("python3", "python"):
        if ctx.which(python) and ctx.python_problem(python) is None:
            return []
    tried.append("no rehydrate on PATH; python3 cannot import it")
    return [
        Finding(
            "claude_plugin_no_rehydrate",
            NAME,
            "the plugin's launcher finds no rehydrate (" + "; ".join(tried) + "): its hooks "
            "refuse every shell command and give no context",
            "install rehydrate on the PATH Claude Code runs with (pipx install ...), or set "
            'REHYDRATE_PYTHON in Claude Code\'s settings ("env": {"REHYDRATE_PYTHON": '
            '"/path/to/python"})',
        )
    ]


def _settings_env(ctx: Context) -> str | None:
    """REHYDRATE_PYTHON as Claude Code's settings ``env`` sets it (the last scope wins)."""
    value = None
    for settings in _settings(ctx):
        env = settings.get("env")
        if isinstance(env, dict) and isinstance(env.get("REHYDRATE_PYTHON"), str):
            value = env["REHYDRATE_PYTHON"]
    return value
