"""OpenCode (``rehydrate init --agent opencode``): the plugin
``.opencode/plugins/rehydrate.js`` is rehydrate's, current, and runs a working
interpreter. OpenCode loads project plugins without a trust step."""

from __future__ import annotations

from ..agents.opencode import PLUGIN_FILE
from ..readlimit import read_text
from .context import Context
from .findings import Finding, Outcome

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
    from ..launchline import Launch
    from . import launch_lines

    findings = []
    if python:  # an older plugin, naming its interpreter (and running it without -I)
        problem = ctx.python_problem(python)
        if problem is not None:
            message = f"{problem} (a moved or deleted virtualenv?): the hooks cannot run"
            findings.append(
                Finding("opencode_interpreter_broken", NAME, message, FIX, file=PLUGIN_FILE)
            )
    launch = Launch("unisolated" if python else "portable", python, ("hook", "opencode"), True)
    findings += launch_lines.findings(ctx, NAME, PLUGIN_FILE, [("plugin", launch)], FIX)
    if text != plugin_text():
        message = f"{PLUGIN_FILE} is not the plugin this rehydrate writes (edited or older)"
        findings.append(Finding("opencode_plugin_stale", NAME, message, FIX, file=PLUGIN_FILE))
    runs = python or f"git config rehydrate.python ({ctx.recorded_python() or 'unset'})"
    return Outcome(f"{PLUGIN_FILE} runs {runs}", findings)
