"""The merge driver under real `git merge`: worktrees, writers, hooks, guard over the range."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import commit, git, run, run_subprocess, write, write_examples
from rehydrate.ledgers import parse_ledger

PATHS = {"spec": "docs/Spec.md", "task": "docs/Task.md", "failures": "docs/Failed_Attempts.md"}


def ledgers_at(repo: Path, rev: str = "HEAD") -> dict[str, object]:
    out = {}
    for kind, path in PATHS.items():
        data = git(repo, "show", f"{rev}:{path}").stdout.encode()
        out[kind] = parse_ledger(kind, path, data)
    return out


def rehydrate(repo: Path, *args: str) -> str:
    result = run(repo, *args)
    assert result.code == 0, (args, result.err)
    return result.out.strip()


@pytest.fixture
def project(repo: Path) -> Path:
    """`rehydrate init` (ledgers, hooks, merge driver) committed on main, with the example
    rows (P1, D-001, E-001, F-001, ...) in its ledgers."""
    rehydrate(repo, "init")
    write_examples(repo)
    commit(repo, "init")
    return repo


def worktree(project: Path, name: str, start: str = "main") -> Path:
    path = project.parent / f"wt-{name}"
    git(project, "worktree", "add", "-q", "-b", name, str(path), start)
    return path


def work(tree: Path, name: str, failures: int, constraints: int = 1) -> list[str]:
    """What one agent records on its branch (through the writers), committed with the hook."""
    tried = []
    for i in range(failures):
        text = f"{name} attempt {i}: `make test-{i}`"
        rehydrate(
            tree,
            "fail",
            "add",
            "--tried",
            text,
            "--failure",
            f"broke {i}",
            "--workaround",
            f"use plan {i}",
        )
        tried.append(text)
    for i in range(constraints):
        rehydrate(
            tree, "spec", "constraint", "add", "--level", "MUST", "--rule", f"{name} rule {i}"
        )
    commit(tree, f"{name}: work")
    return tried


def merge(repo: Path, *branches: str) -> tuple[int, str]:
    proc = git(repo, "merge", "--no-edit", *branches, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def assert_complete(repo: Path, base: str, tried: list[str], rules: list[str]) -> None:
    """No lost row, no duplicate ID, and the guard passes over the whole range."""
    state = ledgers_at(repo)
    rows = [r for r in state["failures"].all_items()]  # type: ignore[attr-defined]
    assert len({r.id for r in rows}) == len(rows)
    assert sorted(r.tried for r in rows if r.tried in set(tried)) == sorted(tried)
    spec_rows = list(state["spec"].all_items())  # type: ignore[attr-defined]
    assert len({r.id for r in spec_rows}) == len(spec_rows)
    assert set(rules) <= {getattr(r, "rule", None) for r in spec_rows}
    guard = run_subprocess(repo, "guard", "--range", f"{base}..HEAD")
    assert guard.code == 0, guard.err


def test_init_registers_the_driver_idempotently(project: Path) -> None:
    attributes = (project / ".gitattributes").read_text()
    assert attributes.splitlines() == [f"{p} merge=rehydrate" for p in PATHS.values()]
    driver = git(project, "config", "merge.rehydrate.driver").stdout
    assert driver.strip().endswith("-m rehydrate merge-driver %O %A %B %P")
    again = run(project, "hook", "install")
    assert again.code == 0 and "kept      .gitattributes" in again.err
    assert (project / ".gitattributes").read_text() == attributes
    assert git(project, "status", "--porcelain").stdout == ""


@pytest.mark.parametrize("direction", ["a-into-b", "b-into-a"])
def test_two_worktrees_of_100_failures_merge_both_ways(project: Path, direction: str) -> None:
    base = git(project, "rev-parse", "HEAD").stdout.strip()
    a, b = worktree(project, "a"), worktree(project, "b")
    tried = work(a, "a", 100) + work(b, "b", 100)
    rehydrate(a, "task", "phase", "P1", "doing")
    commit(a, "a: phase doing")
    rehydrate(b, "task", "phase", "P1", "done")
    commit(b, "b: phase done")
    into, other = (b, "a") if direction == "a-into-b" else (a, "b")
    code, output = merge(into, other)
    assert code == 0, output
    assert "F-002 was added on both sides with different content" in output  # sequential IDs
    assert_complete(into, base, tried, ["a rule 0", "b rule 0"])
    task = ledgers_at(into)["task"]
    assert task.section("phases")[0].status == "done"  # type: ignore[attr-defined]
    assert task.revision == 3  # type: ignore[attr-defined]  # max(2, 2) + 1


def test_octopus_refuses_and_sequential_merges_work(project: Path) -> None:
    base = git(project, "rev-parse", "HEAD").stdout.strip()
    names = ["o1", "o2", "o3", "o4"]
    tried: list[str] = []
    for name in names:
        tree = worktree(project, name)
        tried += work(tree, name, 5)
    head = git(project, "rev-parse", "HEAD").stdout.strip()
    code, output = merge(project, *names)
    # git's octopus strategy merges files with git-merge-one-file, which never runs a
    # custom merge driver: it stops instead of producing a textual mess.
    assert code != 0 and "octopus" in output.lower()
    assert git(project, "rev-parse", "HEAD").stdout.strip() == head
    git(project, "reset", "-q", "--hard", head)
    for name in names:
        code, output = merge(project, name)
        assert code == 0, output
    assert_complete(project, base, tried, [f"{n} rule 0" for n in names])


@pytest.mark.parametrize(
    ("ours_args", "theirs_args", "needle"),
    [
        pytest.param(
            ("spec", "decide", "D-001", "--decision", "Redis", "--source", "ADR-1"),
            ("spec", "decide", "D-001", "--decision", "Memcached", "--source", "ADR-2"),
            "D-001",
            id="two-decisions",
        ),
        pytest.param(
            ("task", "next", "Run the linter"),
            ("task", "next", "Run the formatter"),
            "next_action_conflict",
            id="two-next-actions",
        ),
        pytest.param(
            (
                "task",
                "write",
                "settle",
                "E-001",
                "--status",
                "confirmed",
                "--evidence",
                "tag exists",
            ),
            ("task", "write", "settle", "E-001", "--status", "not_applied", "--evidence", "no tag"),
            "E-001",
            id="write-confirmed-vs-not-applied",
        ),
    ],
)
def test_incompatible_moves_stop_the_merge_with_markers(
    project: Path, ours_args: tuple[str, ...], theirs_args: tuple[str, ...], needle: str
) -> None:
    x, y = worktree(project, "x"), worktree(project, "y")
    rehydrate(x, *ours_args)
    commit(x, "x")
    rehydrate(y, *theirs_args)
    commit(y, "y")
    code, output = merge(x, "y")
    assert code != 0
    assert needle in output and "CONFLICT" in output
    kind = "spec" if ours_args[0] == "spec" else "task"
    text = (x / PATHS[kind]).read_text()
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text
    assert git(x, "ls-files", "-u", PATHS[kind]).stdout  # git knows the path is unmerged


def test_driver_on_an_unknown_path_falls_back_to_text_merge(project: Path, tmp_path: Path) -> None:
    files = [
        write(tmp_path, n, t)
        for n, t in (("O", "a\nb\n"), ("A", "a\nb\nours\n"), ("B", "theirs\na\nb\n"))
    ]
    result = run(project, "merge-driver", *(str(f) for f in files), "notes.md")
    assert result.code == 0
    assert "not a configured ledger" in result.err
    assert files[1].read_text() == "theirs\na\nb\nours\n"


def test_driver_refuses_an_unparseable_side(project: Path, tmp_path: Path) -> None:
    good = (project / PATHS["failures"]).read_text()
    bad = good + "| F-009 | two | cells |\n"
    files = [write(tmp_path, n, t, dedent=False) for n, t in (("O", good), ("A", good), ("B", bad))]
    result = run(project, "merge-driver", *(str(f) for f in files), PATHS["failures"])
    assert result.code == 1
    assert "the theirs side cannot be parsed" in result.err
    assert "<<<<<<<" in files[1].read_text()


def test_registration_keeps_existing_attributes_and_matches_paths_with_spaces(repo: Path) -> None:
    from rehydrate.config import load_config
    from rehydrate.git import find_repo
    from rehydrate.merge.driver import register_merge_driver

    write(repo, ".rehydrate.toml", '[ledgers]\nspec = "my docs/Spec file.md"\n')
    write(repo, ".gitattributes", "*.png binary", dedent=False)
    actions = register_merge_driver(find_repo(repo), load_config(repo))
    assert sum("updated   .gitattributes" in a for a in actions) == 3
    text = (repo / ".gitattributes").read_text()
    assert text.startswith("*.png binary\n") and text.count("merge=rehydrate") == 3
    for path in ("my docs/Spec file.md", PATHS["task"], PATHS["failures"]):
        assert (
            git(repo, "check-attr", "merge", "--", path).stdout.strip().endswith("merge: rehydrate")
        )
    assert (
        git(repo, "check-attr", "merge", "--", "other/docs/Task.md")
        .stdout.strip()
        .endswith("merge: unspecified")
    )
    again = register_merge_driver(find_repo(repo), load_config(repo))
    assert all(a.startswith("kept") for a in again)
