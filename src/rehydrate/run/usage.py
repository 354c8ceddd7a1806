"""What an agent reports about itself on its output: cost and context use.

Read line by line from the session's output, which is also the terminal's and the log's.
Claude Code (``-p --output-format stream-json`` or ``json``) ends with a ``result`` object
carrying ``total_cost_usd``, and each ``assistant`` message carries its ``usage``. Other
runtimes' usage lines are read where they have the same keys; a line that is not one
JSON object is just output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..agents.contextuse import usage_tokens

MAX_LINE = 4 << 20  # longer lines are not parsed (output, not a report)


class Usage:
    """The running totals of one session (mutable: fed by the output reader thread)."""

    def __init__(self) -> None:
        self.cost_usd: float | None = None
        self.context_peak: int | None = None
        self._partial = b""

    def feed(self, chunk: bytes) -> None:
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        if len(self._partial) > MAX_LINE:
            self._partial = b""
        for line in lines:
            self._line(line)

    def close(self) -> None:
        if self._partial:
            self._line(self._partial)
            self._partial = b""

    def _line(self, line: bytes) -> None:
        text = line.strip()
        if not text.startswith(b"{") or b'"' not in text or len(text) > MAX_LINE:
            return
        try:
            obj = json.loads(text)
        except ValueError:
            return
        if isinstance(obj, dict):
            self.take(obj)

    def take(self, obj: Mapping[str, object]) -> None:
        cost = obj.get("total_cost_usd")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool) and cost >= 0:
            self.cost_usd = float(cost)
        if obj.get("type") == "assistant" and obj.get("parent_tool_use_id") is None:
            message = obj.get("message")
            tokens = usage_tokens(message.get("usage") if isinstance(message, dict) else None)
            if tokens and (self.context_peak is None or tokens > self.context_peak):
                self.context_peak = tokens
