"""Hostile input (issue 13 item 1): 1 MB pathological lines, each command under 2 s.

For every token (``pwd``, ``token``, ``|``, backticks, ``AKIA``, ...) a line of that
token repeated to ``--size`` bytes is placed, one placement per repository, in the
Spec's prose, in a constraint's table cell, in a failure row, in the latest commit's
subject and in a committed file's diff (so the prompt's redactor sees it). Then
``guard --staged`` (with the line staged again, changed), ``prompt``, ``state`` and
``verify`` (a summary holding the line too) are timed, one real process each, and so are
``check-command`` and the Claude Code PreToolUse hook with the line as the command. Any exit
code is fine except 70 (a crash) — a hostile ledger may well be refused — but every
command must finish within ``--bar`` seconds (default 2).

This is a bar, not a ratio: a super-linear regular expression turns 1 MB into minutes.

Usage: python benchmarks/bench_hostile.py [--size 1000000] [--bar 2] [--tokens pwd,token]
       [--placements spec_prose,diff] [--commands prompt,state]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _harness import GIT_ENV, REHYDRATE, git  # noqa: E402

TOKENS: dict[str, str] = {
    "pwd": "pwd",
    "token": "token",
    "password=": "password=",
    "hash": "#",
    "space": " ",
    "tab": "\t",
    "pipe": "|",
    "escaped-pipe": "\\|",
    "backtick": "`",
    "tilde": "~",
    "html-comment": "<!--",
    "dash": "-",
    "star": "*",
    "underscore": "_",
    "bracket": "[",
    "paren": "(",
    "AKIA": "AKIA",
    "ghp_": "ghp_",
    "base64": "QUJDRA==",
    "equals": "=",
    "colon": ":",
    "key": "key",
    "secret": "secret",
    "api_key=": "api_key=",
    "eyJ": "eyJ",
    "pem": "-----BEGIN PRIVATE KEY-----",
    "url": "://a:",
    "quote": '"',
    "backslash": "\\",
    "authorization": "Authorization: ",
    "mysql": "mysql -p",
    "glpat": "glpat-",
    "pwd-quote": 'pwd="',
    "pwd-call": "pwd=a(",
    "cr": "\r",
    "ls": "\u2028",
    "ledger-data": "ledger-data-",
    "lt": "<",
    "heading": "## ",
    "bullet": "- ",
    # the shell grammar's slow spots (issue 15 item 2): error recovery over these is
    # quadratic in tree-sitter-bash, so the command check bounds what it parses
    "pipe-a": "a|",
    "close-paren": ")",
    "dollar-paren": "$(",
    "heredoc": "<<A\n",
    "bash-c": 'bash -c "',
    "eval": "eval ",
    "semicolon-a": "a;",
    "array": "x=(",
    "arith": "$[",
    "newline": "\n",
    # the readers of stop 38: aliases in force from the next line, calls reading a body
    # again with their arguments, eval texts given the line's variables
    "alias": "alias a='a a'\na ",
    "call": 'f() { f "$@"; }; f x ',
    "eval-variable": "A=1; eval '$A'; ",
    # ... and of stop 39: prefixes before a group (each pass a whole parse), aliases whose
    # values end in a blank (the next word read as one), shift, slices, read and printf -v
    "time-group": "time { ",
    "negated-group": "! { ",
    "alias-blank": "alias a='a ' b='a '\na b ",
    "shift": 'f() { shift; f "$@"; }; f x ',
    "slice": 'set -- a b; "${@:1}" ',
    "read": "read -r a b <<< 'a b'; $a ",
    "printf-v": "printf -v a '%s %s' a b; $a ",
}
# Shaped lines: a prefix, a repeated middle, a suffix (the shapes that made an anchored
# per-line pattern quadratic: a pipe-less delimiter row, a front-matter value, a title).
SHAPED: dict[str, tuple[str, str, str]] = {
    "delimiter-spaces": ("-|-", " ", "x"),
    "heading-spaces": ("## a", " ", "b"),
    "title-spaces": ("# t", " ", "\nx"),
    "pwd-spaces": ("pwd", " ", "x"),
    "backticks-a": ("", "`a", ""),
    "digits": ("F-", "1", "x"),
}
TOKENS.update({name: "\0".join(parts) for name, parts in SHAPED.items()})

SPEC = (
    "---\nledger: spec\n---\n# Spec\n\n## Constraints\n\n| ID | Rule | Level | Source |\n"
    "|---|---|---|---|\n| C-001 | {cell} | MUST | team |\n\n## Notes\n\n{prose}\n"
)
FAILURES = (
    "---\nledger: failures\n---\n# Failed attempts\n\n"
    "| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n"
    "| F-001 | {tried} | it broke | use the other flag |\n"
)


def _line(token: str, size: int) -> str:
    if "\0" in token:  # shaped: prefix, repeated middle, suffix
        prefix, middle, suffix = token.split("\0")
        return prefix + middle * (size // len(middle.encode())) + suffix
    return (token * (size // max(1, len(token.encode())) + 1))[:size]


def _ledgers(repo: Path, placement: str, line: str) -> None:
    spec = SPEC.format(
        cell=line if placement == "table_cell" else "keep it simple",
        prose=line if placement == "spec_prose" else "Some prose.",
    )
    failures = FAILURES.format(tried=line if placement == "failure_row" else "make build")
    (repo / "docs" / "Spec.md").write_text(spec, encoding="utf-8", newline="")
    (repo / "docs" / "Failed_Attempts.md").write_text(failures, encoding="utf-8", newline="")


def build(root: Path, token: str, placement: str, size: int) -> Path:
    """A repository whose HEAD holds the line in ``placement``, and the line staged again
    (changed) for ``guard --staged``."""
    repo = root / f"{placement}"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    subprocess.run([*REHYDRATE, "init", "--no-hook"], cwd=repo, check=False, capture_output=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "init")
    line = _line(token, size)
    _ledgers(repo, placement, line)
    if placement == "diff":
        (repo / "data.txt").write_text(line + "\n", encoding="utf-8", newline="")
    message = repo.parent / f"{placement}.msg"
    message.write_text(
        line if placement == "commit_subject" else "hostile", encoding="utf-8", newline=""
    )
    git(repo, "add", "-A")
    git(
        repo,
        "commit",
        "-q",
        "--no-verify",
        "--allow-empty-message",
        "--cleanup=verbatim",
        "-F",
        str(message),
    )
    _ledgers(repo, placement, line[::-1] + "x")  # the staged change guard --staged judges
    if placement in ("diff", "commit_subject"):
        (repo / "data.txt").write_text(line + "y\n", encoding="utf-8", newline="")
    git(repo, "add", "-A")
    try:
        manifest = subprocess.run(
            [*REHYDRATE, "manifest", "--fenced"], cwd=repo, capture_output=True, timeout=60
        ).stdout
    except subprocess.TimeoutExpired:
        manifest = b"(rehydrate manifest did not finish in 60 s)\n"
    (repo / "summary.md").write_bytes(b"# Summary\n\n" + line.encode() + b"\n\n" + manifest)
    return repo


COMMANDS: dict[str, list[str]] = {
    "guard": ["guard", "--staged"],
    "prompt": ["prompt"],
    "state": ["state"],
    "verify": ["verify", "summary.md"],
    # the line is also the command checked (on stdin: one argument may not hold 1 MB)
    "check-command": ["check-command", "--stdin-json"],
    "pre-tool-use": ["hook", "claude", "pre-tool-use"],
}
_ON_STDIN = ("check-command", "pre-tool-use")


def timed(
    argv: list[str], cwd: Path, limit: float, stdin: bytes | None = None
) -> tuple[float, int | None]:
    """Seconds and exit code (None: killed after ``limit`` seconds)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            input=stdin,
            capture_output=True,
            timeout=limit,
            env={**os.environ, **GIT_ENV},
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, None
    return time.perf_counter() - start, proc.returncode


def _event(command: str) -> bytes:
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash"}
    return json.dumps({**event, "tool_input": {"command": command}}).encode()


def run(
    size: int,
    bar: float,
    tokens: list[str],
    placements: list[str],
    commands: list[str],
    echo: Callable[[str], None] = print,
    verbose: bool = False,
) -> list[str]:
    """Time every (token, placement, command); return the misses (empty: all under bar)."""
    misses: list[str] = []
    slowest = (0.0, "")
    for name in tokens:
        root = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
        try:
            worst = []
            for placement in placements:
                repo = build(root, TOKENS[name], placement, size)
                event = _event(_line(TOKENS[name], size))
                for command in commands:
                    stdin = event if command in _ON_STDIN else None
                    seconds, code = timed([*REHYDRATE, *COMMANDS[command]], repo, bar * 5, stdin)
                    label = f"{name} / {placement} / {command}"
                    slowest = max(slowest, (seconds, label))
                    if code is None or code == 70 or seconds > bar:
                        misses.append(f"{label}: {seconds:.2f} s, exit {code}")
                    worst.append(seconds)
                    if verbose:
                        echo(f"    {label:<40} {seconds:5.2f} s  exit {code}")
            echo(f"  {name:<14} slowest {max(worst):5.2f} s over {len(worst)} runs")
        finally:
            shutil.rmtree(root, ignore_errors=True)
    echo(f"slowest: {slowest[1]} {slowest[0]:.2f} s (bar {bar:g} s)")
    return misses


PLACEMENTS = ("spec_prose", "table_cell", "failure_row", "commit_subject", "diff")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--bar", type=float, default=2.0)
    parser.add_argument("--tokens", default=",".join(TOKENS))
    parser.add_argument("--placements", default=",".join(PLACEMENTS))
    parser.add_argument("--commands", default=",".join(COMMANDS))
    parser.add_argument("--verbose", action="store_true", help="print every run's time")
    args = parser.parse_args()
    print(f"{args.size}-byte lines, bar {args.bar:g} s per command")
    misses = run(
        args.size,
        args.bar,
        args.tokens.split(","),
        args.placements.split(","),
        args.commands.split(","),
        verbose=args.verbose,
    )
    for miss in misses:
        print("  MISSED", miss)
    print("all under the bar" if not misses else f"{len(misses)} MISSED")
    return 1 if misses else 0


if __name__ == "__main__":
    raise SystemExit(main())
