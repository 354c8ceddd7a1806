"""verify: the negative-fixture table, both directions, pins vs ledger changes, no prose out."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import commit, run, write
from continuity_repo import TASK, make_repo, settle_unknown

Manifest = dict[str, Any]
# Ledger text that must never appear in a verification result.
PROSE = (
    "hunter2",
    "Billing export",
    "double-charging",
    "Reconcile E-002",
    "push to main",
    "billing API",
    "Which queue",
    "backfill window",
    "October totals",
)


def manifest_of(repo: Path) -> Manifest:
    result = run(repo, "manifest", "--format", "json")
    assert result.code == 0, result.err
    return json.loads(result.out)


def fenced(manifest: Manifest, fmt: str = "yaml") -> str:
    body = (
        json.dumps(manifest, indent=2)
        if fmt == "json"
        else yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True)
    )
    return (
        "# Session summary\n\nWe reproduced the bug and added keys.\n\n"
        f"```resume-manifest\n{body.rstrip()}\n```\n\nMore prose after.\n"
    )


def front_matter(manifest: Manifest, fmt: str = "yaml") -> str:
    body = (
        json.dumps(manifest)
        if fmt == "json"
        else yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True)
    )
    return f"---\n{body.rstrip()}\n---\n# Summary\n\nProse here.\n"


def verify(repo: Path, text: str, *args: str) -> tuple[int, dict[str, Any]]:
    write(repo, "summary.md", text, dedent=False)
    result = run(repo, "verify", "summary.md", "--json", *args)
    assert result.code in (0, 1), result.err
    return result.code, json.loads(result.out)


def without(field: str, item_id: str) -> Callable[[Manifest], None]:
    def edit(m: Manifest) -> None:
        m[field] = [e for e in m[field] if (e["id"] if isinstance(e, dict) else e) != item_id]

    return edit


def setting(field: str, item_id: str, key: str, value: str) -> Callable[[Manifest], None]:
    def edit(m: Manifest) -> None:
        for entry in m[field]:
            if entry["id"] == item_id:
                entry[key] = value

    return edit


def put(field: str, value: Any) -> Callable[[Manifest], None]:
    def edit(m: Manifest) -> None:
        m[field] = value

    return edit


def swap_phases(m: Manifest) -> None:
    m["phases"][2], m["phases"][3] = m["phases"][3], m["phases"][2]


def other_blob(m: Manifest) -> None:
    m["pins"]["ledgers"]["docs/Task.md"] = "1" * 40


def add(field: str, entry: Any) -> Callable[[Manifest], None]:
    def edit(m: Manifest) -> None:
        m[field].append(entry)

    return edit


NA = "Reconcile E-002 by reading the billing API for key inv-2026-10-backfill"

CASES = [
    pytest.param(without("constraints", "C-001"), "constraint_dropped", id="drop-prohibition"),
    pytest.param(
        setting("constraints", "C-004", "level", "SHOULD NOT"),
        "constraint_weakened",
        id="weaken-prohibition",
    ),
    pytest.param(
        setting("constraints", "C-002", "level", "MUST NOT"),
        "constraint_level_mismatch",
        id="flip-polarity",
    ),
    pytest.param(
        setting("consumed_approvals", "A-001", "status", "granted"),
        "approval_reused",
        id="consumed-approval-granted",
    ),
    pytest.param(
        without("consumed_approvals", "A-003"),
        "consumed_approval_dropped",
        id="drop-expired-approval",
    ),
    pytest.param(
        without("external_writes", "E-002"), "unknown_write_dropped", id="drop-unknown-write"
    ),
    pytest.param(without("external_writes", "E-003"), "write_dropped", id="drop-pending-write"),
    pytest.param(
        setting("external_writes", "E-002", "status", "not_applied"),
        "write_status_mismatch",
        id="unknown-write-settled",
    ),
    pytest.param(
        put("completion_checks", []), "completion_check_dropped", id="blank-completion-checks"
    ),
    pytest.param(
        setting("completion_checks", "X-002", "status", "passed"),
        "completion_check_claimed_passed",
        id="check-claimed-passed",
    ),
    pytest.param(
        without("completed_phases", "P2"), "phase_rolled_back", id="roll-back-completed-phase"
    ),
    pytest.param(
        setting("phases", "P1", "status", "doing"), "phase_rolled_back", id="roll-back-phase-status"
    ),
    pytest.param(
        setting("phases", "P3", "status", "done"), "phase_claimed_done", id="phase-claimed-done"
    ),
    pytest.param(
        add("completed_phases", "P4"), "phase_claimed_done", id="completed-phase-invented"
    ),
    pytest.param(swap_phases, "phase_order_mismatch", id="reorder-phases"),
    pytest.param(
        setting("open_decisions", "D-001", "status", "decided"),
        "decision_claimed_decided",
        id="open-decision-decided",
    ),
    pytest.param(
        without("open_decisions", "D-003"), "open_decision_dropped", id="drop-open-decision"
    ),
    pytest.param(without("obligations", "O-003"), "obligation_dropped", id="drop-open-obligation"),
    pytest.param(
        setting("obligations", "O-001", "status", "done"),
        "obligation_claimed_done",
        id="obligation-claimed-done",
    ),
    pytest.param(
        put("next_action", NA + " && notify finance"),
        "next_action_not_single",
        id="next-action-ampersands",
    ),
    pytest.param(
        put("next_action", NA + "; notify finance"),
        "next_action_not_single",
        id="next-action-semicolon",
    ),
    pytest.param(
        put("next_action", NA + "\nnotify finance"),
        "next_action_not_single",
        id="next-action-newline",
    ),
    pytest.param(
        put("next_action", NA + " and then notify finance"),
        "next_action_not_single",
        id="next-action-and-then",
    ),
    pytest.param(
        put("next_action", "Retry the backfill POST"),
        "next_action_mismatch",
        id="next-action-different",
    ),
    pytest.param(put("next_action", None), "next_action_dropped", id="next-action-dropped"),
    pytest.param(other_blob, "pin_mismatch", id="same-path-other-blob"),
    pytest.param(
        put("checksum", "rehydrate-checksum/v1:sha256:" + "0" * 64),
        "checksum_mismatch",
        id="checksum-altered",
    ),
    pytest.param(
        put("objective", "Ship the export"), "objective_mismatch", id="objective-reworded"
    ),
    pytest.param(put("task", "T-043"), "task_mismatch", id="other-task"),
    pytest.param(
        add("constraints", {"id": "C-999", "level": "MUST"}),
        "unverified",
        id="invented-constraint-id",
    ),
    pytest.param(
        add("constraints", {"id": "C-005", "level": "SHOULD"}),
        "item_retired",
        id="retired-constraint-claimed",
    ),
    pytest.param(put("objective", ""), "field_empty", id="empty-objective"),
    pytest.param(put("next_action", "  "), "field_empty", id="blank-next-action"),
    pytest.param(put("task", ""), "field_empty", id="empty-task"),
    pytest.param(setting("phases", "P1", "id", ""), "field_empty", id="empty-phase-id"),
    pytest.param(put("completed_phases", "P1, P2"), "field_type", id="wrong-type"),
    pytest.param(
        setting("phases", "P1", "status", "finished"),
        "field_invalid",
        id="status-outside-vocabulary",
    ),
    pytest.param(
        put("schema", "rehydrate/resume-manifest-v2"), "schema_unsupported", id="unknown-schema"
    ),
    pytest.param(lambda m: m.pop("constraints"), "field_missing", id="missing-field"),
    pytest.param(put("vibes", "good"), "field_unknown", id="unknown-field"),
]


@pytest.mark.parametrize("edit,code", CASES)
def test_each_damaged_manifest_fails_with_its_own_code(repo, edit, code):
    make_repo(repo)
    manifest = manifest_of(repo)
    damaged = copy.deepcopy(manifest)
    edit(damaged)
    status, out = verify(repo, fenced(damaged))
    assert status == 1
    assert out["summary"] == "unfaithful"
    assert out["canonical_check"] == "unchanged"
    assert out["action"] == "regenerate_summary"
    assert {r["code"] for r in out["reasons"]} == {code}, out["reasons"]
    assert all(set(r) == {"code", "id", "field"} for r in out["reasons"])
    text = json.dumps(out)
    assert not any(p in text for p in PROSE)


@pytest.mark.parametrize(
    "embed",
    [
        pytest.param(lambda m: fenced(m, "yaml"), id="fenced-yaml"),
        pytest.param(lambda m: fenced(m, "json"), id="fenced-json"),
        pytest.param(lambda m: front_matter(m, "yaml"), id="front-matter-yaml"),
        pytest.param(lambda m: front_matter(m, "json"), id="front-matter-json"),
        pytest.param(lambda m: yaml.safe_dump(m, sort_keys=False), id="bare-yaml"),
        pytest.param(lambda m: json.dumps(m), id="bare-json"),
    ],
)
def test_untouched_manifest_passes_even_with_an_unknown_write(repo, embed):
    make_repo(repo)
    status, out = verify(repo, embed(manifest_of(repo)))
    assert (status, out) == (
        0,
        {
            "schema": "rehydrate/verify-v1",
            "summary": "faithful",
            "canonical_check": "unchanged",
            "action": "proceed",
            "reasons": [],
        },
    )


def test_manifest_command_output_verifies_as_is(repo):
    make_repo(repo)
    for fmt in ("yaml", "json"):
        result = run(repo, "manifest", "--format", fmt, "--fenced")
        status, out = verify(repo, "Summary prose.\n\n" + result.out)
        assert status == 0, out


@pytest.mark.parametrize(
    "text,code",
    [
        pytest.param("# Summary\n\nNothing structured here.\n", "manifest_missing", id="missing"),
        pytest.param("", "manifest_missing", id="empty-file"),
        pytest.param(
            "---\ntitle: notes\n---\nprose\n", "manifest_missing", id="front-matter-not-a-manifest"
        ),
        pytest.param("```resume-manifest\nschema: [\n```\n", "manifest_invalid", id="bad-yaml"),
        pytest.param("```resume-manifest\nschema: x\n", "manifest_invalid", id="unclosed-fence"),
        pytest.param("```resume-manifest\na: &x 1\nb: *x\n```\n", "manifest_invalid", id="alias"),
        pytest.param(
            "```resume-manifest\nschema: a\nschema: b\n```\n",
            "manifest_invalid",
            id="duplicate-key",
        ),
        pytest.param(
            '```resume-manifest\n{"schema": "a", "schema": "b"}\n```\n',
            "manifest_invalid",
            id="duplicate-json-key",
        ),
        pytest.param(
            "```resume-manifest\n!!python/object:os.system {}\n```\n",
            "manifest_invalid",
            id="unsafe-tag",
        ),
        pytest.param("```resume-manifest\n- a\n```\n", "manifest_invalid", id="not-a-mapping"),
    ],
)
def test_unreadable_or_missing_manifest(repo, text, code):
    make_repo(repo)
    status, out = verify(repo, text)
    assert status == 1
    assert [r["code"] for r in out["reasons"]] == [code]


def test_two_manifests_are_refused(repo):
    make_repo(repo)
    manifest = manifest_of(repo)
    status, out = verify(repo, fenced(manifest) + fenced(manifest))
    assert status == 1 and [r["code"] for r in out["reasons"]] == ["manifest_duplicate"]
    status, out = verify(repo, front_matter(manifest) + fenced(manifest).split("\n", 1)[1])
    assert status == 1 and [r["code"] for r in out["reasons"]] == ["manifest_duplicate"]


def test_a_quoted_example_block_is_not_the_manifest(repo):
    make_repo(repo)
    manifest = manifest_of(repo)
    text = "Example:\n\n````markdown\n```resume-manifest\nschema: bogus\n```\n````\n"
    status, out = verify(repo, text + fenced(manifest))
    assert status == 0, out


def test_ledger_changed_after_pin_is_restart_not_summary_failure(repo):
    make_repo(repo)
    manifest = manifest_of(repo)
    write(repo, "docs/Task.md", settle_unknown(), dedent=False)
    commit(repo, "reconcile E-002")
    status, out = verify(repo, fenced(manifest))
    assert status == 1
    assert out["summary"] == "faithful"
    assert out["canonical_check"] == "changed"
    assert out["action"] == "restart_from_current"
    assert out["reasons"] == [
        {"code": "ledger_changed", "id": "docs/Task.md", "field": "pins.ledgers"}
    ]


def test_changed_ledger_and_dropped_item_are_reported_apart(repo):
    make_repo(repo)
    manifest = manifest_of(repo)
    without("constraints", "C-001")(manifest)
    write(repo, "docs/Task.md", settle_unknown(), dedent=False)
    commit(repo, "reconcile E-002")
    status, out = verify(repo, fenced(manifest))
    assert status == 1
    assert (out["summary"], out["canonical_check"], out["action"]) == (
        "unfaithful",
        "changed",
        "restart_from_current",
    )
    assert {r["code"] for r in out["reasons"]} == {"ledger_changed", "constraint_dropped"}


def test_unreachable_pinned_commit_fails_closed(repo):
    make_repo(repo)
    manifest = manifest_of(repo)
    manifest["pins"]["commit"] = "2" * 40
    write(repo, "docs/Task.md", settle_unknown(), dedent=False)
    commit(repo, "reconcile E-002")
    status, out = verify(repo, fenced(manifest))
    assert status == 1 and out["action"] == "restart_from_current"
    assert "pin_unverifiable" in {r["code"] for r in out["reasons"]}


def test_verify_at_an_older_rev_and_the_worktree(repo):
    first = make_repo(repo)
    manifest = manifest_of(repo)
    write(repo, "docs/Task.md", settle_unknown(), dedent=False)
    assert verify(repo, fenced(manifest))[0] == 0  # HEAD unchanged: work tree not read
    status, out = verify(repo, fenced(manifest), "--worktree")
    assert status == 1 and out["canonical_check"] == "changed"
    commit(repo, "reconcile")
    assert verify(repo, fenced(manifest), "--rev", first)[0] == 0


def test_invalid_ledger_is_a_failed_verification(repo):
    make_repo(
        repo,
        task=TASK.replace(
            "| P4 | Remove the legacy path | todo |",
            "| P4 | Remove the legacy path | todo | extra |",
        ),
    )
    status, out = verify(repo, "```resume-manifest\nschema: x\n```\n")
    assert status == 1
    assert [r["code"] for r in out["reasons"]] == ["ledger_invalid"]


def test_prose_and_secrets_in_claimed_ids_are_not_echoed(repo):
    make_repo(repo)
    manifest = manifest_of(repo)
    manifest["constraints"].append({"id": "password=hunter2 see Billing export", "level": "MUST"})
    status, out = verify(repo, fenced(manifest))
    assert status == 1
    assert out["reasons"] == [{"code": "unverified", "id": None, "field": "constraints"}]


def test_human_output_names_codes_and_exit(repo):
    make_repo(repo)
    manifest = manifest_of(repo)
    without("external_writes", "E-002")(manifest)
    write(repo, "s.md", fenced(manifest), dedent=False)
    result = run(repo, "verify", "s.md")
    assert result.code == 1
    assert "unknown_write_dropped external_writes E-002" in result.out
    assert "regenerate" in result.err
