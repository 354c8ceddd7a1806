"""Fuzz what rehydrate reads but did not write, besides the ledgers: the run index
(``.rehydrate/sessions/index.jsonl``), the state files under ``.rehydrate/``, and every
runtime's tool-call event carrying secrets and text in rehydrate's voice. The oracle
(``fuzzing.oracle``) reads stdout as well as stderr: no exit 70, no "internal error"
(the hooks answer in stdout JSON with exit 0), no traceback, no leaked canary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fuzzing import (
    CANARY_TEXTS,
    JSON_VALUES,
    checked,
    fuzz,
    leaks,
    make_repo,
    mutate_mapping,
)
from hypothesis import given
from hypothesis import strategies as st

SAMPLES = Path(__file__).resolve().parents[2] / "docs" / "integrations" / "samples"
RECORD = {
    "schema": "rehydrate/run-session-v1",
    "number": 1,
    "start": "2026-01-01T00:00:00Z",
    "end": "2026-01-01T00:01:00Z",
    "agent": "claude",
    "exit": 0,
    "ended_by": "exit",
    "head_before": None,
    "head_after": None,
    "commits": 0,
    "progress": [],
    "guard": "pass",
    "violations": [],
    "uncommitted": [],
    "committed_ledgers": None,
    "cost_usd": 0.5,
    "context_peak": None,
    "verdict": "done",
    "log": ".rehydrate/sessions/1.log",
}
DEEP = ["[" * 5000, '{"a":' * 3000 + "1" + "}" * 3000, "[" * 65 + "]" * 65]


@pytest.fixture
def frepo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


@st.composite
def _index_line(draw: st.DrawFn) -> str:
    shape = draw(st.integers(0, 3))
    if shape == 0:
        return draw(st.sampled_from(DEEP))
    if shape == 1:
        return json.dumps(draw(JSON_VALUES))
    record = mutate_mapping(draw, RECORD, list(RECORD))
    if shape == 3:
        record[draw(st.sampled_from(sorted(RECORD)))] = draw(st.sampled_from(CANARY_TEXTS))
    return json.dumps(record)


@fuzz(2)
@given(
    lines=st.lists(_index_line(), min_size=1, max_size=6),
    command=st.sampled_from([("status",), ("run", "--status"), ("status", "--json")]),
)
def test_status_and_run_over_hostile_index_lines(frepo, lines, command):
    folder = frepo / ".rehydrate" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.jsonl").write_text("\n".join(lines) + "\n")
    checked(frepo, *command, allowed=(0, 1, 2))


STATE_FILES = [
    "claude-hold.json",
    "claude-postcompact.json",
    "claude-precompact.json",
    "pending-failures.json",
    "codex-hold.json",
]


@fuzz(2)
@given(
    name=st.sampled_from(STATE_FILES),
    body=st.one_of(
        st.sampled_from(DEEP),
        JSON_VALUES.map(json.dumps),
        st.sampled_from(CANARY_TEXTS).map(
            lambda t: json.dumps(
                {
                    "failures": [{"number": 1, "command": t, "error": t, "time": "x", "times": 1}],
                    "next": 2,
                }
            )
        ),
    ),
    event=st.sampled_from(["session-start", "pre-tool-use", "stop"]),
)
def test_hooks_over_hostile_state_files(frepo, name, body, event):
    state = frepo / ".rehydrate"
    state.mkdir(exist_ok=True)
    (state / name).write_text(body)
    raw = {
        "hook_event_name": "x",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "source": "startup",
        "cwd": ".",
    }
    result = checked(frepo, "hook", "claude", event, input=json.dumps(raw), allowed=(0, 2))
    assert not leaks(result.out)


TOOL_EVENTS = {
    "codex": "pre-tool-use",
    "gemini": "before-tool",
    "opencode": "tool-before",
    "copilot": "pre-tool-use",
    "cursor": "before-shell-execution",
    "cline": "pre-tool-use",
    "kiro": "pre-tool-use",
}


def _with_command(data: object, command: object) -> object:
    """The sample event with every "command" field set to ``command``."""
    if isinstance(data, dict):
        return {
            k: command if k == "command" else _with_command(v, command) for k, v in data.items()
        }
    if isinstance(data, list):
        return [_with_command(v, command) for v in data]
    return data


@fuzz(3)
@given(
    runtime=st.sampled_from(sorted(TOOL_EVENTS)),
    command=st.one_of(st.sampled_from(CANARY_TEXTS), st.text(max_size=80), JSON_VALUES),
    nest=st.booleans(),
)
def test_every_runtimes_tool_hook_over_hostile_commands(frepo, runtime, command, nest):
    name = TOOL_EVENTS[runtime]
    sample = json.loads((SAMPLES / runtime / f"{name}.json").read_text(encoding="utf-8"))
    event = _with_command(sample, command)
    raw = json.dumps(event)
    if nest:  # arguments nested far deeper than any event needs
        raw = raw[:-1] + ', "deep": ' + '{"a": [' * 2000 + "1" + "]}" * 2000 + "}"
    checked(frepo, "hook", runtime, name, input=raw, allowed=(0, 1, 2))
