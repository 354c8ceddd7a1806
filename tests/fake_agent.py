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
* ``["ignore_sigterm"]``: from now on SIGTERM does nothing (SIGKILL is needed);
* ``["cost", USD]``: print a claude-like stream-json result line with total_cost_usd.
"""

from __future__ import annotations

import json
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
    else:
        raise SystemExit(f"fake agent: unknown step {kind!r}")


def main(argv: list[str]) -> int:
    state, mode, rest = Path(argv[0]), argv[1], argv[2:]
    prompt = _prompt(mode, rest)
    counter = state / "count"
    number = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(number))
    (state / f"prompt-{number}.md").write_text(prompt, encoding="utf-8")
    script = json.loads((state / "script.json").read_text(encoding="utf-8"))
    print(f"fake agent: session {number}", flush=True)
    for step in script[number - 1] if number <= len(script) else []:
        _step(step)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
