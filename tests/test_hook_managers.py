"""The guard under real hook managers: husky and lefthook from npm, pre-commit from PyPI.

Each manager is set up the way its docs say, with a hook of the user's own (it refuses a
staged ``forbidden.txt``), then ``rehydrate init`` wires the guard in. Real ``git commit``
then shows: the user's hook still blocks, a commit deleting F-001 is refused, a good
commit passes, the manager's reinstall keeps the guard (or ``doctor`` says it does not),
a second init changes nothing, and no file of the manager's is renamed.

The npm packages are installed once into a cache outside any repository
(``$REHYDRATE_HOOK_MANAGERS_CACHE``, else ``~/.cache/rehydrate-tests/npm``), with
``--ignore-scripts`` so that lefthook's postinstall cannot run ``lefthook install``
anywhere. No npm registry reachable: those cases skip, saying so.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from conftest import commit, git, run, write, write_examples
from rehydrate.guard.managers import BEGIN, PYTHON_KEY

HUSKY_VERSION = "9.1.7"
LEFTHOOK_VERSION = "2.2.2"
_CACHE = Path(
    os.environ.get("REHYDRATE_HOOK_MANAGERS_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rehydrate-tests" / "npm"
)
F001 = "| F-001 |"
USER_HOOK = (
    "if git diff --cached --name-only | grep -q forbidden; then "
    "echo 'user hook: forbidden.txt is staged' >&2; exit 1; fi"
)


@dataclass(frozen=True)
class Npm:
    husky: Path  # husky's bin.js (run with node)
    lefthook: Path  # lefthook's native binary


def _npm_tools(prefix: Path) -> Npm | None:
    husky = prefix / "node_modules" / "husky" / "bin.js"
    lefthook = sorted(prefix.glob("node_modules/lefthook-*/bin/lefthook"))
    if not husky.is_file() or not lefthook:
        return None
    done = subprocess.run([str(lefthook[0]), "version"], capture_output=True, text=True)
    if done.returncode != 0 or LEFTHOOK_VERSION not in done.stdout:
        return None
    return Npm(husky, lefthook[0])


def _npm(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["npm", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _unreachable(why: str) -> NoReturn:
    """Off CI a missing registry skips, saying why; in CI (CI=true) it fails the run."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI cannot install husky and lefthook: npm unreachable: {why}")
    pytest.skip(f"npm unreachable: {why}")


def install_npm() -> Npm:
    """husky and lefthook, pinned, installed on first use (or a skip saying why)."""
    prefix = _CACHE / f"hook-managers-husky-{HUSKY_VERSION}-lefthook-{LEFTHOOK_VERSION}"
    found = _npm_tools(prefix)
    if found is not None:
        return found
    if shutil.which("npm") is None or shutil.which("node") is None:
        _unreachable("no npm or node executable on PATH")
    prefix.mkdir(parents=True, exist_ok=True)
    with (prefix.parent / f".{prefix.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # xdist workers install once
        found = _npm_tools(prefix)
        if found is not None:
            return found
        try:
            probe = _npm(
                "view", "--fetch-retries=1", f"husky@{HUSKY_VERSION}", "version", timeout=60
            )
        except subprocess.TimeoutExpired:
            _unreachable("`npm view` timed out after 60 s")
        if probe.returncode != 0:
            _unreachable(" | ".join(probe.stderr.splitlines()[:3]))
        packages = (f"husky@{HUSKY_VERSION}", f"lefthook@{LEFTHOOK_VERSION}")
        args = ("--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
        done = _npm("install", "--prefix", str(prefix), *args, *packages, timeout=300)
        found = _npm_tools(prefix)
        if found is None:
            pytest.fail(
                f"npm install {' '.join(packages)} failed ({done.returncode}): {done.stderr}"
            )
        return found


@pytest.fixture(scope="session")
def npm() -> Npm:
    return install_npm()


def _pre_commit() -> list[str]:
    if importlib.util.find_spec("pre_commit") is None:  # the test extra installs it
        pytest.fail("pre-commit is not installed: pip install -e '.[test]'")
    return [sys.executable, "-m", "pre_commit"]


def _ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _tool(repo: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return _ok(subprocess.run(list(argv), cwd=repo, capture_output=True, text=True))


@dataclass(frozen=True)
class Manager:
    name: str
    setup: Callable[[Path, Npm], None]  # the manager installed, with the user's hook
    reinstall: Callable[[Path, Npm], None]  # what its docs say to run again
    hooks: str  # git's hook folder under it
    config: str  # the file rehydrate edits


def _husky_setup(repo: Path, npm: Npm) -> None:
    _tool(repo, "node", str(npm.husky))  # `npx husky`: core.hooksPath=.husky/_
    write(repo, ".husky/pre-commit", USER_HOOK + "\n")


def _husky_again(repo: Path, npm: Npm) -> None:
    _tool(repo, "node", str(npm.husky))


LEFTHOOK_YML = f"""\
# the team's hooks
pre-commit:
  parallel: true  # lefthook's own option, kept
  commands:
    no-forbidden:
      run: |
        {USER_HOOK}
"""


def _lefthook_setup(repo: Path, npm: Npm) -> None:
    write(repo, "lefthook.yml", LEFTHOOK_YML)
    _tool(repo, str(npm.lefthook), "install")


def _lefthook_again(repo: Path, npm: Npm) -> None:
    _tool(repo, str(npm.lefthook), "install", "--force")


PRE_COMMIT_YAML = """\
# the team's hooks
repos:
  - repo: local  # a hook of the user's own
    hooks:
      - id: no-forbidden
        name: no forbidden files
        language: fail
        entry: "user hook: forbidden.txt is staged"
        files: forbidden
"""


def _pre_commit_setup(repo: Path, npm: Npm) -> None:
    write(repo, ".pre-commit-config.yaml", PRE_COMMIT_YAML)
    _tool(repo, *_pre_commit(), "install")


def _pre_commit_again(repo: Path, npm: Npm) -> None:
    _tool(
        repo,
        *_pre_commit(),
        "install",
        "--hook-type",
        "pre-commit",
        "--hook-type",
        "pre-merge-commit",
    )


MANAGERS = [
    Manager("husky", _husky_setup, _husky_again, ".husky/_", ".husky/pre-commit"),
    Manager("lefthook", _lefthook_setup, _lefthook_again, ".git/hooks", "lefthook.yml"),
    Manager(
        "pre-commit", _pre_commit_setup, _pre_commit_again, ".git/hooks", ".pre-commit-config.yaml"
    ),
]


@pytest.fixture(params=MANAGERS, ids=[m.name for m in MANAGERS])
def manager(request: pytest.FixtureRequest) -> Manager:
    param: Manager = request.param
    return param


@pytest.fixture
def tools(manager: Manager, request: pytest.FixtureRequest) -> Npm:
    if manager.name == "pre-commit":
        _pre_commit()
        return Npm(Path("/nonexistent"), Path("/nonexistent"))
    npm: Npm = request.getfixturevalue("npm")
    return npm


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file in ``folder``: name -> content hash (renames and rewrites both show)."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def _wired(repo: Path, manager: Manager, tools: Npm) -> dict[str, str]:
    """The manager set up, ``rehydrate init`` run, the ledgers committed through the hooks.
    Returns git's hook folder before init (what init must not rename or rewrite)."""
    manager.setup(repo, tools)
    before = _snapshot(repo / manager.hooks)
    result = run(repo, "init")
    assert result.code == 0, result.err
    assert "commit it" in result.err or "commit them" in result.err
    assert manager.config in result.err
    write_examples(repo)
    commit(repo, "ledgers, through the hooks")  # a good commit passes
    return before


def _commit(repo: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-q", "-m", "change"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _delete_f001(repo: Path) -> None:
    ledger = repo / "docs" / "Failed_Attempts.md"
    lines = ledger.read_text().splitlines(keepends=True)
    ledger.write_text("".join(line for line in lines if not line.startswith(F001)))
    git(repo, "add", "-A")


def _refused_deletion(repo: Path) -> None:
    _delete_f001(repo)
    done = _commit(repo)
    assert done.returncode != 0 and "row_deleted" in done.stderr + done.stdout, done.stderr
    git(repo, "reset", "-q", "--hard")


def test_init_wires_the_guard_and_keeps_the_users_hook(
    repo: Path, manager: Manager, tools: Npm
) -> None:
    before = _wired(repo, manager, tools)
    after = _snapshot(repo / manager.hooks)
    # nothing of the manager's renamed or rewritten; the manager may add a hook itself
    # for an event init wired in its config (lefthook reinstalls when lefthook.yml changed,
    # which it notices by time: the first commit may or may not add pre-merge-commit)
    assert {name: after.get(name) for name in before} == before
    assert set(after) - set(before) <= {"pre-merge-commit"}
    config = (repo / manager.config).read_text()
    assert BEGIN in config and "rehydrate guard --staged" in config
    kept = "# the team's hooks" if manager.name != "husky" else USER_HOOK
    assert kept in config  # the user's comments and hook stay, as they were
    _refused_deletion(repo)
    write(repo, "forbidden.txt", "x\n")
    git(repo, "add", "forbidden.txt")
    done = _commit(repo)
    assert done.returncode != 0 and "forbidden.txt is staged" in done.stderr + done.stdout
    git(repo, "reset", "-q", "--hard")
    (repo / "forbidden.txt").unlink(missing_ok=True)  # reset removed it
    write(repo, "notes.txt", "fine\n")  # the twin: a commit both hooks let through
    git(repo, "add", "notes.txt")
    _ok(_commit(repo))


def test_a_reinstall_of_the_manager_keeps_the_guard(
    repo: Path, manager: Manager, tools: Npm
) -> None:
    _wired(repo, manager, tools)
    manager.reinstall(repo, tools)
    report = run(repo, "doctor", "--json")
    assert report.code == 0, report.out  # the guard is still wired: no finding
    assert manager.name in report.out
    _refused_deletion(repo)
    write(repo, "notes.txt", "fine\n")
    git(repo, "add", "notes.txt")
    _ok(_commit(repo))


def test_init_twice_changes_nothing(repo: Path, manager: Manager, tools: Npm) -> None:
    _wired(repo, manager, tools)
    hooks = _snapshot(repo / manager.hooks)
    config = (repo / manager.config).read_bytes()
    again = run(repo, "init")
    assert again.code == 0 and "kept" in again.err
    assert "updated" not in again.err and "created" not in again.err
    assert _snapshot(repo / manager.hooks) == hooks
    assert (repo / manager.config).read_bytes() == config
    assert git(repo, "status", "--porcelain").stdout == ""


def test_a_missing_interpreter_refuses_the_commit_and_says_why(
    repo: Path, manager: Manager, tools: Npm, tmp_path: Path
) -> None:
    _wired(repo, manager, tools)
    git(repo, "config", PYTHON_KEY, str(tmp_path / "deleted-venv" / "bin" / "python"))
    write(repo, "notes.txt", "fine\n")
    git(repo, "add", "notes.txt")
    path = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "rehydrate").exists()
    )
    done = _commit(repo, {"PATH": path})
    said = done.stderr + done.stdout
    assert done.returncode != 0, said
    assert "rehydrate cannot be run" in said and "deleted-venv" in said
    assert "pip install 'rehydrate @ git+https://" in said and "rehydrate hook install" in said
    assert "--no-verify" in said and manager.config.split("/")[-1] in said
    git(repo, "config", PYTHON_KEY, sys.executable)  # the twin: put back, it commits
    _ok(_commit(repo, {"PATH": path}))


def test_the_native_hook_says_why_when_rehydrate_is_gone(repo: Path, tmp_path: Path) -> None:
    from rehydrate.git import find_repo
    from rehydrate.guard.install import install

    gone = str(tmp_path / "deleted-venv" / "bin" / "python")
    install(find_repo(repo), command=[gone, "-m", "rehydrate"])
    write(repo, "notes.txt", "fine\n")
    git(repo, "add", "notes.txt")
    done = _commit(repo, {"PATH": "/usr/bin:/bin"})
    assert done.returncode != 0 and "not found" not in done.stderr
    assert "rehydrate cannot be run" in done.stderr and gone in done.stderr
    assert "rehydrate hook uninstall" in done.stderr
    install(find_repo(repo))  # the twin: reinstalled by a rehydrate that exists
    _ok(_commit(repo, {"PATH": "/usr/bin:/bin"}))


# The manager installed after rehydrate's native hooks: pre-commit runs ours in migration
# mode (pre-commit.legacy), so the guard holds; husky moves core.hooksPath away and
# lefthook renames ours to pre-commit.old, so the guard is off and doctor must say so.
AFTER_NATIVE = {"husky": "hook_manager_unwired", "lefthook": "hook_manager_unwired"}


def test_a_manager_installed_after_the_guard(repo: Path, manager: Manager, tools: Npm) -> None:
    assert run(repo, "init").code == 0
    write_examples(repo)
    commit(repo, "ledgers, native hook")
    manager.setup(repo, tools)
    git(repo, "add", "-A")
    commit(repo, "the manager's configuration")
    report = run(repo, "doctor", "--json")
    expected = AFTER_NATIVE.get(manager.name)
    if expected is None:
        assert report.code == 0, report.out
        config = (repo / manager.config).read_text()
        again = run(repo, "hook", "install")  # the guard runs already: nothing added
        assert again.code == 0 and "migration mode" in again.err
        assert (repo / manager.config).read_text() == config
        _refused_deletion(repo)
        return
    assert report.code != 0 and expected in report.out and "rehydrate hook install" in report.out
    if manager.name == "lefthook":
        assert "pre-commit.old" in report.out  # where `lefthook install` moved ours
    else:
        assert "core.hooksPath" in report.out  # husky moved git away from .git/hooks
    _delete_f001(repo)
    _ok(_commit(repo))  # the gap doctor reported is real: the deletion went through
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    fixed = run(repo, "hook", "install")
    assert fixed.code == 0 and manager.config in fixed.err
    git(repo, "add", "-A")
    commit(repo, "the guard in the manager's configuration")
    assert run(repo, "doctor").code == 0
    _refused_deletion(repo)


def test_uninstall_takes_out_exactly_the_guard(repo: Path, manager: Manager, tools: Npm) -> None:
    manager.setup(repo, tools)
    mine = (repo / manager.config).read_text()
    hooks = _snapshot(repo / manager.hooks)
    assert run(repo, "hook", "install").code == 0
    result = run(repo, "hook", "uninstall")
    assert result.code == 0 and "removed" in result.err and manager.config in result.err
    assert (repo / manager.config).read_text() == mine  # the user's file, byte for byte
    assert not (repo / ".husky" / "pre-merge-commit").exists()  # created by us, gone again
    assert _snapshot(repo / manager.hooks) == hooks
    # kept: the agent runtimes' launch lines read it too (launchline.py)
    assert git(repo, "config", PYTHON_KEY).stdout.strip() == sys.executable
