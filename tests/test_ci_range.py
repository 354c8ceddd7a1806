"""``rehydrate guard --ci github|gitlab`` against real pushes: a developer's clone pushes to a
bare "remote", a CI clone is made from it as actions/checkout (fetch-depth 0) or a GitLab
runner would, and the event the host would send is fed to the guard. Push, forced push
after a rebase (old tip fetched, or absent), new branch, pull request, merge queue and
deleted branch: bad ledger changes refused in each, good ones pass, never a git error."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import git, run, run_subprocess
from test_guard import BASE, F2
from test_guard_git import _server, commit, make_repo
from test_guard_history import F4, F5, _failures

ZERO = "0" * 40
UPSTREAM = "| F-004 | docker build | no space left | prune images |\n"
DROPPED = BASE["failures"].replace(F2, "")


def _head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).stdout.strip()


class World:
    """A developer's repository with the merge driver, its bare remote, and CI clones."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.server = _server(tmp_path)
        (self.server / "hooks" / "pre-receive").unlink()  # CI is what judges here
        self.dev, _ = make_repo(tmp_path / "dev", hook=False)
        assert run(self.dev, "init", "--no-hook").code == 0
        commit(self.dev, "--no-verify", message="merge driver")
        git(self.dev, "remote", "add", "origin", str(self.server))
        git(self.dev, "push", "-q", "origin", "main")
        self.clones = 0

    def clone(self, sha: str) -> Path:
        """actions/checkout with fetch-depth 0: every branch as refs/remotes/origin/*."""
        self.clones += 1
        path = self.tmp / f"ci{self.clones}"
        git(self.tmp, "clone", "-q", "--no-local", str(self.server), str(path))
        git(path, "checkout", "-q", "--detach", sha)
        return path

    def github(self, clone: Path, name: str, payload: dict) -> tuple[int, str]:
        event = self.tmp / f"event{self.clones}.json"
        event.write_text(json.dumps(payload))
        env = {"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(event)}
        result = run_subprocess(clone, "guard", "--ci", "github", env=env)
        assert "Invalid revision range" not in result.err and "Traceback" not in result.err
        return result.code, result.err


def _push(world: World, good: bool) -> tuple[Path, str, dict]:
    old = _head(world.dev)
    text = BASE["failures"].replace(F2, F2 + F4) if good else DROPPED
    new = _failures(world.dev, text, "on main")
    git(world.dev, "push", "-q", "origin", "main")
    return world.clone(new), "push", {"ref": "refs/heads/main", "before": old, "after": new}


def _new_branch(world: World, good: bool) -> tuple[Path, str, dict]:
    git(world.dev, "checkout", "-q", "-b", "topic")
    new = _failures(world.dev, BASE["failures"].replace(F2, F2 + F4) if good else DROPPED)
    git(world.dev, "push", "-q", "origin", "topic")
    payload = {"ref": "refs/heads/topic", "before": ZERO, "after": new, "created": True}
    return world.clone(new), "push", payload


def _rebase(world: World, keep: bool) -> tuple[str, str]:
    """feature adds F-004 and F-005, main takes F-004, feature is rebased (the driver
    renumbers) and, unless ``keep``, its last commit dropped (``rebase -i`` dropping a
    commit: each new commit is fine, only the old tip against the new shows the loss)."""
    git(world.dev, "checkout", "-q", "-b", "feature")
    _failures(world.dev, BASE["failures"].replace(F2, F2 + F4), "F-004")
    _failures(world.dev, BASE["failures"].replace(F2, F2 + F4 + F5), "F-005")
    git(world.dev, "push", "-q", "origin", "feature")
    old = _head(world.dev)
    git(world.dev, "checkout", "-q", "main")
    _failures(world.dev, BASE["failures"].replace(F2, F2 + UPSTREAM), "upstream F-004")
    git(world.dev, "push", "-q", "origin", "main")
    git(world.dev, "checkout", "-q", "feature")
    assert git(world.dev, "rebase", "-q", "main", check=False).returncode == 0
    if not keep:
        git(world.dev, "reset", "-q", "--hard", "HEAD~1")
    git(world.dev, "push", "-q", "-f", "origin", "feature")
    return old, _head(world.dev)


def _forced_old_tip_fetched(world: World, good: bool) -> tuple[Path, str, dict]:
    old, new = _rebase(world, good)
    clone = world.clone(new)
    git(clone, "fetch", "-q", "origin", old)  # what the reusable action does
    payload = {"ref": "refs/heads/feature", "before": old, "after": new, "forced": True}
    return clone, "push", payload


def _pull_request(world: World, good: bool) -> tuple[Path, str, dict]:
    git(world.dev, "checkout", "-q", "-b", "feature")
    head = _failures(world.dev, BASE["failures"].replace(F2, F2 + F4) if good else DROPPED)
    git(world.dev, "checkout", "-q", "main")
    base = _failures(world.dev, BASE["failures"].replace(F2, F2 + F5), "main moves on")
    git(world.dev, "push", "-q", "origin", "main", "feature")
    payload = {"pull_request": {"base": {"sha": base}, "head": {"sha": head}}}
    return world.clone(head), "pull_request", payload


def _merge_group(world: World, good: bool) -> tuple[Path, str, dict]:
    base = _head(world.dev)
    git(world.dev, "checkout", "-q", "-b", "gh-readonly-queue/main/pr-1")
    head = _failures(world.dev, BASE["failures"].replace(F2, F2 + F4) if good else DROPPED)
    git(world.dev, "push", "-q", "origin", "HEAD")
    payload = {"merge_group": {"base_sha": base, "head_sha": head}}
    return world.clone(head), "merge_group", payload


EVENTS = [
    pytest.param(_push, id="push"),
    pytest.param(_new_branch, id="new-branch"),
    pytest.param(_forced_old_tip_fetched, id="force-push-after-rebase"),
    pytest.param(_pull_request, id="pull-request"),
    pytest.param(_merge_group, id="merge-group"),
]


@pytest.mark.parametrize("good", [True, False], ids=["good", "bad"])
@pytest.mark.parametrize("event", EVENTS)
def test_github_events(tmp_path: Path, event: Callable, good: bool) -> None:
    world = World(tmp_path)
    clone, name, payload = event(world, good)
    code, err = world.github(clone, name, payload)
    assert code == (0 if good else 1), err
    if not good:
        assert "docs/Failed_Attempts.md" in err
        assert "row_deleted" in err or "make lint" in err  # the forced push: F-005's row


def test_a_forced_push_whose_old_tip_is_absent_is_never_a_pass(tmp_path: Path) -> None:
    """The host would not serve the old tip: nothing was compared, so exit 2 with the fix
    (fetch it, or a waiver trailer), even for a rebase that kept every row."""
    world = World(tmp_path)
    old, new = _rebase(world, keep=True)
    clone = world.clone(new)
    assert git(clone, "cat-file", "-e", old, check=False).returncode != 0
    payload = {"ref": "refs/heads/feature", "before": old, "after": new, "forced": True}
    code, err = world.github(clone, "push", payload)
    assert code == 2 and "old_tip_missing" in err and f"git fetch origin {old}" in err, err
    assert "fetch-depth: 0" in err and "Rehydrate-Waiver" in err, err
    git(clone, "fetch", "-q", "origin", old)  # the twin: the old tip fetched, compared, passes
    code, err = world.github(clone, "push", payload)
    assert code == 0 and "compared" not in err.replace("ledgers against", ""), err


def test_a_waived_tip_lets_an_uncomparable_forced_push_be_judged_on_its_commits(
    tmp_path: Path,
) -> None:
    """The new tip's own commit carries a waiver: the new commits are judged (a bad one is
    still refused) and the note says the old tip's rows were not compared."""
    world = World(tmp_path)
    old, _ = _rebase(world, keep=True)
    git(world.dev, "commit", "-q", "--allow-empty", "-m", "rewrite\n\nRehydrate-Waiver: host GC")
    git(world.dev, "push", "-q", "-f", "origin", "feature")
    new = _head(world.dev)
    payload = {"ref": "refs/heads/feature", "before": old, "after": new, "forced": True}
    code, err = world.github(world.clone(new), "push", payload)
    assert code == 0 and "NOT compared" in err and "host GC" in err, err
    _failures(world.dev, DROPPED, "drop a row")  # a new commit the waiver does not cover
    git(world.dev, "commit", "-q", "--allow-empty", "-m", "tip\n\nRehydrate-Waiver: host GC")
    git(world.dev, "push", "-q", "-f", "origin", "feature")
    bad = _head(world.dev)
    payload = {"ref": "refs/heads/feature", "before": old, "after": bad, "forced": True}
    code, err = world.github(world.clone(bad), "push", payload)
    assert code == 1 and "row_deleted" in err, err


def test_a_forced_push_with_a_bad_new_commit_and_no_old_tip_is_refused(tmp_path: Path) -> None:
    world = World(tmp_path)
    old = _head(world.dev)
    git(world.dev, "reset", "-q", "--hard", "HEAD~1")
    new = _failures(world.dev, DROPPED, "rewritten and dropped")
    git(world.dev, "push", "-q", "-f", "origin", "main")
    clone = world.clone(new)
    payload = {"ref": "refs/heads/main", "before": old, "after": new, "forced": True}
    code, err = world.github(clone, "push", payload)
    assert code == 2 and "old_tip_missing" in err, err


def test_a_deleted_branch_and_other_events(tmp_path: Path) -> None:
    world = World(tmp_path)
    clone = world.clone(_head(world.dev))
    code, err = world.github(clone, "push", {"ref": "refs/heads/x", "deleted": True})
    assert code == 0 and "nothing to check" in err
    code, err = world.github(clone, "schedule", {})
    assert code == 2 and "has no commit range" in err and "--range" in err
    code, err = world.github(clone, "push", {"before": "HEAD~1", "after": "HEAD"})
    assert code == 2 and "not a commit id" in err
    missing = "1" * 40
    code, err = world.github(clone, "push", {"before": ZERO, "after": missing})
    assert code == 2 and "history_missing" in err and "fetch-depth: 0" in err
    result = run_subprocess(clone, "guard", "--ci", "github", env={"GITHUB_EVENT_NAME": ""})
    assert result.code == 2 and "GITHUB_EVENT_PATH" in result.err
    result = run_subprocess(clone, "guard", "--ci", "github", "--range", "HEAD")
    assert result.code == 2 and "choose one of" in result.err


def _gitlab(clone: Path, **env: str) -> tuple[int, str]:
    blank = {"CI_MERGE_REQUEST_DIFF_BASE_SHA": "", "CI_COMMIT_BEFORE_SHA": ZERO}
    result = run_subprocess(clone, "guard", "--ci", "gitlab", env={**blank, **env})
    assert "Invalid revision range" not in result.err and "Traceback" not in result.err
    return result.code, result.err


@pytest.mark.parametrize("good", [True, False], ids=["good", "bad"])
def test_gitlab_push_new_branch_and_merge_request(tmp_path: Path, good: bool) -> None:
    world = World(tmp_path)
    clone, _, push = _push(world, good)
    want = 0 if good else 1
    code, err = _gitlab(
        clone,
        CI_COMMIT_SHA=push["after"],
        CI_COMMIT_BEFORE_SHA=push["before"],
        CI_COMMIT_BRANCH="main",
    )
    assert code == want, err
    code, err = _gitlab(clone, CI_COMMIT_SHA=push["after"], CI_COMMIT_BRANCH="main")
    assert code == want, err  # a zero before: no other branch, the whole history
    code, err = _gitlab(
        clone, CI_COMMIT_SHA=push["after"], CI_MERGE_REQUEST_DIFF_BASE_SHA=push["before"]
    )
    assert code == want and "merge base" in err, err


def test_gitlab_forced_push_after_a_rebase(tmp_path: Path) -> None:
    world = World(tmp_path)
    old, new = _rebase(world, keep=False)
    clone = world.clone(new)
    env = {"CI_COMMIT_SHA": new, "CI_COMMIT_BEFORE_SHA": old, "CI_COMMIT_BRANCH": "feature"}
    code, err = _gitlab(clone, **env)
    assert code == 2 and "old_tip_missing" in err, err  # the old tip is not in the clone
    git(clone, "fetch", "-q", "origin", old)  # what the template does
    code, err = _gitlab(clone, **env)
    assert code == 1 and "F-005" in err and "compared directly" in err, err
    assert "make lint" in err and "F-004" not in err  # the lost row, and only that one


def test_gitlab_forced_push_after_a_clean_rebase(tmp_path: Path) -> None:
    world = World(tmp_path)
    old, new = _rebase(world, keep=True)
    clone = world.clone(new)
    git(clone, "fetch", "-q", "origin", old)
    env = {"CI_COMMIT_SHA": new, "CI_COMMIT_BEFORE_SHA": old, "CI_COMMIT_BRANCH": "feature"}
    code, err = _gitlab(clone, **env)
    assert code == 0 and "forced push" in err and "NOT compared" not in err, err


def test_a_ci_commit_with_no_ledger_is_reported(tmp_path: Path) -> None:
    """Ledgers under ledgers/ and no settings file: the job passes, saying it judged nothing."""
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    dev = tmp_path / "dev"
    dev.mkdir()
    git(dev, "init", "-q")
    for kind, text in BASE.items():
        (dev / "ledgers").mkdir(exist_ok=True)
        (dev / "ledgers" / f"{kind}.md").write_text(text)
    assert commit(dev, "--no-verify", message="base").returncode == 0
    before = _head(dev)
    (dev / "ledgers" / "failures.md").write_text(DROPPED)
    assert commit(dev, "--no-verify", message="drop").returncode == 0
    git(dev, "remote", "add", "origin", str(server))
    git(dev, "push", "-q", "origin", "main")
    clone = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "--no-local", str(server), str(clone))
    env = {"CI_COMMIT_SHA": _head(dev), "CI_COMMIT_BEFORE_SHA": before, "CI_COMMIT_BRANCH": "main"}
    code, err = _gitlab(clone, **env)
    assert code == 0 and "warning" in err and "no ledger at the default paths" in err, err
    assert "bare repository" not in err  # a work tree: only the settings file helps
