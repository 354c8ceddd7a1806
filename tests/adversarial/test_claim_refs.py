"""The server's judgement of pushes under refs/rehydrate/ (issue 29): only well-formed
leases under refs/rehydrate/claims/ — a root commit of the empty tree, an exact lease
record, for the ID the ref names, a phase or obligation of the default branch's Task
ledger — and deletions there. One line per case, each pushed for real through the
pre-receive hook; every refusal has a legitimate twin that must pass."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import git
from coordkit import seed, server

EMPTY = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
GOOD = {
    "id": "P1",
    "holder": "ada@box",
    "host": "box",
    "session": "s1",
    "since": "2026-12-01T12:00:00Z",
    "expires": "2026-12-01T12:30:00Z",
}


def message(**changes: str) -> str:
    fields = {**GOOD, **changes}
    return "rehydrate lease v1\n\n" + "".join(f"{k}: {v}\n" for k, v in fields.items())


def tree_commit(repo: Path, text: str, *, tree: str = EMPTY, parent: str | None = None) -> str:
    git(repo, "hash-object", "-t", "tree", "-w", "--stdin", input="")
    extra = ["-p", parent] if parent else []
    return git(repo, "commit-tree", tree, *extra, input=text).stdout.strip()


Make = Callable[[Path], str]

REFUSED: list[tuple[str, str, Make, str]] = [
    ("a branch commit", "refs/rehydrate/claims/P1", lambda r: _head(r), "claim_ref_refused"),
    (
        "a lease with a parent",
        "refs/rehydrate/claims/P1",
        lambda r: tree_commit(r, message(), parent=_head(r)),
        "claim_ref_refused",
    ),
    (
        "a lease carrying files",
        "refs/rehydrate/claims/P1",
        lambda r: tree_commit(r, message(), tree=_head(r) + "^{tree}"),
        "claim_ref_refused",
    ),
    (
        "a lease for another ID",
        "refs/rehydrate/claims/P1",
        lambda r: tree_commit(r, message(id="P2")),
        "claim_ref_refused",
    ),
    (
        "an ID the Task ledger lacks",
        "refs/rehydrate/claims/P9",
        lambda r: tree_commit(r, message(id="P9")),
        "claim_ref_refused",
    ),
    (
        "a completion check, not claimable",
        "refs/rehydrate/claims/X-001",
        lambda r: tree_commit(r, message(id="X-001")),
        "claim_ref_refused",
    ),
    (
        "an extra key",
        "refs/rehydrate/claims/P1",
        lambda r: tree_commit(r, message() + "note: hi\n"),
        "claim_ref_refused",
    ),
    (
        "a terminal escape in the holder",
        "refs/rehydrate/claims/P1",
        lambda r: tree_commit(r, message(holder="ada\x1b]0;pwned\x07")),
        "claim_ref_refused",
    ),
    (
        "expiry before the start",
        "refs/rehydrate/claims/P1",
        lambda r: tree_commit(r, message(expires="2026-12-01T11:00:00Z")),
        "claim_ref_refused",
    ),
    (
        "a huge record",
        "refs/rehydrate/claims/P1",
        lambda r: tree_commit(r, message(holder="a" * 9000)),
        "claim_ref_refused",
    ),
    ("a tag object", "refs/rehydrate/claims/P1", lambda r: _tag(r), "claim_ref_refused"),
    (
        "a blob",
        "refs/rehydrate/claims/P1",
        lambda r: git(r, "hash-object", "-w", "--stdin", input=message()).stdout.strip(),
        "claim_ref_refused",
    ),
    (
        "a nested ref",
        "refs/rehydrate/claims/P1/x",
        lambda r: tree_commit(r, message()),
        "claim_ref_refused",
    ),
    (
        "the mirror namespace",
        "refs/rehydrate/remotes/origin/claims/P1",
        lambda r: tree_commit(r, message()),
        "reserved_ref_refused",
    ),
    (
        "the deleted-tips record",
        "refs/rehydrate/deleted/heads/main",
        lambda r: _head(r),
        "reserved_ref_refused",
    ),
]

LEGIT: list[tuple[str, str, Make]] = [
    ("a lease made by hand", "refs/rehydrate/claims/P1", lambda r: tree_commit(r, message())),
    (
        "a lease on an obligation",
        "refs/rehydrate/claims/O-001",
        lambda r: tree_commit(r, message(id="O-001")),
    ),
    (
        "a holder with spaces and pipes",
        "refs/rehydrate/claims/P2",
        lambda r: tree_commit(r, message(id="P2", holder="Ada | Lovelace@box 3")),
    ),
]


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def _tag(repo: Path) -> str:
    lease = tree_commit(repo, message())
    git(repo, "tag", "-f", "-a", "-m", "t", "leasetag", lease)
    return git(repo, "rev-parse", "leasetag").stdout.strip()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("claims")
    bare = server(tmp)
    repo = seed(tmp, bare, f"file://{bare}")
    return bare, repo


def _push(repo: Path, oid: str, ref: str) -> subprocess.CompletedProcess[str]:
    return git(repo, "push", "--porcelain", "-f", "origin", f"{oid}:{ref}", check=False)


@pytest.mark.parametrize(("what", "ref", "make", "code"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_malformed_claim_push_is_refused(
    world: tuple[Path, Path], what: str, ref: str, make: Make, code: str
) -> None:
    bare, repo = world
    pushed = _push(repo, make(repo), ref)
    assert pushed.returncode != 0 and code in pushed.stderr, pushed.stderr
    assert git(bare, "rev-parse", "-q", "--verify", ref, check=False).returncode != 0


@pytest.mark.parametrize(("what", "ref", "make"), LEGIT, ids=[c[0] for c in LEGIT])
def test_a_well_formed_claim_push_is_taken_and_can_be_deleted(
    world: tuple[Path, Path], what: str, ref: str, make: Make
) -> None:
    bare, repo = world
    oid = make(repo)
    pushed = _push(repo, oid, ref)
    assert pushed.returncode == 0, pushed.stderr
    assert git(bare, "rev-parse", ref).stdout.strip() == oid
    deleted = git(repo, "push", "origin", f":{ref}", check=False)
    assert deleted.returncode == 0, deleted.stderr
    assert git(bare, "rev-parse", "-q", "--verify", ref, check=False).returncode != 0
