"""`rehydrate merge resolve` under real `git merge`: the driver registered by `rehydrate
init`, the real pre-commit hook on `git commit`, `guard --range` and a server's
pre-receive hook; and the worked example of docs/merging.md, run as printed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import git, run, run_subprocess, write

SPEC = """\
---
ledger: spec
---
# Spec

## Decisions

| ID | Question | Status | Decision | Owner | Due | Source |
|---|---|---|---|---|---|---|
| D-001 | Which cache? | open | | ann | 2030-01-01 | |
| D-002 | Which queue? | open | | bob | 2030-01-01 | |

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
"""

TASK = """\
---
ledger: task
task: T-001
revision: 1
objective: Ship the cache
---
# Task

## Phases

| ID | Phase | Status |
|---|---|---|
| P1 | Pick the cache | doing |

## Next action

Write the cache benchmark

## Obligations

| ID | Obligation | Status |
|---|---|---|

## External writes

| ID | Operation | Status | Idempotency key | Evidence |
|---|---|---|---|---|
| E-001 | create the release tag v1 | pending | tag-v1 | |

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
"""


def ok(repo: Path, *args: str) -> str:
    result = run_subprocess(repo, *args)
    assert result.code == 0, (args, result.err)
    return result.out.strip()


@pytest.fixture
def project(repo: Path) -> Path:
    """`rehydrate init` (hook, merge driver), a Spec with two open decisions, on main."""
    assert run(repo, "init").code == 0
    write(repo, "docs/Spec.md", SPEC)
    write(repo, "docs/Task.md", TASK)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")  # the real hook runs
    return repo


def decide(repo: Path, item: str, decision: str, source: str, message: str) -> None:
    ok(repo, "spec", "decide", item, "--decision", decision, "--source", source)
    git(repo, "commit", "-q", "-am", message)


def conflicting(project: Path, *, second: bool = False) -> str:
    """main decided D-001 Redis, feature decided it Memcached (and D-002 differently too
    when ``second``); `git merge feature` stopped on main. Returns its output."""
    git(project, "checkout", "-q", "-b", "feature")
    decide(project, "D-001", "Memcached", "ADR-2", "feature: memcached")
    if second:
        decide(project, "D-002", "Kafka", "ADR-4", "feature: kafka")
    git(project, "checkout", "-q", "main")
    decide(project, "D-001", "Redis", "ADR-1", "main: redis")
    if second:
        decide(project, "D-002", "RabbitMQ", "ADR-3", "main: rabbitmq")
    proc = git(project, "merge", "--no-edit", "feature", check=False)
    assert proc.returncode != 0
    return proc.stdout + proc.stderr


def guard_range(repo: Path) -> dict[str, object]:
    result = run_subprocess(repo, "guard", "--range", "0" * 40 + "..HEAD", "--json")
    report: dict[str, object] = json.loads(result.out)
    report["code"] = result.code
    return report


def server(tmp_path: Path) -> Path:
    bare = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m rehydrate guard --pre-receive\n")
    hook.chmod(0o755)
    return bare


@pytest.mark.parametrize(
    ("take", "kept", "lost"), [("ours", "Redis", "Memcached"), ("theirs", "Memcached", "Redis")]
)
def test_d001_decided_differently_resolves_under_the_guard(
    project: Path, tmp_path: Path, take: str, kept: str, lost: str
) -> None:
    output = conflicting(project)
    assert "CONFLICT decision_conflict D-001" in output
    assert "rehydrate merge resolve D-001 --take ours" in output  # the driver names the fix
    question = ok(project, "merge", "resolve", "D-001", "--take", take)
    assert question == "D-004"  # D-003 is the copy of the version not kept
    assert git(project, "ls-files", "-u").stdout == ""  # resolved and staged
    commit = git(project, "commit", "-q", "--no-edit", check=False)  # the real hook
    assert commit.returncode == 0, commit.stderr
    assert len(git(project, "rev-list", "--parents", "-n1", "HEAD").stdout.split()) == 3
    report = guard_range(project)
    assert report["code"] == 0 and report["waived"] == [], report
    state = json.loads(ok(project, "state", "--json"))["ledgers"]["spec"]
    rows = {r["id"]: r for r in state["items"]["decisions"]}
    assert rows["D-001"]["decision"] == kept and rows["D-003"]["decision"] == lost
    assert rows["D-004"]["status"] == "open" and rows["D-004"]["owner"] == "ann"
    assert {(r["id"], r["replaced_by"]) for r in state["retired"]} == {("D-003", "D-001")}
    prompt = ok(project, "prompt")
    open_part = prompt.split("### Decided decisions")[0]
    assert "| D-004 |" in open_part and lost in open_part and kept in open_part
    bare = server(tmp_path)
    git(project, "remote", "add", "origin", str(bare))
    pushed = git(project, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode == 0, pushed.stderr


def test_keeping_one_side_silently_is_refused_by_hook_range_and_server(
    project: Path, tmp_path: Path
) -> None:
    conflicting(project)
    git(project, "checkout", "--ours", "docs/Spec.md")
    git(project, "add", "docs/Spec.md")
    commit = git(project, "commit", "-q", "--no-edit", check=False)
    assert commit.returncode != 0
    assert "docs/Spec.md" in commit.stderr and "merge_side_dropped D-001" in commit.stderr
    assert "rehydrate merge resolve D-001 --take ours" in commit.stderr
    git(project, "commit", "-q", "--no-edit", "--no-verify")
    report = guard_range(project)
    assert report["code"] == 1
    assert [(v["code"], v["id"]) for v in report["violations"]] == [  # type: ignore[attr-defined]
        ("merge_side_dropped", "D-001")
    ]
    bare = server(tmp_path)
    git(project, "remote", "add", "origin", str(bare))
    pushed = git(project, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0 and "merge_side_dropped D-001" in pushed.stderr


def test_following_the_old_advice_by_hand_is_refused_with_the_resolve_fix(project: Path) -> None:
    """What a new user tried: a new row, the old one retired — the other side's version
    is still missing, and the refusal says which command records it."""
    conflicting(project)
    ours = git(project, "show", ":2:docs/Spec.md").stdout
    ours = ours.replace(
        "| D-002 | Which queue? | open | | bob | 2030-01-01 | |\n",
        "| D-002 | Which queue? | open | | bob | 2030-01-01 | |\n"
        "| D-003 | Which cache? | decided | Redis | ann | 2030-01-01 | ADR-1 |\n",
    )
    ours += "| D-001 | superseded | 2026-01-01 | D-003 |\n"
    write(project, "docs/Spec.md", ours)
    git(project, "add", "docs/Spec.md")
    commit = git(project, "commit", "-q", "--no-edit", check=False)
    assert commit.returncode != 0 and "merge_side_dropped D-001" in commit.stderr
    assert "rehydrate merge resolve D-001" in commit.stderr


def test_two_conflicts_in_one_ledger_resolve_one_at_a_time(project: Path) -> None:
    conflicting(project, second=True)
    first = run_subprocess(project, "merge", "resolve", "D-001", "--take", "ours", "--json")
    assert first.code == 0, first.err
    report = json.loads(first.out)
    assert report["schema"] == "rehydrate/merge-resolve-v1" and report["staged"] is False
    assert [c["id"] for c in report["remaining"]] == ["D-002"]
    assert "1 conflict(s) left (D-002)" in first.err
    assert git(project, "ls-files", "-u", "docs/Spec.md").stdout  # still unmerged
    assert "<<<<<<< ours" in (project / "docs/Spec.md").read_text()
    second = run_subprocess(project, "merge", "resolve", "D-002", "--take", "theirs", "--json")
    assert second.code == 0, second.err
    done = json.loads(second.out)
    assert done["staged"] is True and done["remaining"] == []
    assert git(project, "commit", "-q", "--no-edit", check=False).returncode == 0
    assert guard_range(project)["code"] == 0
    rows = {
        r["id"]: r
        for r in json.loads(ok(project, "state", "--json"))["ledgers"]["spec"]["items"]["decisions"]
    }
    assert rows["D-001"]["decision"] == "Redis" and rows["D-002"]["decision"] == "Kafka"
    assert {r["decision"] for r in rows.values() if r["status"] == "decided"} == {
        "Redis",
        "Memcached",
        "Kafka",
        "RabbitMQ",
    }
    assert not (project / ".git/rehydrate/merge-resolve.json").exists()


def test_a_next_action_and_a_write_conflict_in_task(project: Path) -> None:
    git(project, "checkout", "-q", "-b", "feature")
    ok(project, "task", "next", "Run the formatter")
    ok(
        project,
        "task",
        "write",
        "settle",
        "E-001",
        "--status",
        "not_applied",
        "--evidence",
        "no tag",
    )
    git(project, "commit", "-q", "-am", "feature")
    git(project, "checkout", "-q", "main")
    ok(project, "task", "next", "Run the linter")
    ok(project, "task", "write", "settle", "E-001", "--status", "confirmed", "--evidence", "tag")
    git(project, "commit", "-q", "-am", "main")
    output = git(project, "merge", "--no-edit", "feature", check=False).stderr
    assert "rehydrate merge resolve next-action --take ours" in output
    assert "rehydrate merge resolve E-001 --take ours" in output
    assert ok(project, "merge", "resolve", "next-action", "--take", "theirs").startswith("O-")
    question = ok(project, "merge", "resolve", "E-001", "--take", "ours")
    assert git(project, "commit", "-q", "--no-edit", check=False).returncode == 0
    assert guard_range(project)["code"] == 0
    task = json.loads(ok(project, "state", "--json"))["ledgers"]["task"]
    assert task["next_action"] == "Run the formatter"
    writes = {w["id"]: w for w in task["items"]["external writes"]}
    assert writes[question]["status"] == "unknown"  # the doubt blocks until reconciled
    obligations = [o["obligation"] for o in task["items"]["obligations"]]
    assert any("Run the linter" in o for o in obligations)
    check = run_subprocess(project, "check", "--rev", "HEAD")
    assert check.code == 3  # blocked on reconciliation, as an unknown write is


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        pytest.param(("D-001", "--take", "ours"), 2, "not_merging", id="no-merge"),
        pytest.param(("D-001", "--take", "mine"), 2, "'mine' is not one of", id="bad-side"),
        pytest.param(("D 001", "--take", "ours"), 2, "id_invalid", id="not-an-id"),
        pytest.param(("D-001", "--take", "ours", "--date", "soon"), 2, "not a date", id="bad-date"),
    ],
)
def test_resolve_refuses_bad_requests(
    project: Path, args: tuple[str, ...], code: int, needle: str
) -> None:
    result = run(project, "merge", "resolve", *args)
    assert result.code == code and needle in result.err, result.err


def test_resolve_names_the_conflicts_when_the_id_is_not_one(project: Path) -> None:
    conflicting(project)
    result = run(project, "merge", "resolve", "D-002", "--take", "ours")
    assert result.code == 2
    assert "not_in_conflict" in result.err and "conflicts: D-001" in result.err
    assert git(project, "ls-files", "-u", "docs/Spec.md").stdout  # nothing written


def test_a_stale_state_file_counts_for_nothing(project: Path) -> None:
    conflicting(project, second=True)
    ok(project, "merge", "resolve", "D-001", "--take", "ours")
    git(project, "merge", "--abort")
    state = project / ".git/rehydrate/merge-resolve.json"
    assert state.exists()
    git(project, "merge", "--no-edit", "feature", check=False)  # the same merge again
    result = run_subprocess(project, "merge", "resolve", "D-002", "--take", "ours", "--json")
    assert json.loads(result.out)["remaining"][0]["id"] == "D-001"  # not resolved before


def test_merge_driver_command_still_works(project: Path, tmp_path: Path) -> None:
    files = [write(tmp_path, n, SPEC) for n in ("O", "A", "B")]
    result = run(project, "merge-driver", *(str(f) for f in files), "docs/Spec.md")
    assert result.code == 0, result.err
    assert run(project, "merge", "--help").code == 0


# docs/merging.md, "Resolving a conflict": every console block run in one shell, each
# output compared with the page (the getting-started guide's runner).


def test_the_worked_example_in_merging_md_runs(tmp_path: Path) -> None:
    from test_docs import DOCS, console_steps, matches, run_in_one_shell

    text = (DOCS / "merging.md").read_text(encoding="utf-8")
    steps = console_steps(text)
    assert len(steps) >= 10
    bindir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bindir + os.pathsep + os.environ["PATH"],
        "LC_ALL": "C.UTF-8",
    }
    results = run_in_one_shell(steps, tmp_path, env)
    for index, ((command, expected), (actual, code)) in enumerate(zip(steps, results, strict=True)):
        checks_exit = index + 1 < len(steps) and steps[index + 1][0] == "echo $?"
        shown = command.splitlines()[0]
        assert code == 0 or checks_exit, f"`{shown}` exited {code}:\n{actual}"
        assert matches(
            expected, actual if actual.endswith("\n") or not actual else actual + "\n"
        ), f"`{shown}` printed:\n{actual}\nthe page shows:\n" + "\n".join(expected)


def test_the_driver_names_resolve_only_where_it_applies(project: Path, tmp_path: Path) -> None:
    base = SPEC.replace("# Spec\n", "# Spec\n\nThe cache serves sessions.\n")
    ours = base.replace("serves sessions.", "serves sessions and carts.").replace(
        "| open | | ann | 2030-01-01 | |", "| decided | Redis | ann | 2030-01-01 | ADR-1 |", 1
    )
    theirs = base.replace("serves sessions.", "serves sessions only.").replace(
        "| open | | ann | 2030-01-01 | |", "| decided | Memcached | ann | 2030-01-01 | ADR-2 |", 1
    )
    files = [write(tmp_path, n, t) for n, t in (("O", base), ("A", ours), ("B", theirs))]
    result = run(project, "merge-driver", *(str(f) for f in files), "docs/Spec.md")
    assert result.code == 1
    lines = result.err.splitlines()
    (decision,) = [line for line in lines if "CONFLICT decision_conflict D-001" in line]
    assert decision.endswith("`rehydrate merge resolve D-001 --take ours` (or `--take theirs`)")
    (prose,) = [line for line in lines if "CONFLICT prose_conflict" in line]
    assert "merge resolve" not in prose
    assert "resolve the other marked rows by hand" in lines[-1]
    assert "rehydrate merge resolve ID --take ours|theirs" in lines[-1]
