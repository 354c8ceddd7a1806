"""The agent hooks that run on every tool call (Claude Code's, and Codex CLI's through the
same core), as ratios against `import click`.

Every hook runs ``rehydrate hook RUNTIME EVENT``, which never imports click (hookfast.py):
the ratios are printed against `import click` and against the bare interpreter (`pass`).

Usage: python benchmarks/bench_agent_hooks.py [--rows 10000] [--rounds 11] [--against DIR]

PreToolUse runs before *every* tool call (matcher `*`): a Bash call reads the
failed-attempts ledger, any other tool must cost no more than finding the repository.
PostToolUseFailure runs after every failed Bash command. With ``--against DIR`` (a
checkout of another revision, e.g. main) each hook is also timed from ``DIR/src`` in the
same interleaved rounds, so a change is measured against its base on the same machine
state.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import BARE, IMPORT_CLICK, REHYDRATE, interleaved, make_repo, proc, report


def _hook(
    argv: list[str],
    repo: Path,
    name: str,
    event: dict[str, object],
    src: str | None,
    runtime: str = "claude",
) -> Callable[[], None]:
    stdin = json.dumps({"session_id": "bench", "cwd": str(repo), **event}).encode()
    run = proc([*argv, "hook", runtime, name], repo, stdin)
    if src is None:
        return run

    def with_path() -> None:
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = src
        try:
            run()
        finally:
            if old is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = old

    return with_path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--against", default=None, help="another checkout to time too")
    args = parser.parse_args()
    bash = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "go test ./..."},
    }
    write = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": "notes.txt", "content": "x\n"},
    }
    # issue 28: an allowed two-command line, each half looked up in the failures ledger
    pair = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "tool7 --flag-99999 --mode m1 ./pkg1/... && make test"},
    }
    patch = {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": {}}
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo", args.rows)
        commands: dict[str, Callable[[], object]] = {
            'python -c "import click"': proc(IMPORT_CLICK, repo),
            'python -c "pass"': proc(BARE, repo),
        }
        trees: list[tuple[str, list[str], str | None]] = [("", REHYDRATE, None)]
        if args.against:  # both as `python -m rehydrate`, so that only the tree differs
            module = [sys.executable, "-m", "rehydrate"]
            here = str(Path(__file__).resolve().parents[1] / "src")
            base = str(Path(args.against).resolve() / "src")
            trees = [("", module, here), (" [base]", module, base)]
        for label, argv, src in trees:
            commands[f"pre-tool-use Bash ({args.rows} rows){label}"] = _hook(
                argv, repo, "pre-tool-use", bash, src
            )
            commands[f"pre-tool-use 2-command line ({args.rows} rows){label}"] = _hook(
                argv, repo, "pre-tool-use", pair, src
            )
            commands[f"pre-tool-use Write{label}"] = _hook(argv, repo, "pre-tool-use", write, src)
            commands[f"codex pre-tool-use Bash ({args.rows} rows){label}"] = _hook(
                argv, repo, "pre-tool-use", bash, src, "codex"
            )
            commands[f"codex pre-tool-use apply_patch{label}"] = _hook(
                argv, repo, "pre-tool-use", patch, src, "codex"
            )
        if not args.against:  # the line .claude/settings.json holds, as Claude Code runs it
            from rehydrate.launchline import PYTHON_KEY, portable

            subprocess.run(["git", "config", PYTHON_KEY, sys.executable], cwd=repo, check=True)
            line = ["sh", "-c", portable("hook", "claude", "pre-tool-use")]
            old = [sys.executable, "-m", "rehydrate", "hook", "claude", "pre-tool-use"]
            stdin = json.dumps({"session_id": "bench", "cwd": str(repo), **bash}).encode()
            launch = [sys.executable, "-I", "-m", "rehydrate", "hook", "claude", "pre-tool-use"]
            commands["pre-tool-use Bash [old line: python -m]"] = proc(old, repo, stdin)
            commands["pre-tool-use Bash [launch line: python -I -m]"] = proc(launch, repo, stdin)
            commands["pre-tool-use Bash [the portable line]"] = proc(line, repo, stdin)
        medians = interleaved(commands, rounds=args.rounds)
        ok = report(
            "Agent hooks on every tool call",
            medians,
            'python -c "import click"',
            {"pre-tool-use Write": 2.0, "codex pre-tool-use apply_patch": 2.0},
        )
        report("The same, against the bare interpreter", medians, 'python -c "pass"')
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
