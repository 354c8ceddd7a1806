"""A scripted stand-in for an OpenAI-compatible Chat Completions API on loopback.

For real OpenCode (``@ai-sdk/openai-compatible``) and Copilot CLI runs: ``POST
/v1/chat/completions`` (``/chat/completions`` too) is answered as server-sent
``chat.completion.chunk`` events when ``stream`` is set, else as one JSON completion.
*Conversation* requests (those that offer a shell tool, ``shell_tools``) get the test's
scripted turns; a request that offers no tools gets ``side_text`` (titles, summaries);
``GET /v1/models`` lists one model. Every request is logged, in memory and to a JSONL
file. Bounded by a request budget; use it as a context manager.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Block = dict[str, Any]  # {"text": ...} or {"tool": name, "arguments": {...}}
Turn = list[Block]
MAX_REQUESTS = 200
DEFAULT_TEXT = "done"
MODEL = "fake-model"


def text(value: str) -> Block:
    return {"text": value}


def tool(name: str, **arguments: Any) -> Block:
    return {"tool": name, "arguments": arguments}


@dataclass
class Logged:
    index: int
    method: str
    path: str
    body: Any
    kind: str  # "turn", "side", "other"

    def messages(self) -> list[dict[str, Any]]:
        body = self.body if isinstance(self.body, dict) else {}
        return list(body.get("messages") or [])

    def text(self) -> str:
        return json.dumps(self.messages(), ensure_ascii=False)

    def system(self) -> str:
        return "\n".join(
            m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
            for m in self.messages()
            if m.get("role") == "system"
        )

    def tool_results(self) -> str:
        """The tool messages after the last assistant message, as one string."""
        out = []
        for message in reversed(self.messages()):
            if message.get("role") == "assistant":
                break
            if message.get("role") == "tool":
                out.append(json.dumps(message.get("content"), ensure_ascii=False))
        return "\n".join(reversed(out))


@dataclass
class FakeChat:
    turns: Sequence[Turn] = ()
    log_file: Path | None = None
    shell_tools: Sequence[str] = ("bash",)
    side_text: str | Callable[[Any], str] = DEFAULT_TEXT
    prompt_tokens: int | Sequence[int] = 10  # by request index, its last value thereafter
    requests: list[Logged] = field(default_factory=list)
    _next_turn: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeChat:
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
        return [r for r in self.requests if r.kind == "turn"]

    def _record(self, method: str, path: str, body: Any) -> Logged:
        with self._lock:
            kind = "other"
            if method == "POST" and path.split("?")[0].endswith("/chat/completions"):
                kind = "turn" if self._offers_shell(body) else "side"
            entry = Logged(len(self.requests), method, path, body, kind)
            self.requests.append(entry)
            if self.log_file is not None:
                with self.log_file.open("a", encoding="utf-8") as out:
                    record = {"index": entry.index, "method": method, "path": path, "kind": kind}
                    out.write(json.dumps({**record, "body": body}, ensure_ascii=False) + "\n")
            return entry

    def _offers_shell(self, body: Any) -> bool:
        tools = body.get("tools") if isinstance(body, dict) else None
        names = {(t.get("function") or {}).get("name") for t in tools or [] if isinstance(t, dict)}
        return bool(names & set(self.shell_tools))

    def _reply_for(self, entry: Logged) -> Turn:
        with self._lock:
            if entry.kind == "turn":
                if self._next_turn < len(self.turns):
                    self._next_turn += 1
                    return list(self.turns[self._next_turn - 1])
                return [text(DEFAULT_TEXT)]
        side = self.side_text
        return [text(side(entry.body) if callable(side) else side)]

    def _tokens(self, index: int) -> int:
        tokens = self.prompt_tokens
        return tokens if isinstance(tokens, int) else tokens[min(index, len(tokens) - 1)]

    def _new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_fake{next(self._ids):06d}"


def _chunks(fake: FakeChat, turn: Turn, index: int) -> list[dict[str, Any]]:
    base = {"id": fake._new_id("chatcmpl"), "object": "chat.completion.chunk", "model": MODEL}
    base["created"] = 1_700_000_000
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    calls = 0
    for block in turn:
        if "tool" in block:
            call = {
                "index": calls,
                "id": fake._new_id("call"),
                "type": "function",
                "function": {"name": block["tool"], "arguments": json.dumps(block["arguments"])},
            }
            calls += 1
            chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
        else:
            chunks.append({**base, "choices": [{"index": 0, "delta": {"content": block["text"]}}]})
    finish = "tool_calls" if calls else "stop"
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    tokens = fake._tokens(index)
    usage = {"prompt_tokens": tokens, "completion_tokens": 5, "total_tokens": tokens + 5}
    chunks.append({**base, "choices": [], "usage": usage})
    return chunks


def _completion(fake: FakeChat, turn: Turn, index: int) -> dict[str, Any]:
    content = "".join(b.get("text", "") for b in turn)
    calls = [
        {
            "id": fake._new_id("call"),
            "type": "function",
            "function": {"name": b["tool"], "arguments": json.dumps(b["arguments"])},
        }
        for b in turn
        if "tool" in b
    ]
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = calls
    tokens = fake._tokens(index)
    return {
        "id": fake._new_id("chatcmpl"),
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {"prompt_tokens": tokens, "completion_tokens": 5, "total_tokens": tokens + 5},
    }


def _handler_for(fake: FakeChat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _send(self, status: int, payload: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status: int, obj: Any) -> None:
            self._send(status, json.dumps(obj).encode("utf-8"), "application/json")

        def _handle(self, method: str) -> None:
            body = self._body() if method == "POST" else None
            entry = fake._record(method, self.path, body)
            route = self.path.split("?")[0]
            if entry.index >= MAX_REQUESTS:
                self._json(429, {"error": {"message": "fake budget spent", "type": "rate_limit"}})
            elif entry.kind in ("turn", "side"):
                turn = fake._reply_for(entry)
                if isinstance(body, dict) and body.get("stream"):
                    events = _chunks(fake, turn, entry.index)
                    data = "".join(f"data: {json.dumps(c)}\n\n" for c in events)
                    self._send(200, (data + "data: [DONE]\n\n").encode(), "text/event-stream")
                else:
                    self._json(200, _completion(fake, turn, entry.index))
            elif method == "GET" and route.endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
            else:
                self._json(404, {"error": {"message": "not faked", "type": "not_found"}})

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self._handle("POST")

        def do_GET(self) -> None:  # noqa: N802
            self._handle("GET")

    return Handler
