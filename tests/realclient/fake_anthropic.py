"""A scripted stand-in for the Anthropic Messages API on loopback, for real Claude Code runs.

Claude Code streams ``POST /v1/messages`` (server-sent events). The server answers
*conversation* requests (those that offer the Bash tool) from a script of turns the test
gives, and every other request (title generation, compaction summaries, probes) with a
harmless text reply. Every request is logged, in memory and to a JSONL file, so a test
asserts on what reached the model. It is bounded: a request budget, and it stops with the
test (use it as a context manager).
"""

from __future__ import annotations

import gzip
import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Block = dict[str, Any]  # {"type": "text", "text": ...} or {"type": "tool_use", "name", "input"}
Turn = list[Block]
# Answers a side request (one without the Bash tool): the reply text, or None for the default.
SideResponder = Callable[[dict[str, Any]], "str | None"]
# Picks the reply to a conversation request before the script does (e.g. a subagent's), or None.
Router = Callable[[dict[str, Any]], "Turn | None"]

MAX_REQUESTS = 200  # a runaway client gets errors past this, never an endless loop
DEFAULT_TEXT = "done"
# Claude Code 2.1.332 asks for a compaction summary with the conversation's own tools offered
# (for the prompt cache); what tells it apart is its last user message, which demands this.
COMPACT_MARKERS = ("Do NOT call any tools", "<summary>")
DEFAULT_SUMMARY = (
    "<analysis>The user greeted; one command ran.</analysis>\n"
    "<summary>The user said hello and a command ran. Nothing else is pending."
    "</summary>"
)


def text(value: str) -> Block:
    return {"type": "text", "text": value}


def bash(command: str, description: str = "scripted command") -> Block:
    return {
        "type": "tool_use",
        "name": "Bash",
        "input": {"command": command, "description": description},
    }


def tool(name: str, **arguments: Any) -> Block:
    return {"type": "tool_use", "name": name, "input": arguments}


@dataclass
class Logged:
    """One request as it reached the server."""

    index: int
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    kind: str  # "turn" (a scripted conversation turn), "compact", "side" or "other"

    def text(self) -> str:
        """Everything the model would read: system prompt and messages, as one JSON string."""
        if not isinstance(self.body, dict):
            return ""
        return json.dumps(
            {"system": self.body.get("system"), "messages": self.body.get("messages")},
            ensure_ascii=False,
        )

    def messages(self) -> list[dict[str, Any]]:
        body = self.body if isinstance(self.body, dict) else {}
        return list(body.get("messages") or [])

    def tail(self) -> list[dict[str, Any]]:
        """The messages after the model's last turn: what the client added since (a
        tool result, a hook's feedback, and the system message with which Claude Code
        announces an MCP server's deferred tools wherever that lands)."""
        messages = self.messages()
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
        return messages[last + 1 :]


@dataclass
class FakeAnthropic:
    """The server; ``turns`` answer conversation requests in order, then ``DEFAULT_TEXT``."""

    turns: Sequence[Turn] = ()
    log_file: Path | None = None
    side: SideResponder | None = None
    summary: str = DEFAULT_SUMMARY  # the reply to a compaction request
    # Usage reported per reply (a list: by request index, its last value thereafter); a
    # large value makes Claude Code compact by itself.
    input_tokens: int | Sequence[int] = 10
    route: Router | None = None
    requests: list[Logged] = field(default_factory=list)
    _next_turn: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeAnthropic:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None and self._thread is not None
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def turn_requests(self) -> list[Logged]:
        """The conversation requests, in order (the ones the script answered)."""
        return [r for r in self.requests if r.kind == "turn"]

    def message_requests(self) -> list[Logged]:
        return [r for r in self.requests if r.path.startswith("/v1/messages")]

    # called by the handler, under no lock of the caller's

    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> Logged:
        with self._lock:
            kind = "other"
            if method == "POST" and path.split("?")[0] == "/v1/messages":
                kind = (
                    "compact"
                    if _asks_for_summary(body)
                    else "turn"
                    if _offers_bash(body)
                    else "side"
                )
            entry = Logged(len(self.requests), method, path, headers, body, kind)
            self.requests.append(entry)
            if self.log_file is not None:
                with self.log_file.open("a", encoding="utf-8") as out:
                    out.write(
                        json.dumps(
                            {
                                "index": entry.index,
                                "method": method,
                                "path": path,
                                "kind": kind,
                                "headers": headers,
                                "body": body,
                            },
                            ensure_ascii=False,
                        )
                        + "\n"
                    )
            return entry

    def _reply_for(self, entry: Logged) -> Turn:
        with self._lock:
            if entry.kind == "turn":
                routed = self.route(entry.body) if self.route is not None else None
                if routed is not None:
                    return list(routed)
                if self._next_turn < len(self.turns):
                    turn = list(self.turns[self._next_turn])
                    self._next_turn += 1
                    return turn
                return [text(DEFAULT_TEXT)]
            if entry.kind == "compact":
                return [text(self.summary)]
        answer = self.side(entry.body) if self.side is not None else None
        return [text(answer if answer is not None else DEFAULT_TEXT)]

    def _new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_fake{next(self._ids):06d}"


def _offers_bash(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    return any(isinstance(t, dict) and t.get("name") == "Bash" for t in body.get("tools") or [])


def _asks_for_summary(body: Any) -> bool:
    messages = body.get("messages") if isinstance(body, dict) else None
    # the last user message: Claude Code may append a system message after it (the list
    # of deferred MCP tools, once an MCP server such as `rehydrate mcp` has connected)
    users = [m for m in messages or [] if isinstance(m, dict) and m.get("role") != "system"]
    if not users:
        return False
    last = users[-1]
    said = json.dumps(last.get("content"), ensure_ascii=False)
    return last.get("role") == "user" and all(marker in said for marker in COMPACT_MARKERS)


def _message(fake: FakeAnthropic, body: dict[str, Any], turn: Turn, index: int) -> dict[str, Any]:
    tokens = fake.input_tokens
    if not isinstance(tokens, int):
        tokens = tokens[min(index, len(tokens) - 1)]
    content = []
    for block in turn:
        if block["type"] == "tool_use":
            content.append(
                {
                    "type": "tool_use",
                    "id": fake._new_id("toolu"),
                    "name": block["name"],
                    "input": block["input"],
                }
            )
        else:
            content.append({"type": "text", "text": block["text"]})
    stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    return {
        "id": fake._new_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-fake"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": tokens,
            "output_tokens": 5,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _sse(message: dict[str, Any]) -> bytes:
    """The message as the Messages API streams it."""

    def event(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {**message["usage"], "output_tokens": 1},
    }
    parts = [event("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        parts.append(
            event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        parts.append(
            event(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        )
        parts.append(event("content_block_stop", {"type": "content_block_stop", "index": index}))
    parts.append(
        event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        )
    )
    parts.append(event("message_stop", {"type": "message_stop"}))
    return "".join(parts).encode("utf-8")


def _handler_for(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.headers.get("Content-Encoding") == "gzip":
                raw = gzip.decompress(raw)
            if not raw:
                return None
            try:
                return json.loads(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("request-id", fake._new_id("req"))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def _json(self, status: int, obj: Any) -> None:
            self._send(status, json.dumps(obj).encode("utf-8"), "application/json")

        def _handle(self, method: str) -> None:
            body = self._body() if method == "POST" else None
            headers = {
                k.lower(): v
                for k, v in self.headers.items()
                if k.lower() not in ("authorization", "x-api-key")
            }
            entry = fake._record(method, self.path, headers, body)
            if entry.index >= MAX_REQUESTS:
                self._json(
                    529,
                    {
                        "type": "error",
                        "error": {
                            "type": "overloaded_error",
                            "message": "fake server request budget spent",
                        },
                    },
                )
                return
            route = self.path.split("?")[0]
            if method == "POST" and route == "/v1/messages/count_tokens":
                self._json(200, {"input_tokens": 100})
            elif method == "POST" and route == "/v1/messages" and isinstance(body, dict):
                message = _message(fake, body, fake._reply_for(entry), entry.index)
                if body.get("stream"):
                    self._send(200, _sse(message), "text/event-stream")
                else:
                    self._json(200, message)
            else:
                self._json(
                    404,
                    {"type": "error", "error": {"type": "not_found_error", "message": "not faked"}},
                )

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self._handle("POST")

        def do_GET(self) -> None:  # noqa: N802
            self._handle("GET")

        def do_HEAD(self) -> None:  # noqa: N802
            self._handle("HEAD")

    return Handler
