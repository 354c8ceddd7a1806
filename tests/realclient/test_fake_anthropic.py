"""The fake Messages API on its own: SSE shape, script order, compaction, logging, budget."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import fake_anthropic
import pytest
from fake_anthropic import FakeAnthropic, bash, text

BASH_TOOL = [{"name": "Bash", "input_schema": {"type": "object"}}]


def post(fake: FakeAnthropic, body: dict[str, Any]) -> tuple[str, str]:
    request = urllib.request.Request(
        fake.base_url + "/v1/messages?beta=true",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers["Content-Type"], response.read().decode("utf-8")


def events(stream: str) -> list[dict[str, Any]]:
    found = []
    for chunk in stream.strip().split("\n\n"):
        name, data = chunk.split("\n")
        assert name.startswith("event: ") and data.startswith("data: ")
        payload = json.loads(data[len("data: ") :])
        assert payload["type"] == name[len("event: ") :]
        found.append(payload)
    return found


def test_a_tool_use_turn_streams_in_the_messages_api_order(tmp_path: Path) -> None:
    with FakeAnthropic([[text("running"), bash("ls")]], log_file=tmp_path / "log.jsonl") as fake:
        kind, stream = post(
            fake,
            {
                "model": "m",
                "stream": True,
                "tools": BASH_TOOL,
                "messages": [{"role": "user", "content": "hi"}],
            },
        )
    assert kind == "text/event-stream"
    got = events(stream)
    assert [e["type"] for e in got] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert got[4]["content_block"]["name"] == "Bash"
    assert json.loads(got[5]["delta"]["partial_json"]) == {
        "command": "ls",
        "description": "scripted command",
    }
    assert got[7]["delta"]["stop_reason"] == "tool_use" and "usage" in got[7]
    (logged,) = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert logged["kind"] == "turn" and logged["body"]["messages"][0]["content"] == "hi"


def test_script_then_default_and_side_and_compaction_replies() -> None:
    summary_request = [{"role": "user", "content": "Do NOT call any tools. <summary> please"}]
    with FakeAnthropic([[text("one")]], summary="S") as fake:
        assert (
            json.loads(post(fake, {"model": "m", "tools": BASH_TOOL, "messages": []})[1])[
                "content"
            ][0]["text"]
            == "one"
        )
        assert (
            json.loads(post(fake, {"model": "m", "tools": BASH_TOOL, "messages": []})[1])[
                "content"
            ][0]["text"]
            == fake_anthropic.DEFAULT_TEXT
        )
        assert (
            json.loads(
                post(fake, {"model": "m", "messages": summary_request, "tools": BASH_TOOL})[1]
            )["content"][0]["text"]
            == "S"
        )
        post(fake, {"model": "m", "messages": []})
    assert [r.kind for r in fake.requests] == ["turn", "turn", "compact", "side"]
    assert len(fake.turn_requests()) == 2


def test_the_request_budget_bounds_a_runaway_client(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fake_anthropic, "MAX_REQUESTS", 1)
    with FakeAnthropic() as fake:
        post(fake, {"model": "m", "messages": []})
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(fake, {"model": "m", "messages": []})
    assert refused.value.code == 529
