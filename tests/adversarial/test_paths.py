"""Paths that are not what they seem: a repository whose path holds a line break, a tab,
a leading dash, a space, non-UTF-8 bytes or a git option. Every command works there and
writes into that repository, never into a neighbour whose path is a prefix of it (git
prints paths one per line; a line break in one used to split it). The plain twin is
the same flow in an ordinary directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

NAMES = {
    "plain-twin": b"plain",
    "newline": b"a\nb",
    "newline-at-end": b"a\n",
    "tab": b"a\tb",
    "leading-dash": b"-rf",
    "git-option": b"--git-dir=elsewhere",
    "carriage-return": b"a\rb",
    "non-utf8": b"caf\xe9-\xff",
    "spaces": b" a b ",
}
ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _run(cwd: bytes, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **ENV, "HOME": os.fsdecode(cwd)}
    return subprocess.run(
        [sys.executable, "-m", "rehydrate", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _git(cwd: bytes, *args: str) -> bytes:
    env = {**os.environ, **ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True).stdout


@pytest.mark.parametrize("name", list(NAMES.values()), ids=list(NAMES))
def test_every_command_works_in_a_repository_with_a_strange_path(
    tmp_path: Path, name: bytes
) -> None:
    base = os.fsencode(tmp_path)
    # the neighbours whose paths are what a split at a line break or a tab would give
    for prefix in {name.split(b"\n")[0], name.split(b"\t")[0], b"a"} - {name, b""}:
        neighbour = os.path.join(base, prefix)
        if not os.path.exists(neighbour):
            os.mkdir(neighbour)
            _git(neighbour, "init", "-q")
    repo = os.path.join(base, name)
    os.mkdir(repo)
    _git(repo, "init", "-q")
    assert _run(repo, "init").returncode == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "ledgers")
    added = _run(
        repo,
        "fail",
        "add",
        "--tried",
        "`make quick`",
        "--failure",
        "it broke",
        "--workaround",
        "use make full",
        "--commit",
    )
    assert added.returncode == 0, added.stderr
    assert b"F-001" in _git(repo, "show", "HEAD:docs/Failed_Attempts.md")
    for entry in os.listdir(base):  # nothing landed in a neighbour
        other = os.path.join(base, entry)
        if other != repo and os.path.isdir(os.path.join(other, b".git")):
            assert not os.path.exists(os.path.join(other, b"docs")), entry
    refused = _run(repo, "check-command", "--", "make", "quick")
    assert refused.returncode == 1, refused.stderr
    for args in (["prompt"], ["status"], ["check"], ["state"], ["log"], ["doctor"]):
        proc = _run(repo, *args)
        assert proc.returncode in (0, 1), (args, proc.stderr)
        assert "internal error" not in proc.stderr and "git is not installed" not in proc.stderr
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": os.fsdecode(repo)}
    event["tool_input"] = {"command": "make quick"}
    hook = _run(repo, "hook", "claude", "pre-tool-use", stdin=json.dumps(event))
    assert hook.returncode == 0 and "F-001" in hook.stdout, hook.stdout + hook.stderr


def test_a_directory_removed_under_the_command_is_named_not_git_missing(tmp_path: Path) -> None:
    from rehydrate import git
    from rehydrate.errors import GitError

    with pytest.raises(GitError) as caught:
        git.find_repo(tmp_path / "gone")
    assert caught.value.code == "not_a_repo" and "not installed" not in str(caught.value)
