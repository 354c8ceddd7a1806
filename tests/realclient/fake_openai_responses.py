"""A scripted stand-in for the OpenAI Responses API on loopback, for real Codex CLI runs.

Codex streams ``POST /v1/responses`` (server-sent events). The server answers
*conversation* requests (those that offer a shell tool) from a script of turns the test
gives, a compaction request (its last input asks for a summary) with ``summary``, and
every other request with a short text reply. Every request is logged, in memory and to a
JSONL file, so a test asserts on what reached the model. It is bounded: a request budget,
and it stops with the test (use it as a context manager).
"""

from __future__ import annotations

import gzip
import itertools
import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Item = dict[str, Any]  # {"type": "text", "text": ...} or {"type": "call", "name", "arguments"}
Turn = list[Item]

MAX_REQUESTS = 200  # a runaway client gets errors past this, never an endless loop
DEFAULT_TEXT = "done"
# Codex 0.171 compacts locally for a custom provider: the conversation goes to the model
# with a last user message asking for a handoff summary (its prompt names this).
COMPACT_MARKERS = ("CONTEXT CHECKPOINT COMPACTION",)
DEFAULT_SUMMARY = "The user said hello and a command ran. Nothing else is pending."
SHELL_TOOLS = ("exec_command", "shell", "shell_command", "local_shell")


def text(value: str) -> Item:
    return {"type": "text", "text": value}


def shell(command: str) -> Item:
    """A call of Codex's shell tool with ``command`` (the tool's name and shape are chosen
    by what the request offers)."""
    return {"type": "shell", "command": command}


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
        """Everything the model would read: instructions and input, as one JSON string."""
        if not isinstance(self.body, dict):
            return ""
        return json.dumps(
            {"instructions": self.body.get("instructions"), "input": self.body.get("input")},
            ensure_ascii=False,
        )

    def inputs(self) -> list[dict[str, Any]]:
        body = self.body if isinstance(self.body, dict) else {}
        return [i for i in body.get("input") or [] if isinstance(i, dict)]

    def tool_outputs(self) -> list[str]:
        """The outputs of the tool calls sent back in this request, in order."""
        found = []
        for item in self.inputs():
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                output = item.get("output")
                found.append(output if isinstance(output, str) else json.dumps(output))
        return found

    def tool_names(self) -> list[str]:
        body = self.body if isinstance(self.body, dict) else {}
        return [t.get("name") or t.get("type") for t in body.get("tools") or []]


@dataclass
class FakeResponses:
    """The server; ``turns`` answer conversation requests in order, then ``DEFAULT_TEXT``."""

    turns: Sequence[Turn] = ()
    log_file: Path | None = None
    summary: str = DEFAULT_SUMMARY  # the reply to a compaction request
    # Usage reported per reply (a list: by request index, its last value thereafter); a
    # large value makes Codex compact by itself.
    input_tokens: int | Sequence[int] = 10
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
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeResponses:
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

    def compact_requests(self) -> list[Logged]:
        return [r for r in self.requests if r.kind == "compact"]

    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> Logged:
        with self._lock:
            kind = "other"
            if method == "POST" and path.split("?")[0].endswith("/responses"):
                kind = "compact" if _asks_for_summary(body) else "turn" if _shell(body) else "side"
            entry = Logged(len(self.requests), method, path, headers, body, kind)
            self.requests.append(entry)
            if self.log_file is not None:
                record = {"index": entry.index, "method": method, "path": path, "kind": kind}
                record.update({"headers": headers, "body": body})
                with self.log_file.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
            return entry

    def _reply_for(self, entry: Logged) -> Turn:
        with self._lock:
            if entry.kind == "turn" and self._next_turn < len(self.turns):
                turn = list(self.turns[self._next_turn])
                self._next_turn += 1
                return turn
            if entry.kind == "compact":
                return [text(self.summary)]
        return [text(DEFAULT_TEXT)]

    def _new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_fake{next(self._ids):06d}"

    def _tokens(self, index: int) -> int:
        tokens = self.input_tokens
        return tokens if isinstance(tokens, int) else tokens[min(index, len(tokens) - 1)]


def _shell(body: Any) -> str | None:
    """The name of the shell tool ``body`` offers, or None."""
    if not isinstance(body, dict):
        return None
    for tool in body.get("tools") or []:
        name = tool.get("name") or tool.get("type") if isinstance(tool, dict) else None
        if name in SHELL_TOOLS:
            return str(name)
    return None


def _asks_for_summary(body: Any) -> bool:
    said = json.dumps(body.get("input") if isinstance(body, dict) else None, ensure_ascii=False)
    return all(marker in said for marker in COMPACT_MARKERS)


def _call(fake: FakeResponses, item: Item, tool: str | None) -> dict[str, Any]:
    command = item["command"]
    if tool == "exec_command":
        arguments: dict[str, Any] = {"cmd": command}
    elif tool == "shell":
        arguments = {"command": ["bash", "-lc", command]}
    else:
        arguments = {"command": command}
    return {
        "type": "function_call",
        "id": fake._new_id("fc"),
        "call_id": fake._new_id("call"),
        "name": tool or "shell_command",
        "arguments": json.dumps(arguments),
        "status": "completed",
    }


def _items(fake: FakeResponses, turn: Turn, tool: str | None) -> list[dict[str, Any]]:
    out = []
    for item in turn:
        if item["type"] == "shell":
            out.append(_call(fake, item, tool))
        else:
            content = [{"type": "output_text", "text": item["text"], "annotations": []}]
            out.append(
                {
                    "type": "message",
                    "id": fake._new_id("msg"),
                    "role": "assistant",
                    "status": "completed",
                    "content": content,
                }
            )
    return out


def _sse(fake: FakeResponses, entry: Logged, turn: Turn) -> bytes:
    """The reply as the Responses API streams it."""
    response_id = fake._new_id("resp")
    tokens = fake._tokens(entry.index)
    items = _items(fake, turn, _shell(entry.body))
    parts = []

    def event(data: dict[str, Any]) -> None:
        parts.append(f"event: {data['type']}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n")

    event({"type": "response.created", "response": {"id": response_id, "status": "in_progress"}})
    for index, item in enumerate(items):
        event({"type": "response.output_item.added", "output_index": index, "item": item})
        if item["type"] == "message":
            delta = item["content"][0]["text"]
            event(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "delta": delta,
                }
            )
        event({"type": "response.output_item.done", "output_index": index, "item": item})
    usage = {
        "input_tokens": tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens + 5,
    }
    completed = {"id": response_id, "status": "completed", "output": items, "usage": usage}
    event({"type": "response.completed", "response": completed})
    return "".join(parts).encode("utf-8")


def _handler_for(fake: FakeResponses) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            encoding = self.headers.get("Content-Encoding")
            if encoding == "gzip":
                raw = gzip.decompress(raw)
            elif encoding == "zstd":
                return "<zstd body>"
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
            self.send_header("x-request-id", fake._new_id("req"))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def _json(self, status: int, obj: Any) -> None:
            self._send(status, json.dumps(obj).encode("utf-8"), "application/json")

        def _handle(self, method: str) -> None:
            body = self._body() if method == "POST" else None
            headers = {
                k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"
            }
            entry = fake._record(method, self.path, headers, body)
            if entry.index >= MAX_REQUESTS:
                self._json(429, {"error": {"message": "fake server request budget spent"}})
                return
            route = self.path.split("?")[0]
            if method == "POST" and route.endswith("/responses") and isinstance(body, dict):
                self._send(200, _sse(fake, entry, fake._reply_for(entry)), "text/event-stream")
            elif method == "GET" and route.endswith("/models"):
                self._json(200, {"object": "list", "data": [], "models": []})
            else:
                self._json(404, {"error": {"message": f"not faked: {method} {route}"}})

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self._handle("POST")

        def do_GET(self) -> None:  # noqa: N802
            self._handle("GET")

    return Handler
