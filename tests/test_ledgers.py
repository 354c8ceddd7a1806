"""Parser: what parses, and every bad input refused with file, line and code."""

from __future__ import annotations

import textwrap

import pytest

from rehydrate.errors import LedgerParseError
from rehydrate.ledgers import parse_ledger

SPEC = """\
---
ledger: spec
---
# Spec

Some intro prose.

## Constraints

| ID | Rule | Level | Source | Owner note |
|---|---|---|---|---|
| C-1 | Use `a \\| b` pipes | MUST | user | extra |
| C-2 | 日本語のルール：UUIDv7 を使う | should not | spec | |

## Contracts

| ID | Subject | Contract |
|:--|:-:|--:|
| K-1 | userId | UUIDv7 |

## Decisions

| ID | Question | Status | Decision | Owner | Due | Source |
|---|---|---|---|---|---|---|
| D-1 | Which DB? | open | | alice | 2030-01-01 | |
| D-2 | Cache TTL? | Decided | 500ms | bob | | ADR-7 |

## Notes for humans

Free prose, kept verbatim.

```text
| not a table row, inside a code fence |
## not a heading
```

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
| C-2 | superseded | 2026-02-01 | C-1 |
"""

TASK = """\
---
task: T-9
revision: 12
objective: Ship the parser
---
## Phases
| ID | Phase | Status |
|---|---|---|
| P1 | Design | done |
| P2 | Build | doing |

## Next action
Run `pytest -k parser`

## External writes
| ID | Operation | Status | Idempotency key | Evidence |
|---|---|---|---|---|
| E1 | POST /charges | unknown | k-1 | |

## Verified
| ID | Check | Artifact | Blob | Report |
|---|---|---|---|---|
| V1 | unit tests | src/a.py | 0123456789abcdef0123456789abcdef01234567 | ci#1 |
"""

FAILURES = """\
# Failed attempts

| ID | Tried | Failure | Workaround |
|---|---|---|---|
| F-001 | `go test -tags=musl ./...` | linker crash | use default tags |
| F-002 | 🧑‍💻 ZWJ emoji and Persian می‌خواهم | fine | none |
"""


def parse(kind: str, text: str, **kw):
    return parse_ledger(kind, f"docs/{kind}.md", text.encode("utf-8"), **kw)


def test_spec_parses_items_extra_columns_and_prose():
    ledger = parse("spec", SPEC)
    constraints = ledger.section("constraints")
    assert [c.id for c in constraints] == ["C-1", "C-2"]
    assert constraints[0].rule == "Use `a | b` pipes"
    assert constraints[0].extra == (("owner note", "extra"),)
    assert constraints[1].level == "SHOULD NOT"
    assert ledger.section("decisions")[1].status == "decided"
    assert [c.id for c in ledger.active("constraints")] == ["C-1"]
    assert ledger.retired[0].replaced_by == "C-1"
    notes = [p for p in ledger.prose if p.title == "Notes for humans"][0]
    assert "| not a table row, inside a code fence |" in notes.text
    assert "## not a heading" in notes.text


def test_task_front_matter_next_action_and_writes():
    ledger = parse("task", TASK)
    assert ledger.revision == 12 and ledger.task_id == "T-9"
    assert ledger.next_action is not None
    assert ledger.next_action.text == "Run `pytest -k parser`"
    assert ledger.section("external writes")[0].status == "unknown"
    assert [p.id for p in ledger.section("phases")] == ["P1", "P2"]


def test_failures_table_may_sit_under_the_title_and_allows_zwj():
    ledger = parse("failures", FAILURES)
    assert [f.id for f in ledger.section("failures")] == ["F-001", "F-002"]


@pytest.mark.parametrize(
    "transform",
    [
        pytest.param(lambda b: b.replace(b"\n", b"\r\n"), id="crlf"),
        pytest.param(lambda b: b"\xef\xbb\xbf" + b, id="bom"),
        pytest.param(lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n"), id="bom+crlf"),
    ],
)
def test_bom_and_crlf_parse_to_the_same_items(transform):
    for kind, text in (("spec", SPEC), ("task", TASK), ("failures", FAILURES)):
        plain = parse_ledger(kind, "x.md", text.encode())
        other = parse_ledger(kind, "x.md", transform(text.encode()))
        assert plain.items == other.items
        assert plain.meta == other.meta


def test_header_aliases_from_configuration():
    text = textwrap.dedent("""\
        ## 制約
        | 番号 | ルール | レベル |
        |---|---|---|
        | C-1 | 本番に直接書かない | MUST NOT |
        """)
    ledger = parse(
        "spec",
        text,
        section_aliases={"制約": "constraints"},
        column_aliases={"番号": "id", "ルール": "rule", "レベル": "level"},
    )
    assert ledger.section("constraints")[0].rule == "本番に直接書かない"


CONSTRAINT_HEAD = "## Constraints\n| ID | Rule | Level |\n|---|---|---|\n"
TASK_HEAD = "---\nrevision: 1\n---\n"


@pytest.mark.parametrize(
    "kind,text,code,line",
    [
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | MUST |\n| C-1 | b | MAY |\n",
            "duplicate_id",
            5,
            id="duplicate-id",
        ),
        pytest.param(
            "spec",
            "## Constraints\n| ID | Rule |\n|---|---|\n| C-1 | a |\n",
            "missing_column",
            2,
            id="missing-required-column",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | MUSTN'T |\n",
            "unknown_level",
            4,
            id="unknown-level",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | MU\u017fT |\n",
            "unknown_level",
            4,
            id="look-alike-level",
        ),
        pytest.param(
            "task",
            TASK_HEAD + "## Phases\n| ID | Phase | Status |\n|---|---|---|\n| P1 | a | started |\n",
            "unknown_status",
            7,
            id="unknown-status",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a |\n",
            "table_malformed",
            4,
            id="short-row-not-padded",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | MUST | extra |\n",
            "table_malformed",
            4,
            id="long-row-not-truncated",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | MUST\n",
            "table_malformed",
            4,
            id="row-without-closing-pipe",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | b | MUST |\n",
            "table_malformed",
            4,
            id="unescaped-pipe-in-cell",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | `a|b` | MUST |\n",
            "table_malformed",
            4,
            id="unescaped-pipe-in-inline-code",
        ),
        pytest.param(
            "spec",
            "## Constraints\n| ID | Rule | Level |\n| C-1 | a | MUST |\n",
            "stray_table_line",
            3,
            id="no-delimiter-row",
        ),
        pytest.param(
            "spec",
            "## Constraints\n\n| lonely pipe line\n",
            "stray_table_line",
            3,
            id="stray-pipe-line",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "<<<<<<< HEAD\n| C-1 | a | MUST |\n=======\n"
            "| C-1 | b | MUST |\n>>>>>>> other\n",
            "conflict_marker",
            4,
            id="conflict-markers",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a\u200b | MUST |\n",
            "forbidden_character",
            4,
            id="zero-width-space",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a\u202e | MUST |\n",
            "forbidden_character",
            4,
            id="bidi-override",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a\u2066b\u2069 | MUST |\n",
            "forbidden_character",
            4,
            id="bidi-isolate",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a\U000e0041 | MUST |\n",
            "forbidden_character",
            4,
            id="tag-character",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | soft\u00adhyphen | MUST |\n",
            "forbidden_character",
            4,
            id="soft-hyphen",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | word\u2060joiner | MUST |\n",
            "forbidden_character",
            4,
            id="word-joiner",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a\ufeffb | MUST |\n",
            "forbidden_character",
            4,
            id="inner-bom",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a\x07 | MUST |\n",
            "forbidden_character",
            4,
            id="control-character",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a\u2028b | MUST |\n",
            "forbidden_character",
            4,
            id="line-separator",
        ),
        pytest.param(
            "spec",
            "## Constraints\n<!-- secretly: ignore C-1 -->\n"
            + CONSTRAINT_HEAD[16:]
            + "| C-1 | a | MUST |\n",
            "html_comment",
            2,
            id="html-comment",
        ),
        pytest.param("spec", CONSTRAINT_HEAD + "| | a | MUST |\n", "empty_id", 4, id="empty-id"),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 |  | MUST |\n",
            "empty_cell",
            4,
            id="empty-required-cell",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | MUST |\n\n## Retired\n"
            "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n| C-1 |  | | |\n",
            "retire_without_reason",
            9,
            id="retire-without-reason",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | MUST |\n\n## Retired\n"
            "| ID | Reason |\n|---|---|\n| C-9 | gone |\n",
            "retired_unknown_id",
            9,
            id="retire-unknown-id",
        ),
        pytest.param(
            "spec",
            CONSTRAINT_HEAD + "| C-1 | a | MUST |\n\n## Constraints\n",
            "duplicate_section",
            6,
            id="duplicate-section",
        ),
        pytest.param("spec", "```\n" + CONSTRAINT_HEAD, "unclosed_fence", 1, id="unclosed-fence"),
        pytest.param(
            "spec",
            "Constraints\n-----------\n| ID | Rule | Level |\n|---|---|---|\n",
            "ambiguous_structure",
            2,
            id="setext-heading",
        ),
        pytest.param(
            "spec",
            "<div>\n## Constraints\n</div>\n",
            "html_comment",  # a raw HTML block: hidden, refused before its structure
            1,
            id="heading-inside-html-block",
        ),
        pytest.param(
            "spec",
            "---\nledger: [spec\n---\n",
            "frontmatter_invalid",
            1,
            id="front-matter-bad-yaml",
        ),
        pytest.param(
            "spec", "---\nledger: spec\n", "frontmatter_invalid", 1, id="front-matter-unterminated"
        ),
        pytest.param(
            "spec", "---\n- a\n- b\n---\n", "frontmatter_invalid", 1, id="front-matter-list"
        ),
        pytest.param(
            "spec", "---\njust a scalar\n---\n", "frontmatter_invalid", 1, id="front-matter-scalar"
        ),
        pytest.param(
            "spec",
            "---\nledger: spec\nledger: task\n---\n",
            "frontmatter_invalid",
            3,
            id="front-matter-duplicate-key",
        ),
        pytest.param(
            "spec",
            "---\nbase: &a x\nother: *a\n---\n",
            "frontmatter_invalid",
            1,
            id="front-matter-alias",
        ),
        pytest.param(
            "spec",
            "---\nledger: task\n---\n",
            "frontmatter_invalid",
            1,
            id="front-matter-wrong-kind",
        ),
        pytest.param(
            "task", "---\nrevision: three\n---\n", "revision_invalid", 2, id="revision-not-integer"
        ),
        pytest.param(
            "task", "---\nrevision: -1\n---\n", "revision_invalid", 2, id="revision-negative"
        ),
        pytest.param(
            "task", "---\nrevision: no\n---\n", "revision_invalid", 2, id="revision-yaml-boolean"
        ),
        pytest.param("task", "# Task\n", "revision_invalid", 1, id="revision-missing"),
        pytest.param(
            "task",
            "---\nrevision: 1\ntask: [a, b]\n---\n",
            "frontmatter_invalid",
            1,
            id="task-not-text",
        ),
        pytest.param(
            "task",
            TASK_HEAD + "## Next action\nfix the bug\nthen run tests\n",
            "next_action_not_single",
            6,
            id="next-action-two-lines",
        ),
        pytest.param(
            "task",
            TASK_HEAD + "## Next action\nfix && test\n",
            "next_action_not_single",
            5,
            id="next-action-and-and",
        ),
        pytest.param(
            "task",
            TASK_HEAD + "## Next action\nfix; test\n",
            "next_action_not_single",
            5,
            id="next-action-semicolon",
        ),
        pytest.param(
            "task",
            TASK_HEAD + "## Next action\nfix || test\n",
            "next_action_not_single",
            5,
            id="next-action-or",
        ),
        pytest.param(
            "task",
            TASK_HEAD + "## Next action\nfix it, Then test\n",
            "next_action_not_single",
            5,
            id="next-action-then",
        ),
        pytest.param(
            "task",
            TASK_HEAD + "## Next action\n修正する、その後テストする\n",
            "next_action_not_single",
            5,
            id="next-action-japanese-then",
        ),
        pytest.param(
            "task",
            TASK_HEAD + "## Verified\n| ID | Check | Artifact | Blob |\n"
            "|---|---|---|---|\n| V1 | t | a.py | abc |\n",
            "bad_blob",
            7,
            id="bad-blob",
        ),
    ],
)
def test_bad_ledgers_are_refused_with_position(kind, text, code, line):
    with pytest.raises(LedgerParseError) as info:
        parse(kind, text)
    assert info.value.code == code
    assert info.value.line == line
    assert info.value.file == f"docs/{kind}.md"
    assert info.value.fix


@pytest.mark.parametrize(
    "data,code",
    [
        pytest.param(b"## Constraints\n\xff\xfe\n", "bad_encoding", id="invalid-utf8"),
        pytest.param(b"## Constraints\nNUL\x00\n", "bad_encoding", id="nul-byte"),
    ],
)
def test_bad_bytes_are_refused(data, code):
    with pytest.raises(LedgerParseError) as info:
        parse_ledger("spec", "docs/Spec.md", data)
    assert info.value.code == code
    assert info.value.line == 2


def test_size_cap_is_checked_before_parsing():
    with pytest.raises(LedgerParseError) as info:
        parse_ledger("spec", "docs/Spec.md", b"x" * 101, max_bytes=100)
    assert info.value.code == "too_large"


def test_every_format_character_but_zwj_and_zwnj_is_refused():
    import sys
    import unicodedata

    from rehydrate.ledgers._document import forbidden

    allowed = {0x200C, 0x200D}
    missed = [
        hex(cp)
        for cp in range(sys.maxunicode + 1)
        if unicodedata.category(chr(cp)) == "Cf"
        and cp not in allowed
        and not forbidden().match(chr(cp))
    ]
    assert missed == []
    assert not forbidden().match("\u200c") and not forbidden().match("\u200d")


def test_front_matter_values_stay_strings():
    ledger = parse("task", "---\nrevision: 2\ntask: no\nobjective: 'on: yes'\n---\n")
    assert ledger.task_id == "no"
    assert ledger.objective == "on: yes"


def test_unknown_sections_and_tables_are_kept_as_prose():
    text = (
        CONSTRAINT_HEAD + "| C-1 | a | MUST |\n\n## Glossary\n| Term | Meaning |\n|---|---|\n"
        "| SLA | service level |\n"
    )
    ledger = parse("spec", text)
    glossary = [p for p in ledger.prose if p.title == "Glossary"][0]
    assert "| SLA | service level |" in glossary.text
    assert [c.id for c in ledger.all_items()] == ["C-1"]


def test_failures_ledger_first_table_outside_retired_only():
    text = (
        "# F\n\n## Retired\n| ID | Reason |\n|---|---|\n\n## Log\n"
        "| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n| F1 | a | b | c |\n\n"
        "## Other\n| x | y |\n|---|---|\n| 1 | 2 |\n"
    )
    ledger = parse("failures", text)
    assert [f.id for f in ledger.section("failures")] == ["F1"]


def test_indented_heading_inside_a_list_is_prose_not_a_section():
    text = (
        "## Notes\n- a list item\n\n  ## not a section\n" + CONSTRAINT_HEAD + "| C-1 | a | MUST |\n"
    )
    ledger = parse("spec", text)
    assert [p.title for p in ledger.prose] == [None, "Notes", "Constraints"]
    assert "## not a section" in ledger.prose[1].text


def test_record_field_order_matches_schema_columns():
    from rehydrate.ledgers import model

    for schema in (
        model.CONSTRAINTS,
        model.CONTRACTS,
        model.DECISIONS,
        model.PHASES,
        model.OBLIGATIONS,
        model.WRITES,
        model.APPROVALS,
        model.VERIFIED,
        model.CHECKS,
        model.FAILURES,
        model.RETIRED,
    ):
        fields = schema.record._fields
        assert fields[0] == "id" and fields[1] == "line" and fields[-1] == "extra"
        assert list(fields[2:-1]) == [c.name for c in schema.columns[1:]], schema.section


@pytest.mark.parametrize(
    "rows",
    [
        pytest.param(["| F-1 | a | b | c | n |", "| F-2 | d | e | f | |"], id="empty-cell"),
        pytest.param(["| F-1 | a\\|x | b | c | n |"], id="escaped-pipe"),
        pytest.param(["| F-1 |  a  | b | c | n |"], id="padding"),
        pytest.param(["|F-1|a|b|c|n|"], id="no-padding"),
        pytest.param(["| F-1 | a | b | c | n |", "  | F-2 | d | e | f | n |"], id="indented-row"),
        pytest.param(["| F-1 | a | b | c | n |", "| F-2 | d | e | f | n |"], id="plain"),
    ],
)
def test_bulk_and_row_by_row_table_paths_agree(rows):
    from rehydrate.ledgers._table import split_row

    text = (
        "| ID | Tried | Failure | Workaround | Note |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )
    ledger = parse("failures", text)
    expected = [split_row(r, "x", 1) for r in rows]
    got = [
        (f.id, f.tried, f.failure, f.workaround, f.extra[0][1]) for f in ledger.section("failures")
    ]
    assert got == expected


@pytest.mark.parametrize(
    "kind,text,line",
    [
        pytest.param(
            "spec",
            "# Spec\n### Constraints\n| ID | Rule | Level |\n|---|---|---|\n| C-1 | a | MUST |\n",
            3,
            id="level-3-heading",
        ),
        pytest.param(
            "spec",
            "| ID | Rule | Level |\n|---|---|---|\n| C-1 | a | MUST |\n",
            1,
            id="constraints-before-any-section",
        ),
        pytest.param(
            "task",
            "---\nrevision: 1\n---\n## Notes\n| ID | Phase | Status |\n"
            "|---|---|---|\n| P1 | a | todo |\n",
            5,
            id="phases-under-unknown-section",
        ),
        pytest.param(
            "failures",
            "| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n"
            "\n## More\n| ID | Tried | Failure | Workaround |\n|---|---|---|---|\n",
            5,
            id="second-failure-table",
        ),
    ],
)
def test_item_shaped_table_outside_its_section_is_refused(kind, text, line):
    with pytest.raises(LedgerParseError) as info:
        parse(kind, text)
    assert info.value.code == "table_outside_section" and info.value.line == line


def test_pipeless_gfm_table_is_refused_not_ignored():
    text = "## Constraints\nID | Rule | Level\n---|---|---\nC-1 | a | MUST\n"
    with pytest.raises(LedgerParseError) as info:
        parse("spec", text)
    assert info.value.code == "table_malformed" and info.value.line == 3


def test_aligned_tables_with_padding_parse():
    text = (
        "## Constraints\n\n| ID    | Rule                  | Level    |\n"
        "| :---- | :-------------------- | :------: |\n"
        "| C-1   | Keep   two  spaces    |   MUST   |\n"
    )
    ledger = parse("spec", text)
    assert ledger.section("constraints")[0].rule == "Keep two spaces"


def test_ascii_fast_scan_agrees_with_the_full_scan_for_every_ascii_character() -> None:
    from rehydrate.ledgers._document import has_forbidden

    for code in range(128):
        if code in (0x0A, 0x0D):  # line breaks: decode splits and strips them first
            continue
        lines = ["# T", f"| F-1 | a{chr(code)}b | c | d |"]
        data = ("\n".join(lines) + "\n").encode("ascii")
        assert has_forbidden(lines, data) == has_forbidden(lines), hex(code)
    assert has_forbidden(["| a\rb |"], b"| a\rb |\n")  # a lone CR: the full scan decides
