"""Invariant 5 (no sequence of pushes loses a row on a protected branch) against a real
bare repository whose pre-receive hook runs the guard, with real ``git push``; and the
rest of invariant 4: a shallow clone fails closed (exit 2, "fetch the full history").

These are server-only (or clone-only) by nature: the local hook never sees a push, and
``--range`` has no notion of a ref being deleted and re-created.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from adversarial.helpers import (
    BAD_INPUT,
    clone,
    commit_tree,
    git,
    guard_range,
    install_pre_receive,
    make_base_repo,
    make_server,
    push,
    rev,
)
from adversarial.histories import F2, F3, FAIL, commit, replace, row, text


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base_repo(tmp_path_factory.mktemp("server") / "base")


@dataclass
class World:
    repo: Path
    server: Path
    base: str
    kept: str  # main's tip on the server: holds F-004, which base lacks

    def main_holds_f004(self, ref: str = "refs/heads/main") -> bool:
        tip = rev(self.server, ref)
        if not tip:
            return True  # absent: nothing was replaced by an older state
        return "| F-004 |" in git(self.server, "show", f"{tip}:{FAIL}").stdout


@pytest.fixture
def world(base_repo: Path, tmp_path: Path) -> World:
    repo = clone(base_repo, tmp_path / "repo")
    server = make_server(tmp_path / "server.git", hook=False)
    # git's own guard for the checked-out branch is not the ledger guard's: turn it off,
    # as hosting services do, so the sequence reaches the pre-receive hook
    git(server, "config", "receive.denyDeleteCurrent", "ignore")
    git(repo, "remote", "add", "origin", str(server))
    base = rev(repo)
    replace(repo, F3, F3 + row("F-004", "cargo build"))
    kept = commit(repo, "add F-004")
    assert push(repo, "main").returncode == 0
    assert rev(server, "refs/heads/main") == kept
    install_pre_receive(server)
    return World(repo, server, base, kept)


def _orphan(w: World) -> str:
    return commit_tree(w.repo, {}, [], "a fresh root", base=w.base)


def _bad(w: World) -> str:
    """A new commit on top of main that drops F-002."""
    return commit_tree(
        w.repo,
        {FAIL: git(w.repo, "show", f"{w.kept}:{FAIL}").stdout.replace(F2, "")},
        [w.kept],
        "drop F-002",
    )


def delete_then_recreate_at_old(w: World) -> None:
    push(w.repo, "--delete", "main")
    push(w.repo, "--force", f"{w.base}:refs/heads/main")


def delete_then_recreate_at_orphan(w: World) -> None:
    push(w.repo, "--delete", "main")
    push(w.repo, "--force", f"{_orphan(w)}:refs/heads/main")


def delete_with_backup_then_recreate(w: World) -> None:
    assert push(w.repo, f"{w.kept}:refs/heads/backup").returncode == 0
    push(w.repo, ":refs/heads/main")
    push(w.repo, "--force", f"{w.base}:refs/heads/main")


def delete_then_recreate_with_a_new_commit(w: World) -> None:
    fresh = commit_tree(w.repo, {"README.md": "again\n"}, [w.base], "start over")
    push(w.repo, "--delete", "main")
    push(w.repo, "--force", f"{fresh}:refs/heads/main")


def force_with_lease_rewind(w: World) -> None:
    push(w.repo, f"--force-with-lease=main:{w.kept}", f"{w.base}:refs/heads/main")


def rewind_while_keeping_old_tip_elsewhere(w: World) -> None:
    push(w.repo, "--force", f"{w.base}:refs/heads/main", f"{w.kept}:refs/heads/keep")


def launder_through_a_new_branch(w: World) -> None:
    orphan = _orphan(w)
    push(w.repo, f"{orphan}:refs/heads/side")  # a new, unprotected branch: may be accepted
    push(w.repo, "--force", f"{orphan}:refs/heads/main")


def several_refs_one_bad(w: World) -> None:
    good = commit_tree(w.repo, {"README.md": "topic\n"}, [w.kept], "topic")
    push(w.repo, f"{good}:refs/heads/topic", f"{_bad(w)}:refs/heads/main")


SEQUENCES = [
    pytest.param(delete_then_recreate_at_old, id="delete-main-then-recreate-at-old-commit"),
    pytest.param(delete_then_recreate_at_orphan, id="delete-main-then-recreate-at-orphan"),
    pytest.param(delete_with_backup_then_recreate, id="backup-ref-delete-main-recreate-old"),
    pytest.param(
        delete_then_recreate_with_a_new_commit,
        id="delete-main-then-recreate-with-new-commit-on-old-base",
    ),
    pytest.param(force_with_lease_rewind, id="force-with-lease-rewind"),
    pytest.param(
        rewind_while_keeping_old_tip_elsewhere, id="rewind-main-keep-old-tip-on-another-ref"
    ),
    pytest.param(launder_through_a_new_branch, id="launder-orphan-through-a-new-branch"),
    pytest.param(several_refs_one_bad, id="several-refs-at-once-one-bad"),
]


@pytest.mark.parametrize("sequence", SEQUENCES)
def test_no_sequence_of_pushes_loses_a_row_on_main(
    world: World, sequence: Callable[[World], None]
) -> None:
    sequence(world)
    assert world.main_holds_f004(), (
        "main on the server lost F-004: " + git(world.server, "log", "--oneline", "--all").stdout
    )
    tip = rev(world.server, "refs/heads/main")
    assert "| F-002 |" in git(world.server, "show", f"{tip}:{FAIL}").stdout if tip else True


def test_default_branch_other_than_main_is_protected(world: World) -> None:
    git(world.server, "symbolic-ref", "HEAD", "refs/heads/trunk")
    assert push(world.repo, f"{world.kept}:refs/heads/trunk").returncode == 0
    push(world.repo, "--delete", "trunk")
    push(world.repo, "--force", f"{world.base}:refs/heads/trunk")
    assert world.main_holds_f004("refs/heads/trunk")


def _refused_new_ref(w: World, refspec: str, ref: str) -> None:
    proc = push(w.repo, refspec)
    assert proc.returncode != 0, "the server accepted a ref holding a bad commit"
    assert rev(w.server, ref) == ""
    assert FAIL in proc.stderr and "F-002" in proc.stderr


def test_new_branch_with_a_bad_commit_is_refused(world: World) -> None:
    _refused_new_ref(world, f"{_bad(world)}:refs/heads/feature", "refs/heads/feature")


def test_lightweight_tag_on_a_bad_commit_is_refused(world: World) -> None:
    _refused_new_ref(world, f"{_bad(world)}:refs/tags/v9", "refs/tags/v9")


def test_annotated_tag_on_a_bad_commit_is_refused(world: World) -> None:
    git(world.repo, "tag", "-a", "-m", "release", "v9", _bad(world))
    _refused_new_ref(world, "refs/tags/v9:refs/tags/v9", "refs/tags/v9")


def test_several_refs_at_once_one_bad_moves_nothing(world: World) -> None:
    several_refs_one_bad(world)
    assert rev(world.server, "refs/heads/main") == world.kept
    assert rev(world.server, "refs/heads/topic") == ""  # pre-receive: all or nothing


def test_legit_tag_at_an_old_commit_is_accepted(world: World) -> None:
    assert push(world.repo, f"{world.base}:refs/tags/v0").returncode == 0
    assert rev(world.server, "refs/tags/v0") == world.base


def test_legit_new_branch_and_good_commits_several_refs(world: World) -> None:
    good = commit_tree(
        world.repo,
        {FAIL: text(world.repo).replace(F3, F3 + row("F-005", "npm ci"))},
        [world.kept],
        "add F-005",
    )
    proc = push(
        world.repo, f"{good}:refs/heads/main", f"{good}:refs/heads/topic", f"{good}:refs/tags/v1"
    )
    assert proc.returncode == 0, proc.stderr
    assert rev(world.server, "refs/heads/main") == good == rev(world.server, "refs/heads/topic")


def test_legit_deleting_an_unprotected_branch(world: World) -> None:
    assert push(world.repo, f"{world.kept}:refs/heads/topic").returncode == 0
    proc = push(world.repo, "--delete", "topic")
    assert proc.returncode == 0, proc.stderr
    assert rev(world.server, "refs/heads/topic") == ""


# --- invariant 4: shallow history fails closed ---------------------------------------------


@pytest.fixture
def shallow(base_repo: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    """base -> c1 (drops F-002, --no-verify) -> c2 -> c3 on a full repo; a --depth 3
    clone holds c3, c2 and c1, with c1 as its shallow boundary (its parent is missing)."""
    full = clone(base_repo, tmp_path / "full")
    base = rev(full)
    replace(full, F2, "")
    c1 = commit(full, "drop F-002")
    (full / "README.md").write_text("two\n")
    c2 = commit(full, "readme")
    replace(full, F3, F3 + row("F-004", "cargo build"))
    c3 = commit(full, "add F-004")
    dest = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "3", f"file://{full}", str(dest))
    assert (dest / ".git" / "shallow").read_text().split() == [c1]
    return dest, [base, c1, c2, c3]


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param(lambda s: "HEAD", id="whole-history-of-a-shallow-clone"),
        pytest.param(lambda s: f"{s[0]}..HEAD", id="range-from-a-missing-commit"),
        pytest.param(lambda s: f"{s[0][:12]}..HEAD", id="range-from-a-missing-abbreviated-commit"),
        pytest.param(lambda s: f"{s[1]}~1..HEAD", id="range-from-the-boundarys-missing-parent"),
    ],
)
def test_shallow_history_is_exit_2_never_a_pass(shallow: tuple[Path, list[str]], spec) -> None:
    repo, shas = shallow
    verdict = guard_range(repo, spec(shas))
    assert verdict.code == BAD_INPUT, f"exit {verdict.code}:\n{verdict.err}"
    assert "fetch" in verdict.err.lower(), verdict.err


def test_legit_range_the_shallow_clone_fully_holds(shallow: tuple[Path, list[str]]) -> None:
    repo, shas = shallow
    verdict = guard_range(repo, f"{shas[2]}..{shas[3]}")
    assert verdict.code == 0, verdict.err
