"""State: pins follow commits; the semantic checksum ignores prose and row order only."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import commit, git, run, scaffold, write

SPEC = """\
# Spec

Intro prose.

## Constraints
| ID | Rule | Level | Source |
|---|---|---|---|
| C-1 | Never push to main | MUST NOT | user |
| C-2 | Prefer small commits | SHOULD | user |
"""


ROW1 = "| C-1 | Never push to main | MUST NOT | user |"
ROW2 = "| C-2 | Prefer small commits | SHOULD | user |"


def state_json(repo: Path, *args: str) -> dict:
    result = run(repo, "state", "--json", *args)
    assert result.code == 0, result.err
    return json.loads(result.out)


def test_pins_change_with_commit_checksum_does_not(ledger_repo):
    before = state_json(ledger_repo, "--rev", "HEAD")
    write(ledger_repo, "docs/Spec.md", SPEC)
    first = commit(ledger_repo, "spec")
    after = state_json(ledger_repo, "--rev", "HEAD")
    assert after["ledgers"]["spec"]["last_commit"] == first
    assert after["ledgers"]["spec"]["blob"] != before["ledgers"]["spec"]["blob"]
    assert after["ledgers"]["task"]["last_commit"] == before["ledgers"]["task"]["last_commit"]
    assert after["head"] == git(ledger_repo, "rev-parse", "HEAD").stdout.strip()


@pytest.mark.parametrize(
    "edit,changes",
    [
        pytest.param(lambda t: t.replace("Intro prose.", "Reworded intro."), False, id="prose"),
        pytest.param(
            lambda t: t.replace(ROW1 + "\n" + ROW2, ROW2 + "\n" + ROW1), False, id="reorder-rows"
        ),
        pytest.param(
            lambda t: t.replace("| C-2 | Prefer", "|   C-2   |  Prefer"), False, id="cell-padding"
        ),
        pytest.param(lambda t: t.replace("\n", "\r\n"), False, id="crlf"),
        pytest.param(lambda t: t.replace("| SHOULD |", "| MUST |"), True, id="level-change"),
        pytest.param(lambda t: t.replace("small commits", "smаll commits"), True, id="homoglyph"),
        pytest.param(lambda t: t + "| C-3 | New | MAY | x |\n", True, id="row-added"),
    ],
)
def test_checksum_is_semantic(ledger_repo, edit, changes):
    write(ledger_repo, "docs/Spec.md", SPEC)
    base = state_json(ledger_repo)["checksum"]
    write(ledger_repo, "docs/Spec.md", edit(SPEC), dedent=False)
    assert (state_json(ledger_repo)["checksum"] != base) is changes


def test_checksum_covers_next_action_phase_and_write_status(ledger_repo):
    task = (ledger_repo / "docs/Task.md").read_text()
    base = state_json(ledger_repo)["checksum"]
    for old, new in (
        ("| todo |", "| doing |"),
        ("| pending |", "| unknown |"),
        ("Example: write the failing test", "Example: write a failing test"),
    ):
        write(ledger_repo, "docs/Task.md", task.replace(old, new), dedent=False)
        assert state_json(ledger_repo)["checksum"] != base, old
    write(ledger_repo, "docs/Task.md", task.replace("revision: 1", "revision: 2"), dedent=False)
    assert state_json(ledger_repo)["checksum"] == base


def test_no_commits_yet_reads_worktree(repo):
    scaffold(repo)
    data = state_json(repo)
    assert data["head"] is None
    assert all(v["last_commit"] is None for v in data["ledgers"].values())
    missing = run(repo, "state", "--rev", "HEAD")
    assert missing.code == 2 and "unknown revision" in missing.err


def test_detached_head_subdirectory_and_linked_worktree(ledger_repo, tmp_path):
    sha = git(ledger_repo, "rev-parse", "HEAD").stdout.strip()
    git(ledger_repo, "checkout", "-q", "--detach")
    data = state_json(ledger_repo / "docs")
    assert data["branch"] is None and data["head"] == sha
    other = tmp_path / "other wt é"
    git(ledger_repo, "worktree", "add", "-q", str(other), "-b", "side")
    data = state_json(other / "docs")
    assert data["branch"] == "side" and data["head"] == sha


def test_path_with_spaces_and_non_ascii(tmp_path):
    repo = tmp_path / "my répo 日本"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, ".rehydrate.toml", '[ledgers]\nspec = "notes dir/Spéc.md"\n')
    scaffold(repo)
    assert (repo / "notes dir/Spéc.md").exists()
    sha = commit(repo, "init")
    data = state_json(repo, "--rev", "HEAD")
    assert data["ledgers"]["spec"]["path"] == "notes dir/Spéc.md"
    assert data["ledgers"]["spec"]["last_commit"] == sha


def test_staged_source_reads_the_index_not_the_worktree(ledger_repo):
    write(ledger_repo, "docs/Spec.md", SPEC)
    git(ledger_repo, "add", "docs/Spec.md")
    write(ledger_repo, "docs/Spec.md", "| garbage, not a table\n", dedent=False)
    data = state_json(ledger_repo, "--staged")
    assert [c["id"] for c in data["ledgers"]["spec"]["items"]["constraints"]] == ["C-1", "C-2"]
    broken = run(ledger_repo, "state")
    assert broken.code == 2 and "docs/Spec.md:1" in broken.err


@pytest.mark.parametrize(
    "setup,code",
    [
        pytest.param(lambda r: os.remove(r / "docs/Spec.md"), "ledger_missing", id="missing"),
        pytest.param(
            lambda r: (os.remove(r / "docs/Spec.md"), os.symlink("../README", r / "docs/Spec.md")),
            "ledger_symlink",
            id="symlink",
        ),
    ],
)
def test_unreadable_ledger_is_an_error_not_empty(ledger_repo, setup, code):
    setup(ledger_repo)
    result = run(ledger_repo, "state", "--json")
    assert result.code == 2
    assert result.out == ""
    assert code in result.err and "docs/Spec.md" in result.err


def test_symlink_committed_at_revision_is_refused(ledger_repo):
    os.remove(ledger_repo / "docs/Task.md")
    os.symlink("Spec.md", ledger_repo / "docs/Task.md")
    commit(ledger_repo, "symlink", "--no-verify")
    result = run(ledger_repo, "state", "--rev", "HEAD")
    assert result.code == 2 and "ledger_symlink" in result.err


def test_not_a_repository(tmp_path):
    result = run(tmp_path, "state")
    assert result.code == 2 and "not inside a git work tree" in result.err


def test_python_dash_m_works(ledger_repo):
    from conftest import run_subprocess

    result = run_subprocess(ledger_repo, "state", "--json")
    assert result.code == 0 and json.loads(result.out)["schema"] == "rehydrate/state-v1"


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_json_values)
def test_canonical_json_is_what_json_dumps_gives(value) -> None:
    """The checksum's own serializer writes exactly the bytes json.dumps would."""
    from rehydrate.state import canonical_json

    assert "".join(canonical_json(value)) == json.dumps(
        value, ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )


_checksum_cell = (
    st.one_of(
        st.text(alphabet=st.sampled_from("abé -"), min_size=1, max_size=6),
        st.text(alphabet=st.sampled_from('ab "é|\\-\u00a0'), min_size=1, max_size=6),
    )
    .map(lambda text: " ".join(text.split()))
    .filter(lambda text: text and not text.endswith("\\"))
)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(st.tuples(_checksum_cell, _checksum_cell, _checksum_cell), max_size=8),
    order=st.one_of(st.just(list(range(8))), st.permutations(range(8))),
    numbering=st.sampled_from(["F-{:03d}", "F-{}", "f{}", "F-{}A"]),
)
def test_checksum_text_is_the_documented_json(rows, order, numbering):
    """The checksum hashes exactly json.dumps(checksum_payload) as documented, however the
    rows are joined and escaped on the way (sorted by ID, quotes, backslashes, pipes)."""
    import hashlib

    from rehydrate.ledgers import parse_ledger
    from rehydrate.ledgers._table import render_row
    from rehydrate.state import _UNIT, CHECKSUM_PREFIX, checksum, checksum_payload

    ids = [numbering.format(i) for i in order if i < len(rows)]
    lines = [
        "# Failed attempts",
        "",
        "## Failures",
        "",
        "| ID | Tried | Failure | Workaround |",
        "|---|---|---|---|",
    ]
    lines += [render_row([i, *cells]) for i, cells in zip(ids, rows, strict=True)]
    failures = parse_ledger("failures", "f.md", ("\n".join(lines) + "\n").encode("utf-8"))
    spec = parse_ledger("spec", "s.md", b"# Spec\n")
    task = parse_ledger("task", "t.md", b"---\ntask: T\nobjective: O\nrevision: 1\n---\n# T\n")
    ledgers = {"spec": spec, "task": task, "failures": failures}
    payload = checksum_payload(ledgers)
    expected_rows = "\x1e".join(
        sorted(
            _UNIT.join((f.id, f.tried, f.failure, f.workaround))
            for f in failures.section("failures")
        )
    )
    payload["failures"]["items"]["failures"]["rows"] = expected_rows  # the plain str form
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    assert checksum(ledgers) == CHECKSUM_PREFIX + hashlib.sha256(text.encode()).hexdigest()
