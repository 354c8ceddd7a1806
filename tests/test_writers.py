"""Writers: byte-exact edits, next IDs, CAS, guard refusals, input checks, --commit."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest

from conftest import commit, git, run, write
from rehydrate.guard.rules import check_ledger
from rehydrate.ledgers import parse_ledger
from rehydrate.ledgers.rowedit import split_text
from rehydrate.writers.edits import next_id
from rehydrate.writers.frontmatter import bump_revision

SPEC = """\
---
ledger: spec
---
# Spec

Prose before the tables stays.

## Constraints

| ID    | Rule                       | Level    | Source | Owner note |
|-------|----------------------------|----------|--------|------------|
| C-007 | never push to main         | MUST NOT | alice  | keep       |

## Decisions

| ID | Question | Status | Decision | Owner | Due | Source |
|---|---|---|---|---|---|---|
| D-001 | which cache? | open |  | bob | 2030-01-01 |  |

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|

Trailing prose.
"""

TASK = """\
---
ledger: task
task: T-9
revision: 41
objective: ship it
---
# Task

## Phases

| ID | Phase        | Status | Estimate |
|----|--------------|--------|----------|
| P1 | reproduce    | done   | 1d       |
| P2 | fix          | doing  | 2d       |

## Next action

- write the failing test

## Obligations

| ID | Obligation | Status |
|---|---|---|
| O-001 | tell the reviewer | open |

## External writes

| ID | Operation | Status | Idempotency key | Evidence |
|---|---|---|---|---|
| E-001 | create tag | pending | k-1 | |

## Approvals

| ID | Scope | Status |
|---|---|---|
| A-001 | one deploy | granted |

## Verified

| ID | Check | Artifact | Blob | Report |
|---|---|---|---|---|

## Completion checks

| ID | Check | Status |
|---|---|---|
| X-001 | suite passes | open |

## Rollback

revert the commits
"""

FAILURES = """\
---
ledger: failures
---
# Failed attempts

> Append only.

| ID | Tried | Failure | Workaround | Seen on |
|----|-------|---------|------------|---------|
| F-009 | `go test -tags=musl ./...` | linker crash | use default tags | mac |
| F-011 | `make fast` | races | `make` | linux |

Notes after the table stay.

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
| F-011 | fixed upstream | 2026-01-02 | |
"""


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


@pytest.fixture
def styled(repo: Path) -> Path:
    """Ledgers with a BOM, CRLF endings, padded columns, extra columns and prose."""
    write(repo, "docs/Spec.md", "\ufeff" + _crlf(SPEC), dedent=False)
    write(repo, "docs/Task.md", _crlf(TASK), dedent=False)
    write(repo, "docs/Failed_Attempts.md", _crlf(FAILURES).rstrip("\r\n"), dedent=False)
    commit(repo, "styled ledgers")
    return repo


def _changes(before: bytes, after: bytes) -> tuple[list[bytes], list[bytes]]:
    """(removed lines, added lines), each with its own line ending."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new).get_opcodes():
        if tag in ("replace", "delete"):
            removed += old[i1:i2]
        if tag in ("replace", "insert"):
            added += new[j1:j2]
    return removed, added


def _guard_ok(kind: str, before: bytes, after: bytes, path: str) -> None:
    old, new = parse_ledger(kind, path, before), parse_ledger(kind, path, after)
    assert check_ledger(kind, old, new) == []


WRITES = [
    pytest.param(
        (
            "fail",
            "add",
            "--tried",
            "`cargo build --release`",
            "--failure",
            "oom | killed",
            "--workaround",
            "build in CI",
        ),
        "docs/Failed_Attempts.md",
        "F-012",
        [],
        [b"| F-012 | `cargo build --release` | oom \\| killed | build in CI |  |\r\n"],
        id="fail-add-after-retired-id-escapes-pipe-extra-column-empty",
    ),
    pytest.param(
        (
            "fail",
            "retire",
            "F-009",
            "--reason",
            "fixed",
            "--replaced-by",
            "F-011",
            "--date",
            "2026-02-03",
        ),
        "docs/Failed_Attempts.md",
        "F-009",
        # the file has no final newline: the old last line gains one, the new one has none
        [b"| F-011 | fixed upstream | 2026-01-02 | |"],
        [
            b"| F-011 | fixed upstream | 2026-01-02 | |\r\n",
            b"| F-009 | fixed | 2026-02-03 | F-011 |",
        ],
        id="fail-retire-at-end-of-file-without-newline",
    ),
    pytest.param(
        ("spec", "constraint", "add", "--level", "should", "--rule", "keep logs short"),
        "docs/Spec.md",
        "C-008",
        [],
        [b"| C-008 | keep logs short | SHOULD |  |  |\r\n"],
        id="spec-constraint-add-keeps-padding-of-others",
    ),
    pytest.param(
        ("spec", "decide", "D-001", "--decision", "sqlite", "--source", "bob"),
        "docs/Spec.md",
        "D-001",
        [b"| D-001 | which cache? | open |  | bob | 2030-01-01 |  |\r\n"],
        [b"| D-001 | which cache? | decided | sqlite | bob | 2030-01-01 | bob |\r\n"],
        id="spec-decide",
    ),
    pytest.param(
        ("spec", "retire", "C-007", "--reason", "superseded", "--date", "2026-02-03"),
        "docs/Spec.md",
        "C-007",
        [],
        [b"| C-007 | superseded | 2026-02-03 |  |\r\n"],
        id="spec-retire-finds-the-ledger",
    ),
    pytest.param(
        ("task", "phase", "P2", "done"),
        "docs/Task.md",
        "P2",
        [b"| P2 | fix          | doing  | 2d       |\r\n"],
        [b"| P2 | fix          | done   | 2d       |\r\n"],
        id="task-phase-keeps-column-width",
    ),
    pytest.param(
        ("task", "next", "run the failing test"),
        "docs/Task.md",
        "next action",
        [b"- write the failing test\r\n"],
        [b"- run the failing test\r\n"],
        id="task-next-keeps-bullet",
    ),
    pytest.param(
        ("task", "obligation", "add", "update the changelog"),
        "docs/Task.md",
        "O-002",
        [],
        [b"| O-002 | update the changelog | open |\r\n"],
        id="task-obligation-add",
    ),
    pytest.param(
        ("task", "obligation", "done", "O-001"),
        "docs/Task.md",
        "O-001",
        [b"| O-001 | tell the reviewer | open |\r\n"],
        [b"| O-001 | tell the reviewer | done |\r\n"],
        id="task-obligation-done",
    ),
    pytest.param(
        ("task", "write", "add", "--operation", "publish 1.2", "--idempotency-key", "pub-12"),
        "docs/Task.md",
        "E-002",
        [],
        [b"| E-002 | publish 1.2 | pending | pub-12 |  |\r\n"],
        id="task-write-add",
    ),
    pytest.param(
        ("task", "write", "settle", "E-001", "--status", "confirmed", "--evidence", "tag seen"),
        "docs/Task.md",
        "E-001",
        [b"| E-001 | create tag | pending | k-1 | |\r\n"],
        [b"| E-001 | create tag | confirmed | k-1 | tag seen |\r\n"],
        id="task-write-settle",
    ),
    pytest.param(
        ("task", "approval", "consume", "A-001"),
        "docs/Task.md",
        "A-001",
        [b"| A-001 | one deploy | granted |\r\n"],
        [b"| A-001 | one deploy | consumed |\r\n"],
        id="task-approval-consume",
    ),
    pytest.param(
        ("task", "check", "add", "docs build"),
        "docs/Task.md",
        "X-002",
        [],
        [b"| X-002 | docs build | open |\r\n"],
        id="task-check-add",
    ),
    pytest.param(
        ("task", "check", "pass", "X-001"),
        "docs/Task.md",
        "X-001",
        [b"| X-001 | suite passes | open |\r\n"],
        [b"| X-001 | suite passes | passed |\r\n"],
        id="task-check-pass",
    ),
]


@pytest.mark.parametrize(("args", "path", "item_id", "removed", "added"), WRITES)
def test_writer_changes_only_its_rows(
    styled: Path,
    args: tuple[str, ...],
    path: str,
    item_id: str,
    removed: list[bytes],
    added: list[bytes],
) -> None:
    before = (styled / path).read_bytes()
    result = run(styled, *args)
    assert result.code == 0, result.err
    assert result.out.strip() == item_id
    after = (styled / path).read_bytes()
    got_removed, got_added = _changes(before, after)
    if path == "docs/Task.md":  # every Task write raises revision by exactly one
        removed = [b"revision: 41\r\n", *removed]
        added = [b"revision: 42\r\n", *added]
    assert got_removed == removed
    assert got_added == added
    assert after.startswith(b"\xef\xbb\xbf") == before.startswith(b"\xef\xbb\xbf")
    assert after.endswith(b"\n") == before.endswith(b"\n")
    kind = {"docs/Spec.md": "spec", "docs/Task.md": "task"}.get(path, "failures")
    _guard_ok(kind, before, after, path)
    diff = git(styled, "diff", "--numstat").stdout.split()
    assert diff[2] == path and diff[1] == str(len(removed))  # nothing else in git diff


def test_new_row_in_file_without_final_newline_keeps_it_without(styled: Path) -> None:
    path = styled / "docs/Failed_Attempts.md"
    assert not path.read_bytes().endswith(b"\n")
    assert run(styled, "fail", "retire", "F-009", "--reason", "gone").code == 0
    data = path.read_bytes()
    assert not data.endswith(b"\n")
    assert data.count(b"\r\n") == _crlf(FAILURES).rstrip("\r\n").count("\r\n") + 1


def test_next_id_uses_retired_and_all_ids_with_the_prefix() -> None:
    ledger = parse_ledger("failures", "f.md", FAILURES.encode())
    assert next_id(ledger, "failures") == "F-012"
    phases = parse_ledger("task", "t.md", TASK.encode())
    assert next_id(phases, "phases") == "P3"
    assert next_id(phases, "verified") == "V-001"


def test_bump_revision_edits_only_the_digits() -> None:
    data = _crlf(TASK).encode()
    new, value = bump_revision(data, "t.md")
    assert value == 42
    assert new == data.replace(b"revision: 41\r\n", b"revision: 42\r\n")


def test_split_text_round_trips_mixed_endings() -> None:
    from rehydrate.ledgers.rowedit import join_text

    for data in (b"a\r\nb\nc", b"\xef\xbb\xbfa\n", b"", b"a\r\n\r\n"):
        assert join_text(split_text(data)) == data


def test_missing_section_is_created_in_canonical_form(repo: Path) -> None:
    write(repo, "docs/Spec.md", "---\nledger: spec\n---\n# Spec\n\nOnly prose.\n")
    write(repo, "docs/Task.md", TASK)
    write(repo, "docs/Failed_Attempts.md", "# Failed attempts\n\nNothing yet.\n")
    commit(repo, "sparse")
    assert run(repo, "spec", "constraint", "add", "--level", "MUST", "--rule", "x").out == "C-001\n"
    assert (
        run(repo, "fail", "add", "--tried", "`a b`", "--failure", "f", "--workaround", "w").out
        == "F-001\n"
    )
    spec = (repo / "docs/Spec.md").read_text()
    assert spec.endswith(
        "Only prose.\n\n## Constraints\n\n| ID | Rule | Level | Source |\n"
        "|---|---|---|---|\n| C-001 | x | MUST |  |\n"
    )
    failures = (repo / "docs/Failed_Attempts.md").read_text()
    assert "## Failures\n\n| ID | Tried | Failure | Workaround |" in failures
    assert run(repo, "spec", "retire", "C-001", "--reason", "r").code == 0
    assert (
        "## Retired\n\n| ID | Reason | Date | Replaced by |" in (repo / "docs/Spec.md").read_text()
    )


REFUSALS = [
    pytest.param(
        ("task", "phase", "P1", "doing"), 1, "status_moved_backwards", id="phase-backwards-guard"
    ),
    pytest.param(
        ("task", "next", "fix it && push"), 1, "next_action_not_single", id="next-action-chained"
    ),
    pytest.param(
        ("task", "next", "fix it then push"), 1, "next_action_not_single", id="next-action-then"
    ),
    pytest.param(
        ("fail", "add", "--tried", "a\nb", "--failure", "f", "--workaround", "w"),
        2,
        "bad_value",
        id="newline-in-cell",
    ),
    pytest.param(
        ("fail", "add", "--tried", "a\u200bb", "--failure", "f", "--workaround", "w"),
        2,
        "bad_value",
        id="zero-width-space",
    ),
    pytest.param(
        ("fail", "add", "--tried", "a\u202eb", "--failure", "f", "--workaround", "w"),
        2,
        "bad_value",
        id="bidi-override",
    ),
    pytest.param(
        ("fail", "add", "--tried", "  ", "--failure", "f", "--workaround", "w"),
        2,
        "empty_value",
        id="blank-required",
    ),
    pytest.param(("task", "phase", "P9", "done"), 2, "unknown_id", id="unknown-id"),
    pytest.param(("task", "phase", "P2", "finished"), 2, "unknown_status", id="bad-status"),
    pytest.param(
        ("spec", "constraint", "add", "--level", "OUGHT", "--rule", "r"),
        2,
        "unknown_level",
        id="bad-level",
    ),
    pytest.param(
        ("spec", "decide", "D-404", "--decision", "d", "--source", "s"),
        2,
        "unknown_id",
        id="decide-unknown",
    ),
    pytest.param(
        ("fail", "retire", "F-011", "--reason", "again"), 1, "already_retired", id="retire-twice"
    ),
    pytest.param(
        ("task", "write", "settle", "E-001", "--status", "confirmed"),
        2,
        "empty_value",
        id="settle-needs-evidence",
    ),
    pytest.param(
        (
            "fail",
            "add",
            "--tried",
            "a",
            "--failure",
            "b",
            "--workaround",
            "c",
            "--expect-revision",
            "41",
        ),
        2,
        "No such option",  # not offered where it cannot apply (click words it per version)
        id="expect-revision-not-task",
    ),
    pytest.param(
        ("task", "phase", "P2", "done", "--expect-revision", "40"),
        1,
        "cas_conflict",
        id="stale-revision",
    ),
    pytest.param(
        ("task", "phase", "P2", "done", "--expect-blob", "0000000"),
        1,
        "cas_conflict",
        id="stale-blob",
    ),
]


@pytest.mark.parametrize(("args", "code", "rule"), REFUSALS)
def test_writer_refuses_and_writes_nothing(
    styled: Path, args: tuple[str, ...], code: int, rule: str
) -> None:
    before = {
        p: (styled / p).read_bytes()
        for p in ("docs/Spec.md", "docs/Task.md", "docs/Failed_Attempts.md")
    }
    result = run(styled, *args)
    assert result.code == code, result.err
    assert rule in result.err
    assert result.out == ""
    for path, data in before.items():
        assert (styled / path).read_bytes() == data


def test_expect_revision_and_blob_match_then_write(styled: Path) -> None:
    state = json.loads(run(styled, "state", "--json").out)
    blob = state["ledgers"]["task"]["blob"]
    result = run(
        styled,
        "task",
        "phase",
        "P2",
        "done",
        "--expect-revision",
        "41",
        "--expect-blob",
        blob[:12],
        "--json",
    )
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert out["schema"] == "rehydrate/write-v1"
    assert (out["id"], out["revision"], out["blob_before"]) == ("P2", 42, blob)
    assert (
        out["blob_after"]
        == json.loads(run(styled, "state", "--json").out)["ledgers"]["task"]["blob"]
    )
    again = run(styled, "task", "obligation", "done", "O-001", "--expect-revision", "41")
    assert again.code == 1 and "cas_conflict" in again.err


def test_commit_flag_commits_only_the_ledger(styled: Path) -> None:
    write(styled, "other.txt", "staged work\n")
    git(styled, "add", "other.txt")
    result = run(
        styled, "fail", "add", "--tried", "`x y`", "--failure", "f", "--workaround", "w", "--commit"
    )
    assert result.code == 0, result.err
    assert git(styled, "log", "-1", "--format=%s").stdout.strip() == "rehydrate: fail add F-012"
    shown = git(styled, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert shown == ["docs/Failed_Attempts.md"]
    assert git(styled, "diff", "--cached", "--name-only").stdout.split() == ["other.txt"]


def test_commit_flag_runs_the_pre_commit_hook(styled: Path) -> None:
    hook = styled / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho hook ran >&2\nexit 1\n")
    hook.chmod(0o755)
    result = run(styled, "task", "check", "add", "lint", "--commit")
    assert result.code == 2
    assert "commit_failed" in result.err and "hook ran" in result.err
    assert "| X-002 | lint | open |" in (styled / "docs/Task.md").read_text()


def test_file_mode_is_kept(styled: Path) -> None:
    path = styled / "docs/Task.md"
    path.chmod(0o640)
    assert run(styled, "task", "check", "add", "lint").code == 0
    assert path.stat().st_mode & 0o777 == 0o640


VERIFIED_REFUSALS = [
    pytest.param("../outside.txt", "path_outside_repo", id="dotdot"),
    pytest.param("link-out", "path_outside_repo", id="symlink-leaving"),
    pytest.param("dir-out/file.txt", "path_outside_repo", id="symlinked-dir-leaving"),
    pytest.param("missing.txt", "artifact_missing", id="missing"),
    pytest.param(".git/config", "path_outside_repo", id="inside-dot-git"),
]


@pytest.mark.parametrize(("artifact", "rule"), VERIFIED_REFUSALS)
def test_verified_add_refuses_paths_leaving_the_repo(
    styled: Path, tmp_path: Path, artifact: str, rule: str
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (styled / "link-out").symlink_to(outside)
    (styled / "dir-out").symlink_to(tmp_path)
    (tmp_path / "file.txt").write_text("x\n")
    result = run(styled, "task", "verified", "add", "--check", "unit", "--artifact", artifact)
    assert result.code == 2, result.err
    assert rule in result.err


def test_verified_add_records_the_work_tree_blob(styled: Path) -> None:
    write(styled, "src/app.py", "print('hi')\n")
    result = run(
        styled,
        "task",
        "verified",
        "add",
        "--check",
        "unit tests",
        "--artifact",
        "src/app.py",
        "--report",
        "ci/123",
    )
    assert result.code == 0, result.err
    blob = git(styled, "hash-object", "src/app.py").stdout.strip()
    assert (
        f"| V-001 | unit tests | src/app.py | {blob} | ci/123 |"
        in (styled / "docs/Task.md").read_text()
    )


def test_unparseable_ledger_is_never_written(styled: Path) -> None:
    path = styled / "docs/Failed_Attempts.md"
    path.write_bytes(path.read_bytes() + b"\r\n| stray |\r\n")
    before = path.read_bytes()
    result = run(styled, "fail", "add", "--tried", "a", "--failure", "b", "--workaround", "c")
    assert result.code == 2 and "docs/Failed_Attempts.md" in result.err
    assert path.read_bytes() == before


def test_symlinked_ledger_is_refused(styled: Path) -> None:
    real = styled / "real.md"
    real.write_bytes((styled / "docs/Failed_Attempts.md").read_bytes())
    (styled / "docs/Failed_Attempts.md").unlink()
    (styled / "docs/Failed_Attempts.md").symlink_to(real)
    result = run(styled, "fail", "add", "--tried", "a", "--failure", "b", "--workaround", "c")
    assert result.code == 2 and "ledger_symlink" in result.err


def test_column_aliases_are_honoured(repo: Path) -> None:
    write(
        repo,
        ".rehydrate.toml",
        '[aliases.columns]\n"versucht" = "tried"\n"fehler" = "failure"\n"ausweg" = "workaround"\n',
    )
    write(repo, "docs/Spec.md", SPEC)
    write(repo, "docs/Task.md", TASK)
    write(
        repo,
        "docs/Failed_Attempts.md",
        "| ID | Versucht | Fehler | Ausweg |\n|---|---|---|---|\n| F-1 | `a` | b | c |\n",
    )
    commit(repo, "german")
    result = run(repo, "fail", "add", "--tried", "`x`", "--failure", "y", "--workaround", "z")
    assert result.code == 0, result.err
    assert result.out == "F-2\n"
    assert (repo / "docs/Failed_Attempts.md").read_text().endswith("| F-2 | `x` | y | z |\n")


def test_branch_safe_id_scheme_tags_new_ids(ledger_repo: Path) -> None:
    write(ledger_repo, ".rehydrate.toml", 'id_scheme = "branch-safe"\n')
    result = run(
        ledger_repo, "fail", "add", "--tried", "`x`", "--failure", "y", "--workaround", "z"
    )
    assert result.code == 0, result.err
    assert re.fullmatch(r"F-002-[0-9a-f]{5}\n", result.out)
    again = run(
        ledger_repo, "fail", "add", "--tried", "`x2`", "--failure", "y", "--workaround", "z"
    )
    assert again.out.startswith("F-003-")
