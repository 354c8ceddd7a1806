"""Copilot CLI (``rehydrate init --agent copilot``): every hook of
its ``RUNTIMES`` row in ``.github/hooks/rehydrate.json``, a runnable interpreter,
the instructions section, and the folder trusted (else repository hooks do not load)."""

from __future__ import annotations

import os
from pathlib import Path

from ..agents.copilot import HOOKS_FILE
from ..readlimit import load_json, read_text
from .context import Context
from .findings import Finding, Outcome
from .hookfile import Codes, set_findings

NAME = "copilot"
FIX = "rehydrate init --agent copilot"
CODES = Codes("copilot_event_missing", "copilot_hook_duplicated", "copilot_interpreter_broken")


def check(ctx: Context) -> Outcome:
    from ..agents.copilot_install import BEGIN, INSTRUCTIONS_FILE

    checked = set_findings(ctx, NAME, CODES, "copilot_hooks_invalid", "hooks unreadable", True)
    if isinstance(checked, Outcome):
        return checked
    ours, findings, _ = checked
    try:
        said = read_text(ctx.root / INSTRUCTIONS_FILE)
    except (OSError, ValueError):
        said = ""
    if BEGIN not in said:
        message = f"{INSTRUCTIONS_FILE} has no rehydrate section: no context reaches the model"
        findings.append(Finding("copilot_instructions_missing", NAME, message, FIX))
    if not trusted(ctx):
        message = "the folder is not trusted by Copilot CLI: repository hooks do not load"
        fix = "trust the folder when Copilot CLI asks (or add it to trusted_folders)"
        findings.append(Finding("copilot_folder_untrusted", NAME, message, fix))
    return Outcome(f"{len(ours)} hooks in {HOOKS_FILE}", findings)


def trusted(ctx: Context) -> bool:
    """Whether ~/.copilot/config.json ``trusted_folders`` holds the repository or a parent."""
    home = Path(ctx.environ.get("HOME") or Path.home()) / ".copilot"
    try:
        text = read_text(home / "config.json")
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
        data = load_json("\n".join(lines))
    except (OSError, ValueError):
        return False
    folders = data.get("trusted_folders") if isinstance(data, dict) else None
    root = os.path.realpath(ctx.root)
    for folder in folders if isinstance(folders, list) else []:
        real = os.path.realpath(str(folder))
        if root == real or root.startswith(real + os.sep):
            return True
    return False
