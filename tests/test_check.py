"""check: the decision alone, with the contract's exit codes; never an 'authorized' result."""

from __future__ import annotations

import json

import pytest

from conftest import run, run_subprocess, write
from continuity_repo import TASK, make_repo, settle_unknown

DECISIONS = {
    "reauthorization_required": 0,
    "blocked_on_reconciliation": 3,
    "continuity_validation_failed": 2,
}
BROKEN = TASK.replace(
    "| X-002 | October totals match the ledger export | open |",
    "| X-002 | October totals match the ledger export | open | stray |",
)


@pytest.mark.parametrize(
    "task,decision",
    [
        pytest.param(settle_unknown(), "reauthorization_required", id="continuity-holds"),
        pytest.param(TASK, "blocked_on_reconciliation", id="unknown-write"),
        pytest.param(BROKEN, "continuity_validation_failed", id="unparseable-ledger"),
    ],
)
def test_decision_alone_and_exit_code(repo, task, decision):
    make_repo(repo, task=task)
    result = run(repo, "check")
    assert result.out == decision + "\n"
    assert result.code == DECISIONS[decision]
    as_json = run(repo, "check", "--json")
    out = json.loads(as_json.out)
    assert as_json.code == DECISIONS[decision]
    assert out["schema"] == "rehydrate/check-v1" and out["decision"] == decision
    assert "authorized" not in json.dumps(out).replace("reauthorization", "")


def test_unparseable_ledger_names_file_and_code(repo):
    make_repo(repo, task=BROKEN)
    result = run(repo, "check", "--json")
    out = json.loads(result.out)
    assert out["reasons"] == [{"code": "ledger_invalid", "path": "docs/Task.md"}]
    assert out["error"]["file"] == "docs/Task.md" and out["error"]["line"] > 1
    assert out["error"]["code"] == "table_malformed"
    assert "docs/Task.md:" in result.err and "table_malformed" in result.err


def test_real_process_exit_codes(repo):
    make_repo(repo)
    assert run_subprocess(repo, "check").code == 3
    write(repo, "docs/Task.md", settle_unknown(), dedent=False)
    assert run_subprocess(repo, "check").code == 3  # HEAD is read by default
    assert run_subprocess(repo, "check", "--worktree").code == 0


def test_check_summary_without_envelope_verifies_its_manifest(repo):
    make_repo(repo, task=settle_unknown())
    manifest = run(repo, "manifest", "--fenced").out
    write(repo, "good.md", "Summary.\n\n" + manifest, dedent=False)
    write(repo, "bad.md", "Summary.\n\n" + manifest.replace("MUST NOT", "MAY"), dedent=False)
    assert (
        json.loads(run(repo, "check", "--json", "--summary", "good.md").out)["decision"]
        == "reauthorization_required"
    )
    result = run(repo, "check", "--json", "--summary", "bad.md")
    out = json.loads(result.out)
    assert result.code == 2
    assert {r["code"] for r in out["reasons"]} == {"constraint_weakened"}
    write(repo, "none.md", "Just prose.\n")
    out = json.loads(run(repo, "check", "--json", "--summary", "none.md").out)
    assert [r["code"] for r in out["reasons"]] == ["manifest_missing"]


def test_bad_source_options_are_usage_errors(repo):
    make_repo(repo)
    assert run(repo, "check", "--rev", "HEAD", "--worktree").code == 2
    assert run(repo, "check", "--rev", "no-such-rev").code == 2


def test_check_on_head_notes_uncommitted_ledgers(ledger_repo):
    from conftest import run, write

    task = (ledger_repo / "docs/Task.md").read_text()
    write(
        ledger_repo,
        "docs/Task.md",
        task.replace("| pending |", "| unknown |").replace("revision: 1", "revision: 2"),
        dedent=False,
    )
    head = run(ledger_repo, "check")
    assert head.code == 0 and "docs/Task.md" in head.err and "--worktree" in head.err
    assert run(ledger_repo, "check", "--worktree").code == 3
