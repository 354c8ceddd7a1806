"""manifest: the resume manifest's content, determinism, formats, and strict read-back."""

from __future__ import annotations

import json

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import git, run, write
from continuity_repo import TASK, make_repo
from rehydrate.continuity.manifest import (
    FENCE_INFO,
    dump_manifest,
    extract_manifest,
    validate_manifest,
)


def test_manifest_carries_ids_statuses_pins_and_checksum_only(repo):
    head = make_repo(repo)
    result = run(repo, "manifest", "--format", "json")
    assert result.code == 0, result.err
    manifest = json.loads(result.out)
    state = json.loads(run(repo, "state", "--json", "--rev", "HEAD").out)
    assert manifest == {
        "schema": "rehydrate/resume-manifest-v1",
        "task": "T-042",
        "objective": "Ship the idempotent billing export without double-charging anyone",
        "next_action": "Reconcile E-002 by reading the billing API for key inv-2026-10-backfill",
        "completed_phases": ["P1", "P2"],
        "phases": [
            {"id": "P1", "status": "done"},
            {"id": "P2", "status": "done"},
            {"id": "P3", "status": "doing"},
            {"id": "P4", "status": "todo"},
        ],
        "obligations": [{"id": "O-001", "status": "open"}, {"id": "O-003", "status": "open"}],
        "external_writes": [
            {"id": "E-002", "status": "unknown"},
            {"id": "E-003", "status": "pending"},
        ],
        "consumed_approvals": [
            {"id": "A-001", "status": "consumed"},
            {"id": "A-003", "status": "expired"},
        ],
        "constraints": [
            {"id": "C-001", "level": "MUST NOT"},
            {"id": "C-002", "level": "MUST"},
            {"id": "C-003", "level": "SHOULD"},
            {"id": "C-004", "level": "MUST NOT"},
        ],
        "open_decisions": [{"id": "D-001", "status": "open"}, {"id": "D-003", "status": "open"}],
        "completion_checks": [
            {"id": "X-001", "status": "passed"},
            {"id": "X-002", "status": "open"},
        ],
        "pins": {
            "commit": head,
            "ledgers": {
                "docs/Spec.md": state["ledgers"]["spec"]["blob"],
                "docs/Task.md": state["ledgers"]["task"]["blob"],
                "docs/Failed_Attempts.md": state["ledgers"]["failures"]["blob"],
            },
        },
        "checksum": state["checksum"],
    }
    assert head == git(repo, "rev-parse", "HEAD").stdout.strip()


def test_no_prose_in_the_manifest(repo):
    make_repo(repo)
    text = run(repo, "manifest").out
    for prose in (
        "hunter2",
        "Billing export",
        "push to main",
        "Which queue",
        "Rollback",
        "Revert the export",
    ):
        assert prose not in text


def test_yaml_and_json_say_the_same_and_are_deterministic(repo):
    make_repo(repo)
    first = run(repo, "manifest").out
    assert run(repo, "manifest").out == first
    assert run(repo, "manifest", "--format", "yaml").out == first
    assert "!!" not in first and "&" not in first and "*" not in first
    assert yaml.safe_load(first) == json.loads(run(repo, "manifest", "--format", "json").out)


def test_retired_unknown_write_stays_and_settled_writes_go(repo):
    task = TASK.replace(
        "## Rollback",
        "## Retired\n\n| ID | Reason | Date | Replaced by |\n"
        "|---|---|---|---|\n| E-002 | moved to another task | 2026-10-09 | |\n"
        "| E-003 | not needed | 2026-10-09 | |\n\n## Rollback",
    )
    make_repo(repo, task=task)
    manifest = json.loads(run(repo, "manifest", "--format", "json").out)
    assert manifest["external_writes"] == [{"id": "E-002", "status": "unknown"}]


def test_default_is_head_and_worktree_is_opt_in(repo):
    make_repo(repo)
    write(
        repo,
        "docs/Task.md",
        TASK.replace("revision: 7", "revision: 8").replace(
            "| P3 | Backfill October invoices | doing |",
            "| P3 | Backfill October invoices | done |",
        ),
        dedent=False,
    )
    at_head = json.loads(run(repo, "manifest", "--format", "json").out)
    in_tree = json.loads(run(repo, "manifest", "--format", "json", "--worktree").out)
    assert at_head["completed_phases"] == ["P1", "P2"]
    assert in_tree["completed_phases"] == ["P1", "P2", "P3"]
    assert in_tree["pins"]["commit"] is None


def test_fenced_and_output_file(repo):
    make_repo(repo)
    result = run(repo, "manifest", "--fenced", "-o", "m.md")
    assert result.code == 0 and result.out == ""
    text = (repo / "m.md").read_text()
    assert text.startswith(f"```{FENCE_INFO}\n") and text.endswith("```\n")
    assert extract_manifest(text).where == "fenced block"


def test_unparseable_ledger_is_exit_2(repo):
    make_repo(
        repo,
        task=TASK.replace(
            "| P1 | Reproduce the double export | done |",
            "| P1 | Reproduce the double export | finished |",
        ),
    )
    result = run(repo, "manifest")
    assert result.code == 2
    assert "docs/Task.md" in result.err and "unknown_status" in result.err


_id = st.from_regex(r"[A-Z]{1,3}-[0-9]{1,4}", fullmatch=True)
_line = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda s: s.strip() != "")


@settings(max_examples=60, deadline=None)
@given(
    objective=_line,
    action=_line,
    ids=st.lists(_id, unique=True, max_size=6),
    fmt=st.sampled_from(["yaml", "json"]),
)
def test_dump_then_extract_round_trips(objective, action, ids, fmt):
    manifest = {
        "schema": "rehydrate/resume-manifest-v1",
        "task": "T-1",
        "objective": objective,
        "next_action": action,
        "completed_phases": ids,
        "phases": [{"id": i, "status": "done"} for i in ids],
        "obligations": [],
        "external_writes": [],
        "consumed_approvals": [],
        "constraints": [{"id": i, "level": "MUST NOT"} for i in ids],
        "open_decisions": [],
        "completion_checks": [],
        "pins": {"commit": None, "ledgers": {"docs/Task.md": "a" * 40}},
        "checksum": "rehydrate-checksum/v1:sha256:" + "b" * 64,
    }
    text = dump_manifest(manifest, fmt)
    for wrapped in (text, f"prose\n\n```{FENCE_INFO}\n{text}```\n"):
        found = extract_manifest(wrapped)
        assert found.problem is None and found.data == manifest
        assert validate_manifest(found.data) == []
