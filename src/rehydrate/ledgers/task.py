"""docs/Task.md: phases, the one next action, obligations, writes, approvals, checks."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from .. import digests
from ..mdblocks import front_matter_bounds
from ._document import Context, Finished, check_text, decode, read, tables_by_section
from ._markdown import Section
from ._render import action_words, chaining_problem
from .ids import id_problem
from .model import (
    APPROVALS,
    CHECKS,
    OBLIGATIONS,
    PHASES,
    VERIFIED,
    WRITES,
    Ledger,
    NextAction,
    Schema,
)

SCHEMAS: Mapping[str, Schema | None] = {
    "phases": PHASES,
    "next action": None,
    "obligations": OBLIGATIONS,
    "external writes": WRITES,
    "approvals": APPROVALS,
    "verified": VERIFIED,
    "completion checks": CHECKS,
    "rollback": None,
}
MAX_REVISION_DIGITS = 18
_BULLET = re.compile(r"^(?:[-*+]|\d{1,9}[.)])[ \t]+")


def next_action_problem(text: str) -> str | None:
    """Why ``text`` is not exactly one action on one line, or None if it is.

    Judged on the words a reader sees outside code spans (``action_words``): escapes,
    entities, comments, joiners and look-alike operators do not hide a second action,
    and the chaining judge (``_chaining``) reads structure (sequencing words in several
    languages, ``;``, arrows, numbered and bulleted lists), not a word list.
    """
    if "\n" in text or "\r" in text:
        return "the next action spans more than one line"
    words = action_words(text)
    if "\n" in words or "\r" in words:
        return "the next action spans more than one line (a line break renders in it)"
    chained = chaining_problem(text)
    if chained:
        how = (
            ""
            if words == text
            else " (read as it renders: outside code spans, escapes, entities, emphasis "
            "and invisible characters resolved)"
        )
        return f"the next action chains a second action with {chained}{how}"
    return None


def _next_action(section: Section | None, ctx: Context) -> NextAction | None:
    if section is None:
        return None
    body = [(no, t) for no, t in section.lines if t.strip()]
    if not body:
        return None
    if len(body) > 1 or section.tables:
        raise ctx.refused(
            f"Next action has {len(body)} lines; it must be exactly one action on one line",
            body[1][0] if len(body) > 1 else body[0][0],
            "next_action_not_single",
            "keep one concrete action; move the rest into Phases or Obligations",
        )
    no, line = body[0]
    text = _BULLET.sub("", line.strip())
    check_text(text, ctx, no)
    # judged with its list marker: '1. build 2. deploy' counts on from the marker
    problem = next_action_problem(line.strip())
    if problem:
        raise ctx.refused(
            problem,
            no,
            "next_action_not_single",
            "write one action; record the follow-up as a phase or obligation",
        )
    return NextAction(text, no)


def revision_problem(raw: object) -> str | None:
    """Why a front matter ``revision`` value is not a revision, or None when it is one.

    A plain decimal integer: ASCII digits only, at most ``MAX_REVISION_DIGITS`` of them,
    no sign, no leading zero (but "0"); YAML spellings (0x10, 1_000, 1e3, true) are not.
    """
    if raw is None:
        return "it is missing"
    if not isinstance(raw, str):
        return "it is not a single plain value"
    if len(raw) > MAX_REVISION_DIGITS:
        return f"it has {len(raw)} characters, over the {MAX_REVISION_DIGITS}-digit limit"
    if not raw.isascii() or not raw.isdigit():
        return f"found {raw!r}, not decimal digits"
    if raw != "0" and raw.startswith("0"):
        return f"found {raw!r}, with a leading zero"
    return None


def _finish(
    meta: Mapping[str, object],
    sections: Mapping[str | None, Section],
    ctx: Context,
    lines: Callable[[], list[str]],
) -> Finished:
    """Type the front matter; ``lines`` gives the decoded lines (only an error needs them)."""
    raw = meta.get("revision")
    problem = revision_problem(raw)
    if problem is None and not _plainly_written(lines, raw):
        problem = "found it quoted, tagged or otherwise spelled; write the digits alone"
    if problem is not None:
        raise ctx.refused(
            f"front matter 'revision' must be a plain decimal integer ({problem})",
            _meta_line(lines(), "revision"),
            "revision_invalid",
            "write 'revision: N' in the front matter, N a plain decimal integer of at "
            f"most {MAX_REVISION_DIGITS} digits (e.g. 'revision: 1')",
        )
    fixed = dict(meta)
    fixed["revision"] = int(str(raw))  # at most 18 ASCII digits: far below int()'s limit
    for key in ("task", "objective"):
        value = meta.get(key, "")
        if not isinstance(value, str):
            raise ctx.refused(
                f"front matter '{key}' must be a single line of text",
                1,
                "frontmatter_invalid",
                f"write '{key}: <text>'",
            )
        check_text(value, ctx, 1)
    task_id = str(meta.get("task", ""))  # a string: checked just above
    if task_id and id_problem(task_id) is not None:  # it rides into the prompt header
        raise ctx.refused(
            f"front matter 'task' is not an ID: {id_problem(task_id)}",
            _meta_line(lines(), "task"),
            "id_invalid",
            "write 'task: T-1': an ASCII letter, then up to 31 letters, digits, '.', '_' or '-'",
        )
    return Finished(fixed, _next_action(sections.get("next action"), ctx))


def _plainly_written(lines: Callable[[], list[str]], raw: object) -> bool:
    """Whether the front matter's ``revision:`` line holds exactly the digits that were
    read: the YAML door reads '"4"', "'4'" and '!!int 4' as 4, and each spelling is a byte
    change that must not pass for a revision."""
    decoded = lines()
    at = _meta_line(decoded, "revision") - 1
    if at <= 0:
        return True  # flow style or no front matter line: revision_problem judged it
    text = decoded[at]
    value = text[text.index(":") + 1 :].split(" #", 1)[0].strip(" \t")
    return value == raw


def _meta_line(lines: list[str], key: str) -> int:
    """The line of ``key:`` in the front matter (1 when it has none)."""
    for index in range(1, front_matter_bounds(lines) or 0):
        text = lines[index]
        if text.startswith(key) and text[len(key) :].lstrip(" \t").startswith(":"):
            return index + 1
    return 1


def body_digest(data: bytes) -> str:
    """A digest of ``data`` that a BOM or line endings (CRLF, a final newline) do not
    change, and any other byte does (CONTRACT §2: Task.md changes need a new revision)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data = data.replace(b"\r\n", b"\n")
    if data.endswith(b"\n"):
        data = data[:-1]
    return digests.sha256(data).hexdigest()


def parse(data: bytes, ctx: Context) -> Ledger:
    def finish(
        meta: Mapping[str, object], sections: Mapping[str | None, Section], ctx: Context
    ) -> Finished:
        return _finish(meta, sections, ctx, lambda: decode(data, ctx))

    ledger = read("task", data, ctx, SCHEMAS, tables_by_section(SCHEMAS), finish)
    return ledger._replace(digest=body_digest(data))
