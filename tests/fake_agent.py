"""A scripted fake agent for ``rehydrate run`` tests: a real executable, run by the loop.

    python fake_agent.py STATE_DIR (stdin | arg | file) [PROMPT_OR_PATH]

It reads the prompt (from stdin, its third argument, or the file named there), saves it
as ``STATE_DIR/prompt-<n>.md`` and runs the steps of session ``n`` from
``STATE_DIR/script.json`` (a list of sessions, each a list of steps; past the end a
session does nothing). The session counter lives in ``STATE_DIR/count``. Steps:

* ``["rehydrate", ARG...]``: the rehydrate writers (``python -m rehydrate``), must succeed;
* ``["git", ARG...]``: real git, must succeed;
* ``["write", PATH, TEXT]``, ``["drop_line", PATH, NEEDLE]``: edit a file by hand;
* ``["print", TEXT]``, ``["sleep", SECONDS]``, ``["exit", CODE]``;
* ``["spawn", CODE]``: run python CODE (which may leave a process behind);
* ``["ignore_sigterm"]``: from now on SIGTERM does nothing (SIGKILL is needed);
* ``["cost", USD]``: print a claude-like stream-json result line with total_cost_usd;
* ``["session_start", SOURCE]``: run the real ``rehydrate hook claude session-start`` as
  Claude Code would and save the context it added as ``STATE_DIR/context-<SOURCE>.md``;
* ``["context_hook", TOKENS]``: write a Claude Code-like transcript whose last message
  used TOKENS, and run the real ``rehydrate hook claude pre-tool-use`` on a Bash call
  with it (printing what the hook answered), as Claude Code would.

Its pid is written to ``STATE_DIR/pid-<n>``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def _prompt(mode: str, rest: list[str]) -> str:
    if mode == "stdin":
        return sys.stdin.read()
    if mode == "arg":
        return rest[0]
    return Path(rest[0]).read_text(encoding="utf-8")


def _step(step: list[object]) -> None:
    kind, args = step[0], [str(a) for a in step[1:]]
    if kind == "rehydrate":
        subprocess.run([sys.executable, "-m", "rehydrate", *args], check=True)
    elif kind == "git":
        subprocess.run(["git", *args], check=True, stdout=subprocess.DEVNULL)
    elif kind == "write":
        Path(args[0]).write_text(args[1], encoding="utf-8")
    elif kind == "drop_line":
        path = Path(args[0])
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(ln for ln in lines if args[1] not in ln), encoding="utf-8")
    elif kind == "print":
        print(args[0], flush=True)
    elif kind == "sleep":
        time.sleep(float(args[0]))
    elif kind == "exit":
        sys.exit(int(args[0]))
    elif kind == "ignore_sigterm":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif kind == "cost":
        print(json.dumps({"type": "result", "total_cost_usd": float(args[0])}), flush=True)
    elif kind == "spawn":  # a process of the agent's group that outlives the agent
        subprocess.run([sys.executable, "-c", args[0]], check=True)
    elif kind == "context_hook":
        _context_hook(int(args[0]))
    elif kind == "session_start":  # what Claude Code's SessionStart hook would add
        _session_start(args[0] if args else "startup")
    else:
        raise SystemExit(f"fake agent: unknown step {kind!r}")


def _context_hook(tokens: int) -> None:
    transcript = Path.cwd() / ".rehydrate" / "fake-transcript.jsonl"
    usage = {"input_tokens": tokens, "output_tokens": 0}
    line = {"type": "assistant", "message": {"role": "assistant", "usage": usage}}
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "transcript_path": str(transcript),
        "cwd": str(Path.cwd()),
    }
    done = subprocess.run(
        [sys.executable, "-m", "rehydrate", "hook", "claude", "pre-tool-use"],
        input=json.dumps(event),
        text=True,
        capture_output=True,
        check=True,
    )
    print(f"hook said: {done.stdout.strip()}", flush=True)


def _session_start(source: str) -> None:
    event = {"hook_event_name": "SessionStart", "source": source, "cwd": str(Path.cwd())}
    done = subprocess.run(
        [sys.executable, "-m", "rehydrate", "hook", "claude", "session-start"],
        input=json.dumps(event),
        text=True,
        capture_output=True,
        check=True,
    )
    out = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    (STATE / f"context-{source}.md").write_text(out, encoding="utf-8")


STATE = Path(".")


def main(argv: list[str]) -> int:
    global STATE
    state, mode, rest = Path(argv[0]), argv[1], argv[2:]
    STATE = state
    prompt = _prompt(mode, rest)
    counter = state / "count"
    number = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(number))
    (state / f"pid-{number}").write_text(str(os.getpid()))
    (state / f"prompt-{number}.md").write_text(prompt, encoding="utf-8")
    script = json.loads((state / "script.json").read_text(encoding="utf-8"))
    print(f"fake agent: session {number}", flush=True)
    for step in script[number - 1] if number <= len(script) else []:
        _step(step)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
