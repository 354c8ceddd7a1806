"""Issue 24, class 6: ``git commit --amend`` fixing a typo in a failure row that the unpushed
HEAD commit itself added is allowed; editing a row HEAD~1 had, a pushed row, or taking the
row out is still refused. Real commits, the real installed hook, real ``--amend``.

Each case: (what HEAD adds, whether HEAD is pushed, the amended ledger, refused?).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial.helpers import (
    BASE,
    PATHS,
    clone,
    commit_all,
    git,
    make_base_repo,
    rev,
    run,
    write_bytes,
)

F2 = "| F-002 | pip install -e . | resolver loop | use uv |\n"
TYPO = "| F-004 | cargo biuld | oom | add swap |\n"
FIXED = "| F-004 | cargo build | oom | add swap |\n"
FAIL = PATHS["failures"]


def _failures(*rows: str, f2: str = F2) -> str:
    return BASE["failures"].replace(F2, f2 + "".join(rows))


# (id, amended failure ledger, push HEAD first?, refused code or "")
CASES = [
    pytest.param(_failures(FIXED), False, "", id="fix-typo-in-own-row"),
    pytest.param(
        _failures("| F-004 | cargo build --release | oom: linker killed | add 4G swap |\n"),
        False,
        "",
        id="reword-every-cell-of-own-row",
    ),
    pytest.param(
        _failures(FIXED, "| F-005 | cargo test | flaky | retry |\n"), False, "", id="fix-and-add"
    ),
    pytest.param(_failures(FIXED), True, "immutable_cell_changed", id="own-row-already-pushed"),
    pytest.param(_failures(), False, "row_deleted", id="amend-takes-own-row-out"),
    pytest.param(
        _failures(FIXED, f2="| F-002 | pip install -e . | resolver loop | use poetry |\n"),
        False,
        "immutable_cell_changed",
        id="fix-own-row-and-sneak-an-older-row",
    ),
    pytest.param(
        _failures(FIXED.replace("F-004", "F-001")).replace(
            "| F-001 | go test -tags=musl | linker crash | default tags |\n", ""
        ),
        False,
        "immutable_cell_changed",
        id="own-row-takes-over-a-published-id",
    ),
]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base_repo(tmp_path_factory.mktemp("amend") / "base")


def _with_remote(repo: Path, tmp: Path) -> None:
    server = tmp / "server.git"
    git(tmp, "init", "-q", "--bare", str(server))
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "push", "-q", "origin", "main")


@pytest.mark.parametrize(("amended", "pushed", "code"), CASES)
def test_amend_of_the_unpushed_heads_own_row(
    base: Path, tmp_path: Path, amended: str, pushed: bool, code: str
) -> None:
    repo = clone(base, tmp_path / "repo")
    _with_remote(repo, tmp_path)  # the base is pushed: its rows are published
    write_bytes(repo, FAIL, _failures(TYPO))
    assert commit_all(repo, "record F-004", verify=True).returncode == 0
    if pushed:
        git(repo, "push", "-q", "origin", "main")
    head = rev(repo)
    write_bytes(repo, FAIL, amended)
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "--amend", "--no-edit", check=False)
    if code:
        assert proc.returncode != 0 and rev(repo) == head, proc.stderr
        assert code in proc.stderr and FAIL in proc.stderr, proc.stderr
    else:
        assert proc.returncode == 0 and rev(repo) != head, proc.stderr
        assert (
            git(repo, "rev-parse", "HEAD~1").stdout.strip()
            == git(repo, "rev-parse", "origin/main").stdout.strip()
        )


def test_a_row_of_head_parent_stays_refused_on_amend(base: Path, tmp_path: Path) -> None:
    """No remote at all (nothing is pushed): HEAD's own row may be fixed, a row HEAD~1
    had may not."""
    repo = clone(base, tmp_path / "repo")
    write_bytes(repo, FAIL, _failures(TYPO))
    assert commit_all(repo, "record F-004", verify=True).returncode == 0
    head = rev(repo)
    edited = _failures(FIXED, f2="| F-002 | pip install -e . | resolver loop | use pdm |\n")
    write_bytes(repo, FAIL, edited)
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "--amend", "--no-edit", check=False)
    assert proc.returncode != 0 and rev(repo) == head
    assert "F-002" in proc.stderr and "F-004" not in proc.stderr, proc.stderr
    write_bytes(repo, FAIL, _failures(FIXED))
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "--amend", "--no-edit", check=False)
    assert proc.returncode == 0, proc.stderr


def test_a_merge_heads_rows_are_not_amendable(base: Path, tmp_path: Path) -> None:
    repo = clone(base, tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "side")
    write_bytes(repo, "side.txt", "side\n")
    assert commit_all(repo, "side").returncode == 0
    git(repo, "checkout", "-q", "main")
    write_bytes(repo, FAIL, _failures(TYPO))
    assert commit_all(repo, "record F-004", verify=True).returncode == 0
    assert git(repo, "merge", "-q", "--no-edit", "--no-ff", "side", check=False).returncode == 0
    write_bytes(repo, FAIL, _failures(FIXED))
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "--amend", "--no-edit", check=False)
    assert proc.returncode != 0 and "immutable_cell_changed" in proc.stderr, proc.stderr


def test_a_plain_commit_editing_heads_row_stays_refused(base: Path, tmp_path: Path) -> None:
    """Only an amend rewrites HEAD: a new commit on top that edits HEAD's row is an edit
    of a committed row, refused by the hook as by the range check."""
    repo = clone(base, tmp_path / "repo")
    start = rev(repo)
    write_bytes(repo, FAIL, _failures(TYPO))
    assert commit_all(repo, "record F-004", verify=True).returncode == 0
    write_bytes(repo, FAIL, _failures(FIXED))
    proc = commit_all(repo, "edit F-004", verify=True)
    assert proc.returncode != 0 and "F-004" in proc.stderr, proc.stderr
    assert commit_all(repo, "edit F-004").returncode == 0  # --no-verify
    result = run(repo, "guard", "--range", f"{start}..HEAD")
    assert result.code == 1 and "F-004" in result.err, result.err


def test_the_hook_run_by_hand_is_not_an_amend(base: Path, tmp_path: Path) -> None:
    repo = clone(base, tmp_path / "repo")
    write_bytes(repo, FAIL, _failures(TYPO))
    assert commit_all(repo, "record F-004", verify=True).returncode == 0
    write_bytes(repo, FAIL, _failures(FIXED))
    git(repo, "add", "-A")
    assert run(repo, "guard", "--staged").code == 1


@pytest.mark.parametrize(
    ("argv", "amends"),
    [
        (["git", "commit", "--amend", "--no-edit"], True),
        (["/usr/bin/git", "-c", "core.editor=true", "commit", "-q", "--amend"], True),
        (["git", "-C", "repo", "commit", "--amen"], True),
        (["git", "commit", "--am"], True),
        (["git", "commit", "-m", "--amend"], False),
        (["git", "commit", "--message", "--amend"], False),
        (["git", "commit", "-F", "--amend"], False),
        (["git", "commit", "--", "--amend"], False),
        (["git", "commit", "-am", "msg"], False),
        (["git", "-c", "commit", "status", "--amend"], None),
        (["git", "rebase", "--continue"], None),
        (["sh", "-c", "git commit --amend"], None),
        (["gitx", "commit", "--amend"], None),
    ],
)
def test_what_counts_as_an_amend(argv: list[str], amends: bool | None) -> None:
    from rehydrate.guard.amend import commit_amends

    assert commit_amends(argv) is amends
