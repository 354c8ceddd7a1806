"""``rehydrate log``: semantic history per commit, read in a bounded number of git processes."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import commit, git, run, write
from rehydrate.writers.templates import read_template

FAILURES_HEAD = """\
---
ledger: failures
---
# Failed attempts

| ID | Tried | Failure | Workaround |
|---|---|---|---|
"""


def _failures(rows: list[str]) -> str:
    return FAILURES_HEAD + "".join(rows)


def _row(i: int) -> str:
    return f"| F-{i:03d} | `make try-{i}` | broke in way {i} | do {i} instead |\n"


def _fast_import(repo: Path, n: int) -> None:
    """``n`` real commits, each appending one failure, built by one ``git fast-import``."""
    stream = []

    def blob(path: str, text: str) -> None:
        data = text.encode()
        stream.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    for i in range(1, n + 1):
        stamp = 1767225600 + i * 60
        message = f"attempt {i}".encode()
        stream.append(
            f"commit refs/heads/main\ncommitter T <t@example.com> {stamp} +0000\n"
            f"data {len(message)}\n".encode()
            + message
            + b"\n"
        )
        if i == 1:
            blob("docs/Spec.md", read_template("Spec.md"))
            blob("docs/Task.md", read_template("Task.md"))
        blob("docs/Failed_Attempts.md", _failures([_row(j) for j in range(1, i + 1)]))
        blob(f"notes/{i}.txt", f"{i}\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    git(repo, "checkout", "-q", "main")


def test_log_reads_git_in_a_bounded_number_of_processes(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fast_import(repo, 200)
    spawned: Counter[str] = Counter()
    original = subprocess.Popen

    class Counting(original):  # type: ignore[misc, valid-type]
        def __init__(self, args, *a, **k):  # type: ignore[no-untyped-def]
            spawned[" ".join(str(x) for x in args[:4])] += 1
            super().__init__(args, *a, **k)

    monkeypatch.setattr(subprocess, "Popen", Counting)  # counts; the real git still runs
    result = run(repo, "log", "--json")
    monkeypatch.setattr(subprocess, "Popen", original)
    assert result.code == 0, result.err
    assert sum(spawned.values()) <= 5, spawned
    commits = json.loads(result.out)["commits"]
    assert len(commits) == 200
    added = [e["id"] for c in commits for e in c["events"] if e["code"] == "failure_added"]
    assert added == [f"F-{i:03d}" for i in range(1, 201)]  # each once, at its own commit
    for i, entry in enumerate(commits[1:], start=2):
        assert [e["id"] for e in entry["events"]] == [f"F-{i:03d}"]


def test_log_each_learned_item_appears_once_at_the_commit_that_added_it(repo: Path) -> None:
    from rehydrate.cli.example import build_example

    example = build_example(repo.parent / "example")
    data = json.loads(run(example.root, "log", "--json").out)
    assert data["schema"] == "rehydrate/log-v1"
    assert [c["commit"] for c in data["commits"]] == list(example.commits)
    added = Counter(
        (e["ledger"], e["id"])
        for c in data["commits"]
        for e in c["events"]
        if e["code"].endswith("_added")
    )
    assert added and max(added.values()) == 1
    where = {
        e["id"]: c["subject"]
        for c in data["commits"]
        for e in c["events"]
        if e["code"].endswith("_added")
    }
    assert where["F-001"] == "Reproduce the duplicate upload in a test"
    assert where["F-002"] == "A longer timeout does not stop the duplicate"
    assert where["C-004"] == "A longer timeout does not stop the duplicate"
    assert where["E-001"] == "January backfill: the upload's outcome is unknown"
    codes = {(e["code"], e["id"]) for c in data["commits"] for e in c["events"]}
    for expected in [
        ("constraint_strengthened", "C-002"),
        ("decision_taken", "D-001"),
        ("constraint_retired", "C-003"),
        ("approval_consumed", "A-001"),
        ("write_settled", "E-001"),
        ("check_passed", "X-002"),
        ("phase_done", "P3"),
        ("phase_started", "P4"),
        ("obligation_done", "O-001"),
    ]:
        assert expected in codes
    retired = next(
        e for c in data["commits"] for e in c["events"] if e["code"] == "constraint_retired"
    )
    assert retired["replaced_by"] == "C-005" and retired["reason"].startswith("superseded")


def test_log_human_output_is_newest_first(repo: Path) -> None:
    from rehydrate.cli.example import build_example

    example = build_example(repo.parent / "example")
    out = run(example.root, "log").out
    blocks = out.split("\n\n")
    assert blocks[0].startswith(example.commits[-1][:12])
    assert "  = write settled E-001 (unknown -> confirmed)" in blocks[0]
    assert "  ^ constraint strengthened C-002 (SHOULD -> MUST)" in out
    last = run(example.root, "log", "HEAD~1..HEAD").out
    assert last == blocks[0] + "\n"


def test_log_attributes_a_merge_only_what_the_merge_itself_did(ledger_repo: Path) -> None:
    path = ledger_repo / "docs/Failed_Attempts.md"
    base = path.read_text(encoding="utf-8").replace("\n## Retired", "<<ROWS>>\n## Retired")
    head_row = base.split("<<ROWS>>")[0].rstrip("\n").splitlines()[-1] + "\n"
    assert head_row.startswith("| F-001")

    def rows(*extra: str) -> str:
        return (
            base.split("<<ROWS>>")[0]
            + "".join(extra)
            + "\n## Retired"
            + base.split("<<ROWS>>")[1][len("\n## Retired") :]
        )

    git(ledger_repo, "checkout", "-q", "-b", "side")
    path.write_text(rows(_row(2)), encoding="utf-8")
    commit(ledger_repo, "side adds F-002")
    git(ledger_repo, "checkout", "-q", "main")
    path.write_text(rows(_row(3)), encoding="utf-8")
    commit(ledger_repo, "main adds F-003")
    git(ledger_repo, "merge", "-q", "side", "-m", "merge side", check=False)
    path.write_text(rows(_row(3), _row(2), _row(4)), encoding="utf-8")
    commit(ledger_repo, "merge side, and F-004 found while resolving")
    data = json.loads(run(ledger_repo, "log", "--json").out)
    added = {
        e["id"]: c["subject"]
        for c in data["commits"]
        for e in c["events"]
        if e["code"] == "failure_added"
    }
    assert added == {
        "F-001": "init ledgers",
        "F-002": "side adds F-002",
        "F-003": "main adds F-003",
        "F-004": "merge side, and F-004 found while resolving",
    }
    merge = data["commits"][-1]
    assert len(merge["parents"]) == 2
    assert [e["id"] for e in merge["events"]] == ["F-004"]


def test_log_reports_an_unparseable_commit_without_relearning_everything(ledger_repo: Path) -> None:
    spec = ledger_repo / "docs/Spec.md"
    good = spec.read_text(encoding="utf-8")
    spec.write_text(good.replace("| MUST NOT |", "| NEVER |"), encoding="utf-8")
    commit(ledger_repo, "broken", "--no-verify")
    spec.write_text(
        good.replace("| C-001 |", "| C-009 | Keep the changelog | MUST | team |\n| C-001 |"),
        encoding="utf-8",
    )
    commit(ledger_repo, "fixed, and a new constraint", "--no-verify")
    data = json.loads(run(ledger_repo, "log", "--json").out)
    broken, fixed = data["commits"][-2:]
    assert [e["code"] for e in broken["events"]] == ["ledger_unparseable"]
    assert "unknown_level" in broken["events"][0]["text"]
    assert [(e["code"], e["id"]) for e in fixed["events"]] == [("constraint_added", "C-009")]


def test_log_shows_a_deleted_row(ledger_repo: Path) -> None:
    path = ledger_repo / "docs/Failed_Attempts.md"
    kept = [
        line
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
        if not line.startswith("| F-001 ")
    ]
    write(ledger_repo, "docs/Failed_Attempts.md", "".join(kept))
    commit(ledger_repo, "drop F-001", "--no-verify")
    data = json.loads(run(ledger_repo, "log", "HEAD~1..HEAD", "--json").out)
    [entry] = data["commits"]
    assert [(e["code"], e["id"]) for e in entry["events"]] == [("failure_deleted", "F-001")]
    assert data["range"] == "HEAD~1..HEAD"


def test_log_reports_a_deleted_ledger_once(ledger_repo: Path) -> None:
    git(ledger_repo, "rm", "-q", "docs/Spec.md")
    commit(ledger_repo, "drop the spec", "--no-verify")
    [entry] = json.loads(run(ledger_repo, "log", "HEAD~1..HEAD", "--json").out)["commits"]
    assert [(e["code"], e["path"]) for e in entry["events"]] == [("ledger_deleted", "docs/Spec.md")]


@pytest.mark.parametrize(
    "args, code",
    [
        pytest.param(("--", "-n1"), 2, id="option-like-range"),
        pytest.param(("no-such-rev",), 2, id="unknown-revision"),
    ],
)
def test_log_rejects_bad_ranges(ledger_repo: Path, args: tuple[str, ...], code: int) -> None:
    result = run(ledger_repo, "log", *args)
    assert result.code == code
    assert result.out == ""


def test_log_on_a_repository_without_commits(repo: Path) -> None:
    result = run(repo, "log", "--json")
    assert result.code == 0
    assert json.loads(result.out)["commits"] == []
    assert "no commit" in result.err


def test_log_max_count_shows_the_newest_commits_only(repo: Path) -> None:
    from rehydrate.cli.example import build_example

    example = build_example(repo.parent / "example")
    data = json.loads(run(example.root, "log", "-n", "2", "--json").out)
    assert [c["commit"] for c in data["commits"]] == list(example.commits[-2:])
    human = run(example.root, "log", "--max-count", "1").out
    assert human.startswith(example.commits[-1][:12]) and example.commits[-2][:12] not in human
    assert run(example.root, "log", "-n", "0").code == 2  # a usage error, not an empty log
