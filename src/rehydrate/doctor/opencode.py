"""OpenCode (``rehydrate init --agent opencode``): the plugin
``.opencode/plugins/rehydrate.js`` is rehydrate's, current, and runs a working
interpreter. OpenCode loads project plugins without a trust step."""

from __future__ import annotations

from ..agents.opencode import PLUGIN_FILE
from ..readlimit import read_text
from .context import Context
from .findings import Finding, Outcome
from .runtime_hooks import program_findings

NAME = "opencode"
FIX = "rehydrate init --agent opencode"


def check(ctx: Context) -> Outcome:
    from ..agents.opencode_install import plugin_python, plugin_text

    path = ctx.root / PLUGIN_FILE
    try:
        text = read_text(path)
    except FileNotFoundError:
        return Outcome(None)
    except (OSError, ValueError) as exc:
        return Outcome("unreadable", [Finding("opencode_plugin_unreadable", NAME, str(exc), FIX)])
    python = plugin_python(text)
    if python is None:
        message = f"{PLUGIN_FILE} is not rehydrate's plugin"
        return Outcome("foreign plugin", [Finding("opencode_plugin_foreign", NAME, message, FIX)])
    findings = program_findings(
        ctx, NAME, "opencode_interpreter_broken", PLUGIN_FILE, FIX, [python]
    )
    if text != plugin_text(python):
        message = f"{PLUGIN_FILE} is not the plugin this rehydrate writes (edited or older)"
        findings.append(Finding("opencode_plugin_stale", NAME, message, FIX, file=PLUGIN_FILE))
    return Outcome(f"{PLUGIN_FILE} runs {python}", findings)
