"""``rehydrate claim`` / ``release`` / ``claims`` against real remotes (a bare repository
over ``file://`` and a real ``git daemon`` on 127.0.0.1, both with the server hook) and
on local refs: races of 20 processes over repeated rounds with exactly one winner,
expiry and takeover by CAS, the release and renew rules, the exit codes."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conftest import git, run
from coordkit import clone, daemon, race, seed, server, start
from rehydrate.coord.lease import (
    Lease,
    format_lease,
    judge,
    parse_lease,
    parse_ttl,
)

RACERS = 20
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _lease(**changes: str) -> Lease:
    base = Lease("P1", "ada@box", "box", "s1", "2026-12-01T12:00:00Z", "2026-12-01T12:30:00Z")
    return base._replace(**changes)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30m", 1800), ("90s", 90), ("2h", 7200), ("1h30m", 5400), (" 5s ", 5), ("1h1m1s", 3661)],
)
def test_ttl_parses(text: str, seconds: int) -> None:
    assert parse_ttl(text) == seconds


@pytest.mark.parametrize("text", ["", "30", "0s", "-5m", "5x", "1.5h", "m", "1m1h", "9999h", "5 m"])
def test_bad_ttl_is_bad_input(text: str) -> None:
    from rehydrate.errors import EXIT_USAGE, RehydrateError

    with pytest.raises(RehydrateError) as caught:
        parse_ttl(text)
    assert caught.value.exit_code == EXIT_USAGE and caught.value.code == "bad_duration"


def test_a_lease_round_trips_and_only_an_exact_one_parses() -> None:
    lease = _lease()
    text = format_lease(lease)
    assert parse_lease(text) == lease
    assert parse_lease(text.replace("holder: ", "holder:  ")) is None  # padded value
    assert parse_lease(text + "extra: 1\n") is None
    assert parse_lease(text.replace("since", "sinse")) is None
    assert parse_lease(text.replace("2026-12-01T12:30:00Z", "2026-12-01T11:00:00Z")) is None
    assert parse_lease(text.replace("ada@box", "ada\x1b[2J")) is None
    assert parse_lease(text.replace("P1", "../P1")) is None


def test_judge_free_mine_expired_held() -> None:
    lease = _lease()
    assert judge(None, "bob", T0).kind == "free"
    assert judge(lease, "ada@box", T0 + timedelta(hours=2)).kind == "mine"
    assert judge(lease, "bob", T0 + timedelta(minutes=29)).kind == "held"
    assert judge(lease, "bob", T0 + timedelta(minutes=30)).kind == "expired"


def _world(tmp_path: Path, url: str, bare: Path, clones: int = 2) -> list[Path]:
    seed(tmp_path, bare, url)
    return [clone(url, tmp_path / f"c{n}", f"agent{n}") for n in range(clones)]


def later(minutes: int) -> dict[str, str]:
    """The racers' clock ``minutes`` from now (REHYDRATE_NOW): a lease taken now with
    the default 30-minute TTL has expired for them, while the race itself lasts."""
    moment = datetime.now(UTC) + timedelta(minutes=minutes)
    return {"REHYDRATE_NOW": moment.strftime("%Y-%m-%dT%H:%M:%SZ")}


def _round(
    repos: list[Path], item: str, *extra: str, env: dict[str, str] | None = None
) -> list[int]:
    """RACERS processes, spread over ``repos``, claim ``item`` at once; their exit codes."""
    procs = [
        start(repos[n % len(repos)], "claim", item, "--as", f"racer{n}", "--json", *extra, env=env)
        for n in range(RACERS)
    ]
    results = race(procs)
    codes = [code for code, _, _ in results]
    winners = [json.loads(out)["holder"] for code, out, _ in results if code == 0]
    held = [err for code, _, err in results if code == 1]
    odd = [(code, err) for code, _, err in results if code not in (0, 1)]
    assert not odd, odd
    assert codes.count(0) == 1, [r[2] for r in results]
    assert codes.count(1) == RACERS - 1, [r[2] for r in results]
    assert all(f"held by {winners[0]}" in err for err in held)
    return codes


def _rounds(repos: list[Path], where: list[str]) -> None:
    """Round 1: a free item; round 2: the winner's lease expired (for the racers'
    clock) and 20 racers take it over."""
    _round(repos, "P1", *where)
    listed = json.loads(run(repos[0], "claims", "--json", *where).out)["claims"]
    assert [c["id"] for c in listed] == ["P1"] and not listed[0]["expired"]
    _round(repos, "P1", *where, env=later(31))


def test_twenty_racers_over_file_url_one_winner_each_round(tmp_path: Path) -> None:
    bare = server(tmp_path)
    repos = _world(tmp_path, f"file://{bare}", bare, clones=4)
    _rounds(repos, [])
    assert git(bare, "for-each-ref", "--format=%(refname)", "refs/rehydrate/").stdout.split() == [
        "refs/rehydrate/claims/P1"
    ]


def test_twenty_racers_over_git_daemon_one_winner_each_round(tmp_path: Path) -> None:
    bare = server(tmp_path)
    with daemon(tmp_path) as url:
        repos = _world(tmp_path, url, bare, clones=4)
        _round(repos, "P2")
        _round(repos, "P2", env=later(45))  # expired for them: one takes it over
        bad = run(repos[0], "claim", "P1", "--remote", url.replace("server", "nothing"))
        assert bad.code == 2 and "remote_unreachable" in bad.err


def test_twenty_racers_on_local_refs_of_one_repository(tmp_path: Path, ledger_repo: Path) -> None:
    worktree = tmp_path / "wt"
    git(ledger_repo, "worktree", "add", "-q", str(worktree))
    _round([ledger_repo, worktree], "P1")
    _round([ledger_repo, worktree], "P1", env=later(40))  # takeover; worktrees share refs
    assert git(ledger_repo, "for-each-ref", "refs/rehydrate/claims/").stdout.count("P1") == 1


def test_release_and_renew_rules(tmp_path: Path) -> None:
    bare = server(tmp_path)
    a, b = _world(tmp_path, f"file://{bare}", bare)
    assert run(a, "claim", "P1", "--as", "ada", "--ttl", "1m").code == 0
    first = json.loads(run(a, "claims", "--json").out)["claims"][0]["expires"]
    other = run(b, "release", "P1", "--as", "bob")
    assert other.code == 1 and "held by ada" in other.err
    renew = run(b, "claim", "--renew", "P1", "--as", "bob")
    assert renew.code == 1 and "held by ada" in renew.err
    time.sleep(1.0)
    renewed = run(a, "claim", "--renew", "P1", "--as", "ada", "--ttl", "10m", "--json")
    assert renewed.code == 0 and json.loads(renewed.out)["expires"] > first
    again = run(a, "claim", "P1", "--as", "ada")  # one's own claim: renewed, exit 0
    assert again.code == 0 and "renewed" in again.err
    assert run(a, "release", "P1", "--as", "ada").code == 0
    gone = run(b, "release", "P1", "--as", "ada")
    assert gone.code == 0 and "nothing to release" in gone.err
    assert run(b, "claims").out.strip() == "No claims on the remote origin."
    lost = run(b, "claim", "--renew", "P1", "--as", "ada")
    assert lost.code == 1 and "not_holder" in lost.err  # nothing to renew once released


def test_bad_input_exits_2_and_names_the_fix(ledger_repo: Path) -> None:
    cases = {
        ("claim", "P9"): "unknown_item",
        ("claim", "X-001"): "unknown_item",  # a completion check: not claimable
        ("claim", "P1", "--ttl", "soon"): "bad_duration",
        ("claim", "../../heads/main"): "unknown_item",
        ("claim", "P1", "--remote", "nowhere"): "remote_unreachable",
        ("claim", "P1", "--as", "two\nlines"): "bad_holder",
    }
    for args, code in cases.items():
        result = run(ledger_repo, *args)
        assert result.code == 2 and code in result.err, (args, result.err)
    task = ledger_repo / "docs" / "Task.md"
    text = task.read_text().replace(
        "| P1 | Example: reproduce the bug with a failing test | todo",
        "| P1 | Example: reproduce the bug with a failing test | done",
    )
    task.write_text(text.replace("revision: 1", "revision: 2"))
    done = run(ledger_repo, "claim", "P1")
    assert done.code == 2 and "item_not_open" in done.err and "docs/Task.md" in done.err
    assert run(ledger_repo, "claim", "O-001", "--json").code == 0  # its legitimate twin


def test_a_malformed_lease_is_an_error_never_free(ledger_repo: Path) -> None:
    head = git(ledger_repo, "rev-parse", "HEAD").stdout.strip()
    git(ledger_repo, "update-ref", "refs/rehydrate/claims/P1", head)  # no lease commit
    for args in (("claim", "P1"), ("claims",), ("release", "P1")):
        result = run(ledger_repo, *args)
        assert result.code == 2 and "bad_lease" in result.err, (args, result.err)
        assert "git update-ref -d refs/rehydrate/claims/P1" in result.err
    git(ledger_repo, "update-ref", "-d", "refs/rehydrate/claims/P1")
    assert run(ledger_repo, "claim", "P1").code == 0  # the twin: freed, then claimed


def test_an_item_the_server_lacks_is_refused_until_pushed(tmp_path: Path) -> None:
    bare = server(tmp_path)
    (a,) = _world(tmp_path, f"file://{bare}", bare, clones=1)
    added = run(a, "task", "phase", "add", "--phase", "Ship it", "--commit")
    assert added.code == 0, added.err
    refused = run(a, "claim", "P4")
    assert refused.code == 2 and "claim_refused" in refused.err and "rehydrate sync" in refused.err
    assert run(a, "sync").code == 0
    assert run(a, "claim", "P4").code == 0  # the twin: once the server has it
