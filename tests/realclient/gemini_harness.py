"""Real Gemini CLI (npm, pinned) run headless against the fake Gemini API on loopback."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fake_gemini import FakeGemini
from harness import write_ledgers
from npm_client import VENV_BIN, read_trace, trace_commands

from conftest import commit, git

SESSION_TIMEOUT = 90


def make_project(tmp_path: Path) -> Path:
    """A git repository set up by the real ``rehydrate init --agent gemini`` (its
    Gemini CLI wiring), with rehydrate's ledgers and its Gemini CLI hooks, committed."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    subprocess.run(
        [str(VENV_BIN / "rehydrate"), "init", "--agent", "gemini"],
        cwd=repo,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    write_ledgers(repo)
    commit(repo, "ledgers")
    return repo


def _entries(data: Any) -> list[dict[str, Any]]:
    return [
        hook
        for groups in data.get("hooks", {}).values()
        for group in groups
        for hook in group.get("hooks", [])
    ]


@dataclass
class Session:
    returncode: int
    output: Any  # gemini's JSON output, or its raw text
    stderr: str
    hooks: list[dict[str, Any]]

    def calls(self, event: str) -> list[dict[str, Any]]:
        return [c for c in self.hooks if c["command"].split()[-1].strip("'") == event]


def environment(
    repo: Path, fake: FakeGemini, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    home = repo.parent / "gemini-home"
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    user = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(user), encoding="utf-8")
    return {
        "PATH": os.pathsep.join([str(VENV_BIN), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "GOOGLE_GEMINI_BASE_URL": fake.base_url,
        "GEMINI_API_KEY": "fake-gemini-key-for-tests",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "REHYDRATE_HOOK_TRACE": os.devnull,
        **{k: v for k, v in os.environ.items() if k.startswith("GIT_")},
        **(extra or {}),
    }


def run_gemini(
    gemini: Path,
    repo: Path,
    fake: FakeGemini,
    prompt: str = "go",
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> Session:
    """``gemini -p PROMPT --yolo -o json`` in ``repo`` against ``fake``, hooks traced."""
    settings = repo / ".gemini" / "settings.json"
    if settings.exists():
        trace_commands(settings, _entries, "command")
    run = next(n for n in itertools.count() if not (repo.parent / f"hooks-{n}.jsonl").exists())
    trace = repo.parent / f"hooks-{run}.jsonl"
    trace.touch()
    environ = {**environment(repo, fake, env), "REHYDRATE_HOOK_TRACE": str(trace)}
    try:
        done = subprocess.run(
            [str(gemini), "-p", prompt, "--yolo", "-o", "json", *args],
            cwd=repo,
            env=environ,
            capture_output=True,
            text=True,
            timeout=SESSION_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"gemini ran over {SESSION_TIMEOUT} s: {str(exc.stderr)[-2000:]}")
    (repo.parent / f"output-{run}.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
    try:
        output: Any = json.loads(done.stdout)
    except ValueError:
        output = done.stdout
    return Session(done.returncode, output, done.stderr, read_trace(trace))
