"""``rehydrate hook RUNTIME EVENT`` without click (hookfast.py): never imports click, and
answers byte for byte as the click command does, on every runtime × event."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from conftest import commit, git, write
from rehydrate import hookfast
from rehydrate.cli import main
from rehydrate.cli.hook import SUBCOMMANDS

CLICK_PATH = "import sys; from rehydrate.cli import main; sys.exit(main(sys.argv[1:]))"
FAILED = "go test -tags=musl ./..."  # F-001 of the example ledgers
# the shell tool's name per runtime (every other field is read under one name only)
NOT_EVENTS = {"codex": {"trust"}}  # a group's subcommands that are no hook event
SHELL = {"claude": "Bash", "codex": "Bash", "gemini": "run_shell_command", "kiro": "execute_bash"}


def _click_events() -> dict[str, set[str]]:
    """Every runtime's event subcommands as the click groups have them."""
    found: dict[str, set[str]] = {}
    ctx = click.Context(click.Group())
    for name, target in SUBCOMMANDS.items():
        module, _, attr = target.partition(":")
        made = getattr(__import__(f"rehydrate.cli.{module}", fromlist=[attr]), attr)
        # a command, or (as cli.LazyGroup makes it) a function making the group of a name
        group = made if isinstance(made, click.Command) else made(name)
        if isinstance(group, click.Group):
            found[name] = set(group.list_commands(ctx)) - NOT_EVENTS.get(name, set())
    return found


CLICK_EVENTS = _click_events()
CASES = sorted((runtime, event) for runtime, names in CLICK_EVENTS.items() for event in names)


def test_the_fast_table_is_the_click_groups() -> None:
    """No second list: what the fast path answers is exactly what the click groups offer."""
    assert {runtime: set(hookfast.events(runtime)) for runtime in CLICK_EVENTS} == CLICK_EVENTS
    assert hookfast.events("aider") == frozenset()  # no hooks: click says so
    assert hookfast.events("../claude") == frozenset()
    for name in ("Claude", "_claude", "core", "tools", "runtimes", "claude_install"):
        assert hookfast.events(name) == frozenset(), name


def test_every_module_answering_hooks_is_a_runtimes() -> None:
    """The fast path finds an adapter by its runtime's name: a module of agents/ with a
    ``run_hook`` must be a ``RUNTIMES`` row's, which the click groups are built from."""
    import pkgutil

    import rehydrate.agents
    from rehydrate.agents.runtimes import RUNTIMES

    names = [m.name for m in pkgutil.iter_modules(rehydrate.agents.__path__)]
    adapters = {n for n in names if hookfast.events(n)}
    assert adapters == set(CLICK_EVENTS)
    assert adapters <= set(RUNTIMES)


@pytest.mark.parametrize(
    "argv",
    [
        ["hook", "claude", "pre-tool-use", "--help"],
        ["hook", "claude", "--help"],
        ["hook", "claude", "no-such-event"],
        ["hook", "codex", "trust"],
        ["hook", "Claude", "pre-tool-use"],
        ["hook", "aider", "pre-tool-use"],
        ["hook", "install"],
        ["check-command", "hook", "claude"],
        ["hook", "claude", "pre-tool-use", "extra"],
    ],
)
def test_anything_else_goes_to_click(argv: list[str]) -> None:
    assert hookfast.route(argv) is None


def _shell_event(runtime: str, repo: Path, command: str) -> dict[str, object]:
    """One event every adapter reads as a shell call of ``command`` in ``repo``."""
    return {
        "session_id": "s1",
        "sessionId": "s1",
        "hook_event_name": "PreToolUse",
        "cwd": str(repo),
        "workspace_roots": [str(repo)],
        "tool_name": SHELL.get(runtime, "Bash"),
        "tool_input": {"command": command},
        "toolName": "bash",
        "toolArgs": {"command": command},
        "tool": "bash",
        "command": command,
        "exit": 1,
        "preToolUse": {"toolName": "execute_command", "parameters": {"command": command}},
        "stop_hook_active": False,
    }


def _fresh(repo: Path) -> None:
    """The repositories (and HOME) as they were first made: hooks keep state (captured
    failures, a held stop), so each path starts from the same bytes on disk."""
    root = repo.parent
    shutil.rmtree(root)
    shutil.copytree(root.parent / "pristine", root, symlinks=True)


def _both(repo: Path, argv: list[str], stdin: bytes | None) -> tuple[object, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "REHYDRATE_"))}
    env["HOME"] = str(repo.parent / "home")
    kwargs: dict[str, object] = {"cwd": repo, "env": env, "capture_output": True}
    if stdin is None:
        kwargs["stdin"] = subprocess.DEVNULL
    else:
        kwargs["input"] = stdin
    _fresh(repo)
    fast = subprocess.run([sys.executable, "-I", "-m", "rehydrate", *argv], **kwargs)  # type: ignore[call-overload]
    # the click path in the same process shape: entry's tail, cli.main for the dispatch
    _fresh(repo)
    slow = subprocess.run([sys.executable, "-I", "-c", CLICK_PATH, *argv], **kwargs)  # type: ignore[call-overload]
    return (fast.returncode, fast.stdout, fast.stderr), (slow.returncode, slow.stdout, slow.stderr)


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An opted-in repository with the example ledgers (F-001 recorded) and one that is not."""
    from conftest import scaffold

    root = tmp_path_factory.mktemp("hookfast") / "work"
    root.mkdir()
    opted = root / "opted"
    opted.mkdir()
    git(opted, "init", "-q")
    git(opted, "config", "user.email", "t@example.com")
    git(opted, "config", "user.name", "T")
    scaffold(opted)
    commit(opted, "init ledgers")
    plain = root / "plain"
    plain.mkdir()
    git(plain, "init", "-q")
    write(plain, "README.md", "nothing here\n")
    git(plain, "add", "-A")
    git(plain, "-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "-m", "x")
    (root / "home").mkdir()
    shutil.copytree(root, root.parent / "pristine", symlinks=True)
    return {"opted": opted, "plain": plain}


INPUTS = ("allowed", "failed", "broken", "empty", "plain")


@pytest.mark.parametrize(("runtime", "event"), CASES)
def test_fast_and_click_paths_answer_byte_for_byte(
    repos: dict[str, Path], runtime: str, event: str
) -> None:
    for kind in INPUTS:
        repo = repos["plain" if kind == "plain" else "opted"]
        command = FAILED if kind in ("failed", "plain") else "make test && ls -la"
        body = json.dumps(_shell_event(runtime, repo, command)).encode()
        stdin = {"broken": b'{"tool_input": {"command": ', "empty": b""}.get(kind, body)
        fast, slow = _both(repo, ["hook", runtime, event], stdin)
        assert fast == slow, (runtime, event, kind)


def test_fast_path_refuses_the_failed_attempt_as_click_does(repos: dict[str, Path]) -> None:
    """Not two identical no-ops: the repeated command is denied on both paths."""
    repo = repos["opted"]
    stdin = json.dumps(_shell_event("claude", repo, FAILED)).encode()
    fast, slow = _both(repo, ["hook", "claude", "pre-tool-use"], stdin)
    assert fast == slow
    answer = json.loads(fast[1])  # type: ignore[index]
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "F-001" in answer["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.parametrize(
    "argv",
    [
        ["hook", "claude", "no-such-event"],
        ["hook", "claude", "pre-tool-use", "--help"],
        ["hook", "gemini", "before-tool", "extra"],
    ],
)
def test_what_the_fast_path_leaves_gets_clicks_answer(
    repos: dict[str, Path], argv: list[str]
) -> None:
    fast, slow = _both(repos["opted"], argv, b"{}")
    assert fast == slow
    assert fast[0] != 0 or b"Usage" in fast[1]  # type: ignore[index,operator]


@pytest.mark.parametrize("closed", ["stdin", "stdout"])
def test_a_closed_stream_ends_the_same_on_both_paths(repos: dict[str, Path], closed: str) -> None:
    """stdin closed: an internal error, as click says it; stdout closed: nothing printed."""
    repo = repos["opted"]
    fd = 0 if closed == "stdin" else 1
    prelude = f"import os; os.close({fd}); "
    results = []
    for code in (
        "import sys; sys.argv[1:] = ['hook', 'claude', 'pre-tool-use']; "
        "from rehydrate.__main__ import entry; entry()",
        CLICK_PATH.replace("sys.argv[1:]", "['hook', 'claude', 'pre-tool-use']"),
    ):
        done = subprocess.run(
            [sys.executable, "-I", "-c", prelude + code],
            cwd=repo,
            input=None if fd == 0 else b"{}",
            capture_output=fd == 0,
            stderr=subprocess.PIPE if fd == 1 else None,
            stdin=None if fd == 1 else subprocess.DEVNULL,
        )
        results.append((done.returncode, done.stderr))
    assert results[0] == results[1]


GATES = ("pre-tool-use", "before-tool", "before-shell-execution", "tool-before")
PRE_TOOL = sorted((runtime, event) for runtime, event in CASES if event in GATES)
SPY = (
    "import os, sys; _exit = os._exit; os._exit = lambda code: (sys.stderr.write("
    "'modules: ' + ' '.join(sorted(sys.modules)) + '\\n'), sys.stderr.flush(), _exit(code)); "
    "from rehydrate.__main__ import entry; entry()"
)


@pytest.mark.parametrize(("runtime", "event"), PRE_TOOL)
def test_a_hook_never_imports_click(repos: dict[str, Path], runtime: str, event: str) -> None:
    """``-X importtime`` lists no click, and neither does ``sys.modules`` at the very end
    (the process leaves by ``os._exit``, so the spy wraps that)."""
    repo = repos["opted"]
    stdin = json.dumps(_shell_event(runtime, repo, FAILED)).encode()
    argv = ["hook", runtime, event]
    timed = subprocess.run(
        [sys.executable, "-X", "importtime", "-I", "-m", "rehydrate", *argv],
        cwd=repo,
        input=stdin,
        capture_output=True,
        check=False,
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in timed.stderr.decode().splitlines()]
    assert "rehydrate.hookfast" in imported
    assert not [name for name in imported if name == "click" or name.startswith("click.")]
    assert b"F-001" in timed.stdout + timed.stderr  # it ran and refused the repeat
    spied = subprocess.run(
        [sys.executable, "-I", "-c", SPY, *argv], cwd=repo, input=stdin, capture_output=True
    )
    modules = spied.stderr.decode().rsplit("modules: ", 1)[1].split()
    assert f"rehydrate.agents.{runtime}" in modules
    assert "click" not in modules
    assert spied.stdout == timed.stdout


def test_the_click_path_in_process_is_unchanged(repos: dict[str, Path]) -> None:
    """cli.main still serves the hook commands (tests and `rehydrate.cli.main` callers)."""
    assert main(["hook", "claude", "--help"]) == 0
