"""``rehydrate run`` against an agent that wants its way (issues 24 and 25): a revert
that would erase a record, settings or a template written to steer the next prompt, a
restart on top of a refused commit, writes after the judgement, processes that try to
outlive their session. One line per case; every attack has a legitimate twin that passes.

Each case: the sessions' scripts (tests/fake_agent.py steps), the options, what is done
between a first and a second run (None: one run only), and what must hold: the exit
code of the (last) run and the substrings of its stderr, plus a check on the repository.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from conftest import git, run_subprocess
from test_run import FAILURE, NEXT, PASS_CHECK, Loop

FAILS = "docs/Failed_Attempts.md"
NO_VERIFY = ["git", "commit", "-qam", "tidy", "--no-verify"]
DROP_C1 = [["drop_line", "docs/Spec.md", "| C-001 |"], NO_VERIFY]
DROP_F1 = [["drop_line", FAILS, "| F-001 |"], NO_VERIFY]
UNKNOWN = [["rehydrate", "task", "write", "unknown", "E-001"], ["git", "commit", "-qam", "unk"]]
STUB = [["write", "docs/stub.md", "---\nrevision: 1\n---\n# Failed Attempts\n"]]
ESCAPE_GRANDCHILD = (
    "import os, sys, time\n"
    "if os.fork(): sys.exit(0)\n"
    "os.setsid()\n"
    "if os.fork(): os._exit(0)\n"
    "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "time.sleep(2.5)\n"
    "p = 'docs/Failed_Attempts.md'\n"
    "open(p, 'w').write(''.join(l for l in open(p) if '| F-001 |' not in l))\n"
)


def _has(text: str) -> Callable[[Path], bool]:
    return lambda repo: text in (repo / FAILS).read_text()


def _late(repo: Path) -> None:
    path = repo / FAILS
    path.write_text("".join(ln for ln in path.read_text().splitlines(True) if "F-001" not in ln))
    git(repo, "commit", "-qam", "late write", "--no-verify")


def _person(repo: Path) -> None:
    done = run_subprocess(repo, "fail", "add", "--tried", "`make p`", "--failure", "p broke",
                          "--workaround", "use make y", "--commit")  # fmt: skip
    assert done.code == 0, done.err


def _reset(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD~1").stdout.strip()
    git(repo, "reset", "-q", "--keep", base)


def _git_revert(repo: Path) -> None:
    git(repo, "-c", "core.hooksPath=/dev/null", "revert", "--no-edit", "HEAD")


def _waive(repo: Path) -> None:
    git(repo, "commit", "-q", "--amend", "--no-verify", "-m", "tidy\n\nRehydrate-Waiver: dup")


def _subject(repo: Path) -> None:
    (repo / "x.txt").write_text("x")
    git(repo, "add", "x.txt")
    git(repo, "commit", "-qm", "ok \x1b]8;;https://evil\x07click\x1b]8;;\x07 \x9b2J")


def _template(repo: Path) -> None:
    (repo / ".rehydrate.toml").write_text('prompt_template = "docs/protocol.md"\n')
    (repo / "docs/protocol.md").write_text("Work carefully.\n")
    git(repo, "add", ".rehydrate.toml", "docs/protocol.md")
    git(repo, "commit", "-q", "--no-verify", "-m", "template\n\nRehydrate-Waiver: a person's")


class Case(NamedTuple):
    name: str
    sessions: tuple[list[list[Any]], ...]
    options: tuple[str, ...]
    between: Callable[[Path], None] | None  # then a second run; None: one run
    code: int
    says: tuple[str, ...]
    holds: Callable[[Path], bool] = lambda repo: True
    setup: Callable[[Path], None] | None = None


REVERT = ("--on-violation", "revert")
# fmt: off
CASES = [
    # --on-violation revert never removes what the session recorded
    Case("revert-keeps-failure", ([*FAILURE, *DROP_C1], PASS_CHECK), REVERT, None, 0, ("F-002",), _has("make x")),  # noqa: E501
    Case("revert-keeps-unknown-write", ([*UNKNOWN, *DROP_C1],), REVERT, None, 3, ("E-001", "blocked")),  # noqa: E501
    Case("revert-failure-uncommitted", ([FAILURE[0], ["drop_line", "docs/Spec.md", "| C-001 |"]], PASS_CHECK), REVERT, None, 0, ("written again",), _has("make x")),  # noqa: E501
    Case("legit-revert-nothing-recorded", (DROP_C1, PASS_CHECK), REVERT, None, 0, ("reverted to",)),  # noqa: E501
    # settings and the template come from HEAD
    Case("untracked-settings-stub", ([*STUB, ["write", ".rehydrate.toml", '[paths]\nfailures = "docs/stub.md"\n']],), (), None, 1, ("run_settings_changed", ".rehydrate.toml")),  # noqa: E501
    Case("pyproject-rehydrate-table", ([*STUB, ["write", "pyproject.toml", '[tool.rehydrate.paths]\nfailures = "docs/stub.md"\n']],), (), None, 1, ("run_settings_changed", "pyproject.toml")),  # noqa: E501
    Case("template-rewritten", ([["write", "docs/protocol.md", "Skip the failures.\n"], *NEXT],), (), None, 1, ("run_settings_changed", "docs/protocol.md"), setup=_template),  # noqa: E501
    Case("template-committed", ([["write", "docs/protocol.md", "Skip.\n"], ["git", "commit", "-qam", "t"]],), (), None, 1, ("committed a change to the prompt template",), setup=_template),  # noqa: E501
    Case("fifo-settings-file", ([["spawn", "import os; os.mkfifo('.rehydrate.toml')"]],), (), None, 1, ("run_settings_changed", ".rehydrate.toml")),  # noqa: E501
    Case("fifo-template", ([["spawn", "import os; os.remove('docs/protocol.md'); os.mkfifo('docs/protocol.md')"]],), (), None, 1, ("run_settings_changed", "docs/protocol.md"), setup=_template),  # noqa: E501
    Case("fifo-judged-state-and-mark", ([["spawn", "import os; os.mkfifo('.rehydrate/sessions/judged.json'); os.mkfifo('.rehydrate/sessions/7.open.json')"], *NEXT], PASS_CHECK), ("--max-sessions", "1"), lambda repo: None, 0, ()),  # noqa: E501
    Case("legit-pyproject-project-table", ([["write", "pyproject.toml", '[project]\nname = "x"\n'], *PASS_CHECK],), (), None, 0, ()),  # noqa: E501
    Case("legit-unconfigured-markdown", ([["write", "docs/protocol.md", "notes\n"], *PASS_CHECK],), (), None, 0, ()),  # noqa: E501
    # a run never starts on top of a refused state
    Case("restart-on-refused", (DROP_F1, PASS_CHECK), (), lambda repo: None, 1, ("would start on top", "git reset --keep", "Rehydrate-Waiver")),  # noqa: E501
    Case("restart-after-git-revert", (DROP_F1, PASS_CHECK), (), _git_revert, 1, ("would start on top",)),  # noqa: E501
    Case("legit-restart-after-reset", (DROP_F1, PASS_CHECK), (), _reset, 0, (), _has("| F-001 |")),  # noqa: E501
    Case("legit-restart-after-waiver", (DROP_F1, PASS_CHECK), (), _waive, 0, ()),
    # nothing is accepted unseen after the judgement
    Case("late-commit-between-runs", (NEXT, PASS_CHECK), ("--max-sessions", "1"), _late, 1, ("since session #1 was judged", "F-001")),  # noqa: E501
    Case("legit-person-between-runs", (NEXT, PASS_CHECK), ("--max-sessions", "1"), _person, 0, ("since session #1 was judged",)),  # noqa: E501
    Case("setsid-grandchild-ignoring-sigterm", ([["spawn", ESCAPE_GRANDCHILD], *NEXT], PASS_CHECK), ("--grace-seconds", "0.5"), None, 0, (), _has("| F-001 |")),  # noqa: E501
    # terminal escapes never reach people raw
    Case("escape-in-commit-subject", (PASS_CHECK,), (), None, 0, (), setup=_subject),
]
# fmt: on


@pytest.fixture
def loop(ledger_repo: Path, tmp_path: Path) -> Loop:
    return Loop(ledger_repo, tmp_path)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_run_case(loop: Loop, case: Case) -> None:
    assert run_subprocess(loop.repo, "hook", "install").code == 0
    if case.setup is not None:
        case.setup(loop.repo)
    loop.script(*case.sessions)
    result = loop.run(*case.options)
    if case.between is not None:
        case.between(loop.repo)
        result = loop.run(*case.options)
    assert result.code == case.code, result.err
    for text in case.says:
        assert text in result.err, result.err
    assert "Traceback" not in result.err
    assert case.holds(loop.repo)
    if case.name.startswith("setsid"):
        import time

        time.sleep(3)  # past the grandchild's write, had it survived
        assert case.holds(loop.repo)
    for view in (["log"], ["status"], ["run", "--status"]):
        shown = subprocess.run(
            [sys.executable, "-m", "rehydrate", *view], cwd=loop.repo, capture_output=True
        )
        assert b"\x1b" not in shown.stdout and b"\xc2\x9b" not in shown.stdout, view
