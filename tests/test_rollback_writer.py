"""``rehydrate task rollback``: the Task's Rollback prose has a writer (no editor needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import commit, git, run, write

TASK = "docs/Task.md"
HEAD = (
    "---\nledger: task\nrevision: 5\n---\n# Task\n\n"
    "## Phases\n\n| ID | Phase | Status |\n|---|---|---|\n"
)


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_rollback_replaces_the_section_and_keeps_every_other_byte(repo: Path, eol: str) -> None:
    rest = "## Retired\n\n| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
    old = HEAD + "\n## Rollback\n\n> hint\n\nOld plan.\n\n" + rest
    assert run(repo, "init", "--no-hook").code == 0  # the other two ledgers, for the prompt
    write(repo, TASK, old.replace("\n", eol), dedent=False)
    commit(repo, "task")
    steps = "- `git revert` the export commits\n- delete the archive prefix by hand"
    done = run(repo, "task", "rollback", "--commit", "--", steps)
    assert done.code == 0, done.err
    new = HEAD + "\n## Rollback\n\n" + steps + "\n\n" + rest
    assert (repo / TASK).read_bytes() == new.replace("\n", eol).replace(
        "revision: 5", "revision: 6"
    ).encode()
    assert git(repo, "log", "-1", "--format=%s").stdout.strip() == "rehydrate: task rollback"
    prompt = run(repo, "prompt").out
    assert "- delete the archive prefix by hand" in prompt.split("### Rollback", 1)[1]


def test_rollback_creates_the_section_when_there_is_none(repo: Path) -> None:
    write(repo, TASK, HEAD, dedent=False)
    commit(repo, "task")
    assert run(repo, "task", "rollback", "Revert the two commits.").code == 0
    text = (repo / TASK).read_text()
    assert text.endswith("|---|---|---|\n\n## Rollback\n\nRevert the two commits.\n")


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("Undo it\n## Constraints", True),
        ("Undo it\n===", True),
        ("Undo it\n---", True),
        ("| ID | x |", True),
        ("```\nrm -rf build", True),
        ("   ", True),
        ("Undo it - then check --- nothing", False),  # dashes inside a line: prose
        ("1. `git revert A`\n2. re-run `make deploy`", False),
        ("# not a heading? It is: refused", True),
        ("Use `#hashtag` in the channel", False),
    ],
)
def test_rollback_text_that_would_change_the_structure_is_refused(
    repo: Path, text: str, refused: bool
) -> None:
    write(repo, TASK, HEAD, dedent=False)
    commit(repo, "task")
    before = (repo / TASK).read_bytes()
    result = run(repo, "task", "rollback", "--", text)
    if refused:
        assert result.code == 2, result.err
        assert "prose_structure" in result.err or "empty_value" in result.err
        assert (repo / TASK).read_bytes() == before
    else:
        assert result.code == 0, result.err
