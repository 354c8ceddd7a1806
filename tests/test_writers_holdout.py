"""Hold-out scenario: an agent records a task's whole life through `rehydrate` commands
alone — no editor, no hand-made commit of a ledger — and the range check passes over the
whole history."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit, git, run, write

LEDGERS = ("docs/Spec.md", "docs/Task.md", "docs/Failed_Attempts.md")


def rehydrate(repo: Path, *args: str) -> str:
    """One writer with --commit: it prints the ID it wrote, and the hook passes its commit."""
    before = git(repo, "rev-parse", "HEAD").stdout.strip()
    result = run(repo, *args, "--commit")
    assert result.code == 0, (args, result.err)
    assert git(repo, "rev-parse", "HEAD~1").stdout.strip() == before  # exactly one commit
    changed = git(repo, "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert len(changed) == 1 and changed[0] in LEDGERS, changed
    return result.out.strip()


def test_an_agent_records_everything_with_commands_only(repo: Path) -> None:
    assert run(repo, "init").code == 0  # hooks installed: every --commit below is guarded
    commit(repo, "rehydrate init")
    write(repo, "src/cache.py", "CACHE = {}\n")
    commit(repo, "code")

    assert rehydrate(repo, "task", "objective", "Cache the product pages") == "objective"
    assert rehydrate(repo, "task", "phase", "add", "--phase", "Measure the page times") == "P1"
    assert rehydrate(repo, "task", "phase", "add", "--phase", "Ship the cache") == "P2"
    question = rehydrate(
        repo,
        "spec",
        "decision",
        "add",
        "--question",
        "Which cache backend: Redis or Memcached?",
        "--owner",
        "Ana",
        "--due",
        "2026-04-01",
    )
    assert question == "D-001"
    inserted = rehydrate(
        repo, "task", "phase", "add", "--phase", "Pick the cache backend", "--before", "P2"
    )
    assert inserted == "P3"
    contract = rehydrate(
        repo,
        "spec",
        "contract",
        "add",
        "--subject",
        "Cache keys",
        "--contract",
        "`page:<slug>:<locale>`, lower case",
        "--source",
        "ADR-7",
    )
    assert contract == "K-001"
    approval = rehydrate(
        repo,
        "task",
        "approval",
        "add",
        "--scope",
        "One flush of the staging cache",
        "--source",
        "Ana in #ops, 2026-03-20",
    )
    assert approval == "A-001"

    prompt = run(repo, "prompt")
    assert prompt.code == 0, prompt.err
    spec_part = prompt.out.split("## 2. Task")[0]
    open_part = spec_part.split("### Open decisions")[1].split("### Decided")[0]
    assert "D-001" in open_part and "Redis or Memcached" in open_part
    assert "K-001" in spec_part and "page:<slug>:<locale>" in spec_part
    task_part = prompt.out.split("## 2. Task")[1].split("## 3.")[0]
    assert task_part.index("P1") < task_part.index("P3") < task_part.index("P2")
    assert "A-001" in task_part and "Ana in #ops" in prompt.out

    rehydrate(repo, "spec", "decision", "assign", "D-001", "--owner", "Bo", "--due", "2026-04-08")
    rule = rehydrate(repo, "spec", "constraint", "add", "--level", "SHOULD", "--rule", "TTL <= 5m")
    rehydrate(repo, "spec", "constraint", "strengthen", rule, "--level", "MUST")
    rehydrate(repo, "task", "phase", "start", "P1")
    rehydrate(repo, "task", "next", "Time the product page with and without a warm cache")
    failed = rehydrate(
        repo,
        "fail",
        "add",
        "--tried",
        "`ab -n 1000 http://localhost/p/1`",
        "--failure",
        "the dev server serialises requests",
        "--workaround",
        "measure on staging",
    )
    write_id = rehydrate(
        repo,
        "task",
        "write",
        "add",
        "--operation",
        "Flush the staging cache",
        "--idempotency-key",
        "f1",
    )
    rehydrate(repo, "task", "approval", "consume", approval)
    rehydrate(repo, "task", "write", "unknown", write_id)
    rehydrate(
        repo, "task", "write", "settle", write_id, "--status", "confirmed", "--evidence", "keys=0"
    )
    rehydrate(repo, "task", "phase", "done", "P1")
    obligation = rehydrate(repo, "task", "obligation", "add", "Tell support about the TTL")
    rehydrate(repo, "task", "obligation", "done", obligation)
    check = rehydrate(repo, "task", "check", "add", "Pages load in < 200 ms on staging")
    rehydrate(
        repo, "task", "verified", "add", "--check", "unit tests", "--artifact", "src/cache.py"
    )
    rehydrate(repo, "task", "check", "pass", check)
    rehydrate(
        repo, "spec", "decision", "decide", question, "--decision", "Redis", "--source", "Bo, ADR-8"
    )
    better = rehydrate(repo, "spec", "constraint", "add", "--level", "MUST", "--rule", "TTL <= 1m")
    rehydrate(repo, "retire", rule, "--reason", "tightened", "--replaced-by", better)
    rehydrate(repo, "retire", failed, "--reason", "staging has a load balancer now")

    guarded = run(repo, "guard", "--range", "HEAD", "--json")
    assert guarded.code == 0, guarded.err
    report = json.loads(guarded.out)
    assert report["violations"] == [] and not report.get("waived")
    assert git(repo, "status", "--porcelain", "--", *LEDGERS).stdout == ""  # all committed
    subjects = git(repo, "log", "--format=%s").stdout.splitlines()
    assert sum(s.startswith("rehydrate: ") for s in subjects) == 27
    state = json.loads(run(repo, "state", "--json").out)
    task = state["ledgers"]["task"]
    assert task["revision"] == 1 + 17  # one per Task write
    decided = state["ledgers"]["spec"]["items"]["decisions"][0]
    assert (decided["status"], decided["owner"], decided["decision"]) == ("decided", "Bo", "Redis")
