"""What an agent pays per tool call for rehydrate's hooks, as ratios against
`python -c "import click"` and the bare interpreter (`python -c pass`) measured in the
same run.

Usage: python benchmarks/bench_agent_hooks.py [--rows 1000 10000] [--rounds 15] [--against DIR]

Every hook is started from outside, as an agent starts it: a new process per call, the
event on stdin, through the installed console script (``rehydrate hook …``) and through
the launch line the installers write (``python -I -m rehydrate hook …``), which never
import click (hookfast.py). PreToolUse runs before *every* tool call (matcher `*`): a
shell call reads the failed-attempts ledger, any other tool must cost no more than
finding the repository.

Bars (issue 28 item 5; docs/design.md, "speed"): an allowed two-command line
(``tool7 --flag-99999 --mode m1 ./pkg1/... && make test``, each half looked up in the
ledger) on a 10,000-row ledger within 2× `import click`, both ways it is started; the
same line on a 1,000-row ledger within ``BARE_BAR``× the bare interpreter; a call that
is no shell command within 2× `import click`.

With ``--against DIR`` (a checkout of another revision, e.g. main) the two-command line
is also timed from ``DIR/src`` in the same interleaved rounds, both trees started alike
(``python -I -c`` with the tree first on ``sys.path``), so a change is measured against
its base on the same machine state.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import BARE, IMPORT_CLICK, REHYDRATE, interleaved, make_repo, proc, report

CLICK = 'python -c "import click"'
PASS = 'python -c "pass"'
FLOOR = "python -I -c 'import json, subprocess, …'"
# What the shell check cannot start without: the event (json), git (subprocess), the work
# tree's blob ids (_sha1, digests.py), NamedTuple (typing), pathlib; a reference, not a bar.
FLOOR_CODE = "import json, subprocess, _sha1, typing, re, pathlib"
FLOOR_GIT = "the same, reading the event and asking git twice"
# ... and what it must do before any work of its own: read the event, find the repository
# and its HEAD (one `git rev-parse`), look up the ledger's blob (one `git cat-file`). The
# least any Python hook that asks git pays; the hook against it is what rehydrate adds.
FLOOR_GIT_CODE = (
    FLOOR_CODE
    + "; import sys; json.loads(sys.stdin.buffer.read())"
    + "; subprocess.run(['git', 'rev-parse', '--show-toplevel', '--verify', 'HEAD'],"
    + " capture_output=True, check=True)"
    + "; subprocess.run(['git', 'cat-file', '--batch-check'],"
    + " input=b'HEAD:docs/Failed_Attempts.md\\n', capture_output=True, check=True)"
)
PAIR = "tool7 --flag-99999 --mode m1 ./pkg1/... && make test"  # allowed, two lookups
CLICK_BAR = 2.0  # the two-command line at 10,000 rows, and a call that is no shell command
BARE_BAR = 5.0  # the two-command line at 1,000 rows, against `python -c pass` (design.md, speed3)
BIG = 10000  # the row count the `import click` bar is for
SMALL = 1000  # the row count the bare-interpreter bar is for

MODULE = [sys.executable, "-I", "-m", "rehydrate"]  # the launch line the installers write


def _from_tree(src: str) -> list[str]:
    """``rehydrate`` from the source tree ``src``, started as the console script starts."""
    code = f"import sys; sys.path.insert(0, {src!r}); from rehydrate.__main__ import entry; entry()"
    return [sys.executable, "-I", "-c", code]


def _event(repo: Path, tool: str, tool_input: dict[str, object]) -> bytes:
    event = {
        "session_id": "bench",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    return json.dumps(event).encode()


def _hook(argv: list[str], repo: Path, runtime: str, stdin: bytes) -> Callable[[], None]:
    return proc([*argv, "hook", runtime, "pre-tool-use"], repo, stdin)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[SMALL, BIG])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--against", default=None, help="another checkout to time too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        commands: dict[str, Callable[[], object]] = {
            CLICK: proc(IMPORT_CLICK, Path(tmp)),
            PASS: proc(BARE, Path(tmp)),
            FLOOR: proc([sys.executable, "-I", "-c", FLOOR_CODE], Path(tmp)),
        }
        click_bars: dict[str, float] = {}
        bare_bars: dict[str, float] = {}
        for rows in args.rows:
            repo = make_repo(Path(tmp) / f"repo{rows}", rows)
            pair = _event(repo, "Bash", {"command": PAIR})
            bash = _event(repo, "Bash", {"command": "go test ./..."})
            starts = [("script", REHYDRATE), ("-I -m", MODULE)]
            if args.against:
                here = str(Path(__file__).resolve().parents[1] / "src")
                base = str(Path(args.against).resolve() / "src")
                starts += [("this tree", _from_tree(here)), ("base tree", _from_tree(base))]
            for how, argv in starts:
                name = f"claude 2-command line, {rows} rows [{how}]"
                commands[name] = _hook(argv, repo, "claude", pair)
                if how == "base tree":
                    continue  # timed for comparison; the bars are this tree's
                if rows == BIG:
                    click_bars[name] = CLICK_BAR
                if rows == SMALL:
                    bare_bars[name] = BARE_BAR
            if rows == SMALL:
                floor_git = [sys.executable, "-I", "-c", FLOOR_GIT_CODE]
                commands[FLOOR_GIT] = proc(floor_git, repo, pair)
            commands[f"claude Bash, {rows} rows [script]"] = _hook(REHYDRATE, repo, "claude", bash)
            commands[f"codex Bash, {rows} rows [-I -m]"] = _hook(MODULE, repo, "codex", bash)
        write = _event(repo, "Write", {"file_path": "notes.txt", "content": "x\n"})
        patch = _event(repo, "apply_patch", {})
        for name, runtime, argv, stdin in [
            ("claude Write [script]", "claude", REHYDRATE, write),
            ("codex apply_patch [-I -m]", "codex", MODULE, patch),
        ]:  # no shell command: no ledger read
            commands[name] = _hook(argv, repo, runtime, stdin)
            click_bars[name] = CLICK_BAR
        if not args.against:  # the line .claude/settings.json holds, as Claude Code runs it
            from rehydrate.launchline import PYTHON_KEY, portable

            subprocess.run(["git", "config", PYTHON_KEY, sys.executable], cwd=repo, check=True)
            line = ["sh", "-c", portable("hook", "claude", "pre-tool-use")]
            stdin = _event(repo, "Bash", {"command": PAIR})
            commands[f"claude 2-command line, {rows} rows [portable line]"] = proc(
                line, repo, stdin
            )
        medians = interleaved(commands, rounds=args.rounds)
        ok = report("Agent hooks per call, against import click", medians, CLICK, click_bars)
        ok = report("The same, against the bare interpreter", medians, PASS, bare_bars) and ok
        if FLOOR_GIT in medians:
            report("The same, against the least a Python hook asking git pays", medians, FLOOR_GIT)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
