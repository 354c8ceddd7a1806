"""Native hook install/uninstall: core.hooksPath, chaining, --force, idempotency, init."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import commit, git, run
from rehydrate.guard.install import CHAINED, MARKER, REPLACED
from test_guard import BASE, F2, PATHS


def _ledgers(repo: Path) -> None:
    for kind, text in BASE.items():
        target = repo / PATHS[kind]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    commit(repo, "base", "--no-verify")


def _delete_row(repo: Path) -> None:
    (repo / PATHS["failures"]).write_text(BASE["failures"].replace(F2, ""))
    git(repo, "add", "-A")


def _hook(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def test_install_is_idempotent_and_blocks_a_bad_commit(repo: Path) -> None:
    _ledgers(repo)
    first = run(repo, "hook", "install")
    assert first.code == 0 and "installed" in first.err
    again = run(repo, "hook", "install")
    assert again.code == 0 and "installed" not in again.err and "kept" in again.err
    for name in ("pre-commit", "pre-merge-commit"):
        hook = repo / ".git" / "hooks" / name
        assert MARKER in hook.read_text() and os.access(hook, os.X_OK)
    _delete_row(repo)
    result = git(repo, "commit", "-q", "-m", "bad", check=False)
    assert result.returncode != 0 and "row_deleted" in result.stderr


def test_existing_hook_is_chained_and_its_failure_propagates(repo: Path) -> None:
    _ledgers(repo)
    hooks = repo / ".git" / "hooks"
    marker = repo / "chained-ran"
    _hook(hooks / "pre-commit", f"touch '{marker}'\nexit 0")
    assert run(repo, "hook", "install").code == 0
    assert (hooks / ("pre-commit" + CHAINED)).exists()
    (repo / "README.md").write_text("x\n")
    git(repo, "add", "-A")
    assert git(repo, "commit", "-q", "-m", "ok", check=False).returncode == 0
    assert marker.exists()
    _hook(hooks / ("pre-commit" + CHAINED), "echo chained-says-no >&2\nexit 3")
    (repo / "README.md").write_text("y\n")
    git(repo, "add", "-A")
    result = git(repo, "commit", "-q", "-m", "blocked", check=False)
    assert result.returncode != 0 and "chained-says-no" in result.stderr
    assert run(repo, "hook", "uninstall").code == 0
    restored = (hooks / "pre-commit").read_text()
    assert "chained-says-no" in restored and MARKER not in restored
    assert not (hooks / ("pre-commit" + CHAINED)).exists()
    assert not (hooks / "pre-merge-commit").exists()


def test_chained_hook_passing_does_not_let_a_bad_commit_through(repo: Path) -> None:
    _ledgers(repo)
    _hook(repo / ".git" / "hooks" / "pre-commit", "exit 0")
    assert run(repo, "hook", "install").code == 0
    _delete_row(repo)
    result = git(repo, "commit", "-q", "-m", "bad", check=False)
    assert result.returncode != 0 and "row_deleted" in result.stderr


def test_force_replaces_and_uninstall_restores(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    _hook(hooks / "pre-commit", "exit 0  # mine")
    assert run(repo, "hook", "install", "--force").code == 0
    assert (hooks / ("pre-commit" + REPLACED)).exists()
    assert not (hooks / ("pre-commit" + CHAINED)).exists()
    assert run(repo, "hook", "uninstall").code == 0
    assert "# mine" in (hooks / "pre-commit").read_text()


def test_relative_core_hooks_path_is_respected(repo: Path) -> None:
    _ledgers(repo)
    git(repo, "config", "core.hooksPath", ".githooks")
    (repo / "sub").mkdir()
    assert run(repo / "sub", "hook", "install").code == 0  # relative to the root, not the cwd
    assert MARKER in (repo / ".githooks" / "pre-commit").read_text()
    assert not (repo / "sub" / ".githooks").exists()
    _delete_row(repo)
    result = git(repo, "commit", "-q", "-m", "bad", check=False)
    assert result.returncode != 0 and "row_deleted" in result.stderr


def test_uninstall_leaves_foreign_hooks_alone(repo: Path) -> None:
    hooks = repo / ".git" / "hooks"
    _hook(hooks / "pre-commit", "exit 0  # foreign")
    result = run(repo, "hook", "uninstall")
    assert result.code == 0 and "kept" in result.err
    assert "# foreign" in (hooks / "pre-commit").read_text()


def test_init_installs_the_hook_unless_no_hook(tmp_path: Path, repo: Path) -> None:
    assert run(repo, "init").code == 0
    assert MARKER in (repo / ".git" / "hooks" / "pre-commit").read_text()
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    assert run(other, "init", "--no-hook").code == 0
    assert not (other / ".git" / "hooks" / "pre-commit").exists()


def test_hook_group_is_lazy_and_extensible() -> None:
    from rehydrate.cli.hook import SUBCOMMANDS, group

    assert {"install", "uninstall"} <= set(SUBCOMMANDS)
    assert group.name == "hook"


def test_pre_commit_hooks_yaml_is_safe_for_deletions() -> None:
    import yaml

    path = Path(__file__).parent.parent / ".pre-commit-hooks.yaml"
    (entry,) = yaml.safe_load(path.read_text())
    assert entry["id"] == "rehydrate-guard"
    assert entry["pass_filenames"] is False and entry["always_run"] is True
    assert "files" not in entry
    assert set(entry["stages"]) == {"pre-commit", "pre-merge-commit", "pre-push", "manual"}
