"""Markdown document structure: level-2 sections, fenced code, tables and prose.

A line scanner finds sections, code fences and table blocks in one linear pass;
it is exact for the plain ATX style ledgers use. Where the prose holds
constructs on which a line scanner and CommonMark could disagree (setext
underlines, HTML blocks, indented '#'), mistune's AST is consulted as a second
opinion and any disagreement is an error: fail closed, never guess.
"""

import re
from itertools import repeat

from ..errors import LedgerParseError
from ..mdblocks import fence_closes, fence_open
from ..records import NamedTuple
from ._render import hidden_markup
from ._table import Table, parse_table

_CONFLICT = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: |$)|^={7}$")
_DELIMITER_CELL = re.compile(r":?-+:?")
# A line at column 0 that starts a block of its own (a list item, a heading, a quote):
# nothing of the lines before continues into it, so the prose check can cut there.
_NEW_BLOCK = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|#|>")
_AMBIGUOUS = re.compile(r"^(?: {0,3}<|[ \t]+#|\t| {0,3}(?:=+|-+)[ \t]*$)")


def heading2_title(text: str) -> str | None:
    """The title of a level-2 ATX heading line ('## Name', '## Name ##'), else None.

    String methods only: a regular expression here was quadratic on '## a', 60,000
    spaces and 'b'. A closing run of '#' is dropped when a space or tab precedes it.
    """
    if not text.startswith("##") or (len(text) > 2 and text[2] not in " \t"):
        return None
    title = text[2:].strip(" \t")
    bare = title.rstrip("#")
    if not bare:
        return ""
    if len(bare) < len(title) and bare[-1] in " \t":
        return bare.rstrip(" \t")
    return title


def _pipeless_delimiter(text: str) -> bool:
    """A GFM delimiter row written without the leading pipe ('---|---'): a table whose
    rows the strict parser would not see."""
    body = text.strip(" \t")
    if body.endswith("|"):
        body = body[:-1]
    parts = body.split("|")
    return len(parts) >= 2 and all(_DELIMITER_CELL.fullmatch(p.strip(" \t")) for p in parts)


def _refuse_hidden(text: str, path: str, no: int) -> None:
    problem = hidden_markup(text)
    if problem:
        raise LedgerParseError(
            f"{problem}: invisible when rendered, still read by the model",
            file=path,
            line=no,
            item_id=_row_id(text),
            code="html_comment",
            fix="write the note as visible text, e.g. a '> ' quote line (a literal '<' can "
            "be written '&lt;')",
        )


def _refuse_hidden_prose(
    lines: list[str],
    prose: list[tuple[int, str]],
    piped: list[bool],
    path: str,
    first_line: int,
) -> None:
    """Judge the prose as one document (a link title or a tag's attributes may continue
    on the next line), tables and fenced code blanked; name the line a construct starts.

    Only called when a prose line holds '<' or '[', the characters every hiding
    construct starts with; the document then spans the first to the last such line's
    blocks, which is all the AST needs to see them in context."""
    from ._render import hidden_markup
    from ._visible import render

    keep = _prose_mask(lines, piped)
    for start, end in _blocks(lines, keep):
        if not any(start <= o < end for o, _ in prose):
            continue
        found = render("\n".join(lines[start:end])).hidden
        if found:
            break
    else:
        return
    offset = next((o for o, t in prose if start <= o < end and hidden_markup(t)), None)
    if offset is None:
        offset = next(o for o, _ in prose if start <= o < end)
    line = lines[offset]
    raise LedgerParseError(
        f"{hidden_markup(line) or found[0]}: invisible when rendered, still read by the model",
        file=path,
        line=first_line + offset,
        item_id=_row_id(line),
        code="html_comment",
        fix="write the note as visible text, e.g. a '> ' quote line (a literal '<' can "
        "be written '&lt;', a link without a title: [text](url))",
    )


def _blocks(lines: list[str], keep: list[bool]) -> list[tuple[int, int]]:
    """[start, end) runs of prose lines, split before a line at column 0 that follows a
    blank line (or a table or code) or starts a list item, heading or quote: an
    indented line may continue a list item or a quote, so it stays in its block."""
    out: list[tuple[int, int]] = []
    start: int | None = None
    gap = False
    for index, text in enumerate(lines):
        blank = not keep[index] or not text.strip()
        if blank:
            gap = gap or start is not None
            continue
        if start is None:
            start = index
        elif text[:1] not in (" ", "\t") and (gap or _NEW_BLOCK.match(text)):
            out.append((start, index))
            start = index
        gap = False
    if start is not None:
        out.append((start, len(lines)))
    return out


def _prose_mask(lines: list[str], piped: list[bool]) -> list[bool]:
    """Which lines are prose: not a table row, not inside or opening a code fence."""
    keep = [True] * len(lines)
    fence: tuple[str, int] | None = None
    for index, text in enumerate(lines):
        if fence is not None:
            keep[index] = False
            if fence_closes(text, fence):
                fence = None
            continue
        if piped[index] or text.lstrip(" \t").startswith("|"):
            keep[index] = False
            continue
        fence = fence_open(text)
        if fence is not None:
            keep[index] = False
    return keep


def _row_id(text: str) -> str | None:
    """The ID of the table row ``text`` is, when its first cell holds a valid one."""
    from .ids import id_problem

    body = text.lstrip(" \t")
    if not body.startswith("|"):
        return None
    first = body[1:].split("|", 1)[0].strip(" \t")
    return first if first and id_problem(first) is None else None


class Section(NamedTuple):
    """A level-2 section (title None for the text before the first heading)."""

    title: str | None
    line: int  # heading line, or first body line of the preamble
    tables: tuple[Table, ...]
    lines: tuple[tuple[int, str], ...]  # every body line, tables included, verbatim


# One pass over the lines: its branches are the block grammar (docs/design.md, Sizes).
def split_sections(  # noqa: C901
    lines: list[str], path: str, first_line: int, *, markup: bool = True
) -> tuple[Section, ...]:
    """Split body lines (already decoded, no line endings) into sections.

    ``markup`` False says no line holds '<' or '[', so none can hold hidden markup.
    """
    sections: list[Section] = []
    title: str | None = None
    head_line = first_line
    tables: list[Table] = []
    body: list[tuple[int, str]] = []
    pending: list[tuple[int, str]] = []
    fence: tuple[str, int] | None = None
    fence_line = 0
    ambiguous = False
    heading_count = 0
    shadow: list[str] = []  # the document with table lines blanked, for mistune
    prose: list[tuple[int, str]] = []  # (offset, text) of prose lines holding '<' or '['

    def flush_table() -> None:
        if pending:
            tables.append(parse_table(pending, path))
            pending.clear()

    def close_section() -> None:
        flush_table()
        sections.append(Section(title, head_line, tuple(tables), tuple(body)))

    # Whether each line starts with '|': lets the loop take a run of table rows in one step.
    piped = [text[:1] == "|" for text in lines] + [False]
    total = len(lines)
    offset = 0
    while offset < total:
        text = lines[offset]
        no = first_line + offset
        if fence is None and piped[offset]:
            end = piped.index(False, offset)  # hot path: a run of rows at column 0
            run = lines[offset:end]
            bad = None
            if any(map(str.startswith, run, repeat("|||||||"))):
                bad = next((i for i, t in enumerate(run) if _CONFLICT.match(t)), None)
            if bad is not None:
                raise LedgerParseError(
                    "merge-conflict marker",
                    file=path,
                    line=no + bad,
                    code="conflict_marker",
                    fix="resolve the conflict (or use `rehydrate merge-driver`) before committing",
                )
            if markup and (
                any(map(str.__contains__, run, repeat("<")))
                or any(map(str.__contains__, run, repeat("[")))
            ):
                for index, row in enumerate(run):
                    _refuse_hidden(row, path, no + index)
            numbered = list(zip(range(no, no + len(run)), run, strict=True))
            pending.extend(numbered)
            body.extend(numbered)
            shadow.extend([""] * len(run))
            offset = end
            continue
        offset += 1
        if _CONFLICT.match(text):
            raise LedgerParseError(
                "merge-conflict marker",
                file=path,
                line=no,
                code="conflict_marker",
                fix="resolve the conflict (or use `rehydrate merge-driver`) before committing",
            )
        shadow.append("" if fence is None and text.lstrip(" \t").startswith("|") else text)
        if fence is not None:
            body.append((no, text))
            if fence_closes(text, fence):
                fence = None
            continue
        if text.lstrip(" \t").startswith("|"):
            if markup:
                _refuse_hidden(text, path, no)
            pending.append((no, text))
            body.append((no, text))
            continue
        flush_table()
        fence = fence_open(text)
        if fence is not None:
            fence_line = no
            body.append((no, text))
            continue
        if markup and ("<" in text or "[" in text):
            _refuse_hidden(text, path, no)  # a construct within the line: named at once
            prose.append((offset - 1, text))
        if "-" in text and "|" in text and _pipeless_delimiter(text):
            raise LedgerParseError(
                "a table written without leading pipes",
                file=path,
                line=no,
                code="table_malformed",
                fix="start and end every table line with '|' ('| ID | Rule |', '|---|---|')",
            )
        heading = heading2_title(text) if text[:2] == "##" else None
        if heading is not None:
            close_section()
            title = heading.strip()
            head_line = no
            tables, body = [], []
            heading_count += 1
            continue
        if _AMBIGUOUS.match(text):
            ambiguous = True
        body.append((no, text))
    if fence is not None:
        raise LedgerParseError(
            "code fence is never closed",
            file=path,
            line=fence_line,
            code="unclosed_fence",
            fix="close the fence; everything after it would be hidden from the parser",
        )
    close_section()
    if prose:
        _refuse_hidden_prose(lines, prose, piped, path, first_line)
    if ambiguous:
        _cross_check(sections, shadow, heading_count, path)
    return tuple(sections)


def _cross_check(sections: list[Section], shadow: list[str], heading_count: int, path: str) -> None:
    """Ask mistune how many top-level level-2 headings the document really has."""
    import mistune

    # Block structure only: inline parsing cannot add or remove a heading, and mistune's
    # inline scanner is super-linear on runs of '*' or '[' (seconds on a 1 MB line).
    block = mistune.create_markdown(renderer=None).block
    state = block.state_cls()
    state.process("\n".join(shadow) + "\n")
    block.parse(state)
    tokens = state.tokens
    seen = sum(
        1
        for tok in tokens
        if isinstance(tok, dict)
        and tok.get("type") == "heading"
        and tok.get("attrs", {}).get("level") == 2
    )
    if seen != heading_count:
        suspect = _first_suspect(sections)
        raise LedgerParseError(
            f"section structure is ambiguous: {seen} level-2 headings per CommonMark, "
            f"{heading_count} written as '## ' lines",
            file=path,
            line=suspect,
            code="ambiguous_structure",
            fix="write sections as '## Name' at the start of a line (no setext '---' "
            "underlines, no headings inside HTML or lists)",
        )


def _first_suspect(sections: list[Section]) -> int | None:
    for section in sections:
        for no, text in section.lines:
            if not text.lstrip(" \t").startswith("|") and _AMBIGUOUS.match(text):
                return no
    return None
