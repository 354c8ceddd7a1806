"""Reads that are bounded, never blocking, never recursive, on inputs rehydrate did not
write. Each case puts one hostile file in place (a 10 GB sparse file, a FIFO nobody
writes to, a symlink to /dev/zero, a directory, JSON nested thousands deep, values of
the wrong type, 20,000 table columns) and runs a real command as a process: it must
end within seconds with a named error or a correct answer, never exit 70. Every case
has a legitimate twin that passes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import commit, git, scaffold

HANG = 30  # seconds: a read that blocks or reads 10 GB would take far longer
FAST = 10.0  # what a refusal may take on a loaded machine


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    scaffold(repo)
    commit(repo, "ledgers")
    return repo


def _run(
    repo: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "rehydrate", *args],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=HANG,
        env={**os.environ, **(env or {})},
    )
    return proc, time.monotonic() - start


def _sparse(path: Path, size: int = 10 * 1024**3) -> None:
    with path.open("ab") as handle:
        handle.truncate(size)


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _replace(path: Path, make: Callable[[Path], None]) -> None:
    path.unlink(missing_ok=True)
    make(path)


def _deep_index(repo: Path) -> None:
    folder = repo / ".rehydrate" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["[" * 100_000, '{"a":' * 50_000, json.dumps({"schema": "x", "cost_usd": "abc"})]
    (folder / "index.jsonl").write_text("\n".join(lines) + "\n")


def _typed_index(repo: Path) -> None:
    """A line with every field present but of the wrong type (``cost_usd: "abc"``)."""
    from rehydrate.continuity.sessions import SCHEMA

    record = {
        "schema": SCHEMA,
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
        "cost_usd": "abc",
        "context_peak": None,
        "verdict": "done",
        "log": ".rehydrate/sessions/1.log",
    }
    folder = repo / ".rehydrate" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    bad = [
        {**record, "cost_usd": "abc"},
        {**record, "number": "1"},
        {**record, "commits": 1.5},
        {**record, "cost_usd": float("nan")},
        {**record, "exit": True},
    ]
    good = {**record, "number": 2, "cost_usd": 0.25}
    text = "".join(json.dumps(r) + "\n" for r in [*bad, good])
    (folder / "index.jsonl").write_text(text)


def _columns(repo: Path, n: int = 20_000) -> None:
    wide = "| ID | Tried | Failure | Workaround |" + "".join(f" c{i} |" for i in range(n))
    rows = "|---|---|---|---|" + "---|" * n + "\n| F-001 | `make x` | broke | y |" + " v |" * n
    (repo / "docs" / "Failed_Attempts.md").write_text(
        f"---\nledger: failures\n---\n# Failed attempts\n\n{wide}\n{rows}\n"
    )


def _template(repo: Path, make: Callable[[Path], None]) -> None:
    (repo / ".rehydrate.toml").write_text('prompt_template = "protocol.md"\n')
    make(repo / "protocol.md")


def _event(transcript: Path) -> str:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "transcript_path": str(transcript),
            "session_id": "s1",
            "cwd": ".",
        }
    )


SPEC = "docs/Spec.md"
# name -> (set-up, command, expected exit codes, text the output must hold)
CASES: dict[str, tuple[Callable[[Path], None], tuple[str, ...], tuple[int, ...], str]] = {
    "sparse-10g-ledger": (lambda r: _sparse(r / SPEC), ("state",), (2,), "too_large"),
    "sparse-10g-ledger-prompt": (
        lambda r: _sparse(r / SPEC),
        ("prompt", "--worktree"),
        (2,),
        "too_large",
    ),
    "fifo-ledger": (lambda r: _replace(r / SPEC, _fifo), ("state",), (2,), "Spec.md"),
    "ledger-symlink-to-dev-zero": (
        lambda r: _replace(r / SPEC, lambda p: p.symlink_to("/dev/zero")),
        ("state",),
        (2,),
        "Spec.md",
    ),
    "ledger-is-a-directory": (lambda r: _replace(r / SPEC, Path.mkdir), ("state",), (2,), "Spec"),
    "twin-ledger": (lambda r: None, ("state",), (0,), "constraints"),
    "sparse-10g-rehydrate-toml": (
        lambda r: _sparse(r / ".rehydrate.toml"),
        ("status",),
        (2,),
        "config_invalid",
    ),
    "fifo-pyproject": (lambda r: _fifo(r / "pyproject.toml"), ("status",), (2,), "pyproject"),
    "dev-zero-pyproject": (
        lambda r: (r / "pyproject.toml").symlink_to("/dev/zero"),
        ("status",),
        (2,),
        "pyproject",
    ),
    "twin-pyproject": (
        lambda r: (r / "pyproject.toml").write_text("[tool.rehydrate]\ndiff_lines = 50\n"),
        ("status",),
        (0,),
        "",
    ),
    "fifo-prompt-template": (
        lambda r: _template(r, _fifo),
        ("prompt", "--worktree"),
        (2,),
        "protocol.md",
    ),
    "sparse-prompt-template": (
        lambda r: _template(r, _sparse),
        ("prompt", "--worktree"),
        (2,),
        "protocol.md",
    ),
    "twin-prompt-template": (
        lambda r: _template(r, lambda p: p.write_text("Work carefully. TEMPLATE-TWIN\n")),
        ("prompt", "--worktree"),
        (0,),
        "TEMPLATE-TWIN",
    ),
    "index-deeply-nested": (_deep_index, ("status",), (0,), ""),
    "index-deeply-nested-run-status": (_deep_index, ("run", "--status"), (0,), ""),
    "index-wrong-types": (_typed_index, ("run", "--status"), (0,), "unreadable"),
    "columns-20000": (_columns, ("prompt", "--worktree"), (0,), "F-001"),
    "fifo-state-file": (
        lambda r: (r / ".rehydrate").mkdir() or _fifo(r / ".rehydrate" / "claude-hold.json"),
        ("check-command", "--", "ls"),
        (0,),
        "",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_hostile_file_is_refused_fast_or_read_bounded(tmp_path: Path, name: str) -> None:
    setup, args, codes, said = CASES[name]
    repo = _repo(tmp_path)
    setup(repo)
    proc, took = _run(repo, *args)
    out = proc.stdout + proc.stderr
    assert proc.returncode in codes, (proc.returncode, out[-3000:])
    assert "internal error" not in out and "Traceback" not in out, out[-3000:]
    assert said in out, out[-3000:]
    assert took < FAST, took


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(_fifo, id="fifo-transcript"),
        pytest.param(_sparse, id="sparse-10g-transcript"),
        pytest.param(lambda p: p.symlink_to("/dev/zero"), id="dev-zero-transcript"),
        pytest.param(
            lambda p: p.write_text('{"message":{"usage":{"input_tokens":5}}}\n'), id="twin"
        ),
    ],
)
def test_a_transcript_never_blocks_the_context_check(tmp_path: Path, make: Callable) -> None:
    repo = _repo(tmp_path)
    transcript = tmp_path / "transcript.jsonl"
    make(transcript)
    env = {"REHYDRATE_RUN_CONTEXT_LIMIT": "100000", "REHYDRATE_RUN_SESSION": "1"}
    proc, took = _run(repo, "hook", "claude", "pre-tool-use", stdin=_event(transcript), env=env)
    assert proc.returncode == 0 and "internal error" not in proc.stdout + proc.stderr
    assert took < FAST


@pytest.mark.parametrize("runtime", ["claude", "codex", "gemini", "kiro"])
@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_tool_arguments_nested_deep_are_unreadable_input_not_a_crash(
    tmp_path: Path, runtime: str, depth: int
) -> None:
    repo = _repo(tmp_path)
    names = {"claude": "pre-tool-use", "codex": "pre-tool-use"}
    names |= {"gemini": "before-tool", "kiro": "pre-tool-use"}
    nested = '{"a": [' * depth + "1" + "]}" * depth
    raw = (
        '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": ".", '
        f'"tool_input": {{"command": "ls", "x": {nested}}}}}'
    )
    proc, took = _run(repo, "hook", runtime, names[runtime], stdin=raw)
    assert proc.returncode != 70, proc.stderr
    assert "internal error" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert took < FAST


def test_the_json_reader_bounds_depth_and_keeps_legitimate_json() -> None:
    from rehydrate.readlimit import MAX_JSON_DEPTH, JSONUnreadable, load_json

    legit = {"a": [{"b": "[[[[{{{{ in a string"}] * 1000, "c": '"\\"[['}
    assert load_json(json.dumps(legit)) == legit
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert load_json(ok) is not None
    for hostile in ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "[" * 10**6):
        with pytest.raises(JSONUnreadable):
            load_json(hostile)


def test_the_bounded_reader_checks_type_and_size_before_reading(tmp_path: Path) -> None:
    from rehydrate.errors import RehydrateError
    from rehydrate.readlimit import read_file

    big = tmp_path / "big"
    _sparse(big, 10 * 1024**4)  # 10 TB: only an fstat can answer this fast
    start = time.monotonic()
    with pytest.raises(RehydrateError) as caught:
        read_file(big, 1024)
    assert caught.value.code == "input_too_large" and time.monotonic() - start < 1
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(RehydrateError) as caught:
        read_file(fifo, 1024)
    assert caught.value.code == "not_a_regular_file" and "FIFO" in str(caught.value)
    small = tmp_path / "small"
    small.write_bytes(b"x" * 1024)
    assert read_file(small, 1024) == b"x" * 1024
