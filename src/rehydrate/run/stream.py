"""The agent's output for people: the known runtimes' JSON event streams as readable lines.

Claude Code (``-p --output-format stream-json``), Codex (``exec --json``) and Gemini CLI
(``--output-format stream-json``) write one JSON event per line; shown raw, a single
SessionStart hook response fills a screen and a stall shows cut-off JSON. ``Render``
turns each event into at most a few short lines: what the model said, each tool call
(``->``), each result (``<-``, ``x`` for an error or a denial), the final result (``=``).
Events that say nothing to a person (deltas of one message, usage, hook payloads, other
typed events) are folded or dropped; a line that is not one JSON object, or an object
without a ``type``, is shown as it is. Every line is
cut to ``LINE`` characters and made terminal-safe (``terminal.one_line``). Pure: bytes
in, lines out; ``rehydrate run --raw`` shows the stream as the agent wrote it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping

from ..terminal import one_line

LINE = 240  # characters of one rendered line
MAX_EVENT = 4 << 20  # a longer line is not parsed (shown cut, as text)
HOLD = 1 << 16  # a partial line longer than this is shown without waiting for its end


def _short(value: object, limit: int = LINE) -> str:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError, RecursionError):
            text = repr(type(value))
    text = " ".join(text.split())
    return one_line(text if len(text) <= limit else text[: limit - 1] + "\u2026")


def _first_line(value: object) -> str:
    if isinstance(value, list):  # claude tool_result content blocks
        value = " ".join(str(b.get("text", "")) for b in value if isinstance(b, dict))
    text = value if isinstance(value, str) else _short(value)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    more = f" (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return _short(lines[0] if lines else "(no output)", LINE - len(more)) + more


def _tool_call(name: object, args: object) -> str:
    if isinstance(args, dict):
        for key in ("command", "cmd", "file_path", "path", "pattern", "url", "query"):
            if isinstance(args.get(key), (str, list)):
                shown = args[key] if isinstance(args[key], str) else " ".join(map(str, args[key]))
                return f"-> {_short(name, 40)}: {_short(shown)}"
    return f"-> {_short(name, 40)}: {_short(args)}"


def _claude(obj: Mapping[str, object]) -> Iterator[str]:
    kind, sub = obj.get("type"), obj.get("subtype")
    if kind == "system":
        if sub == "init":
            yield f". session started (model {_short(obj.get('model'), 60)})"
        elif isinstance(sub, str) and sub.startswith("hook"):
            name = obj.get("hook_name") or obj.get("hook_event") or "hook"
            outcome = obj.get("outcome") or obj.get("exit_code")
            if sub == "hook_response" or outcome is not None:
                said = _short(outcome if outcome is not None else "done", 40)
                yield f". hook {_short(name, 60)}: {said}"
        return
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if kind in ("assistant", "user") and isinstance(content, list):
        who = "claude" if obj.get("parent_tool_use_id") is None else "subagent"
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text" and str(block.get("text", "")).strip():
                yield f"{who}: {_first_line(block.get('text'))}"
            elif btype == "tool_use":
                yield _tool_call(block.get("name"), block.get("input"))
            elif btype == "tool_result":
                mark = "x" if block.get("is_error") else "<-"
                yield f"{mark} {_first_line(block.get('content'))}"
        return
    if kind == "result":
        cost = obj.get("total_cost_usd")
        money = f", ${cost:.2f}" if isinstance(cost, (int, float)) else ""
        yield f"= result: {_short(sub, 40)} ({_short(obj.get('num_turns'), 10)} turns{money})"
        denials = obj.get("permission_denials")
        for denial in denials if isinstance(denials, list) else []:
            if isinstance(denial, dict):
                yield (
                    "x denied: " + _tool_call(denial.get("tool_name"), denial.get("tool_input"))[3:]
                )
        result = obj.get("result")
        if isinstance(result, str) and result.strip():
            yield f"  {_first_line(result)}"


def _codex(obj: Mapping[str, object]) -> Iterator[str]:
    kind = str(obj.get("type"))
    item = obj.get("item")
    if kind == "thread.started":
        yield ". session started"
    elif kind in ("item.started", "item.completed") and isinstance(item, dict):
        itype = item.get("type")
        done = kind == "item.completed"
        if itype == "command_execution":
            if not done:
                yield f"-> exec: {_short(item.get('command'))}"
            else:
                code = item.get("exit_code")
                mark = "<-" if code == 0 else "x"
                status = f"exit {code}" if code is not None else _short(item.get("status"), 20)
                yield f"{mark} {status}: {_first_line(item.get('aggregated_output') or '')}"
        elif itype == "agent_message" and done:
            yield f"codex: {_first_line(item.get('text', ''))}"
        elif itype == "file_change" and done:
            changes = item.get("changes") or []
            paths = [c.get("path") for c in changes if isinstance(c, dict)]
            yield f"-> edit: {_short(', '.join(map(str, paths)) or item.get('status'))}"
        elif itype == "mcp_tool_call" and not done:
            yield _tool_call(f"{item.get('server')}.{item.get('tool')}", item.get("arguments"))
        elif itype == "error":
            yield f"x error: {_first_line(item.get('message', ''))}"
    elif kind == "turn.completed":
        yield "= turn done"
    elif kind == "turn.failed":
        error = obj.get("error")
        why = error.get("message") if isinstance(error, dict) else error
        yield f"x turn failed: {_first_line(why)}"
    elif kind == "error":
        yield f"x error: {_first_line(obj.get('message', ''))}"


def _gemini(obj: Mapping[str, object]) -> Iterator[str]:
    kind = obj.get("type")
    if kind == "init":
        yield f". session started (model {_short(obj.get('model'), 60)})"
    elif kind == "tool_use":
        yield _tool_call(obj.get("tool_name"), obj.get("parameters"))
    elif kind == "tool_result":
        error = obj.get("error")
        if obj.get("status") == "error" or error:
            shown = error.get("message") if isinstance(error, dict) else error or obj.get("output")
            yield f"x {_first_line(shown or 'error')}"
        else:
            yield f"<- {_first_line(obj.get('output') or '')}"
    elif kind == "error":
        yield f"x error: {_first_line(obj.get('message', ''))}"
    elif kind == "result":
        yield f"= result: {_short(obj.get('status'), 40)}"


def _which(obj: Mapping[str, object]) -> Callable[[Mapping[str, object]], Iterator[str]] | None:
    kind = obj.get("type")
    if not isinstance(kind, str):
        return None
    if "." in kind or kind == "error":
        return _codex
    if kind in ("system", "assistant", "user") or (kind == "result" and "subtype" in obj):
        return _claude
    if kind in ("init", "tool_use", "tool_result") or (kind == "result" and "status" in obj):
        return _gemini
    return None


class Render:
    """Fed the agent's output in any chunking; gives the lines to show."""

    def __init__(self) -> None:
        self._partial = b""
        self._said: list[str] = []  # gemini's message deltas, joined into one line

    def feed(self, chunk: bytes) -> list[str]:
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        out: list[str] = []
        for line in lines:
            out += self._line(line)
        if len(self._partial) > HOLD:
            out += self._line(self._partial)
            self._partial = b""
        return out

    def close(self) -> list[str]:
        out = self._line(self._partial) if self._partial else []
        self._partial = b""
        return out + self._flush()

    def _flush(self) -> list[str]:
        if not self._said:
            return []
        text, self._said = "".join(self._said), []
        return [f"gemini: {_first_line(text)}"] if text.strip() else []

    def _line(self, raw: bytes) -> list[str]:
        return [ln if len(ln) <= LINE else ln[: LINE - 1] + "\u2026" for ln in self._event(raw)]

    def _event(self, raw: bytes) -> list[str]:
        text = raw.decode("utf-8", "replace").rstrip("\r")
        stripped = text.strip()
        obj: object = None
        if stripped.startswith("{") and len(stripped) <= MAX_EVENT:
            try:
                obj = json.loads(stripped)
            except (ValueError, RecursionError):
                obj = None
        if not isinstance(obj, dict):
            return [*self._flush(), _short(text, LINE)] if stripped else []
        if obj.get("type") == "message" and obj.get("role") == "assistant":
            self._said.append(str(obj.get("content", "")))
            if not obj.get("delta"):
                return self._flush()
            return []
        if obj.get("type") == "message":  # the user's own message, echoed
            return self._flush()
        renderer = _which(obj)
        if renderer is not None:
            shown = list(renderer(obj))
        elif "type" in obj:  # another event of a known stream (deltas, rate limits): noise
            shown = []
        else:  # JSON of some other tool: shown as text
            shown = [_short(text, LINE)]
        return [*self._flush(), *shown]


def render_all(data: bytes) -> list[str]:
    """Every line ``data`` renders to (the tail of a log, for a stall report)."""
    view = Render()
    return view.feed(data) + view.close()
