"""A scripted stand-in for the Gemini API on loopback, for real Gemini CLI runs.

Gemini CLI (``GOOGLE_GEMINI_BASE_URL``, ``GEMINI_API_KEY``) streams
``POST /v1beta/models/<model>:streamGenerateContent?alt=sse`` (server-sent events, one
``GenerateContentResponse`` per event) and calls ``:generateContent`` and ``:countTokens``
for side work. *Conversation* requests (those that offer the ``run_shell_command`` tool)
get the test's scripted turns; a compression request (its system instruction asks for a
``<state_snapshot>``) gets ``summary``; anything else a short text reply. Every request is
logged, in memory and to a JSONL file. Bounded: a request budget; use it as a context
manager.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Part = dict[str, Any]  # {"text": ...} or {"functionCall": {"name", "args"}}
Turn = list[Part]

MAX_REQUESTS = 200
DEFAULT_TEXT = "done"
SHELL_TOOL = "run_shell_command"
COMPRESS_MARKER = "state_snapshot"
DEFAULT_SUMMARY = (
    "<state_snapshot><overall_goal>say hello</overall_goal>"
    "<current_plan>nothing pending</current_plan></state_snapshot>"
)


def text(value: str) -> Part:
    return {"text": value}


def shell(command: str, description: str = "scripted command") -> Part:
    return {
        "functionCall": {
            "name": SHELL_TOOL,
            "args": {"command": command, "description": description},
        }
    }


def call(name: str, **args: Any) -> Part:
    return {"functionCall": {"name": name, "args": args}}


@dataclass
class Logged:
    index: int
    method: str
    path: str
    body: Any
    kind: str  # "turn", "compress", "side", "other"

    def text(self) -> str:
        """Everything the model would read (system instruction and contents), as JSON."""
        if not isinstance(self.body, dict):
            return ""
        return json.dumps(
            {"system": self.body.get("systemInstruction"), "contents": self.body.get("contents")},
            ensure_ascii=False,
        )

    def contents(self) -> list[dict[str, Any]]:
        body = self.body if isinstance(self.body, dict) else {}
        return list(body.get("contents") or [])

    def function_responses(self) -> list[dict[str, Any]]:
        """The functionResponse parts of the last user content."""
        contents = self.contents()
        parts = contents[-1].get("parts") if contents else None
        return [
            p["functionResponse"]
            for p in parts or []
            if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
        ]


@dataclass
class FakeGemini:
    """The server; ``turns`` answer conversation requests in order, then ``DEFAULT_TEXT``."""

    turns: Sequence[Turn] = ()
    log_file: Path | None = None
    summary: str = DEFAULT_SUMMARY
    # promptTokenCount reported per reply (by request index, its last value thereafter): a
    # large value makes Gemini CLI compress its history before the next request.
    prompt_tokens: int | Sequence[int] = 10
    requests: list[Logged] = field(default_factory=list)
    _next_turn: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeGemini:
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
            if method == "POST" and "generatecontent" in path.lower():
                kind = (
                    "compress"
                    if _asks_for_snapshot(body)
                    else "turn"
                    if _offers_shell(body)
                    else "side"
                )
            entry = Logged(len(self.requests), method, path, body, kind)
            self.requests.append(entry)
            if self.log_file is not None:
                with self.log_file.open("a", encoding="utf-8") as out:
                    record = {"index": entry.index, "method": method, "path": path, "kind": kind}
                    out.write(json.dumps({**record, "body": body}, ensure_ascii=False) + "\n")
            return entry

    def _reply_for(self, entry: Logged) -> Turn:
        with self._lock:
            if entry.kind == "turn":
                if self._next_turn < len(self.turns):
                    self._next_turn += 1
                    return list(self.turns[self._next_turn - 1])
                return [text(DEFAULT_TEXT)]
            if entry.kind == "compress":
                return [text(self.summary)]
        schema = _json_schema(entry.body)
        if schema is not None:  # a side request for JSON (routing, next speaker): well-formed
            return [text(json.dumps(_instance(schema)))]
        return [text(DEFAULT_TEXT)]

    def _tokens(self, index: int) -> int:
        tokens = self.prompt_tokens
        return tokens if isinstance(tokens, int) else tokens[min(index, len(tokens) - 1)]


def _offers_shell(body: Any) -> bool:
    tools = body.get("tools") if isinstance(body, dict) else None
    for entry in tools or []:
        for declaration in (
            entry.get("functionDeclarations") or [] if isinstance(entry, dict) else []
        ):
            if isinstance(declaration, dict) and declaration.get("name") == SHELL_TOOL:
                return True
    return False


def _asks_for_snapshot(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    system = json.dumps(body.get("systemInstruction"), ensure_ascii=False)
    return COMPRESS_MARKER in system and not _offers_shell(body)


def _json_schema(body: Any) -> dict[str, Any] | None:
    config = body.get("generationConfig") if isinstance(body, dict) else None
    if not isinstance(config, dict) or config.get("responseMimeType") != "application/json":
        return None
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    return schema if isinstance(schema, dict) else {}


def _instance(schema: dict[str, Any]) -> Any:
    """A small value of ``schema`` (an enum's "user" when offered: the next speaker)."""
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return "user" if "user" in enum else enum[0]
    kind = str(schema.get("type", "OBJECT")).upper()
    if kind == "OBJECT":
        properties = schema.get("properties") or {}
        return {name: _instance(sub) for name, sub in properties.items() if isinstance(sub, dict)}
    return {"STRING": "fake", "INTEGER": 10, "NUMBER": 10, "BOOLEAN": False, "ARRAY": []}.get(
        kind, None
    )


def _response(fake: FakeGemini, turn: Turn, index: int) -> dict[str, Any]:
    tokens = fake._tokens(index)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": turn}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": tokens,
            "candidatesTokenCount": 5,
            "totalTokenCount": tokens + 5,
        },
        "modelVersion": "gemini-fake",
    }


def _handler_for(fake: FakeGemini) -> type[BaseHTTPRequestHandler]:
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
                self._json(429, {"error": {"code": 429, "message": "fake budget spent"}})
            elif route.endswith(":countTokens"):
                self._json(200, {"totalTokens": 100})
            elif route.endswith(":streamGenerateContent"):
                reply = _response(fake, fake._reply_for(entry), entry.index)
                data = f"data: {json.dumps(reply, ensure_ascii=False)}\r\n\r\n"
                self._send(200, data.encode("utf-8"), "text/event-stream")
            elif route.endswith(":generateContent"):
                self._json(200, _response(fake, fake._reply_for(entry), entry.index))
            else:
                self._json(404, {"error": {"code": 404, "message": "not faked"}})

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self._handle("POST")

        def do_GET(self) -> None:  # noqa: N802
            self._handle("GET")

    return Handler
