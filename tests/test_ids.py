"""ID minting: sequential and branch-safe; branch-safe IDs do not collide across branches."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import commit, git, run, write
from rehydrate.ledgers import ids


@pytest.mark.parametrize(
    ("item_id", "parts"),
    [
        pytest.param("F-012", ("F-", 12, 3, ""), id="sequential"),
        pytest.param("P3", ("P", 3, 1, ""), id="phase"),
        pytest.param("F-012-3fa9c", ("F-", 12, 3, "-3fa9c"), id="branch-safe"),
        pytest.param("F-012-12345", ("F-", 12, 3, "-12345"), id="all-digit-tag"),
        pytest.param("X-2024-01", ("X-2024-", 1, 2, ""), id="dashes-in-prefix"),
        pytest.param("intro", None, id="no-number"),
    ],
)
def test_split_id(item_id: str, parts: tuple[str, int, int, str] | None) -> None:
    assert ids.split_id(item_id) == (ids.IdParts(*parts) if parts else None)


@pytest.mark.parametrize(
    ("existing", "prefix", "width", "expected"),
    [
        pytest.param([], "F-", 3, "F-001", id="empty"),
        pytest.param(["F-001", "F-007", "C-020"], "F-", 3, "F-008", id="highest-plus-one"),
        pytest.param(["F-001", "F-002-abcde"], "F-", 3, "F-003", id="counts-tagged-ids"),
        pytest.param(["P1", "P9"], "P", 1, "P10", id="grows-past-width"),
    ],
)
def test_sequential(existing: list[str], prefix: str, width: int, expected: str) -> None:
    assert ids.next_id(existing, prefix, "sequential", width=width) == expected


def test_branch_safe_is_readable_deterministic_and_differs_per_branch_and_content() -> None:
    row = {"tried": "make test", "failure": "segfault", "workaround": "make check"}
    one = ids.next_id(["F-001"], "F-", "branch-safe", branch="agent-a", content=row)
    assert one == ids.next_id(["F-001"], "F-", "branch-safe", branch="agent-a", content=row)
    assert one.startswith("F-002-") and len(one) == len("F-002-") + ids.TAG_DIGITS
    other_branch = ids.next_id(["F-001"], "F-", "branch-safe", branch="agent-b", content=row)
    other_row = ids.next_id(
        ["F-001"], "F-", "branch-safe", branch="agent-a", content={**row, "failure": "hang"}
    )
    assert len({one, other_branch, other_row}) == 3


def test_branch_safe_never_returns_a_taken_id() -> None:
    first = ids.next_id([], "F-", "branch-safe", branch="b", content="x")
    again = ids.next_id([first, "F-001"], "F-", "branch-safe", branch="b", content="x")
    assert again != first and again.startswith("F-002-")
    tagged = ids.next_id([first.replace("F-001", "F-041")], "F-", "branch-safe", content="x")
    assert tagged.startswith("F-042-")


def test_renumber_keeps_the_style() -> None:
    assert ids.renumber(["F-001", "F-002", "F-010"], "F-002") == "F-011"
    assert ids.renumber(["P1", "P2"], "P2") == "P3"
    assert ids.renumber(["intro", "intro-2"], "intro") == "intro-3"


def test_unknown_scheme_is_an_error() -> None:
    with pytest.raises(ValueError):
        ids.next_id([], "F-", "random")


def test_writers_mint_branch_safe_ids_and_two_branches_merge_without_renumbering(
    repo: Path,
) -> None:
    write(repo, ".rehydrate.toml", 'id_scheme = "branch-safe"\n')
    assert run(repo, "init").code == 0
    commit(repo, "init")
    minted: dict[str, list[str]] = {}
    for branch in ("left", "right"):
        git(repo, "checkout", "-q", "-b", branch, "main")
        minted[branch] = []
        for i in range(3):
            result = run(
                repo,
                "fail",
                "add",
                "--tried",
                f"same attempt {i}",
                "--failure",
                "same failure",
                "--workaround",
                "same workaround",
            )
            assert result.code == 0, result.err
            minted[branch].append(result.out.strip())
        commit(repo, branch)
    assert all(ids.split_id(i) is not None and ids.split_id(i).tag for i in minted["left"])
    assert not set(minted["left"]) & set(minted["right"])  # same rows, different branches
    proc = git(repo, "merge", "--no-edit", "left", check=False)
    assert proc.returncode == 0, proc.stderr
    assert "added on both sides" not in proc.stderr
    text = (repo / "docs/Failed_Attempts.md").read_text()
    assert all(i in text for i in minted["left"] + minted["right"])
