"""The guard against real git: real commits through the installed hook, --range over
histories made with --no-verify, partial staging, merges, waivers, pre-receive."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git, run, run_subprocess
from test_guard import ALLOWED, BASE, DELETE, F2, PATHS, REFUSED, RENAME, SYMLINK, Edit, apply


def make_repo(path: Path, *, hook: bool = True) -> tuple[Path, str]:
    """A repository with the base ledgers committed (and the guard hook installed)."""
    path.mkdir()
    git(path, "init", "-q")
    for kind, text in BASE.items():
        write_bytes(path, PATHS[kind], text.encode())
    (path / "README.md").write_text("hello\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "--no-verify", "-m", "base")
    if hook:
        result = run(path, "hook", "install")
        assert result.code == 0, result.err
    return path, git(path, "rev-parse", "HEAD").stdout.strip()


def write_bytes(repo: Path, relpath: str, data: bytes) -> None:
    target = repo / relpath
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def edit_worktree(repo: Path, edit: Edit) -> None:
    texts = apply(edit)
    for kind, old, new in edit:
        path = PATHS[kind]
        if old == DELETE:
            git(repo, "rm", "-q", path)
        elif old == RENAME:
            git(repo, "mv", path, new)
        elif old == SYMLINK:
            (repo / path).unlink()
            os.symlink("elsewhere.md", repo / path)
    for kind, text in texts.items():
        if text != BASE[kind]:
            write_bytes(repo, PATHS[kind], text.encode())


def commit(repo: Path, *extra: str, message: str = "edit") -> subprocess.CompletedProcess[str]:
    git(repo, "add", "-A")
    return git(repo, "commit", "-q", "-m", message, *extra, check=False)


@pytest.mark.parametrize(("edit", "code"), REFUSED)
def test_commit_and_range_refuse(tmp_path: Path, edit: Edit, code: str) -> None:
    repo, base = make_repo(tmp_path / "repo")
    edit_worktree(repo, edit)
    hooked = commit(repo)
    assert hooked.returncode != 0, "the hook let it through"
    assert code in hooked.stderr
    assert git(repo, "rev-parse", "HEAD").stdout.strip() == base
    forced = commit(repo, "--no-verify")
    assert forced.returncode == 0, forced.stderr
    result = run(repo, "guard", "--range", f"{base}..HEAD", "--json")
    assert result.code == 1
    report = json.loads(result.out)
    assert code in {v["code"] for v in report["violations"]}
    assert all(v["commit"] for v in report["violations"])
    assert code in result.err


@pytest.mark.parametrize(("edit", "code"), ALLOWED)
def test_legitimate_changes_commit_cleanly(tmp_path: Path, edit: Edit, code: str) -> None:
    repo, base = make_repo(tmp_path / "repo")
    edit_worktree(repo, edit)
    hooked = commit(repo)
    assert hooked.returncode == 0, hooked.stderr
    result = run(repo, "guard", "--range", f"{base}..HEAD")
    assert result.code == 0, result.err


def test_creating_the_ledgers_in_the_first_commit(repo: Path) -> None:
    assert run(repo, "hook", "install").code == 0
    for kind, text in BASE.items():
        write_bytes(repo, PATHS[kind], text.encode())
    assert commit(repo).returncode == 0
    result = run(repo, "guard", "--range", "HEAD", "--json")
    assert result.code == 0 and json.loads(result.out)["checked"]["commits"] == 1


def test_no_ledger_staged_exits_early(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo", hook=False)
    (repo / "README.md").write_text("changed\n")
    git(repo, "add", "README.md")
    result = run(repo, "guard", "--json")
    assert result.code == 0
    assert json.loads(result.out) == {
        "schema": "rehydrate/guard-v1",
        "ok": True,
        "violations": [],
        "waived": [],
        "checked": {"mode": "staged", "ledgers": [], "commits": 0},
    }


def _bad(repo: Path) -> None:
    write_bytes(repo, PATHS["failures"], BASE["failures"].replace(F2, "").encode())


def _good(repo: Path) -> None:
    write_bytes(
        repo,
        PATHS["failures"],
        BASE["failures"].replace(F2, F2 + "| F-004 | a | b | c |\n").encode(),
    )


def test_partial_staging_good_staged_bad_unstaged_passes(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo")
    _good(repo)
    git(repo, "add", PATHS["failures"])
    _bad(repo)
    result = git(repo, "commit", "-q", "-m", "good part", check=False)
    assert result.returncode == 0, result.stderr
    assert "F-004" in git(repo, "show", f"HEAD:{PATHS['failures']}").stdout


def test_partial_staging_bad_staged_good_worktree_refused(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo")
    _bad(repo)
    git(repo, "add", PATHS["failures"])
    _good(repo)
    result = git(repo, "commit", "-q", "-m", "bad part", check=False)
    assert result.returncode != 0 and "row_deleted" in result.stderr


def test_commit_all_sees_unstaged_change(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo")
    _bad(repo)
    result = git(repo, "commit", "-q", "-a", "-m", "all", check=False)
    assert result.returncode != 0 and "row_deleted" in result.stderr


def test_commit_path_uses_the_temporary_index(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo")
    _bad(repo)
    result = git(repo, "commit", "-q", PATHS["failures"], "-m", "path", check=False)
    assert result.returncode != 0 and "row_deleted" in result.stderr
    git(repo, "add", PATHS["failures"])  # staged but not part of `git commit README.md`
    (repo / "README.md").write_text("other\n")
    result = git(repo, "commit", "-q", "README.md", "-m", "readme only", check=False)
    assert result.returncode == 0, result.stderr


def test_staged_gitattributes_cannot_blind_the_guard(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo")
    (repo / ".gitattributes").write_text("*.md -diff\ndocs/* binary\n")
    _bad(repo)
    result = commit(repo)
    assert result.returncode != 0 and "row_deleted" in result.stderr


def test_a_deleted_id_cannot_come_back_within_a_range(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo")
    _bad(repo)
    assert commit(repo, "--no-verify", message="drop\n\nRehydrate-Waiver: bad data").returncode == 0
    write_bytes(repo, PATHS["failures"], BASE["failures"].encode())
    assert commit(repo).returncode == 0  # the local hook knows only HEAD: it lets it in
    result = run(repo, "guard", "--range", f"{base}..HEAD", "--json")
    report = json.loads(result.out)
    assert result.code == 1
    assert [v["code"] for v in report["violations"]] == ["id_reused"]
    assert report["violations"][0]["id"] == "F-002"
    assert [w["reason"] for w in report["waived"]] == ["bad data"]
    assert [v["code"] for v in report["waived"][0]["violations"]] == ["row_deleted"]


def test_waiver_in_range_and_later_commits_compare_to_the_waived_state(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo")
    _bad(repo)
    message = "drop F-002\n\nRehydrate-Waiver: legal asked to remove it"
    assert commit(repo, message=message).returncode != 0  # the local hook never honours it
    assert commit(repo, "--no-verify", message=message).returncode == 0
    write_bytes(
        repo, PATHS["failures"], BASE["failures"].replace(F2, "| F-004 | a | b | c |\n").encode()
    )
    assert commit(repo).returncode == 0
    result = run(repo, "guard", "--range", f"{base}..HEAD", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["ok"] and len(report["waived"]) == 1 and report["checked"]["commits"] == 2
    assert "waived" in result.err


def _branch_with(repo: Path, name: str, text: str) -> None:
    git(repo, "checkout", "-q", "-b", name)
    write_bytes(repo, PATHS["failures"], text.encode())
    assert commit(repo, "--no-verify", message=name).returncode == 0
    git(repo, "checkout", "-q", "main")


def test_merge_keeping_both_sides_passes(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo")
    _branch_with(repo, "side", BASE["failures"].replace(F2, F2 + "| F-005 | s | t | u |\n"))
    write_bytes(
        repo,
        PATHS["failures"],
        BASE["failures"].replace(F2, "| F-004 | a | b | c |\n" + F2).encode(),
    )
    assert commit(repo).returncode == 0
    merged = git(repo, "merge", "-q", "--no-edit", "side", check=False)
    assert merged.returncode == 0, merged.stderr
    assert len(git(repo, "rev-parse", "HEAD^2").stdout.strip()) == 40
    assert run(repo, "guard", "--range", f"{base}..HEAD").code == 0


def test_merge_dropping_the_other_parents_row_is_refused(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo")
    _branch_with(repo, "side", BASE["failures"].replace(F2, F2 + "| F-005 | s | t | u |\n"))
    merged = git(repo, "merge", "-q", "-s", "ours", "--no-edit", "side", check=False)
    assert merged.returncode != 0
    assert "row_deleted" in merged.stderr and "MERGE_HEAD" in merged.stderr
    git(repo, "merge", "--abort", check=False)
    git(repo, "merge", "-q", "-s", "ours", "--no-edit", "--no-verify", "side")
    result = run(repo, "guard", "--range", f"{base}..HEAD", "--json")
    assert result.code == 1
    assert {v["code"] for v in json.loads(result.out)["violations"]} == {"row_deleted"}


def test_merge_deleting_an_item_of_head_is_refused(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo")
    _branch_with(repo, "side", BASE["failures"].replace(F2, ""))
    (repo / "README.md").write_text("main moves on\n")
    assert commit(repo).returncode == 0
    merged = git(repo, "merge", "-q", "--no-edit", "side", check=False)
    assert merged.returncode != 0 and "row_deleted" in merged.stderr


def test_guard_crash_blocks_the_commit(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo")
    _good(repo)
    git(repo, "add", "-A")
    blob = git(repo, "rev-parse", f":{PATHS['failures']}").stdout.strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    result = run_subprocess(repo, "guard", "--staged")
    assert result.code == 2 and "missing" in result.err, result.err
    assert git(repo, "commit", "-q", "-m", "x", check=False).returncode != 0


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo", hook=False)
    assert run(repo, "guard", "--staged", "--range", "HEAD~1..HEAD").code == 2
    assert run(repo, "guard", "--range", "nope..HEAD").code == 2
    assert run(tmp_path, "guard").code == 2


def test_pre_commit_framework_range_from_env(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    _bad(repo)
    assert commit(repo).returncode == 0
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    result = run_subprocess(
        repo, "guard", env={"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": head}
    )
    assert result.code == 1 and "row_deleted" in result.err
    assert run_subprocess(repo, "guard").code == 0  # without the variables: the index


def _server(tmp_path: Path) -> Path:
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(server))
    hook = server / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m rehydrate guard --pre-receive\n")
    hook.chmod(0o755)
    return server


def test_pre_receive_refuses_pushes_made_with_no_verify(tmp_path: Path) -> None:
    server = _server(tmp_path)
    repo, _ = make_repo(tmp_path / "repo", hook=False)
    git(repo, "remote", "add", "origin", str(server))
    assert git(repo, "push", "-q", "origin", "main", check=False).returncode == 0
    _bad(repo)
    assert commit(repo).returncode == 0
    pushed = git(repo, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0 and "row_deleted" in pushed.stderr
    git(repo, "checkout", "-q", "-b", "topic")  # a new ref: checked as `new --not --all`
    pushed = git(repo, "push", "-q", "origin", "topic", check=False)
    assert pushed.returncode != 0 and "row_deleted" in pushed.stderr


def test_pre_receive_checks_forced_update_old_tip_to_new_tip(tmp_path: Path) -> None:
    server = _server(tmp_path)
    repo, base = make_repo(tmp_path / "repo", hook=False)
    git(repo, "remote", "add", "origin", str(server))
    _good(repo)
    assert commit(repo).returncode == 0
    assert git(repo, "push", "-q", "origin", "main", check=False).returncode == 0
    git(repo, "reset", "-q", "--hard", base)
    write_bytes(
        repo,
        PATHS["failures"],
        BASE["failures"].replace(F2, F2 + "| F-005 | x | y | z |\n").encode(),
    )
    assert commit(repo).returncode == 0
    pushed = git(repo, "push", "-q", "-f", "origin", "main", check=False)
    assert pushed.returncode != 0 and "row_deleted" in pushed.stderr and "F-004" in pushed.stderr
    git(repo, "push", "-q", "origin", ":main", check=False)  # deleting a ref is not checked


def test_pre_receive_stdin_lines(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    _bad(repo)
    assert commit(repo).returncode == 0
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    zero = "0" * 40
    result = run(repo, "guard", "--pre-receive", input=f"{zero} {head} refs/heads/x\n")
    assert result.code == 0  # every commit is already on a ref here: nothing new
    result = run(repo, "guard", "--pre-receive", "--json", input=f"{head} {zero} refs/heads/x\n")
    assert result.code == 0 and json.loads(result.out)["checked"]["mode"] == "pre-receive"
    result = run(repo, "guard", "--pre-receive", input="garbage\n")
    assert result.code == 2 and "bad pre-receive line" in result.err
    result = run(repo, "guard", "--pre-receive", input=f"{base} {head} refs/heads/x\n")
    assert result.code == 0  # a fast-forward whose commits are all on a ref already


def test_diff_command_shows_item_changes(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    _good(repo)
    result = run(repo, "diff", "--json")
    assert result.code == 0
    ledgers = {d["kind"]: d for d in json.loads(result.out)["ledgers"]}
    assert [(c["kind"], c["id"]) for c in ledgers["failures"]["items"]] == [("added", "F-004")]
    git(repo, "add", "-A")
    staged = run(repo, "diff", "--staged")
    assert "+ failure added F-004: a: b (workaround: c)" in staged.out
    assert run(repo, "diff", "--staged", "--worktree").out.strip().endswith("no ledger changes")
    commit(repo)
    assert "F-004" in run(repo, "diff", base, "HEAD").out
    write_bytes(repo, PATHS["spec"], b"| broken\n")
    broken = run(repo, "diff", "HEAD", "--worktree", "--json")
    spec = next(d for d in json.loads(broken.out)["ledgers"] if d["kind"] == "spec")
    assert spec["files"][0]["kind"] == "unparseable"
    assert {c["kind"] for c in spec["items"]} == {"deleted"}


def test_failure_ledger_fast_path_after_a_parsed_commit(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo")
    _good(repo)
    assert commit(repo).returncode == 0  # full parse; the new blob is remembered
    trusted = (repo / ".git" / "rehydrate" / "guard-parsed").read_text()
    head_blob = git(repo, "rev-parse", f"HEAD:{PATHS['failures']}").stdout.strip()
    assert head_blob in trusted
    text = (repo / PATHS["failures"]).read_text()
    write_bytes(repo, PATHS["failures"], text.replace("linker crash", "linker cr\u0430sh").encode())
    result = commit(repo)
    assert result.returncode != 0 and "immutable_cell_changed F-001" in result.stderr
    write_bytes(
        repo,
        PATHS["failures"],
        (
            text.replace(
                "| F-004 | a | b | c |\n", "| F-004 | a | b | c |\n| F-005 | d | e | f |\n"
            )
        ).encode(),
    )
    assert commit(repo).returncode == 0
