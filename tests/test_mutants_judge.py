"""``guard.judge``: the cases the mutants of ``judge.py`` showed untested
(``scripts/mutation.py``). Pure: ``judge``/``judge_change`` on states built here, no git.

Each refusal has its legitimate twin next to it that passes.
"""

from __future__ import annotations

from rehydrate.config import Config
from rehydrate.errors import LedgerParseError
from rehydrate.guard.judge import (
    ABSENT,
    Context,
    Merge,
    Parser,
    Side,
    judge,
    judge_change,
    parse_violation,
)
from rehydrate.guard.rules import FIXES
from test_guard import F2, FAILURES
from test_guard_judge import MERGED, OURS, THEIRS, add, ledger

PATH = "docs/Failed_Attempts.md"
F4 = "| F-004 | npm ci | lockfile drift | npm install |\n"
RETIRED = "| F-003 | fixed upstream | 2026-01-01 | |\n"


def side(body: str) -> Side:
    return Side.of(body.encode())


def context(parser: Parser | None = None, **given: object) -> Context:
    return Context("failures", PATH, parser or Parser(Config()), **given)  # type: ignore[arg-type]


def said(found: list[object]) -> list[tuple[object, ...]]:
    return [(v.code, v.path, v.message, v.fix) for v in found]  # type: ignore[attr-defined]


def test_what_a_file_that_is_no_ledger_is_told() -> None:
    """Each early refusal names the path, what is wrong and the fix (kills the message
    and fix mutants of ``_not_a_ledger``); a regular file passes."""
    old = side(FAILURES)
    symlink, submodule = Side("120000", "1" * 40, b"x.md"), Side("160000", "2" * 40)
    not_regular = FIXES["ledger_not_regular_file"]
    assert said(judge_change(old, symlink, context())) == [
        (
            "ledger_not_regular_file",
            PATH,
            "the ledger is committed as a symlink, not a regular file",
            not_regular,
        )
    ]
    assert said(judge_change(old, submodule, context())) == [
        (
            "ledger_not_regular_file",
            PATH,
            "the ledger is committed as mode 160000, not a regular file",
            not_regular,
        )
    ]
    assert said(judge_change(old, ABSENT, context())) == [
        ("ledger_deleted", PATH, "ledger file deleted", FIXES["ledger_deleted"])
    ]
    unmerged = judge_change(old, Side("000000", "0" * 40), context(unmerged=True))
    assert said(unmerged) == [
        (
            "ledger_unparseable",
            PATH,
            "the ledger is unmerged (a conflict) in the index",
            "resolve the conflict and stage the result",
        )
    ]
    assert judge_change(old, side(add(F4)), context()) == []


def test_a_deletion_in_a_sha256_repository_is_refused() -> None:
    """git's zero id is 64 zeros in a sha256 repository: still a deletion, not an odd
    mode; a sha256 ledger created from nothing passes."""
    gone = Side("000000", "0" * 64)
    assert [v.code for v in judge_change(side(FAILURES), gone, context())] == ["ledger_deleted"]
    assert judge_change(gone, side(FAILURES), context()) == []


def test_the_trusted_fast_path_keeps_reserved_ids() -> None:
    """An ID history had, appended again, is refused when the failure ledger is trusted
    too (the fast path is told the reserved IDs and defers); a fresh one passes."""
    parser = Parser(Config())
    reserved = context(parser, trusted=True, reserved_ids=frozenset({"F-004"}))
    assert [v.code for v in judge_change(side(FAILURES), side(add(F4)), reserved)] == ["id_reused"]
    fresh = context(parser, trusted=True, reserved_ids=frozenset({"F-005"}))
    assert judge_change(side(FAILURES), side(add(F4)), fresh) == []


def sides(parent: str | None, others: list[str], bases: list[str] | None = None) -> Merge:
    return Merge(
        ledger(parent) if parent else None,
        [ledger(o) for o in others],
        [ledger(b) for b in bases or []],
    )


def test_a_trusted_merge_is_excused_as_a_parsed_one() -> None:
    """The fast path's finding on a merge goes through the same excuse: ours renumbered
    to make room for theirs passes, ours lost is refused."""
    merge = context(trusted=True, merge=lambda: sides(OURS, [THEIRS]))
    assert judge_change(side(OURS), side(MERGED), merge) == []
    lost = context(trusted=True, merge=lambda: sides(OURS, [THEIRS]))
    assert {v.code for v in judge_change(side(OURS), side(THEIRS), lost)} == {
        "immutable_cell_changed"
    }


def test_a_merge_without_the_sides_to_excuse_it_is_refused() -> None:
    """No merge sides, no parent ledger, or no other parent: nothing excuses the
    renumbering (the twin with both parents passes)."""
    codes = {"immutable_cell_changed"}
    for merge in (lambda: None, lambda: sides(None, [THEIRS]), lambda: sides(OURS, [])):
        found = judge_change(side(OURS), side(MERGED), context(merge=merge))
        assert {v.code for v in found} == codes
    assert (
        judge_change(side(OURS), side(MERGED), context(merge=lambda: sides(OURS, [THEIRS]))) == []
    )


def test_the_merge_bases_are_passed_on() -> None:
    """An ID the merge base already had is no fresh ID of ours to renumber: the excuse
    needs the bases to know it."""
    base = context(merge=lambda: sides(OURS, [THEIRS], [OURS]))
    assert {v.code for v in judge_change(side(OURS), side(MERGED), base)} == {
        "immutable_cell_changed"
    }
    fresh = context(merge=lambda: sides(OURS, [THEIRS], [FAILURES]))
    assert judge_change(side(OURS), side(MERGED), fresh) == []


def test_a_ledger_parsed_as_an_old_side_keeps_its_path() -> None:
    """A range shares one parser: a blob first seen as an old side and later again as a
    new one (a revert) is reported at its path."""
    parser = Parser(Config())
    assert judge_change(side(FAILURES), side(add(F4)), context(parser)) == []
    back = judge_change(side(add(F4)), side(FAILURES), context(parser))
    assert [(v.code, v.path) for v in back] == [("row_deleted", PATH)]


def test_an_unparseable_new_side_still_returns_the_old_ledger() -> None:
    got = judge(side(FAILURES), side("---\nledger: spec\n---\n"), context())
    assert [v.code for v in got.violations] == ["ledger_unparseable"]
    assert got.old is not None and got.new is None
    good = judge(side(FAILURES), side(add(F4)), context())
    assert got.old == good.old and good.new is not None


def test_a_parse_refusal_keeps_the_errors_place_and_fix() -> None:
    """A Retired row without a reason: its own code, line, item and fix; with the reason
    it passes."""
    body = FAILURES.replace(RETIRED, "| F-003 |  | 2026-01-01 | |\n")
    (found,) = judge_change(side(FAILURES), side(body), context())
    assert (found.code, found.path, found.item_id) == ("retire_without_reason", PATH, "F-003")
    assert found.line == body.splitlines().index("| F-003 |  | 2026-01-01 | |") + 1
    assert found.fix == "retiring needs a reason (visible text)" != FIXES[found.code]
    assert judge_change(side(FAILURES), side(FAILURES.replace(F2, F2)), context()) == []


def test_a_parse_error_elsewhere_is_reported_where_it_is() -> None:
    """The error's own file wins over the ledger path; without one, the path is named,
    and the rule's fix stands in for a missing one."""
    error = LedgerParseError("bad", file="other.md", line=3, code="retire_without_reason")
    got = parse_violation(error, PATH)
    assert (got.path, got.line, got.fix) == ("other.md", 3, FIXES["retire_without_reason"])
    nowhere = parse_violation(LedgerParseError("bad", code="x", fix="do y"), PATH)
    assert (nowhere.code, nowhere.path, nowhere.fix) == ("ledger_unparseable", PATH, "do y")


def test_a_merged_ledger_parsed_for_the_excuse_keeps_its_path() -> None:
    """The fast path's merge excuse parses the merged ledger into the shared cache; the
    same blob judged later (without the excuse) is still reported at its path."""
    parser = Parser(Config())
    merge = context(parser, trusted=True, merge=lambda: sides(OURS, [THEIRS]))
    assert judge_change(side(OURS), side(MERGED), merge) == []
    later = judge_change(side(OURS), side(MERGED), context(parser))
    assert {(v.code, v.path) for v in later} == {("immutable_cell_changed", PATH)}


def test_the_bytes_of_a_symlink_are_never_read_as_a_ledger() -> None:
    """A symlinked ledger replaced by a regular file is compared as 'no ledger yet', even
    if the link's bytes happened to read as a ledger; the regular old side is compared."""
    body = FAILURES.encode()
    link = Side("120000", Side.of(body).blob, body)
    new = side(FAILURES.replace(F2, ""))
    assert judge_change(link, new, context()) == []
    assert [v.code for v in judge_change(side(FAILURES), new, context())] == ["row_deleted"]
