"""``guard.judge.judge_change``, the one judgement staged, range and receive share: two
states of one ledger path and a context in, violations out. No git, no files.

Every refusal in ``CASES`` has a legitimate twin next to it that passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from rehydrate.config import Config
from rehydrate.guard.judge import ABSENT, UNSET, Context, Merge, Parser, Side, judge, judge_change
from rehydrate.ledgers import Ledger, parse_ledger
from test_guard import F2, FAILURES

PATH = "docs/Failed_Attempts.md"
F4 = "| F-004 | npm ci | lockfile drift | npm install |\n"
F4_OTHER = "| F-004 | cargo build | OOM | cargo build -j1 |\n"
F5 = "| F-005 | npm ci | lockfile drift | npm install |\n"


def text(body: str) -> Side:
    return Side.of(body.encode())


def ledger(body: str) -> Ledger:
    return parse_ledger("failures", PATH, body.encode())


def add(row: str, body: str = FAILURES) -> str:
    """``body`` with ``row`` appended to the failure table (after F-003)."""
    anchor = "| F-003 | make all | timeout | make -j4 |\n"
    return body.replace(anchor, anchor + row, 1)


def merged_ours_theirs() -> tuple[str, str, str]:
    """(ours, theirs, merged): both sides added an F-004; the merge kept theirs as F-004
    and renumbered ours to F-005."""
    return add(F4), add(F4_OTHER), add(F4_OTHER + F5)


@dataclass
class Case:
    old: Side
    new: Side
    codes: set[str]
    context: dict[str, object] = field(default_factory=dict)


OURS, THEIRS, MERGED = merged_ours_theirs()
CASES = {
    # a row deleted / a row appended
    "row-deleted": Case(text(FAILURES), text(FAILURES.replace(F2, "")), {"row_deleted"}),
    "row-appended": Case(text(FAILURES), text(add(F4)), set()),
    # the file deleted or renamed / never there
    "ledger-deleted": Case(text(FAILURES), ABSENT, {"ledger_deleted"}),
    "both-absent": Case(ABSENT, ABSENT, set()),
    "ledger-renamed": Case(
        text(FAILURES), ABSENT, {"ledger_renamed"}, {"renamed_to": lambda: "docs/F.md"}
    ),
    "ledger-created": Case(ABSENT, text(FAILURES), set()),
    # a symlink / an executable regular file
    "symlink": Case(text(FAILURES), Side("120000", "1" * 40, b"x.md"), {"ledger_not_regular_file"}),
    "submodule": Case(text(FAILURES), Side("160000", "1" * 40), {"ledger_not_regular_file"}),
    "executable": Case(text(FAILURES), text(FAILURES)._replace(mode="100755"), set()),
    # a conflict in the index / the same bytes resolved
    "unmerged": Case(
        text(FAILURES), Side("000000", "0" * 40), {"ledger_unparseable"}, {"unmerged": True}
    ),
    "resolved": Case(text(FAILURES), text(FAILURES), set(), {"unmerged": False}),
    # the new side broken / a broken old side mended (compared as 'no ledger yet')
    "new-unparseable": Case(
        text(FAILURES), text("---\nledger: spec\n---\n"), {"ledger_unparseable"}
    ),
    "old-unparseable": Case(text("---\nledger: spec\n---\n"), text(FAILURES), set()),
    # a broken old side judged against the last state that parsed
    "baseline-row-lost": Case(
        text("broken"),
        text(FAILURES.replace(F2, "")),
        {"row_deleted"},
        {"baseline": ledger(FAILURES)},
    ),
    "baseline-row-kept": Case(text("broken"), text(add(F4)), set(), {"baseline": ledger(FAILURES)}),
    # an ID history had, used again / a fresh ID
    "reserved-id": Case(
        text(FAILURES), text(add(F4)), {"id_reused"}, {"reserved_ids": frozenset({"F-004"})}
    ),
    "fresh-id": Case(text(FAILURES), text(add(F4)), set(), {"reserved_ids": frozenset({"F-009"})}),
    # the trusted fast path: a deletion refused, an append passed, without parsing
    "trusted-row-deleted": Case(
        text(FAILURES), text(FAILURES.replace(F2, "")), {"row_deleted"}, {"trusted": True}
    ),
    "trusted-row-appended": Case(text(FAILURES), text(add(F4)), set(), {"trusted": True}),
    # a merge: ours renumbered to make room for theirs is excused; ours lost is not
    "merge-without-excuse": Case(text(OURS), text(MERGED), {"immutable_cell_changed"}),
    "merge-renumbered": Case(
        text(OURS), text(MERGED), set(), {"merge": lambda: Merge(ledger(OURS), [ledger(THEIRS)])}
    ),
    "merge-lost-ours": Case(
        text(OURS),
        text(THEIRS),
        {"immutable_cell_changed"},
        {"merge": lambda: Merge(ledger(OURS), [ledger(THEIRS)])},
    ),
}


def context(case: Case) -> Context:
    return Context("failures", PATH, Parser(Config()), **case.context)


@pytest.mark.parametrize("name", list(CASES))
def test_judge_change(name: str) -> None:
    case = CASES[name]
    found = judge_change(case.old, case.new, context(case))
    assert {v.code for v in found} == case.codes, [str(v) for v in found]
    assert all(v.path == PATH and v.fix for v in found)


def test_every_refusal_has_a_passing_twin() -> None:
    refused = [n for n, c in CASES.items() if c.codes]
    passing = [n for n, c in CASES.items() if not c.codes]
    assert len(passing) >= len(refused) - 2  # the merge pair shares one twin
    assert all(judge_change(CASES[n].old, CASES[n].new, context(CASES[n])) == [] for n in passing)


def test_the_fast_path_parses_nothing() -> None:
    case = CASES["trusted-row-appended"]
    parser = Parser(Config())
    got = judge(case.old, case.new, Context("failures", PATH, parser, trusted=True))
    assert got == ([], None, None) and parser.cache == {}
    slow = judge(case.old, case.new, Context("failures", PATH, parser))
    assert slow.violations == [] and slow.old is not None and slow.new is not None


def test_a_baseline_of_none_is_no_ledger_yet() -> None:
    """``baseline=None`` (no state ever parsed) compares with 'no ledger'; UNSET reads the
    old side."""
    old, new = text(FAILURES), text(FAILURES.replace(F2, ""))
    parser = Parser(Config())
    assert judge_change(old, new, Context("failures", PATH, parser, baseline=None)) == []
    codes = {
        v.code for v in judge_change(old, new, Context("failures", PATH, parser, baseline=UNSET))
    }
    assert codes == {"row_deleted"}


def test_the_merge_sides_are_read_only_when_a_finding_needs_them() -> None:
    asked: list[int] = []

    def sides() -> Merge:
        asked.append(1)
        return Merge(ledger(OURS), [ledger(THEIRS)])

    parser = Parser(Config())
    assert (
        judge_change(text(FAILURES), text(add(F4)), Context("failures", PATH, parser, merge=sides))
        == []
    )
    assert asked == []
    assert (
        judge_change(text(OURS), text(MERGED), Context("failures", PATH, parser, merge=sides)) == []
    )
    assert asked == [1]
