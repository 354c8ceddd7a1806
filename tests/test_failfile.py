"""The command check on the failure ledger's bytes (issue 15 item 9): the same verdict as
the full parse, and a record of the blob that can speed a refusal up but never lets a
command through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import commit, run, write
from rehydrate.agents import failindex
from rehydrate.agents.commands import check, load_failures
from rehydrate.config import load_config
from rehydrate.failtable import split_cells
from rehydrate.git import find_repo, hash_blob
from rehydrate.ledgers import parse_ledger, split_row

HEAD = "# Failed attempts\n\n| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n"
ROWS = (
    "| F-001 | `go test -tags=musl ./...` | linker crash "
    "| use `go test -tags=darwin_arm64 ./...` |\n"
    "| F-002 | `npm install --force` | broke the lockfile | `npm ci` |\n"
    "| F-003 | `make  build` then `make test` | flaky | `make check` |\n"
)
RETIRED = "\n## Retired\n\n| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"
GONE = "| F-002 | lockfile fixed: `npm install --force` works | 2026-01-01 | |\n"
LEDGER = HEAD + ROWS + RETIRED + GONE


def _open(repo: Path) -> tuple[object, object]:
    found = find_repo(repo)
    return found, load_config(found.root)


@pytest.fixture
def ledger(ledger_repo: Path) -> Path:
    write(ledger_repo, "docs/Failed_Attempts.md", LEDGER)
    commit(ledger_repo, "failures")
    return ledger_repo


def _record(repo: Path) -> Path:
    records = sorted((repo / ".git" / failindex.INDEX_DIR).glob("*.json"))
    assert len(records) == 1
    return records[0]


VERDICTS = [
    ("go test -tags=musl -v ./...", ["F-001"]),
    ("go test -tags=darwin_arm64 ./...", []),  # the workaround: its cell is no Tried cell
    ("npm install --force", []),  # retired
    ("make test", ["F-003"]),
    ("make build", ["F-003"]),  # `make  build`: cells collapse blanks
    ("ls -la", []),
]


@pytest.mark.parametrize(("command", "ids"), VERDICTS)
def test_bytes_and_full_parse_agree(ledger: Path, command: str, ids: list[str]) -> None:
    repo, config = _open(ledger)
    parsed = parse_ledger("failures", "docs/Failed_Attempts.md", LEDGER.encode())
    cold = load_failures(repo, config)  # no record yet: parsed in full, recorded
    warm = load_failures(repo, config)
    assert cold.ledger is not None and warm.ledger is None
    for source in (parsed, cold, warm):
        assert [h.id for h in check(command, source).hits] == ids, source


def test_a_refusal_from_the_bytes_names_the_row(ledger: Path) -> None:
    repo, config = _open(ledger)
    load_failures(repo, config)
    hit = check("go test -tags=musl ./...", load_failures(repo, config)).hits[0]
    assert (hit.id, hit.line, hit.failure) == ("F-001", 5, "linker crash")
    assert hit.workaround == "use `go test -tags=darwin_arm64 ./...`"


POISON = [
    pytest.param({"active": []}, id="no-active-rows"),
    pytest.param({"columns": {"id": 0, "tried": 3, "failure": 2, "workaround": 1}}, id="columns"),
    pytest.param({"width": 5}, id="width"),
    pytest.param({"active": [[100, 200]]}, id="lines-elsewhere"),
    pytest.param("garbage", id="not-json"),
]


@pytest.mark.parametrize("poison", POISON)
def test_a_forged_record_never_lets_a_refused_command_through(ledger: Path, poison: object) -> None:
    repo, config = _open(ledger)
    load_failures(repo, config)
    record = _record(ledger)
    if isinstance(poison, dict):
        record.write_text(json.dumps({**json.loads(record.read_text()), **poison}))
    else:
        record.write_text(str(poison))
    source = load_failures(repo, config)
    assert source.ledger is None  # the forged record is taken as "parsed before"
    assert [h.id for h in check("go test -tags=musl ./...", source).hits] == ["F-001"]
    assert check("go test ./...", source).hits == []


def test_a_record_for_a_broken_ledger_still_refuses_or_fails_closed(ledger: Path) -> None:
    """A record forged for bytes that do not parse: a command a row covers is refused or
    the full parse fails (exit 2), never allowed."""
    broken = LEDGER + "| stray |\n"
    write(ledger, "docs/Failed_Attempts.md", broken)
    repo, config = _open(ledger)
    blob = hash_blob(broken.encode())
    good = parse_ledger("failures", "docs/Failed_Attempts.md", LEDGER.encode())
    failindex.write(repo, config, blob, LEDGER.encode(), good)  # forged: another file's rows
    refused = run(ledger, "check-command", "--", "go test -tags=musl ./...")
    assert refused.code == 1 and "F-001" in refused.err
    for record in (ledger / ".git" / failindex.INDEX_DIR).glob("*.json"):
        record.write_text(json.dumps({"width": 4, "columns": {}, "active": []}))
    result = run(ledger, "check-command", "--", "go test -tags=musl ./...")
    assert result.code == 2 and "docs/Failed_Attempts.md" in result.err
    assert run(ledger, "check-command", "--", "ls").code == 0  # what no row covers


def test_the_record_follows_the_bytes(ledger: Path) -> None:
    repo, config = _open(ledger)
    load_failures(repo, config)
    first = _record(ledger).name
    added = "| F-004 | `cargo build --release` | oom | build in debug |\n"
    write(ledger, "docs/Failed_Attempts.md", HEAD + ROWS + added + RETIRED + GONE)
    assert load_failures(repo, config).ledger is not None  # new bytes: parsed in full again
    names = {p.name for p in (ledger / ".git" / failindex.INDEX_DIR).glob("*.json")}
    assert first in names and len(names) == 2
    assert [h.id for h in check("cargo build --release", load_failures(repo, config)).hits] == [
        "F-004"
    ]


def test_the_hook_denies_from_the_bytes(ledger: Path) -> None:
    event = {"tool_name": "Bash", "tool_input": {"command": "touch x\ngo test -tags=musl ./..."}}
    for _ in range(2):
        result = run(ledger, "hook", "claude", "pre-tool-use", input=json.dumps(event))
        assert result.code == 0
        decision = json.loads(result.out)["hookSpecificOutput"]
        assert (
            decision["permissionDecision"] == "deny"
            and "F-001" in decision["permissionDecisionReason"]
        )


CELL = st.text(alphabet=st.sampled_from(list("ab `|\\\t-=.'\"$")), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(CELL, min_size=1, max_size=4))
def test_cells_split_as_the_parser_splits_them(cells: list[str]) -> None:
    line = "| " + " | ".join(c.replace("|", "\\|").strip("\\") for c in cells) + " |"
    try:
        expected = list(split_row(line, "", 1))
    except Exception:  # the parser refuses the row: nothing to agree with
        return
    assert split_cells(line) == expected


WORDS = ["go", "test", "build", "-tags=musl", "-tags", "musl", "./...", "-v", "--race", "X=1"]
ATTEMPT = st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join)
COMMAND = st.tuples(st.sampled_from(["", "sudo ", "X=1 ", "bash -c '"]), ATTEMPT).map(
    lambda p: p[0] + p[1] + ("'" if p[0].startswith("bash") else "")
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository whose failure ledger each example rewrites."""
    from conftest import git

    path = tmp_path_factory.mktemp("bytes") / "repo"
    path.mkdir()
    git(path, "init", "-q")
    (path / "docs").mkdir()
    return path


@settings(max_examples=60, deadline=None)
@given(attempts=st.lists(ATTEMPT, min_size=1, max_size=6), data=st.data())
def test_the_bytes_give_the_full_parse_verdict(scratch: Path, attempts: list[str], data) -> None:
    """Any ledger of such rows, some retired, any such command: the same hits either way."""
    retired = data.draw(st.sets(st.integers(0, len(attempts) - 1)))
    command = data.draw(COMMAND)
    rows = "".join(f"| F-{i} | `{a}` | fails {i} | `go vet` |\n" for i, a in enumerate(attempts))
    text = HEAD + rows
    if retired:
        text += RETIRED + "".join(f"| F-{i} | gone | 2026-01-01 | |\n" for i in sorted(retired))
    parsed = parse_ledger("failures", "docs/Failed_Attempts.md", text.encode())
    want = [h.id for h in check(command, parsed).hits]
    (scratch / "docs/Failed_Attempts.md").write_text(text, encoding="utf-8")
    repo, config = _open(scratch)
    for source in (load_failures(repo, config), load_failures(repo, config)):
        assert [h.id for h in check(command, source).hits] == want, (text, command)


def test_the_hook_fails_closed_when_the_confirming_parse_fails(ledger: Path) -> None:
    """A record forged for a broken ledger: the match found on the bytes is confirmed by a
    full parse, which fails, and the hook denies naming the ledger (never an exit 70)."""
    broken = LEDGER + "| stray |\n"
    write(ledger, "docs/Failed_Attempts.md", broken)
    repo, config = _open(ledger)
    good = parse_ledger("failures", "docs/Failed_Attempts.md", LEDGER.encode())
    failindex.write(repo, config, hash_blob(broken.encode()), LEDGER.encode(), good)
    for record in (ledger / ".git" / failindex.INDEX_DIR).glob("*.json"):
        record.write_text(json.dumps({"width": 4, "columns": {}, "active": []}))
    event = {"tool_name": "Bash", "tool_input": {"command": "go test -tags=musl ./..."}}
    result = run(ledger, "hook", "claude", "pre-tool-use", input=json.dumps(event))
    assert result.code == 0, result.err
    reason = json.loads(result.out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "cannot read the failed-attempts ledger docs/Failed_Attempts.md" in reason


def test_the_hook_says_what_it_could_not_parse(ledger: Path) -> None:
    event = {"tool_name": "Bash", "tool_input": {"command": "go vet ./... (((("}}
    allowed = run(ledger, "hook", "claude", "pre-tool-use", input=json.dumps(event))
    assert (allowed.code, allowed.out) == (0, "")
    assert "could not be parsed as shell (not valid shell at line 1" in allowed.err
    event["tool_input"]["command"] = "go test -tags=musl ./... (((("
    denied = run(ledger, "hook", "claude", "pre-tool-use", input=json.dumps(event))
    reason = json.loads(denied.out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "F-001" in reason and "could not be parsed as shell" in reason
