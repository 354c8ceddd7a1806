"""The one door to git: streamed reads fail loudly, and no read honours replace refs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import commit, git, write
from rehydrate.errors import GitError
from rehydrate.git import find_repo, read_at
from rehydrate.git.commits import start_last_commits, start_show_commit


def test_a_failing_log_is_an_error_not_no_commit(repo: Path) -> None:
    write(repo, "a.txt", "a\n")
    commit(repo, "a")
    missing = "1" * 40
    with pytest.raises(GitError) as info:
        start_last_commits(find_repo(repo), missing, ["a.txt"])()
    assert info.value.code == "git_failed"
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    assert start_last_commits(find_repo(repo), head, ["a.txt", "never.txt"])() == {
        "a.txt": head,
        "never.txt": None,
    }


def test_a_failing_show_is_an_error(repo: Path) -> None:
    write(repo, "a.txt", "a\n")
    commit(repo, "a")
    with pytest.raises(GitError):
        start_show_commit(find_repo(repo), "1" * 40, 10)()


def test_reads_ignore_replaced_blobs(repo: Path) -> None:
    write(repo, "docs/Spec.md", "real\n")
    head = commit(repo, "real")
    real = git(repo, "rev-parse", "HEAD:docs/Spec.md").stdout.strip()
    fake = git(repo, "hash-object", "-w", "--stdin", input="fake\n").stdout.strip()
    git(repo, "replace", "-f", real, fake)
    assert git(repo, "show", "HEAD:docs/Spec.md").stdout == "fake\n"  # git itself is fooled
    blob = read_at(find_repo(repo), head, ["docs/Spec.md"])["docs/Spec.md"]
    assert blob.data == b"real\n"
