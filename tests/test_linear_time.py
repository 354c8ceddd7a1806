"""Linear time (issue 13): a 200 KB line made of the token that hurts each pattern of the
ledger reader is parsed or refused quickly through the real CLI, never a freeze.

One case per pattern (or string scan that replaced one); the bound is generous, the
quadratic versions took minutes at this size. The 1 MB bar of 2 s per command is the
benchmark's (benchmarks/bench_hostile.py), not a timed unit test's. ``rehydrate state``
reads the work tree; ``rehydrate guard --staged`` the index, as the pre-commit hook does.
"""

from __future__ import annotations

import time

import pytest

from conftest import git, run_subprocess
from test_guard import F2
from test_guard_git import make_repo, write_bytes

N = 200_000
BOUND = 2.0  # seconds, over twice a benign run of the same size
EXIT_OK_OR_REFUSED = {0, 1, 2}


def line(text: str) -> tuple[str, str, str]:
    """A line of Spec.md prose."""
    return ("spec", "What this task must respect.\n", f"What this task must respect.\n{text}\n")


def cell(text: str) -> tuple[str, str, str]:
    """A new failure row with ``text`` in its Workaround."""
    return ("failures", F2, F2 + f"| F-004 | cargo build | oom | {text} |\n")


def task(old: str, new: str) -> tuple[str, str, str]:
    return ("task", old, new)


AMBIGUOUS = " <x>\n\n"  # an indented '<' line: the mistune cross-check runs
CASES = [
    pytest.param(line("## a" + " " * N + "b"), id="heading-spaces"),
    pytest.param(line("## a" + "\t " * (N // 2) + "#"), id="heading-closing-hashes"),
    pytest.param(line("##" + "#" * N), id="hashes"),
    pytest.param(line(" " * N + "b"), id="spaces"),
    pytest.param(line("\t" * N + "#"), id="tabs-then-hash"),
    pytest.param(line("|" * N), id="pipes"),
    pytest.param(line("| a " * (N // 4) + "|\n|---|"), id="many-cells"),
    pytest.param(cell("\\|" * (N // 2)), id="escaped-pipes-in-cell"),
    pytest.param(cell("`" * N), id="backticks"),
    pytest.param(cell("`a" * (N // 2)), id="backtick-pairs"),
    pytest.param(cell("``a`" * (N // 4)), id="mismatched-backtick-runs"),
    pytest.param(line("<!--" * (N // 4)), id="comment-openers"),
    pytest.param(cell("<!--" * (N // 4)), id="comment-openers-in-cell"),
    pytest.param(line("-" * N), id="dashes"),
    pytest.param(line("-|" * (N // 2)), id="pipeless-delimiter"),
    pytest.param(line(" " + "-:|" * (N // 3) + "x"), id="pipeless-delimiter-almost"),
    pytest.param(line("=" * N), id="setext-equals"),
    pytest.param(cell("<a " * (N // 3)), id="unclosed-tags"),
    pytest.param(cell("<" * N), id="angle-brackets"),
    pytest.param(cell("<b x" + "=" * N), id="long-tag"),
    pytest.param(cell("[](" * (N // 3)), id="link-openers"),
    pytest.param(cell("[" * N + "x"), id="brackets"),
    pytest.param(cell("&" * N), id="ampersands"),
    pytest.param(cell("&#" * (N // 2)), id="entity-starts"),
    pytest.param(cell("\u3164" * (N // 3)), id="fillers"),
    pytest.param(cell("*" * N), id="stars"),
    pytest.param(line("]:" * (N // 2)), id="link-definition-colons"),
    pytest.param(line("[" + "a" * N + "]: b"), id="link-definition-long-label"),
    pytest.param(line("> " * (N // 2) + "[x]"), id="quote-markers"),
    pytest.param(line(AMBIGUOUS + ">" * N), id="mistune-nested-quotes"),
    pytest.param(line(AMBIGUOUS + "*a" * (N // 2)), id="mistune-emphasis"),
    pytest.param(line(AMBIGUOUS + "[" * N), id="mistune-brackets"),
    pytest.param(line(AMBIGUOUS + "- " * (N // 2)), id="mistune-list-markers"),
    pytest.param(("failures", "| F-001 |", "| " + "F" * N + " |"), id="long-id"),
    pytest.param(("failures", "| F-001 |", "| F-0" + "1" * N + " |"), id="long-numbered-id"),
    pytest.param(
        task("objective: ship the fix", "objective: a" + " " * 60000 + "b"),
        id="front-matter-value-spaces",
    ),
    pytest.param(
        task("objective: ship the fix", "objective:" + ":" * 60000), id="front-matter-colons"
    ),
    pytest.param(task("revision: 3", "revision: " + "9" * N), id="huge-revision"),
    pytest.param(
        task("write the failing test", "fix " + "&amp;" * (N // 5)), id="next-action-entities"
    ),
    pytest.param(
        task("write the failing test", "fix " + "<br" * (N // 3)), id="next-action-tag-openers"
    ),
    pytest.param(
        task("write the failing test", "fix " + "t\u200d" * (N // 2)), id="next-action-joiners"
    ),
]


def _timed(repo, *args: str) -> tuple[float, int, str]:
    start = time.perf_counter()
    result = run_subprocess(repo, *args)
    return time.perf_counter() - start, result.code, result.err


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> dict[str, float]:
    """Each command's time on a benign line of the same size (mistune's second opinion
    included): what a loaded machine costs any linear reading. A quadratic scan of it takes
    minutes, far beyond BOUND plus twice this."""
    repo, _ = make_repo(tmp_path_factory.mktemp("base") / "repo", hook=False)
    _, old, new = line(AMBIGUOUS + "a few words " * (N // 12))
    path = repo / "docs/Spec.md"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    git(repo, "add", "-A")
    return {"state": _timed(repo, "state")[0], "guard": _timed(repo, "guard", "--staged")[0]}


@pytest.mark.parametrize("edit", CASES)
def test_pathological_line_is_read_in_linear_time(tmp_path, baseline, edit) -> None:
    kind, old, new = edit
    repo, _ = make_repo(tmp_path / "repo", hook=False)
    path = (
        repo
        / {"spec": "docs/Spec.md", "task": "docs/Task.md", "failures": "docs/Failed_Attempts.md"}[
            kind
        ]
    )
    text = path.read_text(encoding="utf-8")
    assert old in text
    write_bytes(repo, str(path.relative_to(repo)), text.replace(old, new, 1).encode("utf-8"))
    took, code, err = _timed(repo, "state")
    assert code in EXIT_OK_OR_REFUSED, err[-2000:]
    assert took < BOUND + 2 * baseline["state"], f"state took {took:.2f}s"
    git(repo, "add", "-A")
    took, code, err = _timed(repo, "guard", "--staged")
    assert code in {0, 1}, err[-2000:]
    assert took < BOUND + 2 * baseline["guard"], f"guard --staged took {took:.2f}s"
