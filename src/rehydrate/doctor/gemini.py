"""Gemini CLI (``rehydrate init --agent gemini``): every hook of its ``RUNTIMES`` row
in ``.gemini/settings.json``, a runnable interpreter, no ``PostCompact`` (Gemini CLI
rejects it), and the folder trusted (else Gemini CLI drops the project's hooks)."""

from __future__ import annotations

import os
from pathlib import Path

from ..agents.gemini import SETTINGS_FILE
from ..readlimit import load_json, read_text
from .context import Context
from .findings import Finding, Outcome
from .hookfile import Codes, set_findings

NAME = "gemini"
CODES = Codes("gemini_event_missing", "gemini_hook_duplicated", "gemini_interpreter_broken")
INVALID = "gemini_settings_invalid"
TRUST_FIX = (
    "trust the folder in Gemini CLI (it asks on first start; or `gemini trust`), or set "
    "GEMINI_CLI_TRUST_WORKSPACE=true where it runs headless"
)


def check(ctx: Context) -> Outcome:
    checked = set_findings(ctx, NAME, CODES, INVALID, "settings unreadable", False)
    if isinstance(checked, Outcome):
        return checked
    found, findings, data = checked
    hooks = data.get("hooks")
    if isinstance(hooks, dict) and "PostCompact" in hooks:
        message = "hooks.PostCompact is not a Gemini CLI event: it rejects the settings"
        findings.append(
            Finding(
                "gemini_unknown_event", NAME, message, "remove hooks.PostCompact", SETTINGS_FILE
            )
        )
    if not trusted(ctx):
        message = (
            "the folder is not trusted by Gemini CLI: it loads no project settings, so none "
            "of these hooks run"
        )
        findings.append(Finding("gemini_folder_untrusted", NAME, message, TRUST_FIX))
    return Outcome(f"{len(found)} hooks in {SETTINGS_FILE}", findings)


def trusted(ctx: Context) -> bool:
    """Whether Gemini CLI trusts the repository: the environment says so, folder trust is
    off in the user's settings, or ~/.gemini/trustedFolders.json trusts it or a parent."""
    if ctx.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower() == "true":
        return True
    home = Path(ctx.environ.get("HOME") or Path.home()) / ".gemini"
    settings = _json(home / "settings.json")
    security = settings.get("security") if isinstance(settings.get("security"), dict) else {}
    folder = security.get("folderTrust") if isinstance(security, dict) else None
    if isinstance(folder, dict) and folder.get("enabled") is False:
        return True
    rules = _json(home / "trustedFolders.json")
    root = os.path.realpath(ctx.root)
    for path, level in rules.items():
        real = os.path.realpath(path)
        if level == "TRUST_FOLDER" and root == real:
            return True
        if level == "TRUST_PARENT" and (root == real or root.startswith(real + os.sep)):
            return True
    return False


def _json(path: Path) -> dict[str, object]:
    try:
        data = load_json(read_text(path))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
