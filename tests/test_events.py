"""Trace events: the right kind per decision, no rehydration while blocked, no prose."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import git, run, write
from continuity_repo import make_repo, settle_unknown
from rehydrate.continuity.decision import Decision, Reason
from rehydrate.continuity.trace import (
    EventRefused,
    append_event,
    decision_event,
    make_event,
    read_events,
)

PROSE = ("hunter2", "Billing export", "double-charging", "billing API", "push to main")


def kinds(repo):
    return [(e["event"], e.get("decision")) for e in read_events(repo)]


def test_check_records_rehydration_only_when_not_blocked(repo):
    make_repo(repo, task=settle_unknown())
    assert run(repo, "check", "--record").code == 0
    assert kinds(repo) == [("context_rehydration", "reauthorization_required")]
    event = read_events(repo)[0]
    assert event["requires_reauthorization"] is True
    assert event["pins"]["commit"] == git(repo, "rev-parse", "HEAD").stdout.strip()


def test_blocked_writes_a_stop_event_never_a_rehydration(repo):
    make_repo(repo)
    assert run(repo, "check", "--record").code == 3
    manifest = run(repo, "manifest", "--fenced").out
    write(repo, "s.md", manifest, dedent=False)
    assert run(repo, "verify", "s.md", "--record").code == 0
    assert kinds(repo) == [("continuity_validation_failed", "blocked_on_reconciliation")] * 2
    assert read_events(repo)[0]["reasons"] == [{"code": "unknown_side_effect", "id": "E-002"}]


def test_failed_verification_event_has_codes_only(repo):
    make_repo(repo, task=settle_unknown())
    manifest = run(repo, "manifest", "--fenced").out.replace("MUST NOT", "SHOULD NOT")
    write(repo, "s.md", "Summary mentioning hunter2.\n" + manifest, dedent=False)
    assert run(repo, "verify", "s.md", "--record").code == 1
    (event,) = read_events(repo)
    assert event["event"] == "continuity_validation_failed"
    assert {r["code"] for r in event["reasons"]} == {"constraint_weakened"}
    text = (repo / ".rehydrate" / "events.jsonl").read_text()
    assert not any(p in text for p in PROSE)


def test_envelope_create_records_compaction(repo):
    make_repo(repo)
    write(repo, "s.md", "summary\n")
    result = run(repo, "envelope", "create", "--summary", "s.md", "--record")
    envelope = json.loads(result.out)
    (event,) = read_events(repo)
    assert event["event"] == "context_compaction"
    assert event["envelope_id"] == envelope["envelope_id"]
    assert event["summary_sha256"] == envelope["summary_sha256"]
    assert event["reset_reason"] == "context_compaction"


def test_record_events_setting_acts_as_record(repo):
    make_repo(repo, task=settle_unknown())
    write(repo, ".rehydrate.toml", "record_events = true\n")
    run(repo, "check")
    assert kinds(repo) == [("context_rehydration", "reauthorization_required")]


def test_no_event_without_record(repo):
    make_repo(repo)
    run(repo, "check")
    assert read_events(repo) == []


def test_events_folder_is_ignored_by_git(repo):
    make_repo(repo)
    run(repo, "check", "--record")
    assert git(repo, "status", "--porcelain").stdout == ""


def test_rehydration_event_refused_while_blocked():
    blocked = Decision("blocked_on_reconciliation", (Reason("unknown_side_effect", id="E-1"),))
    assert decision_event(blocked, command="check")["event"] == "continuity_validation_failed"
    with pytest.raises(EventRefused):
        make_event("context_rehydration", command="check", decision="blocked_on_reconciliation")


def test_append_refuses_a_blocked_rehydration(tmp_path):
    with pytest.raises(EventRefused):
        append_event(
            tmp_path, {"event": "context_rehydration", "decision": "blocked_on_reconciliation"}
        )
    assert read_events(tmp_path) == []


def test_concurrent_appends_keep_lines_whole(tmp_path):
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from rehydrate.continuity.trace import append_event, make_event\n"
        "for n in range(200):\n"
        "    e = make_event('context_compaction', command='x' * 3000, checksum=str(n))\n"
        "    append_event(Path(sys.argv[1]), e)\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path)]) for _ in range(4)]
    assert all(p.wait() == 0 for p in procs)
    lines = (tmp_path / ".rehydrate" / "events.jsonl").read_text().splitlines()
    assert len(lines) == 800
    assert all(json.loads(line)["event"] == "context_compaction" for line in lines)


@pytest.mark.parametrize(
    "task,code,event",
    [
        pytest.param(
            settle_unknown(), 0, ("context_rehydration", "reauthorization_required"), id="holds"
        ),
        pytest.param(
            None, 3, ("continuity_validation_failed", "blocked_on_reconciliation"), id="blocked"
        ),
    ],
)
def test_prompt_record(repo, task, code, event):
    if task is None:
        make_repo(repo)
    else:
        make_repo(repo, task=task)
    assert run(repo, "prompt", "-o", "p.md", "--record").code == code
    assert kinds(repo) == [event]
