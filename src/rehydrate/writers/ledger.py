"""Ledger writers: byte-exact edits that touch only their own rows, under a lock, with CAS.

An edit is a pure function ``bytes -> bytes`` over one ledger file: it appends a
row after the last row of a section's table, rewrites the cells it owns in one
row, replaces the Next action line, or raises Task's ``revision`` digits. Every
other byte — BOM, CRLF, padding of other rows, extra columns, prose, the final
newline — comes out as it went in. ``write()`` then runs the edit under the
ledger's ``flock``, opens the ledger's directory once without following
symlinks, re-reads the ledger and re-checks the caller's compare-and-swap
precondition inside the lock, parses the result, asks the guard, and replaces
the file atomically relative to that directory (``atomicfile.write_at``).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from .. import git
from ..config import Config
from ..errors import CASConflict, LedgerParseError, Refused, RehydrateError
from ..git import changes as git_changes
from ..ledgers import (
    Context,
    Ledger,
    Section,
    Table,
    canonical_section,
    check_text,
    normalize,
    parse_ledger,
    render_row,
    split_front_matter,
    split_sections,
    visible,
)
from ..ledgers.atomicfile import (
    ledger_lock,
    open_dir,
    read_at,
    split_relpath,
    sweep_temp_files,
    write_at,
)
from ..ledgers.ids import using
from ..ledgers.model import (
    APPROVALS,
    CHECKS,
    CONSTRAINTS,
    CONTRACTS,
    DECISIONS,
    FAILURES,
    LEVEL_STRENGTH,
    OBLIGATIONS,
    PHASES,
    RETIRED,
    VERIFIED,
    WRITES,
    Schema,
)
from ..ledgers.rowedit import Text, insert_lines, join_text, replace_line, rewrite_cells, split_text

SCHEMAS: Mapping[str, Schema] = {
    s.section: s
    for s in (
        CONSTRAINTS,
        CONTRACTS,
        DECISIONS,
        PHASES,
        OBLIGATIONS,
        WRITES,
        APPROVALS,
        VERIFIED,
        CHECKS,
        FAILURES,
        RETIRED,
    )
}
TITLES: Mapping[str, str] = {
    "constraints": "Constraints",
    "contracts": "Contracts",
    "decisions": "Decisions",
    "phases": "Phases",
    "next action": "Next action",
    "obligations": "Obligations",
    "external writes": "External writes",
    "approvals": "Approvals",
    "verified": "Verified",
    "completion checks": "Completion checks",
    "failures": "Failures",
    "retired": "Retired",
}
# The ID a section starts with when it has no rows yet (the templates' style).
FIRST_IDS: Mapping[str, str] = {
    "constraints": "C-001",
    "contracts": "K-001",
    "decisions": "D-001",
    "phases": "P1",
    "obligations": "O-001",
    "external writes": "E-001",
    "approvals": "A-001",
    "verified": "V-001",
    "completion checks": "X-001",
    "failures": "F-001",
}
_BULLET = re.compile(r"^([ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)")
_REVISION = re.compile(r"^(revision:[ \t]*[\"']?)(\d+)([\"']?[ \t]*(?:#.*)?)$")


# Finding sections, tables and rows (the parser's own scanner, so both agree).


def _sections(text: Text, ctx: Context) -> list[tuple[str | None, Section]]:
    lines = list(text.lines)
    _, skip = split_front_matter(lines, ctx.path)
    sections = split_sections(lines[skip:], ctx.path, skip + 1)
    return [(canonical_section(s, ctx), s) for s in sections]


def _section_table(
    kind: str, keyed: list[tuple[str | None, Section]], name: str
) -> tuple[Section | None, Table | None]:
    """The section and the table that holds ``name``'s rows (the last one if several)."""
    if kind == "failures" and name == "failures":
        for key, section in keyed:  # the failure table is the first table outside Retired
            if key != "retired" and section.tables:
                return section, section.tables[0]
        return None, None
    for key, section in keyed:
        if key == name:
            return section, (section.tables[-1] if section.tables else None)
    return None, None


def _column_index(table: Table, ctx: Context) -> dict[str, int]:
    out: dict[str, int] = {}
    for pos, raw in enumerate(table.header):
        name = raw.lower()
        out[ctx.column_aliases.get(name, name)] = pos
    return out


def _header_title(header: str) -> str:
    return "ID" if header == "id" else header[:1].upper() + header[1:]


def _end_of_section(text: Text, keyed: list[tuple[str | None, Section]], key: str) -> int:
    """0-based index just past the last non-blank line of section ``key``."""
    for position, (k, section) in enumerate(keyed):
        if k == key:
            end = keyed[position + 1][1].line - 1 if position + 1 < len(keyed) else len(text.lines)
            while end > section.line and not text.lines[end - 1].strip():
                end -= 1
            return end
    raise KeyError(key)


def _new_section_index(
    text: Text, keyed: list[tuple[str | None, Section]], after: Sequence[str]
) -> int:
    """Where a missing section goes: after the first of ``after`` present, else before
    ``## Retired``, else at the end."""
    present = {k for k, _ in keyed}
    for key in after:
        if key in present:
            index = _end_of_section(text, keyed, key)
            nxt = [s.line - 1 for k, s in keyed if s.line - 1 >= index and s.title is not None]
            return min(nxt) if nxt else len(text.lines)
    for name, section in keyed:
        if name == "retired":
            return section.line - 1
    return len(text.lines)


def _add_block(text: Text, index: int, block: list[str]) -> Text:
    """Insert a block of lines at ``index`` separated from its neighbours by blank lines."""
    if index > 0 and text.lines[index - 1].strip():
        block = ["", *block]
    if index < len(text.lines) and text.lines[index].strip():
        block = [*block, ""]
    return insert_lines(text, index, block)


SECTION_ORDER: Mapping[str, tuple[str, ...]] = {
    # a missing section is created after the nearest earlier one that exists
    "constraints": (),
    "contracts": ("constraints",),
    "decisions": ("contracts", "constraints"),
    "phases": (),
    "next action": ("phases",),
    "obligations": ("next action", "phases"),
    "external writes": ("obligations", "next action", "phases"),
    "approvals": ("external writes", "obligations", "next action", "phases"),
    "verified": ("approvals", "external writes", "obligations", "next action", "phases"),
    "completion checks": (
        "verified",
        "approvals",
        "external writes",
        "obligations",
        "next action",
        "phases",
    ),
    "failures": (),
    "retired": (),
}


# Pure edits: bytes in, bytes out.


def append_row(
    data: bytes, kind: str, section: str, values: Mapping[str, str], ctx: Context
) -> bytes:
    """Add one row after the last row of ``section``'s table (creating it if missing).

    ``values`` maps canonical column names to cell text; columns it does not name
    (extra columns included) get empty cells.
    """
    text = split_text(data)
    keyed = _sections(text, ctx)
    owner, table = _section_table(kind, keyed, section)
    schema = SCHEMAS[section]
    if table is not None:
        index = _column_index(table, ctx)
        unknown = [c for c, v in values.items() if v and c not in index]
        if unknown:
            raise RehydrateError(
                f"the {section!r} table has no {', '.join(repr(u) for u in unknown)} column",
                file=ctx.path,
                line=table.line,
                code="missing_column",
                fix=f"add the column to the table header in {ctx.path}, or leave the option out",
            )
        by_position = {pos: name for name, pos in index.items()}
        cells = [values.get(by_position[pos], "") for pos in range(len(table.header))]
        return join_text(insert_lines(text, table.end_line, [render_row(cells)]))
    header = [c.header for c in schema.columns]
    block = [
        render_row([_header_title(h) for h in header]),
        "|" + "---|" * len(header),
        render_row([values.get(h, "") for h in header]),
    ]
    if owner is not None:  # the section exists but holds no table yet
        return join_text(_add_block(text, _end_of_section(text, keyed, section), block))
    title = TITLES[section]
    where = _new_section_index(text, keyed, SECTION_ORDER.get(section, ()))
    if section == "retired":
        where = len(text.lines)
    return join_text(_add_block(text, where, [f"## {title}", "", *block]))


def set_cells(
    data: bytes, kind: str, section: str, item_id: str, values: Mapping[str, str], ctx: Context
) -> bytes:
    """Rewrite the named cells of row ``item_id``; other cells keep their exact bytes."""
    text = split_text(data)
    keyed = _sections(text, ctx)
    candidates = [
        t
        for k, s in keyed
        if (k == section or (kind == "failures" and k != "retired"))
        for t in s.tables
    ]
    for table in candidates:
        index = _column_index(table, ctx)
        if "id" not in index:
            continue
        for row in table.rows:
            if row.cells[index["id"]] != item_id:
                continue
            missing = [c for c in values if c not in index]
            if missing:
                raise RehydrateError(
                    f"the {section!r} table has no {', '.join(repr(m) for m in missing)} column",
                    file=ctx.path,
                    line=table.line,
                    item_id=item_id,
                    code="missing_column",
                    fix=f"add the column to the table header in {ctx.path}",
                )
            updates = {index[c]: v for c, v in values.items()}
            line = rewrite_cells(text.lines[row.line - 1], updates)
            return join_text(replace_line(text, row.line - 1, line))
    raise RehydrateError(
        f"no {section} row with ID {item_id}",
        file=ctx.path,
        item_id=item_id,
        code="unknown_id",
        fix="check the ID (rehydrate state)",
    )


def set_next_action(data: bytes, action: str, ctx: Context) -> bytes:
    """Replace the one Next action line (keeping its bullet), or create the section."""
    text = split_text(data)
    keyed = _sections(text, ctx)
    for key, section in keyed:
        if key != "next action":
            continue
        body = [(no, t) for no, t in section.lines if t.strip()]
        if body:
            no, old = body[0]
            prefix = _BULLET.match(old)
            return join_text(
                replace_line(text, no - 1, (prefix.group(1) if prefix else "") + action)
            )
        return join_text(_add_block(text, section.line, [action]))
    where = _new_section_index(text, keyed, SECTION_ORDER["next action"])
    return join_text(_add_block(text, where, ["## Next action", "", action]))


def bump_revision(data: bytes, path: str) -> tuple[bytes, int]:
    """Raise Task's front-matter ``revision`` by exactly one, editing only its digits."""
    text = split_text(data)
    if text.lines and text.lines[0].rstrip(" \t") == "---":
        for index in range(1, len(text.lines)):
            line = text.lines[index]
            if line.rstrip(" \t") in ("---", "..."):
                break
            match = _REVISION.match(line)
            if match:
                value = int(match.group(2)) + 1
                new = match.group(1) + str(value) + match.group(3)
                return join_text(replace_line(text, index, new)), value
    raise LedgerParseError(
        "front matter has no 'revision: N' line to raise",
        file=path,
        line=1,
        code="revision_invalid",
        fix="start Task.md with '---', 'revision: 1', '---'",
    )


def next_id(ledger: Ledger, section: str, content: Mapping[str, str] | None = None) -> str:
    """The next free ID in the section's own style (prefix, zero padding).

    The number is one more than the highest used with that prefix anywhere in the
    file — retired items and other sections included — so an ID is never reused.
    Minted by ``rehydrate.ids`` under the current policy (``id_scheme``: a
    ``branch-safe`` ID adds a tag hashed from the branch and ``content``).
    """
    from ..ledgers.ids import current_policy, style_of
    from ..ledgers.ids import next_id as mint

    prefix, width = style_of([r.id for r in ledger.section(section)], FIRST_IDS[section])
    used = [r.id for r in ledger.all_items()] + [r.id for r in ledger.retired]
    policy = current_policy()
    return mint(used, prefix, policy.scheme, width=width, branch=policy.branch, content=content)


# Operations: what each command does to its ledger.


@dataclass(frozen=True)
class Change:
    data: bytes
    item_id: str


@dataclass(frozen=True)
class Operation:
    """One writer command: which ledger, what to call it in a commit, and the edit."""

    kind: str
    action: str  # "fail add", "task phase", ...
    edit: Callable[[bytes, Ledger, Context], Change]


def cell(option: str, value: str | None, *, required: bool = True) -> str:
    """Validate one cell's input: one line, no invisible characters, non-empty if required."""
    value = value or ""
    if "\n" in value or "\r" in value:
        raise RehydrateError(
            f"{option} contains a line break; a table cell holds one line",
            code="bad_value",
            fix="write it on one line (separate parts with '; ')",
        )
    try:
        check_text(value, Context(option, {}, {}), 0)
    except LedgerParseError as exc:
        raise RehydrateError(f"{option}: {exc.message}", code="bad_value", fix=exc.fix) from None
    value = normalize(value)
    if required and not visible(value):
        raise RehydrateError(
            f"{option} is empty" + (" (nothing in it renders)" if value else ""),
            code="empty_value",
            fix=f"give {option} a visible value",
        )
    return value


def check_id(value: str, option: str = "ID") -> str:
    """Refuse an ID argument that is not an ID (CONTRACT §2), without echoing it whole."""
    from ..ledgers.ids import id_problem

    problem = id_problem(value)
    if problem is not None:
        raise RehydrateError(
            f"{option}: {problem}",
            code="id_invalid",
            fix="IDs are ASCII: a letter, then up to 31 letters, digits, '.', '_' or '-'",
        )
    return value


def _require(ledger: Ledger, section: str, item_id: str) -> None:
    check_id(item_id)
    if not any(r.id == item_id for r in ledger.section(section)):
        raise RehydrateError(
            f"no {section} item with ID {item_id}",
            file=ledger.path,
            item_id=item_id,
            code="unknown_id",
            fix="check the ID (rehydrate state)",
        )


def add_row(kind: str, action: str, section: str, values: Mapping[str, str]) -> Operation:
    """Append a row with the next free ID."""

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        item_id = next_id(ledger, section, values)
        return Change(append_row(data, kind, section, {"id": item_id, **values}, ctx), item_id)

    return Operation(kind, action, edit)


def update_row(
    kind: str, action: str, section: str, item_id: str, values: Mapping[str, str]
) -> Operation:
    """Rewrite some cells of an existing row."""
    check_id(item_id)

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        _require(ledger, section, item_id)
        return Change(set_cells(data, kind, section, item_id, values, ctx), item_id)

    return Operation(kind, action, edit)


def next_action(action: str) -> Operation:
    """Set Task's single Next action."""
    from ..ledgers.task import next_action_problem

    problem = next_action_problem(action)
    if problem:
        raise Refused(
            problem,
            code="next_action_not_single",
            fix="write one action; record the follow-up as a phase or obligation",
        )

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        return Change(set_next_action(data, action, ctx), "next action")

    return Operation("task", "task next", edit)


def retire(
    kind: str, item_id: str, reason: str, replaced_by: str = "", date: str | None = None
) -> Operation:
    """Add a ``## Retired`` row for an existing item of ``kind``'s ledger."""

    check_id(item_id)
    if replaced_by:
        check_id(replaced_by, "--replaced-by")

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        if not any(r.id == item_id for r in ledger.all_items()):
            raise RehydrateError(
                f"no item with ID {item_id} in {ledger.path}",
                file=ledger.path,
                item_id=item_id,
                code="unknown_id",
                fix="check the ID (rehydrate state)",
            )
        if item_id in ledger.retired_ids:
            raise Refused(
                "already retired",
                file=ledger.path,
                item_id=item_id,
                code="already_retired",
                fix="nothing to do",
            )
        values = {
            "id": item_id,
            "reason": reason,
            "date": date or _today(),
            "replaced by": replaced_by,
        }
        return Change(append_row(data, kind, "retired", values, ctx), item_id)

    return Operation(kind, f"{'fail' if kind == 'failures' else kind} retire", edit)


def _today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


def level(value: str) -> str:
    canon = normalize(value).upper()
    if canon not in LEVEL_STRENGTH:
        raise RehydrateError(
            f"unknown level {value!r}",
            code="unknown_level",
            fix="use one of: " + ", ".join(LEVEL_STRENGTH),
        )
    return canon


def status(section: str, value: str) -> str:
    canon = normalize(value).lower()
    allowed = SCHEMAS[section].values["status"]
    if canon not in allowed:
        raise RehydrateError(
            f"unknown {section} status {value!r}",
            code="unknown_status",
            fix="use one of: " + ", ".join(allowed),
        )
    return canon


def artifact_blob(repo: git.Repo, path: str, cwd: str | None = None) -> tuple[str, str]:
    """(repo-relative path, git blob id) of a work-tree file; refuses what leaves the repo."""
    absolute = os.path.normpath(os.path.join(cwd or os.getcwd(), path))
    root = os.path.realpath(repo.root)
    relative = os.path.relpath(absolute, repo.root)
    relative = relative.replace(os.sep, "/")
    if relative == ".." or relative.startswith("../") or os.path.isabs(relative):
        raise RehydrateError(
            f"{path} is outside the repository",
            file=path,
            code="path_outside_repo",
            fix="name a file inside the repository",
        )
    if relative.split("/")[0] == ".git":
        raise RehydrateError(
            f"{path} is inside .git",
            file=path,
            code="path_outside_repo",
            fix="name a tracked work-tree file",
        )
    blob = git.read_worktree(repo, [relative])[relative]  # refuses symlinked dirs leaving it
    if blob.mode == "120000":
        real = os.path.realpath(repo.root / relative)
        if os.path.commonpath([real, root]) != root:
            raise RehydrateError(
                f"{path} is a symlink that leaves the repository",
                file=path,
                code="path_outside_repo",
                fix="name the real file instead",
            )
    elif blob.data is None:
        raise RehydrateError(
            f"{path} is not a file", file=path, code="artifact_missing", fix="name an existing file"
        )
    assert blob.blob is not None
    return relative, blob.blob


# The locked, compare-and-swap, atomic write.


@dataclass(frozen=True)
class WriteResult:
    kind: str
    action: str
    path: str
    item_id: str
    blob_before: str
    blob_after: str
    revision: int | None
    commit: str | None
    uncommitted: bool  # the ledger now differs from HEAD

    def to_json(self) -> dict[str, object]:
        return {
            "schema": "rehydrate/write-v1",
            "action": self.action,
            "ledger": self.kind,
            "path": self.path,
            "id": self.item_id,
            "blob_before": self.blob_before,
            "blob_after": self.blob_after,
            "revision": self.revision,
            "commit": self.commit,
        }


def check_expectations(
    ledger: Ledger, blob: str, expect_revision: int | None, expect_blob: str | None
) -> None:
    """The caller's compare-and-swap precondition against what is on disk now."""
    if expect_blob is not None:
        wanted = expect_blob.strip().lower()
        if len(wanted) < 7 or not blob.startswith(wanted):
            raise CASConflict(
                f"ledger changed since you read it: blob is {blob}, expected {expect_blob}",
                file=ledger.path,
                code="cas_conflict",
                fix="re-read it (rehydrate state --json), redo your change on the new state, "
                "and retry with the new --expect-blob; nothing was written",
            )
    if expect_revision is not None:
        if ledger.kind != "task":
            raise RehydrateError(
                "--expect-revision applies to the Task ledger only",
                code="usage",
                fix="use --expect-blob SHA for this ledger",
            )
        if ledger.revision != expect_revision:
            raise CASConflict(
                f"Task revision is {ledger.revision}, expected {expect_revision}",
                file=ledger.path,
                code="cas_conflict",
                fix="re-read Task (rehydrate state), redo your change on the new state, and "
                "retry with the new --expect-revision; nothing was written",
            )


def guard_refusal(kind: str, old: Ledger, new: Ledger) -> Refused | None:
    """What the guard says about ``old -> new``, as one Refused carrying every code."""
    from ..guard.rules import check_ledger

    violations = check_ledger(kind, old, new)
    if not violations:
        return None
    first = violations[0]
    others = "".join(
        f"; also {v.code} {v.item_id or ''} (line {v.line}): {v.message}" for v in violations[1:]
    )
    error = Refused(
        f"the guard refuses this change: {first.message}{others}",
        file=new.path,
        line=first.line,
        item_id=first.item_id,
        code=first.code,
        fix=first.fix,
    )
    error.codes = tuple(v.code for v in violations)  # type: ignore[attr-defined]
    return error


def write(
    repo: git.Repo,
    config: Config,
    op: Operation,
    *,
    expect_revision: int | None = None,
    expect_blob: str | None = None,
    commit: bool = False,
    lock_timeout: float | None = None,
) -> WriteResult:
    """Apply ``op`` to its ledger in the work tree: locked, CAS-checked, guarded, atomic."""
    from ..state import parse_file

    path = config.path_of(op.kind)
    ctx = Context(path, config.section_aliases, config.column_aliases, config.max_ledger_bytes)
    with ledger_lock(repo, path, lock_timeout), _ledger_dir(repo, path) as (dir_fd, name):
        # One directory descriptor from here on: read, temp file and replace all happen in
        # the directory checked once, so a symlink flipped in meanwhile redirects nothing.
        if dir_fd is not None:
            sweep_temp_files(dir_fd, name)
        before = _read_ledger(repo, dir_fd, name, path)  # re-read inside the lock
        old = parse_file(op.kind, before, config, "work tree")
        assert before.data is not None and before.blob is not None
        check_expectations(old, before.blob, expect_revision, expect_blob)
        with using(config.id_scheme, git.branch(repo)):
            change = op.edit(before.data, old, ctx)
        data = change.data
        revision = None
        if op.kind == "task":
            data, revision = bump_revision(data, path)
        try:
            new = parse_ledger(
                op.kind,
                path,
                data,
                section_aliases=config.section_aliases,
                column_aliases=config.column_aliases,
                max_bytes=config.max_ledger_bytes,
            )
        except LedgerParseError as exc:
            raise Refused(
                f"the change would leave the ledger unparseable: {exc.message}",
                file=path,
                line=exc.line,
                item_id=exc.item_id,
                code=exc.code,
                fix=exc.fix,
            ) from None
        refusal = guard_refusal(op.kind, old, new)
        if refusal is not None:
            raise refusal
        assert dir_fd is not None  # a missing directory means a missing ledger: refused above
        write_at(dir_fd, name, data)
        after = git.hash_blob(data, repo.object_format)
        made = None
        if commit:
            message = f"rehydrate: {op.action} {change.item_id}".rstrip()
            made = git_changes.commit_paths(repo, [path], message)
    head = git.head(repo)
    committed = git.tree_entries(repo, head, [path]).get(path, ("", ""))[1] if head else ""
    return WriteResult(
        op.kind,
        op.action,
        path,
        change.item_id,
        before.blob,
        after,
        revision,
        made,
        committed != after,
    )


@contextmanager
def _ledger_dir(repo: git.Repo, path: str) -> Iterator[tuple[int | None, str]]:
    """The ledger's directory, opened without following symlinks; None when missing."""
    folders, name = split_relpath(path)
    try:
        fd: int | None = open_dir(repo.root, folders, shown=path)
    except FileNotFoundError:
        fd = None
    try:
        yield fd, name
    finally:
        if fd is not None:
            os.close(fd)


def _read_ledger(repo: git.Repo, dir_fd: int | None, name: str, path: str) -> git.Blob:
    """The ledger as ``git.read_worktree`` reports it, read relative to ``dir_fd``."""
    if dir_fd is None:
        return git.Blob(path, None, None, None)
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return git.Blob(path, None, None, None)
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(name, dir_fd=dir_fd).encode("utf-8", "surrogateescape")
        return git.Blob(path, target, git.hash_blob(target, repo.object_format), "120000")
    if not stat.S_ISREG(info.st_mode):
        return git.Blob(path, None, None, "040000" if stat.S_ISDIR(info.st_mode) else "other")
    data = read_at(dir_fd, name)  # O_NOFOLLOW: a symlink swapped in since is refused
    if data is None:
        return git.Blob(path, None, None, None)
    mode = "100755" if info.st_mode & 0o111 else "100644"
    return git.Blob(path, data, git.hash_blob(data, repo.object_format), mode)


def find_holder(repo: git.Repo, config: Config, item_id: str) -> str:
    """Which ledger holds item ``item_id`` (work tree)."""
    check_id(item_id)
    from ..ledgers import KINDS
    from ..state import parse_file

    paths = [config.path_of(k) for k in KINDS]
    files = git.read_worktree(repo, paths)
    holders = [
        k
        for k in KINDS
        if any(
            r.id == item_id
            for r in parse_file(k, files[config.path_of(k)], config, "work tree").all_items()
        )
    ]
    if not holders:
        raise RehydrateError(
            f"no ledger holds an item with ID {item_id}",
            item_id=item_id,
            code="unknown_id",
            fix="check the ID (rehydrate state)",
        )
    if len(holders) > 1:
        raise RehydrateError(
            f"ID {item_id} exists in more than one ledger ({', '.join(holders)})",
            item_id=item_id,
            code="ambiguous_id",
            fix="name the ledger: rehydrate fail retire / spec retire --ledger KIND",
        )
    return holders[0]
