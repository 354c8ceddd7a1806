"""``rehydrate sync`` against a real bare remote with the server hook: ten clones that
each record a failure and sync at once end with all ten rows on the remote, IDs unique,
``guard --range`` passing; a real conflict and a guard refusal exit 1, named."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import git, run
from coordkit import clone, race, seed, server, start

FAIL = "docs/Failed_Attempts.md"


def _rows(text: str) -> list[tuple[str, str]]:
    return re.findall(r"^\| (F-\d+) \| `(cmd-\d+)`", text, flags=re.M)


def test_ten_clones_syncing_at_once_lose_no_row(tmp_path: Path) -> None:
    bare = server(tmp_path)
    url = f"file://{bare}"
    first = seed(tmp_path, bare, url)
    base = git(first, "rev-parse", "HEAD").stdout.strip()
    clones = [clone(url, tmp_path / f"c{n}", f"agent{n}") for n in range(10)]
    for n, repo in enumerate(clones):
        added = run(
            repo,
            "fail",
            "add",
            "--tried",
            f"`cmd-{n}` run",
            "--failure",
            f"broke {n}",
            "--workaround",
            f"avoid {n}",
            "--commit",
        )
        assert added.code == 0, added.err
    results = race([start(repo, "sync", "--json") for repo in clones])
    for code, out, err in results:
        assert code == 0, err
        assert json.loads(out)["outcome"] == "pushed"
    assert any(json.loads(out)["attempts"] > 1 for _, out, _ in results)  # they did race
    check = tmp_path / "check"
    git(tmp_path, "clone", "-q", url, str(check))
    rows = _rows((check / FAIL).read_text())
    assert sorted(cmd for _, cmd in rows) == sorted(f"cmd-{n}" for n in range(10))
    ids = [row_id for row_id, _ in rows]
    assert len(ids) == len(set(ids)) == 10
    assert run(check, "guard", "--range", f"{base}..HEAD").code == 0


def test_sync_is_idempotent_and_fast_forwards(tmp_path: Path) -> None:
    bare = server(tmp_path)
    url = f"file://{bare}"
    seed(tmp_path, bare, url)
    a = clone(url, tmp_path / "a", "ada")
    b = clone(url, tmp_path / "b", "bob")
    assert run(a, "sync").code == 0
    assert "up to date" in run(a, "sync").err
    assert (
        run(
            a,
            "fail",
            "add",
            "--tried",
            "`cmd-1`",
            "--failure",
            "x",
            "--workaround",
            "y",
            "--commit",
        ).code
        == 0
    )
    assert run(a, "sync").code == 0
    pulled = run(b, "sync")  # nothing of b's own: a fast-forward, nothing pushed
    assert pulled.code == 0, pulled.err
    assert "cmd-1" in (b / FAIL).read_text()
    tracking = git(b, "rev-parse", "origin/main").stdout.strip()
    assert tracking == git(b, "rev-parse", "HEAD").stdout.strip()  # git status is true


def test_a_real_ledger_conflict_exits_1_naming_merge_resolve(tmp_path: Path) -> None:
    bare = server(tmp_path)
    url = f"file://{bare}"
    seed(tmp_path, bare, url)
    a = clone(url, tmp_path / "a", "ada")
    b = clone(url, tmp_path / "b", "bob")
    for repo, choice in ((a, "Redis"), (b, "Memcached")):
        decided = run(
            repo,
            "spec",
            "decision",
            "decide",
            "D-001",
            "--decision",
            choice,
            "--source",
            "ADR-1",
            "--commit",
        )
        assert decided.code == 0, decided.err
    assert run(a, "sync").code == 0
    stopped = run(b, "sync")
    assert stopped.code == 1
    assert "rehydrate merge resolve" in stopped.err and "D-001" in stopped.err
    assert git(b, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0


def test_a_guard_refusal_exits_1_and_pushes_nothing(tmp_path: Path) -> None:
    bare = server(tmp_path)
    url = f"file://{bare}"
    seed(tmp_path, bare, url)
    a = clone(url, tmp_path / "a", "ada")
    tip = git(bare, "rev-parse", "main").stdout.strip()
    text = (a / FAIL).read_text()
    row = next(line for line in text.splitlines() if line.startswith("| F-001"))
    (a / FAIL).write_text(text.replace(row + "\n", ""))
    git(a, "commit", "-q", "-am", "drop F-001", "--no-verify")
    refused = run(a, "sync")
    assert refused.code == 1 and "row_deleted" in refused.err and "F-001" in refused.err
    assert git(bare, "rev-parse", "main").stdout.strip() == tip


def test_sync_without_a_remote_is_bad_input(tmp_path: Path, ledger_repo: Path) -> None:
    result = run(ledger_repo, "sync")
    assert result.code == 2 and "no_remote" in result.err and "--remote" in result.err
    result = run(ledger_repo, "sync", "--remote", str(tmp_path / "missing.git"))
    assert result.code == 2 and "remote_unreachable" in result.err


def test_sync_over_git_daemon_merges_and_pushes(tmp_path: Path) -> None:
    from coordkit import daemon

    bare = server(tmp_path)
    with daemon(tmp_path) as url:
        seed(tmp_path, bare, url)
        a = clone(url, tmp_path / "a", "ada")
        b = clone(url, tmp_path / "b", "bob")
        for n, repo in enumerate((a, b)):
            added = run(
                repo,
                "fail",
                "add",
                "--tried",
                f"`cmd-{n}`",
                "--failure",
                "x",
                "--workaround",
                "y",
                "--commit",
            )
            assert added.code == 0, added.err
        assert run(a, "sync").code == 0
        merged = run(b, "sync", "--json")
        assert merged.code == 0, merged.err
        assert json.loads(merged.out)["outcome"] == "pushed"
    rows = _rows(git(bare, "show", "main:" + FAIL).stdout)
    assert sorted(cmd for _, cmd in rows) == ["cmd-0", "cmd-1"]
    assert len({row_id for row_id, _ in rows}) == 2
    parents = git(bare, "rev-list", "--parents", "-n", "1", "main").stdout.split()
    assert parents[1] == git(a, "rev-parse", "HEAD").stdout.strip()  # the remote's tip first
