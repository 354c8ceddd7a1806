"""GNU parallel with its inputs written in the line (``:::``): each command it composes is
checked; what it may compose otherwise is not guessed (a miss, never a wrong refusal).
Each refusal has a twin that runs something else, and the composed commands are compared
with what the real ``parallel --dry-run`` prints, where it is installed."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

import pytest

from rehydrate.agents import parallel
from rehydrate.agents.commands import check
from rehydrate.ledgers import parse_ledger

FAILURES = """\
# Failed attempts

| ID | Tried | Failure | Workaround |
|---|---|---|---|
| F-001 | `rm -rf build` | removed the cache too | `make clean` |
| F-002 | `go test -tags=musl ./...` | linker crash | use `-tags=darwin_arm64` |
"""
LEDGER = parse_ledger("failures", "docs/Failed_Attempts.md", FAILURES.encode())


@pytest.mark.parametrize(
    ("repeat", "twin"),
    [
        ("parallel rm -rf ::: build", "parallel rm -rf ::: dist"),
        ("parallel rm -rf ::: dist build", "parallel rm -rf ::: dist out"),
        ("parallel -j4 rm -rf ::: build", "parallel -j4 rm -f ::: build"),
        ("parallel --jobs 2 -k rm -rf ::: build", "parallel --jobs 2 -k rm -rf ::: ./b"),
        ("parallel 'rm -rf {}' ::: build", "parallel 'rm -rf {}/x' ::: build"),
        ("parallel ::: 'go test -tags=musl ./...'", "parallel ::: 'go test ./...'"),
        ("parallel go test ::: -tags=musl ::: ./...", "parallel go test ::: -tags=x ::: ./..."),
        ("parallel --will-cite -- rm -rf ::: build", "parallel --will-cite -- rm ::: build"),
        ("sudo parallel rm -rf ::: build", "sudo parallel rm -rf ::: built"),
        ("bash -c 'parallel rm -rf ::: build'", "bash -c 'parallel rm -rf ::: buil'"),
    ],
)
def test_what_parallel_composes_is_checked(repeat: str, twin: str) -> None:
    assert [h.id for h in check(repeat, LEDGER).hits], repeat
    assert check(twin, LEDGER).hits == [], twin


@pytest.mark.parametrize(
    "uncertain",
    [
        "parallel --dry-run rm -rf ::: build",  # prints the commands, runs none
        "parallel -q rm -rf ::: build",  # quoting changed
        "parallel -n2 rm -rf ::: build dist",  # several inputs a command
        "parallel -X rm -rf ::: build",
        "parallel -I @ rm -rf @ ::: build",  # another replacement string
        "parallel 'rm -rf {.}' ::: build.tar",  # one not read here
        "parallel rm -rf :::: list.txt",  # inputs from a file
        "parallel rm -rf ::: build :::+ x",
        "parallel --workdir /tmp rm -rf ::: build",  # runs elsewhere
        "parallel -S host rm -rf ::: build",  # on another machine
        "parallel --unknown-option rm -rf ::: build",
        "parallel rm -rf",  # inputs on stdin
        "echo 'parallel rm -rf ::: build'",  # data
    ],
)
def test_what_parallel_may_compose_otherwise_is_not_guessed(uncertain: str) -> None:
    assert check(uncertain, LEDGER).hits == [], uncertain


def test_the_composed_commands_and_their_bound() -> None:
    assert list(parallel.scripts(["echo", ":::", "a b", "c"])) == ["echo 'a b'", "echo c"]
    assert list(parallel.scripts(["echo", "{}", "x", ":::", "it's"])) == ["echo 'it'\"'\"'s' x"]
    assert list(parallel.scripts([":::", "make", "make test"])) == ["make", "make test"]
    many = ["echo", ":::", *"abcd", ":::", *"abcd"]
    assert len(list(parallel.scripts(many))) == 16
    assert list(parallel.scripts([*many, "e"])) == []  # 20 > MAX_JOBS
    assert list(parallel.scripts(["-j"])) == [] and list(parallel.scripts([":::"])) == []


def test_the_composition_is_what_gnu_parallel_runs() -> None:
    """``--dry-run`` prints each command parallel would hand to the shell; compared word
    by word as the shell splits it (parallel quotes more than it must: ``'-tags=musl'``).
    Off CI a machine without GNU parallel skips, saying so; in CI (which installs it from
    Debian's packages, .ci/run) it fails."""
    if shutil.which("parallel") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("GNU parallel is not installed (.ci/run installs Debian's parallel)")
        pytest.skip("GNU parallel is not installed")
    for args in (
        ["echo", ":::", "a b", "c"],
        ["echo", "{}", "x", ":::", "it's"],
        ["go", "test", ":::", "-tags=musl", ":::", "./...", "./cmd"],
        ["rm", "-rf", ":::", "a$b", "x*", "", "--"],
        [":::", "go test ./...", "make -j4 deploy"],
        ["-j4", "sh", "-c", "{}", ":::", "echo $HOME"],
    ):
        argv = ["parallel", "--will-cite", "--dry-run", "-k", *args]
        printed = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        ours = list(parallel.scripts(args))
        assert [shlex.split(x) for x in printed.splitlines()] == [shlex.split(x) for x in ours]
