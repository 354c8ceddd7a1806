"""check-command: which commands a failed attempt covers (precision over recall)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import commit, run, write
from rehydrate.agents.commands import attempts_in_cell, commands_in, match


def _verdict(tried: str, command: str) -> str | None:
    found = None
    for attempt in attempts_in_cell(tried):
        for candidate in commands_in(command):
            found = found or match(candidate, attempt)
    return found


MUSL = "`go test -tags=musl ./...`"
PAIRS = [
    # blocked: the same attempt, however it is written
    pytest.param(MUSL, "go test -tags=musl ./...", "exact", id="identical"),
    pytest.param(MUSL, "go   test   -tags=musl   ./...", "exact", id="whitespace"),
    pytest.param(MUSL, "go test '-tags=musl' ./...", "exact", id="single-quoted"),
    pytest.param(MUSL, 'go test -tags="musl" ./...', "exact", id="quoted-value"),
    pytest.param(MUSL, "go test -tags musl ./...", "exact", id="flag-space-value"),
    pytest.param(MUSL, "CGO_ENABLED=1 go test -tags=musl ./...", "close", id="env-prefix"),
    pytest.param(MUSL, "env GOOS=linux go test -tags=musl ./...", "close", id="env-wrapper"),
    pytest.param(
        MUSL, "sudo -u ci time nice -n 5 go test -tags=musl ./...", "exact", id="wrappers"
    ),
    pytest.param(MUSL, "/usr/local/go/bin/go test -tags=musl ./...", "exact", id="full-path"),
    pytest.param(
        MUSL, "set -e && go test -tags=musl ./... 2>&1 | tail -20", "exact", id="inside-a-pipeline"
    ),
    pytest.param(  # another directory: another act (issue 28, the second hold-out)
        MUSL, "cd svc && go test -tags=musl ./... 2>&1 | tail -20", "close", id="in-a-subdirectory"
    ),
    pytest.param(MUSL, "go test -tags=musl -v ./...", "exact", id="extra-cosmetic-flag"),
    pytest.param(MUSL, "go test -v -count=1 -tags=musl ./...", "exact", id="reordered-extra"),
    pytest.param(
        MUSL,
        "go test -tags=musl ./internal/crypto",
        "close",
        id="same-distinctive-flag-other-package",
    ),
    pytest.param(
        "`cargo build --release --target x86_64`",
        "cargo build --target x86_64 --release",
        "exact",
        id="reordered-long-flags",
    ),
    pytest.param(
        "`cargo build --release --target x86_64`",
        "cargo build --target=x86_64 --release --verbose",
        "exact",
        id="equals-form-and-verbose",
    ),
    pytest.param(
        '`curl -X POST /v1/charge -H "Idempotency-Key: abc"`',
        "curl -H 'Idempotency-Key: abc' -X POST /v1/charge",
        "exact",
        id="reordered-short-flags-with-values",
    ),
    pytest.param(
        "`npm install --legacy-peer-deps`",
        "npm install --legacy-peer-deps --silent",
        "exact",
        id="rare-boolean-flag-kept",
    ),
    pytest.param(
        "`CGO_ENABLED=0 go build ./...`",
        "env CGO_ENABLED=0 go build ./...",
        "exact",
        id="failed-env-present",
    ),
    pytest.param(
        "`pytest -x tests/a.py`", "pytest tests/a.py -x", "exact", id="flag-after-positional"
    ),
    pytest.param("make clean", "make clean", "exact", id="whole-cell-command"),
    pytest.param(
        "`npm install --legacy-peer-deps`",
        "npm install --legacy-peer-deps=true",
        "exact",
        id="switch-equals-true",
    ),
    pytest.param(
        "`go test -count=1 ./...`", "go test -count=true ./...", "exact", id="cosmetic-any-value"
    ),
    pytest.param(
        "`go test -race ./...`", "go test -race -v ./...", "exact", id="bare-flag-then-cosmetic"
    ),
    pytest.param(MUSL, "go test -tags=musl ./... '", "exact", id="unbalanced-quote-still-read"),
    # allowed: near misses
    pytest.param(MUSL, "go test ./...", "close", id="without-the-failing-flag"),
    pytest.param(MUSL, "go test -tags=darwin_arm64 ./...", "close", id="the-workaround"),
    pytest.param(MUSL, "go build -tags=musl ./...", None, id="other-subcommand"),
    pytest.param(MUSL, "gofmt -tags=musl ./...", None, id="other-program"),
    pytest.param(MUSL, "echo 'go test -tags=musl ./...'", None, id="quoted-as-data"),
    pytest.param(
        "`cargo build --release --target x86_64`",
        "cargo build --target aarch64 --release",
        "close",
        id="other-flag-value",
    ),
    pytest.param("`pytest -x tests/a.py`", "pytest -x tests/b.py", "close", id="other-positional"),
    pytest.param(
        "`CGO_ENABLED=0 go build ./...`", "go build ./...", "close", id="failed-env-missing"
    ),
    pytest.param(
        "`CGO_ENABLED=0 go build ./...`",
        "CGO_ENABLED=1 go build ./...",
        "close",
        id="failed-env-other-value",
    ),
    pytest.param("`npm install --legacy-peer-deps`", "npm install", "close", id="plain-install"),
    pytest.param(
        "`go test -race ./...`", "go test -race ./pkg", "close", id="bare-flag-other-positional"
    ),
    pytest.param("Used the redis cache", "redis-server", None, id="prose-cell"),
    pytest.param("Example: crashes", "Example: crashes", None, id="prose-is-not-a-command"),
    pytest.param("`cd build && make -j8`", "cd build", None, id="setup-step-ignored"),
]


@pytest.mark.parametrize(("tried", "command", "expected"), PAIRS)
def test_match_table(tried: str, command: str, expected: str | None) -> None:
    assert _verdict(tried, command) == expected


def test_table_has_enough_of_each_kind() -> None:
    kinds = [p.values[2] for p in PAIRS]
    assert kinds.count("exact") >= 10 and kinds.count("close") >= 10 and kinds.count(None) >= 5


FAILURES = """\
# Failed attempts

| ID | Tried | Failure | Workaround |
|---|---|---|---|
| F-001 | `go test -tags=musl ./...` | linker crash (error 22) | use `-tags=darwin_arm64` |
| F-002 | `npm install --force` | broke the lockfile | `npm ci` |

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
| F-002 | lockfile fixed | 2026-01-01 | |
"""


@pytest.fixture
def failures_repo(ledger_repo: Path) -> Path:
    write(ledger_repo, "docs/Failed_Attempts.md", FAILURES)
    commit(ledger_repo, "failures")
    return ledger_repo


def test_cli_refuses_with_row_on_stderr(failures_repo: Path) -> None:
    result = run(failures_repo, "check-command", "--", "go", "test", "-tags=musl", "-v", "./...")
    assert result.code == 1
    assert result.out == ""
    for text in (
        "F-001",
        "exact",
        "linker crash (error 22)",
        "use `-tags=darwin_arm64`",
        "docs/Failed_Attempts.md:5",
    ):
        assert text in result.err


def test_cli_allows_with_exit_zero(failures_repo: Path) -> None:
    result = run(failures_repo, "check-command", "--", "go", "vet", "./...")
    assert (result.code, result.out, result.err) == (0, "", "")


def test_cli_allows_a_close_command_naming_the_row(failures_repo: Path) -> None:
    """Same program and subcommand, the failing option left out: allowed, with the row."""
    result = run(failures_repo, "check-command", "--json", "--", "go", "test", "./...")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["verdict"] == "allowed" and data["matches"] == []
    assert [(m["id"], m["match"]) for m in data["close"]] == [("F-001", "close")]
    assert "close to failed attempt F-001" in result.err and "linker crash" in result.err


def test_retired_row_never_matches(failures_repo: Path) -> None:
    assert run(failures_repo, "check-command", "--", "npm", "install", "--force").code == 0


def test_cli_json(failures_repo: Path) -> None:
    result = run(failures_repo, "check-command", "--json", "--", "go test -tags=musl ./...")
    assert result.code == 1
    data = json.loads(result.out)
    assert data["schema"] == "rehydrate/check-command-v1"
    assert data["verdict"] == "refused"
    assert [(m["id"], m["match"]) for m in data["matches"]] == [("F-001", "exact")]
    assert data["matches"][0]["workaround"] == "use `-tags=darwin_arm64`"


def test_cli_stdin_json(failures_repo: Path) -> None:
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "NO_COLOR=1 go test -tags=musl ./..."},
    }
    result = run(failures_repo, "check-command", "--stdin-json", input=json.dumps(event))
    assert result.code == 1 and "F-001" in result.err
    # another environment may be the workaround: allowed, with a note naming the row
    event["tool_input"] = {"command": "GOFLAGS=-mod=mod go test -tags=musl ./..."}
    result = run(failures_repo, "check-command", "--stdin-json", input=json.dumps(event))
    assert result.code == 0 and "F-001" in result.err and "close to" in result.err


BAD_USAGE = [
    pytest.param(("check-command",), "", id="nothing"),
    pytest.param(("check-command", "--stdin-json"), "not json", id="stdin-not-json"),
    pytest.param(("check-command", "--stdin-json"), '{"tool_input": {}}', id="no-command"),
    pytest.param(("check-command", "--stdin-json", "--", "ls"), "{}", id="both"),
]


@pytest.mark.parametrize(("args", "stdin"), BAD_USAGE)
def test_cli_usage_errors_exit_2(failures_repo: Path, args: tuple[str, ...], stdin: str) -> None:
    assert run(failures_repo, *args, input=stdin).code == 2


def test_unreadable_failures_ledger_exits_2(failures_repo: Path) -> None:
    write(failures_repo, "docs/Failed_Attempts.md", FAILURES + "| stray |\n")
    result = run(failures_repo, "check-command", "--", "ls")
    assert result.code == 2 and "docs/Failed_Attempts.md" in result.err


MODELLED = """\
# Failed attempts

| ID | Tried | Failure | Workaround |
|---|---|---|---|
| F-001 | `go test -tags=musl ./...` | linker crash (error 22) | use `-tags=darwin_arm64` |
| F-002 | `git push --force origin main` | lost a colleague's commits | `--force-with-lease` |
| F-003 | `rm -rf build` | removed the vendored SDK | `make clean` |
| F-004 | `git reset --hard HEAD~1` | dropped the fix | `git revert` |
| F-005 | `kubectl delete pod web-0 -n prod` | lost the volume | scale down first |
"""


@pytest.mark.parametrize(
    ("command", "refused"),
    [
        ("git push origin +main", "F-002"),
        ("git push --force-with-lease origin main", None),
        ("git push origin +my-feature", None),
        ("GOFLAGS=-tags=musl go test ./...", "F-001"),
        ("GOFLAGS=-tags=darwin go test ./...", None),
        ("rm -rf ./build/", "F-003"),
        ("rm -rf ../build", None),
        ("git -c core.pager=cat reset --hard HEAD~1", "F-004"),
        ("git -c core.hooksPath=x reset --hard HEAD~1", None),
        ("perl -e 'system(\"git push --force origin main\")'", "F-002"),
        ("node -e \"console.log('git push --force origin main')\"", None),
        ("env -u GOFLAGS go test -tags=musl ./...", None),
        ("kubectl delete pods web-0 --namespace=prod", "F-005"),
        ("kubectl delete pod/web-1 -n prod", None),
        ("bash -n -c 'go test -tags=musl ./...'", None),
        ("sudo -l go test -tags=musl ./...", None),
        ("false && T=musl; go test -tags=$T ./...", None),
        ("true && T=musl && go test -tags=$T ./...", "F-001"),
        ("python -W error -m pytest -x", None),
    ],
)
def test_the_cli_refuses_what_runs_the_same_on_a_ledger_scanned_or_parsed(
    ledger_repo: Path, command: str, refused: str | None
) -> None:
    """Issue 28: the forms the invocation model reads as one (a `+` refspec, GOFLAGS, a
    path's spellings, a cosmetic `-c`, an interpreter's system call), through the
    installed CLI: on the first check (the ledger parsed) and the next (its bytes scanned)."""
    write(ledger_repo, "docs/Failed_Attempts.md", MODELLED)
    commit(ledger_repo, "failures")
    for _ in range(2):
        result = run(ledger_repo, "check-command", "--json", "--", command)
        data = json.loads(result.out)
        assert [m["id"] for m in data["matches"]] == ([refused] if refused else []), command
        assert result.code == (1 if refused else 0)
