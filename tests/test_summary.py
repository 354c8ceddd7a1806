"""summary propose/promote: verified, compare-and-swap promotion; racing promotions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import commit, git, run, write
from continuity_repo import add_obligation, make_repo

CURRENT = "refs/rehydrate/summaries/current"


def refs(repo: Path) -> dict[str, str]:
    out = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/rehydrate/").stdout
    return dict(line.split() for line in out.splitlines())


def propose(repo: Path, name: str, text: str) -> str:
    write(repo, name, text, dedent=False)
    result = run(repo, "summary", "propose", name)
    assert result.code == 0, result.err
    return result.out.strip()


def good_summary(repo: Path, note: str = "") -> str:
    return f"# Summary {note}\n\nProse.\n\n" + run(repo, "manifest", "--fenced").out


def test_propose_stores_a_blob_under_a_candidate_ref(repo):
    make_repo(repo)
    text = good_summary(repo)
    blob = propose(repo, "s.md", text)
    assert blob == git(repo, "hash-object", "s.md").stdout.strip()
    assert refs(repo) == {f"refs/rehydrate/summaries/candidates/{blob}": blob}
    assert git(repo, "cat-file", "blob", blob).stdout == text
    assert propose(repo, "s.md", text) == blob  # idempotent


def test_promote_first_then_next_with_cas(repo):
    make_repo(repo)
    first = propose(repo, "a.md", good_summary(repo, "a"))
    result = run(repo, "summary", "promote", first, "--expect", "none")
    assert result.code == 0, result.err
    assert refs(repo) == {CURRENT: first}
    second = propose(repo, "b.md", good_summary(repo, "b"))
    stale = run(repo, "summary", "promote", second, "--expect", "none")
    assert stale.code == 1 and "nothing was changed" in stale.err
    assert refs(repo)[CURRENT] == first
    assert run(repo, "summary", "promote", second, "--expect", first).code == 0
    assert refs(repo) == {CURRENT: second}
    shown = run(repo, "summary", "show")
    assert shown.out == good_summary(repo, "b")
    assert run(repo, "summary", "show", "--id").out.strip() == second
    log = (repo / ".git" / "logs" / CURRENT).read_text()  # reflog of a blob ref: read raw
    assert f"rehydrate: promote summary {second}" in log


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda t: t.replace("MUST NOT", "SHOULD NOT"), id="weakened-constraint"),
        pytest.param(lambda t: t.split("```resume-manifest")[0], id="no-manifest"),
    ],
)
def test_failed_verification_keeps_candidate_as_rejected(repo, damage):
    make_repo(repo)
    current = propose(repo, "a.md", good_summary(repo))
    assert run(repo, "summary", "promote", current, "--expect", "none").code == 0
    bad = propose(repo, "bad.md", damage(good_summary(repo, "bad")))
    result = run(repo, "summary", "promote", bad, "--expect", current, "--json")
    assert result.code == 1
    out = json.loads(result.out)
    assert out["outcome"] == "rejected" and out["verification"]["summary"] == "unfaithful"
    assert refs(repo) == {CURRENT: current, f"refs/rehydrate/summaries/rejected/{bad}": bad}
    assert run(repo, "summary", "show", bad).out == damage(good_summary(repo, "bad"))
    again = run(repo, "summary", "promote", bad, "--expect", current)
    assert again.code == 2 and "rejected" in again.err


def test_summary_from_before_a_ledger_change_is_rejected(repo):
    make_repo(repo)
    old = propose(repo, "a.md", good_summary(repo))
    write(repo, "docs/Task.md", add_obligation(), dedent=False)
    commit(repo, "add O-004")
    result = run(repo, "summary", "promote", old, "--expect", "none", "--json")
    assert result.code == 1
    assert json.loads(result.out)["verification"]["action"] == "restart_from_current"
    assert CURRENT not in refs(repo)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["deadbeef", "--expect", "none"], id="unknown-candidate"),
        pytest.param(["not-hex", "--expect", "none"], id="bad-id"),
        pytest.param(["deadbeef", "--expect", "HEAD"], id="bad-expect"),
    ],
)
def test_bad_promote_arguments_are_usage_errors(repo, args):
    make_repo(repo)
    assert run(repo, "summary", "promote", *args).code == 2
    assert refs(repo) == {}


def test_two_processes_racing_exactly_one_wins(repo):
    make_repo(repo)
    ids = [propose(repo, f"s{n}.md", good_summary(repo, str(n))) for n in range(2)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "rehydrate", "summary", "promote", blob, "--expect", "none"],
            cwd=repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for blob in ids
    ]
    results = [(p.wait(), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    codes = sorted(code for code, _ in results)
    assert codes == [0, 1], results
    winner = ids[[code for code, _ in results].index(0)]
    loser = ids[1 - ids.index(winner)]
    loser_err = results[ids.index(loser)][1]
    assert "nothing was changed" in loser_err
    assert refs(repo) == {CURRENT: winner, f"refs/rehydrate/summaries/candidates/{loser}": loser}
