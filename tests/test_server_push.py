"""A bare repository's pre-receive hook against real pushes: a rebased branch whose rows the
merge driver renumbered (one commit or several) is taken, a rebase that also drops or
edits the branch's own rows is refused; a branch deleted and pushed again at an old
commit is judged against its deleted tip; a push whose tip holds no ledger where the
settings say is reported, never passed in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import git, run
from test_guard import BASE, F2
from test_guard_git import _server, commit, make_repo, write_bytes
from test_guard_history import F4, F5, FAIL, _failures

UPSTREAM = "| F-004 | docker build | no space left | prune images |\n"
F6 = "| F-006 | tox -e py | no interpreter | install python3.12 |\n"


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def _rebased_feature(tmp_path: Path, rows: list[str]) -> tuple[Path, Path, str]:
    """A feature branch adding ``rows`` one commit each, pushed; main takes F-004 upstream;
    the branch is rebased onto main with the merge driver. (server, repo, old tip)"""
    server = _server(tmp_path)
    repo, _ = make_repo(tmp_path / "repo", hook=False)
    assert run(repo, "init", "--no-hook").code == 0  # the merge driver
    commit(repo, "--no-verify", message="merge driver")
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "checkout", "-q", "-b", "feature")
    for n in range(len(rows)):
        _failures(repo, BASE["failures"].replace(F2, F2 + "".join(rows[: n + 1])), f"row {n}")
    git(repo, "push", "-q", "origin", "main", "feature")
    old = _head(repo)
    git(repo, "checkout", "-q", "main")
    _failures(repo, BASE["failures"].replace(F2, F2 + UPSTREAM), "main F-004")
    git(repo, "push", "-q", "origin", "main")
    git(repo, "checkout", "-q", "feature")
    rebased = git(repo, "rebase", "main", check=False)
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    return server, repo, old


@pytest.mark.parametrize("rows", [[F4], [F4, F5], [F4, F5, F6]], ids=["1", "2", "3"])
def test_a_rebased_branch_renumbered_by_the_driver_is_taken(tmp_path: Path, rows: list[str]):
    server, repo, old = _rebased_feature(tmp_path, rows)
    text = (repo / FAIL).read_text()
    assert "docker build" in text and all(r.split("|")[2] in text for r in rows)
    assert f"F-00{4 + len(rows)}" in text  # every branch row moved up by one
    pushed = git(repo, "push", "-f", "origin", "feature", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert git(server, "rev-parse", "refs/heads/feature").stdout.strip() == _head(repo)
    code = run(repo, "guard", "--range", f"{old}..HEAD").code
    assert code == 0


def test_a_rebase_that_also_drops_a_branch_row_is_refused(tmp_path: Path) -> None:
    server, repo, old = _rebased_feature(tmp_path, [F4, F5])
    text = (repo / FAIL).read_text()
    lost = next(line for line in text.splitlines() if "npm ci" in line)
    write_bytes(repo, FAIL, text.replace(lost + "\n", "").encode())
    assert commit(repo, "--no-verify", "--amend", message="squashed").returncode == 0
    pushed = git(repo, "push", "-f", "origin", "feature", check=False)
    assert pushed.returncode != 0 and "row_deleted" in pushed.stderr, pushed.stderr
    assert "(forced)" in pushed.stderr
    assert git(server, "rev-parse", "refs/heads/feature").stdout.strip() == old


def test_a_rebase_that_edits_a_branch_row_is_refused(tmp_path: Path) -> None:
    server, repo, old = _rebased_feature(tmp_path, [F4, F5])
    text = (repo / FAIL).read_text()
    write_bytes(repo, FAIL, text.replace("pin npm", "use yarn").encode())
    assert commit(repo, "--no-verify", "--amend", message="reworded row").returncode == 0
    pushed = git(repo, "push", "-f", "origin", "feature", check=False)
    assert pushed.returncode != 0 and "immutable_cell_changed" in pushed.stderr, pushed.stderr
    assert git(server, "rev-parse", "refs/heads/feature").stdout.strip() == old


def test_shared_rows_may_not_trade_ids_on_a_rewritten_tip(tmp_path: Path) -> None:
    """Content moved between two IDs both tips' merge base had: a rewrite, not a rebase."""
    server = _server(tmp_path)
    repo, base = make_repo(tmp_path / "repo", hook=False)
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "push", "-q", "origin", "main")
    f1 = "| F-001 | go test -tags=musl | linker crash | default tags |\n"
    swapped = (
        BASE["failures"]
        .replace(f1, "\0")
        .replace(F2, f1.replace("F-001", "F-002"))
        .replace("\0", F2.replace("F-002", "F-001"))
    )
    _failures(repo, BASE["failures"].replace(F2, F2 + F4), "F-004")
    git(repo, "push", "-q", "origin", "main")
    git(repo, "reset", "-q", "--hard", base)
    _failures(
        repo, swapped.replace(F2.replace("F-002", "F-001"), F2.replace("F-002", "F-001") + F4)
    )
    pushed = git(repo, "push", "-f", "origin", "main", check=False)
    assert pushed.returncode != 0 and "immutable_cell_changed" in pushed.stderr, pushed.stderr


def _pushed_main_with_topic(tmp_path: Path) -> tuple[Path, Path, str, str]:
    server = _server(tmp_path)
    git(server, "symbolic-ref", "HEAD", "refs/heads/master")  # main is not the default
    repo, base = make_repo(tmp_path / "repo", hook=False)
    git(repo, "remote", "add", "origin", str(server))
    _failures(repo, BASE["failures"].replace(F2, F2 + F4), "F-004")
    git(repo, "push", "-q", "origin", "main")
    return server, repo, base, _head(repo)


def test_a_branch_deleted_and_pushed_back_at_an_old_commit_is_refused(tmp_path: Path) -> None:
    server, repo, base, tip = _pushed_main_with_topic(tmp_path)
    deleted = git(repo, "push", "origin", ":main", check=False)
    assert deleted.returncode == 0, deleted.stderr
    recorded = git(server, "rev-parse", "refs/rehydrate/deleted/heads/main").stdout.strip()
    assert recorded == tip
    pushed = git(repo, "push", "origin", f"{base}:refs/heads/main", check=False)
    assert pushed.returncode != 0 and "row_deleted" in pushed.stderr and "F-004" in pushed.stderr
    assert "created again" in pushed.stderr and tip[:12] in pushed.stderr
    assert git(server, "rev-parse", "-q", "--verify", "refs/heads/main", check=False).stdout == ""


@pytest.mark.parametrize("where", ["the-same-tip", "a-descendant"])
def test_a_branch_deleted_and_pushed_back_at_its_tip_or_later_is_taken(
    tmp_path: Path, where: str
) -> None:
    server, repo, base, tip = _pushed_main_with_topic(tmp_path)
    assert git(repo, "push", "-q", "origin", ":main", check=False).returncode == 0
    if where == "a-descendant":
        _failures(repo, BASE["failures"].replace(F2, F2 + F4 + F5), "F-005")
    pushed = git(repo, "push", "origin", "HEAD:refs/heads/main", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert git(server, "rev-parse", "refs/heads/main").stdout.strip() == _head(repo)


def test_clients_cannot_push_the_servers_records(tmp_path: Path) -> None:
    server, repo, base, tip = _pushed_main_with_topic(tmp_path)
    pushed = git(repo, "push", "origin", f"{base}:refs/rehydrate/deleted/heads/main", check=False)
    assert pushed.returncode != 0 and "reserved_ref_refused" in pushed.stderr
    assert git(server, "for-each-ref", "refs/rehydrate/").stdout == ""


def _elsewhere(tmp_path: Path) -> tuple[Path, Path]:
    """Ledgers committed under ledgers/ with no settings file in the commits."""
    server = _server(tmp_path)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for kind, text in BASE.items():
        write_bytes(repo, f"ledgers/{kind}.md", text.encode())
    assert commit(repo, "--no-verify", message="base").returncode == 0
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "push", "-q", "origin", "main")
    write_bytes(repo, "ledgers/failures.md", BASE["failures"].replace(F2, "").encode())
    assert commit(repo, "--no-verify", message="drop F-002").returncode == 0
    return server, repo


def test_a_push_with_no_ledger_where_the_settings_say_is_reported(tmp_path: Path) -> None:
    server, repo = _elsewhere(tmp_path)
    pushed = git(repo, "push", "origin", "main", check=False)
    assert pushed.returncode == 0  # nothing to judge at the default paths ...
    assert "warning" in pushed.stderr and "no ledger at the default paths" in pushed.stderr
    assert "docs/Spec.md" in pushed.stderr and ".rehydrate.toml" in pushed.stderr


def test_the_bare_repositorys_settings_find_the_ledgers(tmp_path: Path) -> None:
    server, repo = _elsewhere(tmp_path)
    (server / ".rehydrate.toml").write_text(
        '[ledgers]\nspec = "ledgers/spec.md"\ntask = "ledgers/task.md"\n'
        'failures = "ledgers/failures.md"\n'
    )
    pushed = git(repo, "push", "origin", "main", check=False)
    assert pushed.returncode != 0 and "row_deleted" in pushed.stderr, pushed.stderr
    assert "warning" not in pushed.stderr


def test_a_configured_path_that_matches_nothing_is_reported(tmp_path: Path) -> None:
    server, repo = _elsewhere(tmp_path)
    (server / ".rehydrate.toml").write_text(
        '[ledgers]\nspec = "ledgers/spec.md"\ntask = "ledgers/task.md"\n'
        'failures = "ledgers/failure.md"\n'
    )
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    write_bytes(repo, "README.md", b"docs\n")
    assert commit(repo, "--no-verify", message="readme").returncode == 0
    pushed = git(repo, "push", "origin", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert "configured ledger path ledgers/failure.md matches nothing" in pushed.stderr
    assert "ledgers/spec.md" not in pushed.stderr


def test_a_rebased_task_branch_whose_item_moved_on_is_taken(tmp_path: Path) -> None:
    """The branch adds O-2 then marks it done; main took O-2: the driver renumbers the
    branch's O-2 to O-3 in the first step, follows it in the second (O-3 done)."""
    server = _server(tmp_path)
    repo, _ = make_repo(tmp_path / "repo", hook=False)
    assert run(repo, "init", "--no-hook").code == 0
    commit(repo, "--no-verify", message="merge driver")
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "push", "-q", "origin", "main")
    o1 = "| O-1 | tell the reviewer | open |\n"

    def task(revision: int, rows: str, message: str) -> None:
        text = BASE["task"].replace("revision: 3", f"revision: {revision}").replace(o1, o1 + rows)
        write_bytes(repo, "docs/Task.md", text.encode())
        assert commit(repo, "--no-verify", message=message).returncode == 0

    git(repo, "checkout", "-q", "-b", "feature")
    task(4, "| O-2 | update docs | open |\n", "O-2")
    task(5, "| O-2 | update docs | done |\n", "O-2 done")
    git(repo, "push", "-q", "origin", "feature")
    old = _head(repo)
    git(repo, "checkout", "-q", "main")
    task(4, "| O-2 | rotate keys | open |\n", "main O-2")
    git(repo, "push", "-q", "origin", "main")
    git(repo, "checkout", "-q", "feature")
    rebased = git(repo, "rebase", "main", check=False)
    assert rebased.returncode == 0, rebased.stderr
    assert "ours renumbered O-2 to O-3" in rebased.stderr
    text = (repo / "docs/Task.md").read_text()
    assert "| O-2 | rotate keys | open |" in text and "| O-3 | update docs | done |" in text
    pushed = git(repo, "push", "-f", "origin", "feature", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert run(repo, "guard", "--range", f"{old}..HEAD").code == 0
