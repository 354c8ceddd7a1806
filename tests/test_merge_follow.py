"""``merge.follow``: a rebase's later step reads base and theirs with the renumbering ours
made; an edit ours made that is no renumbering is still a conflict."""

from __future__ import annotations

from rehydrate.ledgers import parse_ledger
from rehydrate.merge.ledger import merge_ledger
from test_guard import BASE, F2

PATH = "docs/Failed_Attempts.md"
F4 = "| F-004 | npm ci | lockfile drift | pin npm |\n"
F5 = "| F-005 | make lint | ruff missing | pip install ruff |\n"
UP = "| F-004 | docker build | no space left | prune images |\n"


def _rows(data: bytes) -> dict[str, str]:
    ledger = parse_ledger("failures", PATH, data)
    return {r.id: r.tried for r in ledger.section("failures")}


def _with(*rows: str) -> bytes:
    return BASE["failures"].replace(F2, F2 + "".join(rows)).encode()


def test_theirs_follows_ours_renumbering_and_its_own_row_moves_out_of_the_way() -> None:
    base, ours, theirs = _with(F4), _with(UP, F4.replace("F-004", "F-005")), _with(F4, F5)
    result = merge_ledger("failures", base, ours, theirs, PATH)
    assert result.clean, result.conflicts
    assert _rows(result.data) == {
        "F-001": "go test -tags=musl",
        "F-002": "pip install -e .",
        "F-003": "make all",
        "F-004": "docker build",
        "F-005": "npm ci",
        "F-006": "make lint",
    }
    assert result.renamed == {"F-005": "F-006"}
    assert any("ours renumbered F-004 to F-005" in n for n in result.notes)


def test_a_retirement_theirs_made_follows_the_renumbering() -> None:
    base, ours = _with(F4), _with(UP, F4.replace("F-004", "F-005"))
    theirs = _with(F4).replace(
        b"|---|---|---|---|\n| F-003 | fixed upstream",
        b"|---|---|---|---|\n| F-004 | flaky | 2026-01-02 | |\n| F-003 | fixed upstream",
    )
    result = merge_ledger("failures", base, ours, theirs, PATH)
    assert result.clean, result.conflicts
    retired = parse_ledger("failures", PATH, result.data).retired_ids
    assert "F-005" in retired and "F-004" not in retired  # upstream's F-004 stays in force


def test_an_edit_of_a_base_row_is_no_renumbering() -> None:
    """Ours changed F-004's cells and holds its old content nowhere: still a conflict."""
    base, ours, theirs = _with(F4), _with(UP), _with(F4, F5)
    result = merge_ledger("failures", base, ours, theirs, PATH)
    assert not result.clean
    assert not any("renumbered" in n for n in result.notes)


def test_nothing_renumbered_reads_nothing_twice() -> None:
    """Every row of base is in ours as it was: the fast path, no follow note."""
    base, ours, theirs = _with(F4), _with(F4, F5), _with(F4, UP.replace("F-004", "F-005"))
    result = merge_ledger("failures", base, ours, theirs, PATH)
    assert result.clean and result.renamed == {"F-005": "F-006"}
    assert not any("renumbered" in n for n in result.notes)
