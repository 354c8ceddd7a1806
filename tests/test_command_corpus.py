"""The labelled command corpus (benchmarks/command_corpus.py) keeps its published figures:
no wrong refusal at all, and recall at least what docs/check-command.md says."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import command_corpus  # noqa: E402


def test_the_corpus_is_big_and_covers_every_kind() -> None:
    pairs = list(command_corpus.pairs())
    assert len(pairs) >= 970  # 342, then issue 28's two hold-outs and their twins
    kinds = {p.kind for p in pairs}
    assert kinds == {"match", "spelling", "near", "transcript"}
    assert sum(p.label == "R" for p in pairs) >= 300 and sum(p.label == "A" for p in pairs) >= 240


def test_the_holdout_is_in_the_corpus() -> None:
    """Issue 28: every hold-out case is a labelled pair (an advised one labelled allow)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_command_holdout import HOLDOUT

    labelled = {(p.tried, p.command): p.label for p in command_corpus.pairs()}
    for tried, command, expected in HOLDOUT:
        assert labelled.get((tried, command)) == ("R" if expected == "R" else "A"), command


def test_no_wrong_refusal_and_recall_as_published() -> None:
    found = command_corpus.figures()
    wrongly_refused = [p.command for p, what in found.wrong if what == "refused"]
    assert wrongly_refused == [] and found.precision == 1.0
    assert found.recall >= command_corpus.PUBLISHED_RECALL, found.wrong


def test_the_docs_publish_the_figures() -> None:
    text = (ROOT / "docs" / "check-command.md").read_text(encoding="utf-8")
    found = command_corpus.figures()
    assert f"{found.pairs} labelled pairs" in text
    assert f"recall {command_corpus.PUBLISHED_RECALL:.2f}" in text and "precision 1.00" in text


def test_the_second_holdout_is_in_the_corpus() -> None:
    """Issue 28, the second hold-out: every case is a labelled pair too."""
    sys.path.insert(0, str(ROOT))
    from tests.test_command_holdout2 import CASES, ROWS

    labelled = {(p.tried, p.command): p.label for p in command_corpus.pairs()}
    for key, command, expected in CASES:
        want = "R" if expected == "refuse" else "A"
        assert labelled.get((f"`{ROWS[key]}`", command)) == want, command


def test_the_published_figures_are_the_corpus_figures() -> None:
    """docs/check-command.md states what the corpus measures today, not an older count."""
    import re

    text = " ".join((ROOT / "docs" / "check-command.md").read_text(encoding="utf-8").split())
    found = command_corpus.figures()
    published = re.search(
        r"corpus of (\d+) labelled pairs .*?\((\d+) pairs labelled \*refuse\*, (\d+) refused;"
        r" no pair labelled \*allow\* refused; (\d+) near misses advised\)",
        text,
    )
    assert published is not None, "the figures sentence of docs/check-command.md moved"
    pairs, labelled, refused, advised = (int(n) for n in published.groups())
    assert (pairs, labelled, refused, advised) == (
        found.pairs,
        found.refuse_labels,
        found.true_refusals,
        found.advised,
    )


def test_the_shell_state_cases_are_in_the_corpus() -> None:
    """Stop 39: each case labelled by what real bash runs (tests/test_shell_state.py)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_shell_state import CASES, ROW

    labelled = {(p.tried, p.command): p.label for p in command_corpus.pairs()}
    for line, runs in CASES:
        assert labelled.get((ROW, line)) == ("R" if runs else "A"), line
