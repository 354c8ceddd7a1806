"""``rehydrate hook copilot <event>``: Copilot CLI hook adapters (event JSON on stdin)."""

from __future__ import annotations

from ._hook_runtime import adapter_group

group = adapter_group(
    "copilot",
    "copilot",
    (
        ("session-start", "Rebuild the core file the next session reads."),
        ("session-end", "Rebuild the core file the next session reads."),
        ("pre-tool-use", "Deny a bash command that repeats a failed attempt."),
        ("post-tool-use", "Capture a failed bash command."),
        ("agent-stop", "Block the end of the turn once while ledgers are unrecorded."),
    ),
)
