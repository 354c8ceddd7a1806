"""The range and server checks judge what a branch now holds, whatever the history's shape:
rewritten tips, orphans, per-commit settings, waivers that cover their own commit only,
replace refs and grafts, shallow clones, protected branches, and verdicts that survive a
reader going away. Each attack has a legitimate twin that must pass."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git, run
from test_guard import BASE, F2, PATHS
from test_guard_git import _server, commit, make_repo, write_bytes

F4 = "| F-004 | npm ci | lockfile drift | pin npm |\n"
F5 = "| F-005 | make lint | ruff missing | pip install ruff |\n"
FAIL = PATHS["failures"]


def _failures(repo: Path, text: str, message: str = "edit", *extra: str) -> str:
    write_bytes(repo, FAIL, text.encode())
    done = commit(repo, "--no-verify", *extra, message=message)
    assert done.returncode == 0, done.stderr
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def _range(repo: Path, text: str) -> tuple[int, dict, str]:
    result = run(repo, "guard", "--range", text, "--json")
    return result.code, json.loads(result.out) if result.out else {}, result.err


def _codes(report: dict) -> set[str]:
    return {v["code"] for v in report["violations"]}


# (name, history builder -> (old tip, new tip), refused?)
def _amend_drops_row(repo: Path, base: str) -> tuple[str, str]:
    old = _failures(repo, BASE["failures"].replace(F2, F2 + F4))
    git(repo, "reset", "-q", "--soft", base)
    new = _failures(repo, BASE["failures"].replace(F2, ""), "amended")
    return old, new


def _amend_keeps_rows(repo: Path, base: str) -> tuple[str, str]:
    old = _failures(repo, BASE["failures"].replace(F2, F2 + F4))
    git(repo, "commit", "-q", "--amend", "--no-verify", "-m", "reworded")
    return old, git(repo, "rev-parse", "HEAD").stdout.strip()


def _reset_back(repo: Path, base: str) -> tuple[str, str]:
    old = _failures(repo, BASE["failures"].replace(F2, F2 + F4))
    git(repo, "reset", "-q", "--hard", base)
    return old, base


def _orphan_root(repo: Path, base: str) -> tuple[str, str]:
    git(repo, "checkout", "-q", "--orphan", "fresh")
    new = _failures(repo, BASE["failures"].replace(F2, ""), "orphan")
    return base, new


def _orphan_with_everything(repo: Path, base: str) -> tuple[str, str]:
    git(repo, "checkout", "-q", "--orphan", "fresh")
    new = _failures(repo, BASE["failures"].replace(F2, F2 + F4), "orphan, rows kept")
    return base, new


def _rebase_drops_commit_row(repo: Path, base: str) -> tuple[str, str]:
    _failures(repo, BASE["failures"].replace(F2, F2 + F4), "add F-004")
    old = _failures(repo, BASE["failures"].replace(F2, F2 + F4 + F5), "add F-005")
    git(repo, "reset", "-q", "--hard", base)
    new = _failures(repo, BASE["failures"].replace(F2, F2 + F5), "only F-005")
    return old, new


def _rebuild_cell_changed(repo: Path, base: str) -> tuple[str, str]:
    old = _failures(repo, BASE["failures"].replace(F2, F2 + F4))
    git(repo, "reset", "-q", "--hard", base)
    new = _failures(repo, BASE["failures"].replace(F2, F2 + F4.replace("pin npm", "ignore")))
    return old, new


def _swap_content_between_ids(repo: Path, base: str) -> tuple[str, str]:
    """Renumbering is content moving to a fresh ID; an existing ID taking another row's
    place while that row disappears is loss."""
    old = _failures(repo, BASE["failures"].replace(F2, F2 + F4))
    git(repo, "reset", "-q", "--hard", base)
    new = _failures(
        repo,
        BASE["failures"]
        .replace(F2, F2 + F4.replace("F-004", "F-002").replace("| F-002 |", "| F-002 |", 1))
        .replace(F2, ""),
    )
    return old, new


HISTORIES = [
    pytest.param(_amend_drops_row, True, id="amend-drops-a-row"),
    pytest.param(_amend_keeps_rows, False, id="twin-amend-rewords"),
    pytest.param(_reset_back, True, id="reset-to-an-older-commit"),
    pytest.param(_orphan_root, True, id="orphan-root-without-a-row"),
    pytest.param(_orphan_with_everything, False, id="twin-orphan-keeping-every-row"),
    pytest.param(_rebase_drops_commit_row, True, id="rebase-drops-a-commit"),
    pytest.param(_rebuild_cell_changed, True, id="rebuilt-history-edits-a-cell"),
    pytest.param(_swap_content_between_ids, True, id="content-moved-onto-an-old-id"),
]


@pytest.mark.parametrize(("build", "refused"), HISTORIES)
def test_range_compares_rewritten_tips(tmp_path: Path, build, refused: bool) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    old, new = build(repo, base)
    code, report, err = _range(repo, f"{old}..{new}")
    assert code == (1 if refused else 0), err
    if refused:
        assert all(
            v["commit"] == new for v in report["violations"] if "compared directly" in v["message"]
        ), report
        assert FAIL in err


@pytest.mark.parametrize(("build", "refused"), HISTORIES)
def test_server_refuses_the_same_histories(tmp_path: Path, build, refused: bool) -> None:
    server = _server(tmp_path)
    repo, base = make_repo(tmp_path / "repo", hook=False)
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "push", "-q", "origin", "main")
    old, new = build(repo, base)
    git(repo, "push", "-q", "-f", "origin", f"{old}:refs/heads/main")
    pushed = git(repo, "push", "-f", "origin", f"{new}:refs/heads/main", check=False)
    tip = git(server, "rev-parse", "refs/heads/main").stdout.strip()
    if refused:
        assert pushed.returncode != 0 and tip == old, pushed.stderr
        assert "refs/heads/main" in pushed.stderr
    else:
        assert pushed.returncode == 0 and tip == new, pushed.stderr


def test_rebase_renumbered_by_the_merge_driver_passes_on_force_push(tmp_path: Path) -> None:
    """A feature branch's F-004 renumbered to F-005 by the merge driver while rebasing onto
    an upstream F-004: nothing is lost, so the server takes the force-push."""
    server = _server(tmp_path)
    repo, base = make_repo(tmp_path / "repo", hook=False)
    assert run(repo, "init", "--no-hook").code == 0  # the merge driver
    commit(repo, "--no-verify", message="merge driver")
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "checkout", "-q", "-b", "feature")
    _failures(repo, BASE["failures"].replace(F2, F2 + F4), "feature F-004")
    git(repo, "push", "-q", "origin", "main", "feature")
    old = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "main")
    upstream = "| F-004 | docker build | no space left | prune images |\n"
    _failures(repo, BASE["failures"].replace(F2, F2 + upstream), "main F-004")
    git(repo, "push", "-q", "origin", "main")
    git(repo, "checkout", "-q", "feature")
    rebased = git(repo, "rebase", "-q", "main", check=False)
    assert rebased.returncode == 0, rebased.stderr
    text = (repo / FAIL).read_text()
    assert "docker build" in text and "npm ci" in text and "F-005" in text
    new = git(repo, "rev-parse", "HEAD").stdout.strip()
    code, report, err = _range(repo, f"{old}..{new}")
    assert code == 0, err
    pushed = git(repo, "push", "-f", "origin", "feature", check=False)
    assert pushed.returncode == 0, pushed.stderr


def test_settings_are_read_from_each_commit(tmp_path: Path) -> None:
    """A deletion before a waived 'move the ledgers' commit is still judged at the old path."""
    repo, base = make_repo(tmp_path / "repo", hook=False)
    _failures(repo, BASE["failures"].replace(F2, ""), "drop F-002 quietly")
    git(repo, "mv", FAIL, "ledgers-failures.md")
    write_bytes(repo, ".rehydrate.toml", b'[ledgers]\nfailures = "ledgers-failures.md"\n')
    assert (
        commit(
            repo, "--no-verify", message="move\n\nRehydrate-Waiver: the team moved the ledgers"
        ).returncode
        == 0
    )
    code, report, err = _range(repo, f"{base}..HEAD")
    assert code == 1 and _codes(report) == {"row_deleted"}, err
    assert report["violations"][0]["path"] == FAIL
    assert [w["reason"] for w in report["waived"]] == ["the team moved the ledgers"]


def test_moving_a_ledger_with_a_waiver_then_editing_it_is_judged_at_its_new_path(
    tmp_path: Path,
) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    git(repo, "mv", FAIL, "moved.md")
    write_bytes(repo, ".rehydrate.toml", b'[ledgers]\nfailures = "moved.md"\n')
    assert commit(repo, "--no-verify", message="move\n\nRehydrate-Waiver: moved").returncode == 0
    code, report, err = _range(repo, f"{base}..HEAD")
    assert code == 0 and len(report["waived"]) == 1, err
    write_bytes(repo, "moved.md", BASE["failures"].replace(F2, "").encode())
    assert commit(repo, "--no-verify", message="then drop").returncode == 0
    code, report, err = _range(repo, f"{base}..HEAD")
    assert code == 1 and [v["path"] for v in report["violations"]] == ["moved.md"], err


BROKEN = "| F-001 | unterminated\n"


def test_a_waived_break_does_not_free_the_next_commit(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    _failures(repo, BASE["failures"] + BROKEN, "break\n\nRehydrate-Waiver: mid-migration")
    _failures(repo, BASE["failures"].replace(F2, ""), "rewrite freely")
    code, report, err = _range(repo, f"{base}..HEAD")
    assert code == 1 and _codes(report) == {"row_deleted"}, err
    assert len(report["waived"]) == 1


def test_restoring_the_last_good_state_after_a_waived_break_passes(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    _failures(repo, BASE["failures"] + BROKEN, "break\n\nRehydrate-Waiver: mid-migration")
    _failures(repo, BASE["failures"], "restore")
    code, report, err = _range(repo, f"{base}..HEAD")
    assert code == 0 and len(report["waived"]) == 1, err
    # the same after a range that starts past the break: compared with the last good state
    broken = git(repo, "rev-parse", "HEAD~1").stdout.strip()
    code, report, err = _range(repo, f"{broken}..HEAD")
    assert code == 0, err


def test_a_break_before_the_range_is_compared_past(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    broken = _failures(repo, BASE["failures"] + BROKEN, "break\n\nRehydrate-Waiver: x")
    _failures(repo, BASE["failures"].replace(F2, ""), "rewrite")
    code, report, err = _range(repo, f"{broken}..HEAD")
    assert code == 1 and _codes(report) == {"row_deleted"}, err


def test_a_waived_deletion_of_the_file_does_not_free_its_recreation(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    git(repo, "rm", "-q", FAIL)
    assert commit(repo, "--no-verify", message="rm\n\nRehydrate-Waiver: x").returncode == 0
    _failures(repo, BASE["failures"].replace(F2, ""), "recreate smaller")
    code, report, err = _range(repo, f"{base}..HEAD")
    assert code == 1 and _codes(report) == {"row_deleted"}, err


def test_a_waiver_on_one_commit_does_not_cover_the_next(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    _failures(repo, BASE["failures"].replace(F2, F2 + F4), "add\n\nRehydrate-Waiver: nothing")
    _failures(repo, BASE["failures"].replace(F2, F4), "drop F-002")
    code, report, err = _range(repo, f"{base}..HEAD")
    assert code == 1 and _codes(report) == {"row_deleted"}, err
    assert report["waived"] == []  # a waiver with nothing to excuse is no report


def test_a_waived_loss_on_a_rewritten_branch_stays_waived_at_the_tip(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    old = _failures(repo, BASE["failures"].replace(F2, F2 + F4))
    git(repo, "reset", "-q", "--hard", base)
    new = _failures(
        repo, BASE["failures"].replace(F2, ""), "drop F-002\n\nRehydrate-Waiver: legal removal"
    )
    code, report, err = _range(repo, f"{old}..{new}")
    # F-002's loss is the waived commit's; F-004 (only on the old tip) is lost unexcused
    assert code == 1, err
    assert {v["id"] for v in report["violations"]} == {"F-004"}
    assert {v["id"] for w in report["waived"] for v in w["violations"]} == {"F-002"}


def test_replace_refs_and_grafts_are_ignored(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    bad = _failures(repo, BASE["failures"].replace(F2, ""), "drop F-002")
    # a replacement commit that makes 'bad' look like the base commit's tree
    tree = git(repo, "rev-parse", f"{base}^{{tree}}").stdout.strip()
    fake = git(repo, "commit-tree", tree, "-p", base, "-m", "looks fine").stdout.strip()
    git(repo, "replace", bad, fake)
    assert git(repo, "show", "--format=%s", "-s", bad).stdout.strip() == "looks fine"
    code, report, err = _range(repo, f"{base}..{bad}")
    assert code == 1 and _codes(report) == {"row_deleted"}, err
    git(repo, "replace", "-d", bad)
    # a graft that hides the bad commit's parent makes it look like a root commit
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "grafts").write_text(f"{bad}\n")
    code, report, err = _range(repo, f"{base}..{bad}")
    assert code == 1 and _codes(report) == {"row_deleted"}, err


def test_server_refuses_replace_refs(tmp_path: Path) -> None:
    server = _server(tmp_path)
    repo, base = make_repo(tmp_path / "repo", hook=False)
    git(repo, "remote", "add", "origin", str(server))
    git(repo, "push", "-q", "origin", "main")
    fake = git(repo, "commit-tree", f"{base}^{{tree}}", "-m", "x").stdout.strip()
    git(repo, "replace", base, fake)
    pushed = git(repo, "push", "origin", "refs/replace/*:refs/replace/*", check=False)
    assert pushed.returncode != 0 and "replace_ref_refused" in pushed.stderr
    assert git(server, "for-each-ref", "refs/replace/").stdout == ""


def test_shallow_history_fails_closed(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    _failures(repo, BASE["failures"].replace(F2, ""), "drop")
    _failures(repo, BASE["failures"].replace(F2, F4), "add")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    code, _, err = _range(clone, "HEAD")
    assert code == 2 and "history_missing" in err and "unshallow" in err
    git(clone, "fetch", "-q", "--unshallow")
    code, report, err = _range(clone, "HEAD")
    assert code == 1 and _codes(report) == {"row_deleted"}, err


def test_server_refuses_deleting_protected_branches(tmp_path: Path) -> None:
    server = _server(tmp_path)
    repo, base = make_repo(tmp_path / "repo", hook=False)
    git(repo, "remote", "add", "origin", str(server))
    _failures(repo, BASE["failures"].replace(F2, F2 + F4))
    git(repo, "push", "-q", "origin", "main", f"{base}:refs/heads/old", "HEAD:refs/heads/release")
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    deleted = git(repo, "push", "origin", ":main", check=False)
    assert deleted.returncode != 0 and "protected_branch_deleted" in deleted.stderr
    assert git(server, "rev-parse", "refs/heads/main").stdout.strip() == head
    # an unprotected branch may go; a configured one may not
    assert git(repo, "push", "-q", "origin", ":old", check=False).returncode == 0
    git(server, "config", "--add", "rehydrate.protectedBranch", "release")
    deleted = git(repo, "push", "origin", ":release", check=False)
    assert deleted.returncode != 0 and "refs/heads/release" in deleted.stderr


@pytest.mark.parametrize("reader", ["true", "head -c0", "exec 0<&-"])
def test_a_verdict_survives_a_reader_that_goes_away(tmp_path: Path, reader: str) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    for n in range(40):  # enough violations that the JSON outgrows a pipe's buffer
        _failures(repo, BASE["failures"].replace(F2, F4 if n % 2 else F5), f"churn {n}")
    script = (
        f"set -o pipefail; '{sys.executable}' -m rehydrate guard --range {base}..HEAD "
        f"--json | {reader}"
    )
    proc = subprocess.run(["bash", "-c", script], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    log = subprocess.run(
        ["bash", "-c", f"set -o pipefail; '{sys.executable}' -m rehydrate log | head -1"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert log.returncode == 0 and "Traceback" not in log.stderr


@pytest.mark.parametrize("how", ["break", "delete"])
def test_the_local_hook_judges_past_a_broken_head(tmp_path: Path, how: str) -> None:
    """HEAD's ledger broken or deleted with --no-verify: the next commit through the hook
    is compared with the last version that parsed, not with 'no ledger'."""
    repo, base = make_repo(tmp_path / "repo")
    if how == "break":
        _failures(repo, BASE["failures"] + BROKEN, "break")
    else:
        git(repo, "rm", "-q", FAIL)
        assert commit(repo, "--no-verify", message="rm").returncode == 0
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    write_bytes(repo, FAIL, BASE["failures"].replace(F2, "").encode())
    refused = commit(repo, message="smaller")
    assert refused.returncode != 0 and "row_deleted" in refused.stderr
    assert git(repo, "rev-parse", "HEAD").stdout.strip() == head
    write_bytes(repo, FAIL, BASE["failures"].replace(F2, F2 + F4).encode())  # the twin
    assert commit(repo, message="restore and grow").returncode == 0


F6 = "| F-006 | tox -e py | interpreter missing | use nox |\n"


def test_octopus_and_hand_resolved_merges_keep_every_side(tmp_path: Path) -> None:
    repo, base = make_repo(tmp_path / "repo", hook=False)
    for name, row in (("a", F4), ("b", F5), ("c", F6)):
        git(repo, "checkout", "-q", "-b", name, base)
        _failures(repo, BASE["failures"].replace(F2, F2 + row), name)
    git(repo, "checkout", "-q", "main")
    write_bytes(repo, FAIL, BASE["failures"].replace(F2, F2 + F4 + F5 + F6).encode())
    git(repo, "add", "-A")
    tree = git(repo, "write-tree").stdout.strip()
    heads = [git(repo, "rev-parse", b).stdout.strip() for b in ("main", "a", "b", "c")]
    octopus = git(
        repo, "commit-tree", tree, *[x for h in heads for x in ("-p", h)], "-m", "octopus"
    ).stdout.strip()
    code, report, err = _range(repo, f"{base}..{octopus}")
    assert code == 0, err
    dropped = BASE["failures"].replace(F2, F2 + F4 + F6)
    write_bytes(repo, FAIL, dropped.encode())
    git(repo, "add", "-A")
    tree = git(repo, "write-tree").stdout.strip()
    bad = git(
        repo,
        "commit-tree",
        tree,
        *[x for h in heads for x in ("-p", h)],
        "-m",
        "octopus dropping b's row",
    ).stdout.strip()
    code, report, err = _range(repo, f"{base}..{bad}")
    assert code == 1 and {v["id"] for v in report["violations"]} == {"F-005"}, err
    # a merge resolved by hand, keeping both sides
    git(repo, "reset", "-q", "--hard")
    git(repo, "checkout", "-q", "a")
    git(repo, "merge", "-q", "--no-edit", "--no-verify", "b", check=False)
    write_bytes(repo, FAIL, BASE["failures"].replace(F2, F2 + F4 + F5).encode())
    commit(repo, "--no-verify", message="a+b")
    code, report, err = _range(repo, f"{base}..HEAD")
    assert code == 0, err
