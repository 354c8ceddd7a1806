"""A script a command runs is read as what runs (issue 28 item 1): a file the line did
not write is read where it lies (`bash s.sh` after the agent wrote s.sh with another
tool), when nothing in the line can have written it first; and the real PreToolUse hook
refuses it. Each refusal has a twin that is allowed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import only_row, pre_tool_answers, run, write

ROW = "| F-001 | `rm -rf build` | wiped the cache | make clean |\n"


@pytest.fixture
def scripts(ledger_repo: Path) -> Path:
    only_row(ledger_repo, ROW)
    write(ledger_repo, "s.sh", "rm -rf build\n")
    write(ledger_repo, "ci.sh", "#!/bin/sh\nset -e\nmake\nrm -rf build\n")
    (ledger_repo / "ci.sh").chmod(0o755)
    write(ledger_repo, "ok.sh", "echo ok\n")
    dev = 'case "$1" in\n  clean) rm -rf build ;;\n  lint) echo lint ;;\nesac\n'
    write(ledger_repo, "dev.sh", dev)  # a project's dispatcher: a branch per subcommand
    write(ledger_repo, "and.sh", "make && rm -rf build\n")
    write(ledger_repo, "or.sh", "make || rm -rf build\n")
    write(ledger_repo, "broken.sh", "rm -rf build\nif [ -d x ]; then\n")  # no `fi`
    write(
        ledger_repo, "nested.sh", 'bash -c \'if [ "$1" = clean ]; then rm -rf build; fi\' _ "$@"\n'
    )
    write(ledger_repo, "py.sh", '#!/usr/bin/env python3\nprint("rm -rf build")\n')
    (ledger_repo / "py.sh").chmod(0o755)
    write(ledger_repo, "sub/t.sh", "rm -rf build\n")
    write(ledger_repo, "fn.sh", "clean() {\n  rm -rf build\n}\nclean\n")  # called: it runs
    main = 'main() {\n  case "$1" in\n    clean) rm -rf build ;;\n    *) echo ok ;;\n  esac\n}\n'
    write(ledger_repo, "main.sh", main + 'main "$@"\n')  # called, a branch per argument
    write(ledger_repo, "uncalled.sh", "clean() { rm -rf build; }\necho hi\n")
    write(ledger_repo, "maybe.sh", 'f() { rm -rf build; }\nif [ "$1" = x ]; then f; fi\n')
    (ledger_repo / "bin.sh").write_bytes(b"rm -rf build\n\x00\x01\n")
    (ledger_repo / "big.sh").write_text("rm -rf build\n" + "#" * (300 * 1024) + "\n")
    (ledger_repo / "link.sh").symlink_to("s.sh")
    os.mkfifo(ledger_repo / "fifo.sh")
    return ledger_repo


REFUSED = [
    "bash s.sh",
    "sh ./s.sh",
    "./ci.sh",  # no shell named: its #! line says sh
    "source s.sh",
    ". ./s.sh",
    "bash link.sh",  # what the shell reads through the link
    "bash sub/t.sh",  # run from here: its rm runs here
    "bash -c 'bash s.sh'",
    "F=s.sh; bash $F",
    "sudo -u root bash s.sh arg",
    'run() { "$@"; }; run bash s.sh',
    "bash and.sh",  # after `&&`, as in a line
    "bash fn.sh",  # a function called at the script's top level runs its body
    "cat > t2.sh <<'EOF'\nif make; then rm -rf build; fi\nEOF\nbash t2.sh",  # the line's own
]
ALLOWED = [
    "bash ok.sh",
    "./py.sh",  # python prints the words
    "cat s.sh",
    "bash -n s.sh",  # read, not run
    "cd sub && bash t.sh",  # runs rm in sub: another directory (advised)
    "bash fifo.sh",  # not a regular file: never opened for reading as one (no wait)
    "bash bin.sh",  # a binary file: a shell refuses it
    "bash big.sh",  # over the size read
    "bash broken.sh",  # not shell the grammar reads whole: its parts would not be known
    "bash missing.sh",
    "cp ok.sh s.sh; bash s.sh",  # the line may have changed it: not read as it lies
    "echo 'echo hi' > s.sh; bash s.sh",  # the line's own text is what runs
    "echo 'echo hi' > \"$TARGET\"; bash s.sh",  # a write to a file not known: maybe s.sh
    "bash s.sh.bak",
    # a script on disk is checked for what it runs for certain, not its branches: which
    # one runs is a matter of its arguments (a miss for `bash dev.sh clean`, never a
    # wrong refusal of `lint`)
    "bash dev.sh lint",
    "bash main.sh lint",  # ... in a function called with the script's arguments too
    "bash uncalled.sh",  # a function never called runs nothing
    "bash maybe.sh",  # ... nor one called in a branch
    "bash or.sh",
    "bash nested.sh lint",  # ... nor the branches of a shell it starts
]


@pytest.mark.parametrize("command", REFUSED)
def test_a_script_file_that_repeats_a_row_is_refused(scripts: Path, command: str) -> None:
    result = run(scripts, "check-command", "--json", "--", command)
    assert result.code == 1, (command, result.err)
    assert [m["id"] for m in json.loads(result.out)["matches"]] == ["F-001"]


@pytest.mark.parametrize("command", ALLOWED)
def test_its_twin_is_allowed(scripts: Path, command: str) -> None:
    result = run(scripts, "check-command", "--json", "--", command)
    assert result.code == 0, (command, result.err)
    assert json.loads(result.out)["matches"] == []


def test_the_real_hook_refuses_the_script_and_lets_its_twin_run(scripts: Path) -> None:
    """Through the launch line the installers write: the event on stdin, from the repo."""
    answers = pre_tool_answers(scripts, ["bash s.sh", "bash ok.sh"])
    denied = answers["bash s.sh"]["hookSpecificOutput"]
    assert isinstance(denied, dict) and denied["permissionDecision"] == "deny"
    assert "F-001" in denied["permissionDecisionReason"]
    assert answers["bash ok.sh"] == {}
