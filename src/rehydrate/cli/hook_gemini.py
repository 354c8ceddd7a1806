"""``rehydrate hook gemini <event>``: Gemini CLI hook adapters (event JSON on stdin)."""

from __future__ import annotations

from ._hook_runtime import adapter_group

group = adapter_group(
    "gemini",
    "gemini",
    (
        ("session-start", "Build the capped core for the session."),
        ("before-model", "Put the core before the first message; check a summary."),
        ("before-tool", "Deny a shell command that repeats a failed attempt."),
        ("after-tool", "Capture a failed shell command."),
        ("after-agent", "Deny the end of the turn once while unrecorded."),
    ),
)
