"""`rehydrate check-command` and the Claude Code PreToolUse hook as ratios against
`import click` (same run), on a failure ledger of --rows rows (issue 15 item 9).

Usage: python benchmarks/bench_check_command.py [--rows 10000] [--rounds 11]
Target: <= 2x `python -c "import click"` at 10,000 rows, for the command check and the
hook, on commands the ledger allows (a program it never mentions, a compound command the
shell grammar reads, and a program every row mentions) and on a repeat it refuses (one
row matches; a repeat that 2,500 rows match is reported too, with no target). The
first check after the ledger changed parses it in full ("cold"); that is reported, with no
target: it happens once per ledger change, not once per command.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import IMPORT_CLICK, REHYDRATE, interleaved, make_repo, proc, report

COMMANDS = {
    "absent program": ("go test ./...", 0),
    "compound (grammar)": ("cd svc && go test -race ./... 2>&1 | tail -n 20", 0),
    "every row's program": ("make build FLAGS=-O9", 0),
    "refused repeat": ("cd svc && go test -tags=musl -v ./... 2>&1 | tail", 1),
}
# reported, no target: a repeat that 1 in 4 rows of the generated ledger records
CROWDED = ("refused, 2,500 rows match", "make build FLAGS=-O1", 1)
EXTRA_ROW = "| F-MUSL | `go test -tags=musl ./...` | linker crash | use `-tags=darwin_arm64` |\n"
INDEX_DIR = ".git/rehydrate/failures-parsed"


def _event(command: str) -> bytes:
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash"}
    return json.dumps({**event, "tool_input": {"command": command}}).encode()


def _cold(run: Callable[[], None], repo: Path) -> Callable[[], None]:
    def forget_then_run() -> None:
        shutil.rmtree(repo / INDEX_DIR, ignore_errors=True)
        run()

    return forget_then_run


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo", args.rows)
        with (repo / "docs/Failed_Attempts.md").open("a", encoding="utf-8") as ledger:
            ledger.write(EXTRA_ROW)  # one row the refused repeat matches
        runs: dict[str, Callable[[], None]] = {'python -c "import click"': proc(IMPORT_CLICK, repo)}
        targets: dict[str, float] = {}
        for label, (command, code) in COMMANDS.items():
            check = f"check-command: {label}"
            hook = f"pre-tool-use hook: {label}"
            runs[check] = proc([*REHYDRATE, "check-command", "--", command], repo, ok=(code,))
            runs[hook] = proc(
                [*REHYDRATE, "hook", "claude", "pre-tool-use"], repo, stdin=_event(command)
            )
            targets[check] = targets[hook] = 2.0
        label, command, code = CROWDED
        runs[f"check-command: {label}"] = proc(
            [*REHYDRATE, "check-command", "--", command], repo, ok=(code,)
        )
        runs[f"pre-tool-use hook: {label}"] = proc(
            [*REHYDRATE, "hook", "claude", "pre-tool-use"], repo, stdin=_event(command)
        )
        absent = COMMANDS["absent program"][0]
        runs["check-command: absent program, cold"] = _cold(
            proc([*REHYDRATE, "check-command", "--", absent], repo), repo
        )
        medians = interleaved(runs, rounds=args.rounds)
        ok = report(
            f"check-command / PreToolUse at {args.rows} failure rows",
            medians,
            'python -c "import click"',
            targets,
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
