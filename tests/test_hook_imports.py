"""What the pre-tool hook imports, started as the installers start it (issue 28 item 5):
the hook's cost is its start-up, so a module on its path is paid on every tool call.
Pinned here, from outside (``python -X importtime``), so that a gain cannot silently
regress: no ``dataclasses`` (it imports ``inspect``, ``ast``, ``dis``, ``tokenize``: ~4 ms
of every call), no OpenSSL (``_hashlib``, ~3 ms: the blob ids and a session's file name
come from ``digests``), no ``subprocess`` (git starts through ``git.spawn``), and no
tree-sitter for a line of plain words and operators, and no ``typing`` (``typecheck.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# on no path of the hook; `subprocess` (with `threading`, `selectors`, `locale`: ~4 ms)
# because git starts through `git/spawn`; `typing` (with `contextlib`: ~3 ms) because what
# runs reads its names from `typecheck` and `records`
NEVER = ("dataclasses", "inspect", "_hashlib", "subprocess", "threading", "selectors", "typing")
GRAMMAR = ("tree_sitter", "tree_sitter_bash")  # for text that is not plain words only


def _imported(ledger_repo: Path, tool: str, tool_input: dict[str, object]) -> tuple[str, list[str]]:
    """The hook's stdout and the modules it imported, on ledgers parsed before (the first
    call parses them, which is not the path an agent pays on every call)."""
    raw = json.dumps(
        {"session_id": "s", "cwd": str(ledger_repo), "tool_name": tool, "tool_input": tool_input}
    )
    argv = [sys.executable, "-X", "importtime", "-I", "-m", "rehydrate"]
    argv += ["hook", "claude", "pre-tool-use"]
    for _ in range(2):
        proc = subprocess.run(argv, cwd=ledger_repo, input=raw, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    return proc.stdout, [
        x.rsplit("|", 1)[-1].strip() for x in lines if x.startswith("import time:")
    ]


def test_an_allowed_plain_command_imports_no_dataclasses_and_no_grammar(ledger_repo: Path) -> None:
    out, imported = _imported(ledger_repo, "Bash", {"command": "npm run lint"})
    assert out == ""  # allowed, nothing said
    assert "rehydrate.agents.tools" in imported  # the check ran
    assert "rehydrate.agents.commandline" in imported  # ... and read the command
    assert not [m for m in imported if m in NEVER or m.split(".")[0] in GRAMMAR]


def test_a_two_command_line_of_plain_words_loads_no_grammar(ledger_repo: Path) -> None:
    out, imported = _imported(ledger_repo, "Bash", {"command": "npm run lint && make test"})
    assert out == ""
    assert "rehydrate.agents.commandline" in imported
    assert not [m for m in imported if m in NEVER or m.split(".")[0] in GRAMMAR]


def test_a_quoted_line_loads_the_grammar_but_no_dataclasses(ledger_repo: Path) -> None:
    out, imported = _imported(ledger_repo, "Bash", {"command": "npm run lint -- 'src' && make"})
    assert out == ""
    assert "tree_sitter" in imported  # quotes: read by the grammar
    # ... whose package imports typing itself, after ours are all in
    assert imported.index("typing") > imported.index("rehydrate.agents.readable")
    assert not [m for m in imported if m in NEVER and m != "typing"]


def test_a_refused_repeat_imports_no_dataclasses(ledger_repo: Path) -> None:
    out, imported = _imported(ledger_repo, "Bash", {"command": "go test -tags=musl ./..."})
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert not [m for m in imported if m in NEVER]


def test_a_call_that_is_no_shell_command_imports_no_dataclasses(ledger_repo: Path) -> None:
    out, imported = _imported(ledger_repo, "Write", {"file_path": "notes.txt", "content": "x\n"})
    assert out == ""
    assert not [m for m in imported if m in NEVER or m.split(".")[0] in GRAMMAR]


def test_a_call_that_is_no_shell_command_imports_no_command_check(ledger_repo: Path) -> None:
    """The tool is asked about before the command is read: a Write pays for no reader of
    command lines and no failure table."""
    out, imported = _imported(ledger_repo, "Write", {"file_path": "notes.txt", "content": "x\n"})
    assert out == ""
    assert "rehydrate.agents.tools" in imported  # the hook ran the tool-call check
    check = ("commands", "commandline", "matching", "invocation", "failfile", "shell")
    assert not [m for m in imported if m in {f"rehydrate.agents.{c}" for c in check}]


# Imports each module named in argv with ``re._compile`` counted, and prints, as JSON,
# the patterns compiled by each module's own top-level code (the innermost ``<module>``
# frame: a pattern compiled by a stdlib module rehydrate imports is that module's).
_COUNT_COMPILES = """
import importlib, json, re, sys

compiled = {}
real = re._compile


def counted(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    if frame is not None:
        name = frame.f_globals.get("__name__", "?")
        compiled.setdefault(name, []).append(str(pattern)[:60])
    return real(pattern, flags)


re._compile = counted
for module in sys.argv[1:]:
    importlib.import_module(module)
twin = "import re\\n_TWIN = re.compile('twin')\\n"  # the count must see a module-level one
exec(compile(twin, "twin.py", "exec"), {"__name__": "rehydrate._twin"})
print(json.dumps(compiled))
"""


def test_no_module_on_the_hook_path_compiles_a_pattern_at_import(ledger_repo: Path) -> None:
    """Every module the hook imports keeps its patterns as text, compiled on first use
    (``re.match(_NAME, text)``): an allowed call compiled 45 patterns at import (~12 ms),
    and used 2 of them (issue 28 item 5). The modules are those the real hook imports on
    an allowed command, a refused repeat (which redacts) and a call that is no command."""
    calls = [
        ("Bash", {"command": "npm run lint"}),
        ("Bash", {"command": "npm run lint -- 'src' && make test"}),
        ("Bash", {"command": "go test -tags=musl ./..."}),
        ("Write", {"file_path": "notes.txt", "content": "x\n"}),
    ]
    modules: dict[str, None] = {}
    for tool, tool_input in calls:
        modules.update(dict.fromkeys(_imported(ledger_repo, tool, tool_input)[1]))
    ours = [m for m in modules if m == "rehydrate" or m.startswith("rehydrate.")]
    assert {"rehydrate.hookfast", "rehydrate.agents.commandline", "rehydrate.redact"} <= {*ours}
    argv = [sys.executable, "-I", "-c", _COUNT_COMPILES, *ours]
    proc = subprocess.run(argv, cwd=ledger_repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    compiled = json.loads(proc.stdout)
    assert compiled.pop("rehydrate._twin") == ["twin"]
    ours_compiled = {m: p for m, p in compiled.items() if m.split(".")[0] == "rehydrate"}
    assert ours_compiled == {}


def test_no_record_on_the_hook_path_compiles_its_annotations(ledger_repo: Path) -> None:
    """Counted from outside: every module the hook imports on an allowed two-command line,
    imported with ``builtins.compile`` wrapped; calls made from ``typing`` (ForwardRef)
    are the cost this module removes (169 on 66760d5, ~5 ms of every call). A twin class
    built with ``typing.NamedTuple`` shows the count sees them."""
    _, imported = _imported(ledger_repo, "Bash", {"command": "npm run lint && make test"})
    ours = [m for m in imported if m == "rehydrate" or m.startswith("rehydrate.")]
    assert "rehydrate.agents.commandline" in ours
    count = """
import builtins, importlib, json, sys
calls = {"ours": 0, "twin": 0}
real = builtins.compile
where = "ours"
def counted(*args, **kwargs):
    if sys._getframe(1).f_globals.get("__name__") == "typing":
        calls[where] += 1
    return real(*args, **kwargs)
builtins.compile = counted
for module in sys.argv[1:]:
    importlib.import_module(module)
where = "twin"
exec("from __future__ import annotations\\nimport typing\\n"
     "class T(typing.NamedTuple):\\n    a: int\\n    b: str\\n", {"__name__": "twin"})
print(json.dumps(calls))
"""
    proc = subprocess.run(
        [sys.executable, "-I", "-c", count, *ours], cwd=ledger_repo, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"ours": 0, "twin": 2}
