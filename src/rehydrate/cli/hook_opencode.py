"""``rehydrate hook opencode <event>``: what the OpenCode plugin calls (JSON on stdin)."""

from __future__ import annotations

from ._hook_runtime import adapter_group

group = adapter_group(
    "opencode",
    "opencode",
    (
        ("system", "The capped core for the system prompt."),
        ("compacting", "What the compaction summary must keep, for the summariser."),
        ("tool-before", "Deny a bash command that repeats a failed attempt."),
        ("tool-after", "Capture a failed bash command."),
        ("idle", "Continue the session once while ledgers are unrecorded."),
    ),
)
