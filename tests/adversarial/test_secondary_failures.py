"""A secondary failure does not sink the primary result (issue 25 class 3): a writer whose
commit fails says the row WAS written, names what stopped the commit and the exact next
step, and the natural retry records nothing twice. Real git, the real CLI process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import commit, git, run_subprocess

ADD = ("fail", "add", "--tried", "`make deploy`", "--failure", "it paged", "--workaround", "stage")


def rows(repo: Path) -> int:
    return (repo / "docs/Failed_Attempts.md").read_text().count("`make deploy`")


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def test_a_stale_index_lock_says_the_row_is_written_and_the_retry_commits_it_once(
    ledger_repo: Path,
) -> None:
    lock = ledger_repo / ".git/index.lock"
    lock.write_text("")
    before = head(ledger_repo)
    first = run_subprocess(ledger_repo, *ADD, "--commit")
    assert first.code == 2 and "Traceback" not in first.err
    assert "written to the work tree, but NOT committed" in first.err
    assert str(lock) in first.err and "F-002" in first.err
    assert "git add -- docs/Failed_Attempts.md && git commit -m" in first.err
    assert rows(ledger_repo) == 1 and head(ledger_repo) == before
    again = run_subprocess(ledger_repo, *ADD, "--commit")  # the lock is still there
    assert again.code == 2 and rows(ledger_repo) == 1 and head(ledger_repo) == before
    lock.unlink()
    done = run_subprocess(ledger_repo, *ADD, "--commit")  # the natural retry
    assert done.code == 0 and done.out.strip() == "F-002", done
    assert rows(ledger_repo) == 1 and head(ledger_repo) != before
    assert git(ledger_repo, "status", "--porcelain").stdout == ""
    subject = git(ledger_repo, "log", "-1", "--format=%s").stdout.strip()
    assert subject == "rehydrate: fail add F-002"


def test_the_printed_next_step_commits_the_row(ledger_repo: Path) -> None:
    """The twin: following the message by hand works as well."""
    lock = ledger_repo / ".git/index.lock"
    lock.write_text("")
    assert run_subprocess(ledger_repo, *ADD, "--commit").code == 2
    lock.unlink()
    git(ledger_repo, "add", "--", "docs/Failed_Attempts.md")
    git(ledger_repo, "commit", "-q", "-m", "rehydrate: fail add F-002")
    assert rows(ledger_repo) == 1
    again = run_subprocess(ledger_repo, *ADD, "--commit")  # committed already: nothing to do
    assert again.code == 0 and again.out.strip() == "F-002" and rows(ledger_repo) == 1


def test_a_different_row_is_still_added(ledger_repo: Path) -> None:
    """The twin of "an identical row is not re-added": a row that differs in any cell is
    a new failed attempt."""
    assert run_subprocess(ledger_repo, *ADD).code == 0
    other = list(ADD)
    other[other.index("it paged")] = "it paged twice"
    result = run_subprocess(ledger_repo, *other)
    assert result.code == 0 and result.out.strip() == "F-003" and rows(ledger_repo) == 2


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to a read-only folder anyway")
def test_a_read_only_git_folder_says_the_row_is_written(ledger_repo: Path) -> None:
    objects = ledger_repo / ".git/objects"
    objects.chmod(0o555)
    try:
        result = run_subprocess(ledger_repo, *ADD, "--commit")
    finally:
        objects.chmod(0o755)
    assert result.code == 2 and "NOT committed" in result.err and rows(ledger_repo) == 1


def test_a_refusing_pre_commit_hook_still_reports_the_written_row(ledger_repo: Path) -> None:
    hook = ledger_repo / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho 'hook said no' >&2\nexit 1\n")
    hook.chmod(0o755)
    result = run_subprocess(ledger_repo, *ADD, "--commit")
    assert result.code == 2 and "NOT committed" in result.err and "hook said no" in result.err
    assert rows(ledger_repo) == 1
    hook.unlink()
    commit(ledger_repo, "by hand")
    assert rows(ledger_repo) == 1
