"""The Gemini CLI, OpenCode and Copilot CLI hooks on the hot path, as ratios against
`import click`.

Usage: python benchmarks/bench_runtime_hooks.py [--rows 10000] [--rounds 11] [--messages 400]

Gemini CLI's BeforeModel runs before *every* model request and gets the request's text
messages (``--messages`` of them, ~2 KB each): once the session's core is stored, it reads
one small file and hashes one message (no git, no ledger parse), so it must cost about as
much as a hook that finds the repository. The shell-command checks (Gemini BeforeTool,
OpenCode tool-before, Copilot preToolUse) read the failed-attempts ledger (``--rows``
rows), like Claude Code's PreToolUse.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import IMPORT_CLICK, REHYDRATE, interleaved, make_repo, proc, report


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--messages", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo", args.rows)
        common = {"session_id": "bench", "cwd": str(repo)}
        messages = [
            {"role": "user" if i % 2 == 0 else "model", "content": f"message {i} " + "x" * 2000}
            for i in range(args.messages)
        ]
        model = {**common, "hook_event_name": "BeforeModel", "llm_request": {"messages": messages}}
        shell = {"tool_input": {"command": "go test ./..."}}
        events = {
            f"gemini before-model ({args.messages} messages)": (
                "gemini",
                "before-model",
                model,
            ),
            f"gemini before-tool ({args.rows} rows)": (
                "gemini",
                "before-tool",
                {**common, "tool_name": "run_shell_command", **shell},
            ),
            f"opencode tool-before ({args.rows} rows)": (
                "opencode",
                "tool-before",
                {**common, "tool": "bash", "command": "go test ./..."},
            ),
            f"copilot pre-tool-use ({args.rows} rows)": (
                "copilot",
                "pre-tool-use",
                {
                    "sessionId": "bench",
                    "cwd": str(repo),
                    "toolName": "bash",
                    "toolArgs": shell["tool_input"],
                },
            ),
        }
        commands = {'python -c "import click"': proc(IMPORT_CLICK, repo)}
        for label, (runtime, name, event) in events.items():
            stdin = json.dumps(event).encode()
            commands[label] = proc([*REHYDRATE, "hook", runtime, name], repo, stdin)
        commands[next(iter(events))]()  # the first call stores the session's core
        medians = interleaved(commands, rounds=args.rounds)
        ok = report(
            "Runtime hooks on every model call and every shell command",
            medians,
            'python -c "import click"',
            {f"gemini before-model ({args.messages} messages)": 2.5},
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
