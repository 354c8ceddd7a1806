"""``adversarial.cells`` through the writer layer and the CLI writers: a refused value is
exit 2 with its code and nothing written; a twin is written, read back as given, and the
guard passes it (the MCP tools run the same table in tests/test_mcp_server.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial.cells import CELLS, Cell
from conftest import commit, git, run, scaffold
from rehydrate.errors import EXIT_USAGE, RehydrateError
from rehydrate.writers.operations import cell

FAILURES = "docs/Failed_Attempts.md"


@pytest.mark.parametrize("case", CELLS, ids=[c.name for c in CELLS])
def test_cell_value(case: Cell) -> None:
    if case.refused:
        with pytest.raises(RehydrateError) as caught:
            cell("--tried", case.value)
        assert caught.value.code == case.refused
        assert caught.value.fix
        assert len(str(caught.value)) < 600  # never the whole value echoed back
    else:
        assert cell("--tried", case.value) == (case.expect or case.value)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example ledgers, committed (built once; each case copies it)."""
    repo = tmp_path_factory.mktemp("cells") / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    scaffold(repo)
    commit(repo, "ledgers")
    return repo


@pytest.mark.parametrize("case", CELLS, ids=[c.name for c in CELLS])
@pytest.mark.parametrize("option", ["--tried", "--failure", "--workaround"])
def test_cli_fail_add(base: Path, tmp_path: Path, case: Cell, option: str) -> None:
    import shutil

    from rehydrate.ledgers import parse_ledger

    repo = tmp_path / "repo"
    shutil.copytree(base, repo, symlinks=True)
    before = (repo / FAILURES).read_bytes()
    values = {"--tried": "`make x`", "--failure": "it broke", "--workaround": "make y"}
    values[option] = case.value
    args = [a for pair in values.items() for a in pair]
    result = run(repo, "fail", "add", *args)
    if case.refused:
        assert result.code == EXIT_USAGE, result.err
        assert f"{case.refused}: {option}" in result.err
        assert (repo / FAILURES).read_bytes() == before
        return
    assert result.code == 0, result.err
    new_id = result.out.strip()
    ledger = parse_ledger("failures", FAILURES, (repo / FAILURES).read_bytes())
    row = next(r for r in ledger.section("failures") if r.id == new_id)
    column = option[2:]
    assert row.cells()[column] == (case.expect or case.value)
    git(repo, "add", "-A")
    assert run(repo, "guard", "--staged").code == 0


LONG = "z" * 5000
WRITERS = [
    pytest.param(("task", "next", LONG), "docs/Task.md", "value_too_long", id="task-next-long"),
    pytest.param(
        ("task", "objective", "a\u2028b"), "docs/Task.md", "bad_value", id="objective-u2028"
    ),
    pytest.param(
        ("spec", "constraint", "add", "--level", "MUST", "--rule", "x \\| y"),
        "docs/Spec.md",
        "bad_value",
        id="constraint-backslash-pipe",
    ),
    pytest.param(
        ("spec", "decision", "add", "--question", "q?", "--owner", LONG),
        "docs/Spec.md",
        "value_too_long",
        id="decision-owner-long",
    ),
    pytest.param(
        ("task", "phase", "add", "--phase", "p\n| P9 | forged | done |"),
        "docs/Task.md",
        "bad_value",
        id="phase-forged-row",
    ),
    pytest.param(("retire", "F-001", "--reason", LONG), FAILURES, "value_too_long", id="retire"),
]


@pytest.mark.parametrize(("argv", "path", "code"), WRITERS)
def test_every_writer_holds_the_limits(
    base: Path, tmp_path: Path, argv: tuple[str, ...], path: str, code: str
) -> None:
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(base, repo, symlinks=True)
    before = (repo / path).read_bytes()
    result = run(repo, *argv)
    assert result.code == EXIT_USAGE, result.err
    assert f"{code}:" in result.err
    assert (repo / path).read_bytes() == before
