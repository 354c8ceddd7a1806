"""``rehydrate commit``: several writes, one commit, through the real guard hook."""

from __future__ import annotations

from pathlib import Path

from conftest import git, run, write


def test_several_writes_become_one_commit_naming_each_item(ledger_repo: Path) -> None:
    assert run(ledger_repo, "hook", "install").code == 0
    before = git(ledger_repo, "rev-parse", "HEAD").stdout.strip()
    for args in [
        ("task", "objective", "Ship the exporter"),
        ("task", "phase", "add", "--phase", "Write the exporter"),
        ("task", "next", "Write the exporter's first test"),
        (
            "fail",
            "add",
            "--tried",
            "`make ship`",
            "--failure",
            "no target",
            "--workaround",
            "use make deploy",
        ),
        ("spec", "decision", "add", "--question", "Which bucket?"),
    ]:
        assert run(ledger_repo, *args).code == 0, args
    write(ledger_repo, "notes.txt", "unrelated work\n")
    git(ledger_repo, "add", "notes.txt")
    result = run(ledger_repo, "commit")
    assert result.code == 0, result.err
    head = git(ledger_repo, "rev-parse", "HEAD").stdout.strip()
    assert result.out.strip() == head
    assert git(ledger_repo, "rev-parse", "HEAD~1").stdout.strip() == before  # one commit
    message = git(ledger_repo, "log", "-1", "--format=%B").stdout
    assert message.startswith("rehydrate: record D-002, P2, F-002, the next action\n")
    assert "+ failure added F-002: `make ship`: no target" in message
    changed = git(ledger_repo, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert sorted(changed) == ["docs/Failed_Attempts.md", "docs/Spec.md", "docs/Task.md"]
    staged = git(ledger_repo, "diff", "--cached", "--name-only").stdout.split()
    assert staged == ["notes.txt"]  # the user's staged work is neither committed nor lost
    again = run(ledger_repo, "commit")
    assert again.code == 0 and "nothing to commit" in again.err


def test_the_guard_still_judges_the_grouped_commit(ledger_repo: Path) -> None:
    assert run(ledger_repo, "hook", "install").code == 0
    path = ledger_repo / "docs/Failed_Attempts.md"
    path.write_text("\n".join(x for x in path.read_text().splitlines() if "F-001" not in x) + "\n")
    refused = run(ledger_repo, "commit", "-m", "tidy")
    assert refused.code != 0
    assert "commit_failed: not committed: rehydrate guard: refused" in refused.err
    assert "rehydrate guard --staged" in refused.err
    guard = run(ledger_repo, "guard", "--staged")
    assert guard.code == 1 and "F-001" in guard.err  # the refusal, named in full
    assert git(ledger_repo, "log", "-1", "--format=%s").stdout.strip() == "init ledgers"
