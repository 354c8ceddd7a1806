"""Hooks run our code only (issue 24, class 1): every launch line rehydrate writes, run the
way its caller runs it, in a repository whose root holds hijacking modules and under an
environment that points Python at them. The hijacks write a marker when imported (and
most then exit 0, which would pass anything); the marker never appears and the verdict
is the one a clean repository gets: a commit deleting a failure row is refused, a
recorded failed command is denied, and the legitimate twin passes.

Two hijack sets (a ``rehydrate/`` package shadows a ``rehydrate.py`` in one folder, so
each gets its own), one row per entry point.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import GIT_ENV, commit, git, run, scaffold, write

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
RUNTIMES = ("claude", "codex", "gemini", "copilot", "cursor", "kiro", "cline", "opencode")
REPEAT = "go test -tags=musl ./..."  # F-001 in the example ledger
OTHER = "go vet ./..."
PYVER = f"python{sys.version_info.major}.{sys.version_info.minor}"


def _hijack(name: str, marker: Path, then: str = "import os; os._exit(0)") -> str:
    return f"open({str(marker / name)!r}, 'a').write('imported\\n')\n{then}\n"


# The planted files, by hijack set: relative path -> the marker name it writes.
HIJACKS = {
    "modules": {
        "rehydrate.py": "rehydrate.py",
        "click.py": "click.py",
        "mistune.py": "mistune.py",
        "yaml.py": "yaml.py",
        "tomllib.py": "tomllib.py",
        "sitecustomize.py": "sitecustomize.py",
        "usercustomize.py": "usercustomize.py",
        "startup.py": "PYTHONSTARTUP",
        f"userbase/lib/{PYVER}/site-packages/click.py": "user-site-click",
        f"userbase/lib/{PYVER}/site-packages/usercustomize.py": "user-site-usercustomize",
    },
    "package": {
        "rehydrate/__init__.py": "rehydrate/__init__.py",
        "rehydrate/__main__.py": "rehydrate/__main__.py",
        "rehydrate/cli.py": "rehydrate/cli.py",
        "click/__init__.py": "click/__init__.py",
        "sitecustomize.py": "sitecustomize.py",
    },
}


def hostile_env(repo: Path) -> dict[str, str]:
    """The environment an agent (or a careless shell profile) can give a hook."""
    return {
        **os.environ,
        **GIT_ENV,
        "PYTHONPATH": f"{repo}:.:",  # the empty entry is the current directory too
        "PYTHONSTARTUP": str(repo / "startup.py"),
        "PYTHONINSPECT": "1",
        "PYTHONUSERBASE": str(repo / "userbase"),
        "PYTHONHOME": str(repo / "pyhome"),
        "PYTHONSAFEPATH": "",
    }


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with the example ledgers, the git hooks, the merge driver and every
    runtime wired by ``init``, all committed; built once."""
    repo = tmp_path_factory.mktemp("launch") / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    scaffold(repo)
    agents = [arg for name in RUNTIMES for arg in ("--agent", name)]
    assert run(repo, "init", *agents).code == 0
    commit(repo, "init")
    return repo


class Planted(NamedTuple):
    repo: Path
    markers: Path

    def seen(self) -> list[str]:
        return sorted(p.name for p in self.markers.iterdir())


@pytest.fixture(params=sorted(HIJACKS))
def planted(request: pytest.FixtureRequest, base: Path, tmp_path: Path) -> Planted:
    """A copy of ``base`` with one hijack set planted, untracked, in its root."""
    repo = tmp_path / "repo"
    shutil.copytree(base, repo, symlinks=True)
    markers = tmp_path / "markers"
    markers.mkdir()
    for relpath, name in HIJACKS[request.param].items():
        then = "" if name == "PYTHONSTARTUP" else "import os; os._exit(0)"
        write(repo, relpath, _hijack(name.replace("/", "-"), markers, then), dedent=False)
    (repo / "pyhome").mkdir()
    assert git(repo, "status", "--porcelain", "--", "docs").stdout == ""
    return Planted(repo, markers)


def _delete_failure_row(repo: Path) -> None:
    path = repo / "docs" / "Failed_Attempts.md"
    text = path.read_text(encoding="utf-8")
    kept = [line for line in text.splitlines(keepends=True) if "| F-001 |" not in line]
    assert len(kept) < len(text.splitlines())
    path.write_text("".join(kept), encoding="utf-8")


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env=hostile_env(repo),
        check=False,
    )


# Git's own callers: a real `git commit` and a real `git merge`.


def test_pre_commit_hook_refuses_the_deletion_and_passes_the_twin(planted: Planted) -> None:
    repo = planted.repo
    _delete_failure_row(repo)
    git(repo, "add", "docs/Failed_Attempts.md")
    refused = _git(repo, "commit", "-qm", "drop F-001")
    assert refused.returncode != 0 and "F-001" in refused.stderr, refused.stderr
    git(repo, "checkout", "HEAD", "--", "docs/Failed_Attempts.md")
    write(repo, "notes.txt", "a legitimate change\n")
    git(repo, "add", "notes.txt")
    twin = _git(repo, "commit", "-qm", "notes")
    assert twin.returncode == 0, twin.stderr
    assert planted.seen() == []


def test_pre_merge_commit_hook_refuses_a_merge_that_drops_a_row(planted: Planted) -> None:
    repo = planted.repo
    git(repo, "checkout", "-qb", "drop")
    _delete_failure_row(repo)
    git(repo, "commit", "-qam", "drop F-001", "--no-verify")
    git(repo, "checkout", "-q", "-")
    write(repo, "notes.txt", "main moves on\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-qm", "notes", "--no-verify")
    refused = _git(repo, "merge", "--no-ff", "-q", "-m", "merge drop", "drop")
    assert refused.returncode != 0 and "F-001" in refused.stderr, refused.stderr
    git(repo, "merge", "--abort")
    git(repo, "checkout", "-qb", "twin", "HEAD~1")
    write(repo, "more.txt", "a legitimate branch\n")
    git(repo, "add", "more.txt")
    git(repo, "commit", "-qm", "more", "--no-verify")
    git(repo, "checkout", "-q", "-")
    twin = _git(repo, "merge", "--no-ff", "-q", "-m", "merge twin", "twin")
    assert twin.returncode == 0, twin.stderr
    assert planted.seen() == []


def _fail_add(repo: Path, tried: str) -> None:
    done = run(
        repo,
        "fail",
        "add",
        "--tried",
        f"`{tried}`",
        "--failure",
        f"{tried} exits 1 on the vendored module cache",
        "--workaround",
        "run it from the module root with GOFLAGS=-mod=mod",
    )
    assert done.code == 0, done.err


def test_merge_driver_keeps_both_sides_rows(planted: Planted) -> None:
    """Both branches append a failure row: only rehydrate's driver merges them; a hijacked
    driver exiting 0 would leave one side's row out."""
    repo = planted.repo
    git(repo, "checkout", "-qb", "side")
    _fail_add(repo, "make side")
    git(repo, "commit", "-qam", "side row", "--no-verify")
    git(repo, "checkout", "-q", "-")
    _fail_add(repo, "make main")
    git(repo, "commit", "-qam", "main row", "--no-verify")
    merged = _git(repo, "merge", "--no-ff", "-q", "-m", "merge side", "side")
    assert merged.returncode == 0, merged.stderr
    text = (repo / "docs" / "Failed_Attempts.md").read_text(encoding="utf-8")
    assert "make side" in text and "make main" in text and "| F-001 |" in text
    assert planted.seen() == []


def test_hook_manager_lines_refuse_the_deletion(planted: Planted) -> None:
    """The shell husky, lefthook and pre-commit run (guard/managers.py), run by sh in the
    repository root as they run it; the twin passes."""
    from rehydrate.guard.managers import guard_lines

    repo = planted.repo
    script = "\n".join(guard_lines("unhook it")) + "\n"
    _delete_failure_row(repo)
    git(repo, "add", "docs/Failed_Attempts.md")
    env = hostile_env(repo)
    refused = subprocess.run(
        ["sh", "-c", script], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert refused.returncode != 0 and "F-001" in refused.stderr, refused.stderr
    git(repo, "reset", "-q", "--hard")
    write(repo, "notes.txt", "fine\n")
    git(repo, "add", "notes.txt")
    twin = subprocess.run(
        ["sh", "-c", script], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert twin.returncode == 0, twin.stderr
    assert planted.seen() == []


# The agent runtimes: each one's gate event, run through the very command init wrote.


def _settings(repo: Path, relpath: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((repo / relpath).read_text(encoding="utf-8"))
    return data


def _json_hook(relpath: str, runtime: str, grouped: bool) -> Callable[[Path, str], list[str]]:
    def find(repo: Path, name: str) -> list[str]:
        from rehydrate.agents.config_merge import Layout, wired

        layout = Layout(runtime, grouped=grouped)
        found = [w for w in wired(_settings(repo, relpath), layout) if w.hook.name == name]
        return ["sh", "-c", found[0].command]

    return find


def _claude(repo: Path, name: str) -> list[str]:
    from rehydrate.agents.claude_install import SETTINGS_FILE, wired_hooks

    found = [w for w in wired_hooks(_settings(repo, SETTINGS_FILE), "") if w.hook.name == name]
    return ["sh", "-c", found[0].command]


def _gemini(repo: Path, name: str) -> list[str]:
    from rehydrate.agents.gemini import SETTINGS_FILE
    from rehydrate.agents.gemini_install import wired

    found = [cmd for _, _, cmd, ours in wired(_settings(repo, SETTINGS_FILE)) if ours.name == name]
    return ["sh", "-c", found[0]]


def _copilot(repo: Path, name: str) -> list[str]:
    from rehydrate.agents.config_merge import parse_command
    from rehydrate.agents.copilot import HOOKS_FILE

    hooks = _settings(repo, HOOKS_FILE)["hooks"]
    assert isinstance(hooks, dict)
    for entry in (e for entries in hooks.values() for e in entries):
        ours = parse_command(entry["bash"], "copilot")
        if ours is not None and ours.name == name:
            return ["bash", "-c", entry["bash"]]
    raise AssertionError(f"no copilot hook {name}")


def _cline(repo: Path, name: str) -> list[str]:
    from rehydrate.agents.cline import HOOKS, HOOKS_DIR

    event = next(e for e, n in HOOKS.items() if n == name)
    return [str(repo / HOOKS_DIR / event)]  # Cline executes the file itself


def _sample(runtime: str, name: str, repo: Path, command: str) -> str:
    data = json.loads((ROOT / "docs/integrations/samples" / runtime / f"{name}.json").read_text())
    text = json.dumps(data).replace("touch marker\\ngo test -tags=musl ./...", command)
    return text.replace(REPEAT, command).replace('"cwd": "."', f'"cwd": {json.dumps(str(repo))}')


class Gate(NamedTuple):
    runtime: str
    event: str  # the subcommand
    command: Callable[[Path, str], list[str]]
    denied: Callable[[int, str, str], bool]


def _says(code: int, out: str, err: str) -> bool:
    return "F-001" in out + err


GATES = [
    pytest.param(Gate("claude", "pre-tool-use", _claude, _says), id="claude-settings"),
    pytest.param(
        Gate("codex", "pre-tool-use", _json_hook(".codex/hooks.json", "codex", True), _says),
        id="codex",
    ),
    pytest.param(Gate("gemini", "before-tool", _gemini, _says), id="gemini"),
    pytest.param(Gate("copilot", "pre-tool-use", _copilot, _says), id="copilot"),
    pytest.param(
        Gate(
            "cursor",
            "before-shell-execution",
            _json_hook(".cursor/hooks.json", "cursor", False),
            lambda code, out, err: '"deny"' in out and "F-001" in out,
        ),
        id="cursor",
    ),
    pytest.param(
        Gate(
            "kiro",
            "pre-tool-use",
            _json_hook(".kiro/agents/rehydrate.json", "kiro", False),
            lambda code, out, err: code == 2 and "F-001" in err,
        ),
        id="kiro",
    ),
    pytest.param(
        Gate("cline", "pre-tool-use", _cline, lambda c, o, e: '"cancel": true' in o),
        id="cline",
    ),
]


def _claude_event(repo: Path, command: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    )


def _event(gate: Gate, repo: Path, command: str) -> str:
    if gate.runtime == "claude":
        return _claude_event(repo, command)
    return _sample(gate.runtime, gate.event, repo, command)


@pytest.mark.parametrize("gate", GATES)
def test_runtime_gate_denies_the_repeat_and_allows_the_twin(gate: Gate, planted: Planted) -> None:
    repo = planted.repo
    argv = gate.command(repo, gate.event)
    results = {}
    for command in (REPEAT, OTHER):
        done = subprocess.run(
            argv,
            cwd=repo,
            input=_event(gate, repo, command),
            capture_output=True,
            text=True,
            env=hostile_env(repo),
            check=False,
        )
        results[command] = (done.returncode, done.stdout, done.stderr)
    assert gate.denied(*results[REPEAT]), results[REPEAT]
    assert not gate.denied(*results[OTHER]), results[OTHER]
    assert planted.seen() == []


def test_plugin_launcher_runs_rehydrate_isolated(planted: Planted) -> None:
    """hooks/rehydrate-hook, found three ways (REHYDRATE_PYTHON, git config, the console
    script's interpreter on PATH), each isolated."""
    repo = planted.repo
    env = hostile_env(repo)
    ways = {
        "REHYDRATE_PYTHON": {**env, "REHYDRATE_PYTHON": sys.executable},
        "git config": env,
        "PATH": {**env, "PATH": f"{VENV_BIN}:/usr/bin:/bin"},
    }
    for way, environ in ways.items():
        if way == "PATH":
            git(repo, "config", "--unset", "rehydrate.python")
        for command, deny in ((REPEAT, True), (OTHER, False)):
            done = subprocess.run(
                ["sh", str(ROOT / "hooks" / "rehydrate-hook"), "hook", "claude", "pre-tool-use"],
                cwd=repo,
                input=_claude_event(repo, command),
                capture_output=True,
                text=True,
                env=environ,
                check=False,
            )
            assert ("F-001" in done.stdout) is deny, (way, done.stdout, done.stderr)
    assert planted.seen() == []


def test_opencode_plugin_runs_rehydrate_isolated(planted: Planted, tmp_path: Path) -> None:
    """The generated plugin, loaded by node as OpenCode loads it, its tool.execute.before
    called as OpenCode calls it: the repeat throws, the twin does not."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node executable")
    repo = planted.repo
    driver = tmp_path / "drive.mjs"
    plugin = repo / ".opencode" / "plugins" / "rehydrate.js"
    driver.write_text(
        f"import {{ Rehydrate }} from {json.dumps(str(plugin))}\n"
        "const hooks = await Rehydrate({ client: {}, directory: process.argv[2] })\n"
        "const out = {}\n"
        "for (const command of process.argv.slice(3)) {\n"
        "  try {\n"
        '    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s" },'
        " { args: { command } })\n"
        '    out[command] = "allowed"\n'
        "  } catch (error) { out[command] = String(error) }\n"
        "}\n"
        "console.log(JSON.stringify(out))\n",
        encoding="utf-8",
    )
    (repo / ".opencode" / "package.json").write_text('{"type": "module"}\n')
    done = subprocess.run(
        [node, str(driver), str(repo), REPEAT, OTHER],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**hostile_env(repo), "PWD": str(repo)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert "F-001" in said[REPEAT] and said[OTHER] == "allowed", said
    assert planted.seen() == []
    git(repo, "config", "--unset", "rehydrate.python")  # without an interpreter: refused
    done = subprocess.run(
        [node, str(driver), str(repo), OTHER],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**hostile_env(repo), "PWD": str(repo)},
        check=False,
    )
    said = json.loads(done.stdout)
    assert "rehydrate cannot run" in said[OTHER] and "rehydrate init" in said[OTHER], said


# rehydrate itself, started by hand: the console script, and python -m without -I.


def test_the_console_script_never_imports_from_the_current_directory(planted: Planted) -> None:
    """Run from the repository root with a clean environment: sys.path[0] is the script's
    folder, never the current directory."""
    repo = planted.repo
    env = {**os.environ, **GIT_ENV}
    for name in ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONUSERBASE"):
        env.pop(name, None)
    done = subprocess.run(
        [str(VENV_BIN / "rehydrate"), "hook", "claude", "pre-tool-use"],
        cwd=repo,
        input=_claude_event(repo, REPEAT),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "F-001" in done.stdout, done.stderr
    assert planted.seen() == []


@pytest.mark.parametrize(
    ("argv", "pythonpath"),
    [
        pytest.param([sys.executable, "-m", "rehydrate"], None, id="python-m"),
        pytest.param([str(VENV_BIN / "rehydrate")], ".", id="console-script-PYTHONPATH-dot"),
        pytest.param(
            [str(VENV_BIN / "rehydrate")], "/nowhere:", id="console-script-PYTHONPATH-empty-entry"
        ),
    ],
)
def test_rehydrate_started_by_hand_drops_the_current_directory(
    planted: Planted, argv: list[str], pythonpath: str | None
) -> None:
    """The current directory on sys.path (``python -m`` without ``-I``, ``PYTHONPATH=.``):
    rehydrate takes it off before importing click, mistune or yaml. A ``rehydrate.py``
    or a ``sitecustomize.py`` there runs before any of our code: that is why every launch
    line of ours says -I."""
    repo = planted.repo
    for shadow in ("rehydrate.py", "rehydrate", "sitecustomize.py", "usercustomize.py"):
        path = repo / shadow
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    env = {**os.environ, **GIT_ENV}
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run(
        [*argv, "hook", "claude", "pre-tool-use"],
        cwd=repo,
        input=_claude_event(repo, REPEAT),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "F-001" in done.stdout, done.stderr
    assert planted.seen() == []


def test_doctor_probes_interpreters_isolated(planted: Planted) -> None:
    """doctor asks each interpreter whether it can import rehydrate; asked with `-c` alone,
    the repository's rehydrate.py would both run and pass for the real one."""
    repo = planted.repo
    env = {**os.environ, **GIT_ENV}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [str(VENV_BIN / "rehydrate"), "doctor", "--json"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    report = json.loads(done.stdout)
    assert not [f for f in report["findings"] if f["code"].startswith("launch_")], report
    assert planted.seen() == []
