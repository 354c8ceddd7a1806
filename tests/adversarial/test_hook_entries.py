"""Every hook entry point, as ``agents.runtimes.RUNTIMES`` lists them (issue 27 item 5).

1. A hold-out check of the failure-ledger layouts docs/ledgers.md allows (a heading and
   prose above the table, CRLF, columns in another order) in every runtime's pre-tool
   hook, through the real ``rehydrate hook <runtime> <event>`` CLI: the repeated failed
   command is denied naming its row, its twin and an unrelated command are allowed; no
   exit 70, no internal error (issue 27: with a heading above the table, every runtime
   denied every command with ``AttributeError``).
2. Hostile stdin to every runtime x event: empty, not JSON, a JSON array or scalar, more
   than the 8 MiB read limit, a megabyte-long command, wrong-typed fields, NUL bytes,
   invalid UTF-8. None may give a traceback or an internal error (on stderr or in the
   stdout JSON) or exit 70. Input that cannot be parsed is let through with a message
   saying so (CONTRACT §4: "Hook inputs from an agent runtime that cannot be parsed are
   let through with a message on stderr"); a ledger that cannot be read is what denies.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adversarial.test_agent_boundary import OTHER, REPEAT
from adversarial.test_agent_boundary import RUNTIMES as ENTRIES
from conftest import Result, commit, git, run, run_subprocess, scaffold
from rehydrate.agents.runtimes import RUNTIMES

SAMPLES = Path(__file__).resolve().parents[2] / "docs" / "integrations" / "samples"
FAILURES = "docs/Failed_Attempts.md"
ROW = "| F-001 | `go test -tags=musl ./...` | crashes in the dynamic linker | default tags |"
TAIL = ["", "## Retired", "", "| ID | Reason | Date | Replaced by |", "|---|---|---|---|", ""]
HEADING = [
    "---",
    "ledger: failures",
    "---",
    "# Failed attempts",
    "",
    "Prose above the table, as docs/ledgers.md allows, with `code` and a | pipe.",
    "",
    "## Active",
    "",
    "More prose between the heading and the table.",
    "",
]
LAYOUTS = {
    "heading-above": (
        [*HEADING, "| ID | Tried | Failure | Workaround |", "|---|---|---|---|", ROW],
        "\n",
    ),
    "heading-above-crlf": (
        [*HEADING, "| ID | Tried | Failure | Workaround |", "|---|---|---|---|", ROW],
        "\r\n",
    ),
    "columns-reordered": (
        [
            *HEADING,
            "| Workaround | id | Failure | TRIED | Owner |",
            "|---|---|---|---|---|",
            "| default tags | F-001 | crashes | `go test -tags=musl ./...` | ana |",
        ],
        "\n",
    ),
}
PRE_TOOL = {name: entry.hook for name, entry in ENTRIES.items()}


def _with_hooks() -> list[str]:
    return sorted(name for name, info in RUNTIMES.items() if info.hooks is not None)


def _every_event() -> list[tuple[str, str]]:
    return [
        (name, event)
        for name in _with_hooks()
        for event in RUNTIMES[name].hooks.events  # type: ignore[union-attr]
    ]


def test_every_runtime_with_hooks_has_its_pre_tool_entry_here() -> None:
    """A runtime added to RUNTIMES is held out too: its pre-tool entry must be known to
    tests/adversarial/test_agent_boundary.py (how it is called, how it says no)."""
    for name in _with_hooks():
        assert name in PRE_TOOL, f"{name}: add its pre-tool Entry to test_agent_boundary.py"
        assert PRE_TOOL[name] in RUNTIMES[name].hooks.events, name  # type: ignore[union-attr]


def _texts(result: Result) -> Iterator[str]:
    """stdout, stderr, and every string of stdout's JSON decoded."""
    yield result.out
    yield result.err
    try:
        stack: list[object] = [json.loads(result.out)]
    except ValueError:
        return
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            stack += [*value.keys(), *value.values()]
        elif isinstance(value, list):
            stack += value


def _no_crash(result: Result, what: object) -> None:
    assert result.code != 70, (what, result)
    assert result.code in (0, 2), (what, result)
    for text in _texts(result):
        assert "Traceback" not in text and "internal error" not in text, (what, text[:2000])


def _denial(runtime: str, result: Result) -> str | None:
    out = json.loads(result.out) if result.out.strip().startswith("{") else {}
    reason = ENTRIES[runtime].denied(result.code, out)
    return result.err if reason is not None and runtime == "kiro" else reason


def _opted_in(path: Path, ledger: bytes | None = None) -> Path:
    path.mkdir()
    git(path, "init", "-q")
    scaffold(path)
    if ledger is not None:
        (path / FAILURES).write_bytes(ledger)
    commit(path, "ledgers")
    return path


def _ledger(layout: str) -> bytes:
    lines, newline = LAYOUTS[layout]
    return newline.join([*lines, *TAIL]).encode()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("runtime", _with_hooks())
def test_the_failure_ledger_holds_out_in_every_pre_tool_hook(
    tmp_path: Path, runtime: str, layout: str
) -> None:
    repo = _opted_in(tmp_path / "repo", _ledger(layout))
    args = ("hook", runtime, PRE_TOOL[runtime])
    for attempt in ("parsed in full", "read again"):
        for command, denied in ((REPEAT, True), (OTHER, False), ("ls -la", False)):
            raw = json.dumps(ENTRIES[runtime].event(command, str(repo), "s-1"))
            result = run(repo, *args, input=raw.encode())
            _no_crash(result, (attempt, command))
            reason = _denial(runtime, result)
            if denied:
                assert reason is not None and "F-001" in reason, (attempt, result)
            else:
                assert reason is None, (attempt, command, result)


@pytest.mark.parametrize("runtime", _with_hooks())
def test_the_hold_out_as_the_installed_process(tmp_path: Path, runtime: str) -> None:
    repo = _opted_in(tmp_path / "repo", _ledger("heading-above"))
    args = ("hook", runtime, PRE_TOOL[runtime])
    for command, denied in ((REPEAT, True), (OTHER, False)):
        raw = json.dumps(ENTRIES[runtime].event(command, str(repo), "s-1"))
        result = run_subprocess(repo, *args, input=raw)
        _no_crash(result, command)
        assert (_denial(runtime, result) is not None) is denied, (command, result)


# what Claude Code's events carry besides the pre-tool shape (it has no samples folder)
CLAUDE_FIELDS = {
    "error": "exit status 1",
    "source": "startup",
    "trigger": "manual",
    "custom_instructions": "",
    "compact_summary": "summary",
    "stop_hook_active": False,
    "agent_type": "general",
}


def _event_of(runtime: str, event: str, where: Path) -> dict[str, object]:
    """A well-formed event for ``event``: the documented sample, else the pre-tool shape."""
    sample = SAMPLES / runtime / f"{event}.json"
    if sample.exists():
        data: dict[str, object] = json.loads(sample.read_text(encoding="utf-8"))
        return data
    good = ENTRIES[runtime].event("ls", str(where), "s-1")
    return {**good, **CLAUDE_FIELDS} if runtime == "claude" else good


def _one_leaf(value: object, path: tuple[object, ...], new: object) -> object:
    """``value`` with the leaf at ``path`` replaced by ``new``."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: _one_leaf(v, rest, new) if k == head else v for k, v in value.items()}
    assert isinstance(value, list)
    return [_one_leaf(v, rest, new) if i == head else v for i, v in enumerate(value)]


def _string_leaves(value: object, path: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _string_leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _string_leaves(item, (*path, index))
    elif isinstance(value, str):
        yield path


def _retyped(value: object, leaf: object) -> object:
    """``value`` with every string, number and boolean inside replaced by ``leaf``."""
    if isinstance(value, dict):
        return {k: _retyped(v, leaf) for k, v in value.items()}
    if isinstance(value, list):
        return [_retyped(v, leaf) for v in value]
    return leaf


def _hostile(runtime: str, event: str, where: Path) -> Iterator[tuple[str, bytes, bool]]:
    """(name, stdin bytes, whether the input cannot be parsed as an event object)."""
    good = _event_of(runtime, event, where)
    yield "empty", b"", True
    yield "blank", b" \n\t\n", True
    yield "not-json", b"{not json", True
    yield "array", b'[{"tool_name": "Bash"}]', True
    yield "scalar", b"42", True
    yield "null", b"null", True
    yield "over-the-read-limit", b'{"a": "' + b"x" * (8 * 1024 * 1024) + b'"}', True
    yield "nul-bytes-raw", b"\x00" * 64, True
    yield "invalid-utf8-raw", b"\xff\xfe\x80{\xc3(", True
    yield "deep", b'{"a": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", True
    for leaf in (5, None, [], {}, True, "\x00"):
        yield f"every-field-{type(leaf).__name__}", json.dumps(_retyped(good, leaf)).encode(), False
    for key in good:
        for leaf in ([1, 2], {"x": {"y": 1}}, 1e308, -1):
            name = f"{key}-{type(leaf).__name__}"
            yield name, json.dumps({**good, key: leaf}).encode(), False
    text = json.dumps(good)
    yield (
        "nul-in-strings",
        text.replace('"ls', '"l\\u0000s').replace('": "', '": "\\u0000').encode(),
        False,
    )
    yield "invalid-utf8-in-strings", text.encode().replace(b'": "', b'": "\xff\xc3('), False
    yield "lone-surrogate", text.replace('": "', '": "\\ud800').encode(), False
    for path in _string_leaves(good):  # one field at a time: the others keep it going
        leaf = good
        for step in path:
            leaf = leaf[step]  # type: ignore[index]
        for odd in ("\ud800", "\x00"):  # \udcff: the invalid-UTF-8 cases above
            name = f"{'.'.join(map(str, path))}-{odd!r}"
            yield name, json.dumps(_one_leaf(good, path, f"{leaf}{odd}")).encode(), False
    if event == PRE_TOOL[runtime]:
        long = ENTRIES[runtime].event("echo " + "a" * (1024 * 1024), str(where), "s-1")
        yield "megabyte-command", json.dumps(long).encode(), False


@pytest.mark.parametrize(("runtime", "event"), _every_event())
def test_hostile_stdin_never_crashes_a_hook(tmp_path: Path, runtime: str, event: str) -> None:
    repo = _opted_in(tmp_path / "repo")
    args = ("hook", runtime, event)
    for name, data, unparseable in _hostile(runtime, event, repo):
        result = run(repo, *args, input=data)
        _no_crash(result, name)
        if event == PRE_TOOL[runtime] and unparseable:
            # CONTRACT §4: let through, with a message saying the input was not an event
            assert _denial(runtime, result) is None, (name, result)
            assert "hook input is not" in result.out + result.err, (name, result)


@pytest.mark.parametrize("runtime", _with_hooks())
def test_a_pre_tool_hook_denies_on_an_unreadable_ledger_whatever_the_input(
    tmp_path: Path, runtime: str
) -> None:
    """The fail-closed side: a ledger that cannot be read denies the shell command (and a
    well-formed event for another command is denied too), naming the file."""
    repo = _opted_in(tmp_path / "repo")
    (repo / FAILURES).write_bytes(b"---\nledger: failures\n---\n| ID | Tried |\n|---|\n| x |\n")
    args = ("hook", runtime, PRE_TOOL[runtime])
    for command in ("ls", OTHER):
        raw = json.dumps(ENTRIES[runtime].event(command, str(repo), "s-1"))
        result = run(repo, *args, input=raw.encode())
        _no_crash(result, command)
        reason = _denial(runtime, result)
        assert reason is not None and "Failed_Attempts.md" in reason, (command, result)


@pytest.mark.parametrize("runtime", _with_hooks())
def test_hostile_bytes_to_the_installed_process(tmp_path: Path, runtime: str) -> None:
    """The real process (``python -m rehydrate``: the fast route, not click) reads the
    same bytes: invalid UTF-8, NUL, a lone surrogate in the command."""
    import subprocess

    repo = _opted_in(tmp_path / "repo")
    command = json.dumps(ENTRIES[runtime].event("\ud800ls \udcff", str(repo), "\ud800"))
    for data in (b"\xff\xfe\x80{\xc3(", b"\x00" * 16, command.encode()):
        proc = subprocess.run(
            [sys.executable, "-m", "rehydrate", "hook", runtime, PRE_TOOL[runtime]],
            cwd=repo,
            input=data,
            capture_output=True,
        )
        result = Result(
            proc.returncode,
            proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"),
        )
        _no_crash(result, data[:20])
        assert _denial(runtime, result) is None, (data[:20], result)
