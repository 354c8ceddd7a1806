"""The failure ledger's append-only fast path, shared by the guard and the merge driver.

A 10,000-row failure ledger mostly grows by rows inserted into its table. These
helpers prove that cheaply, on bytes, without parsing the whole file: find the
failure table when the text before it is plain, the common prefix/suffix of two
versions, the lines one version inserted, and the table's header. The guard's
verdict on such a change is ``table_edit``. Whether an old version parsed
before is remembered per repository in ``.git/rehydrate/guard-parsed``
(``load_trusted``/``save_trusted``), keyed by the settings that affect parsing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from .ids import ID_PATTERN

BOM = b"\xef\xbb\xbf"
# An ID's shape (CONTRACT §2), for ``.match``: the merge driver checks inserted rows with it.
SIMPLE_ID = re.compile(rf"{ID_PATTERN}\Z")
REQUIRED = ("id", "tried", "failure", "workaround")  # the failure table's own columns
_TABLE_END = re.compile(rb"\n(?![ \t]*\|)")
_FENCE = re.compile(rb"^ {0,3}(?:```|~~~)")


def common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix of ``a`` and ``b`` (binary search over memcmp)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the common suffix of ``a`` and ``b``, at most ``limit``."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:len(a) - lo] == b[len(b) - mid:len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def failure_table(old: bytes, config: Any) -> tuple[bytes, int, int] | None:
    """(header line, offset of the first data row, offset just past the table) of the
    failure table, when the text before it is plain enough to find it without parsing."""
    from .ledgers._markdown import heading2_title
    from .ledgers._table import normalize

    pos, size = 0, len(old)
    if old.startswith(b"---\n") or old.startswith(b"---\r\n"):
        close = re.search(rb"\n(?:---|\.\.\.)[ \t]*\r?\n", old)
        if close is None:
            return None
        pos = close.end()
    while pos < size and pos < 262144:
        end = old.find(b"\n", pos)
        end = size if end < 0 else end
        line = old[pos:end].rstrip(b"\r")
        if line.lstrip(b" \t").startswith(b"|"):
            header = line
            delim_end = old.find(b"\n", end + 1)
            if delim_end < 0:
                return None
            stop = _TABLE_END.search(old, delim_end)
            return header, delim_end + 1, (stop.start() + 1 if stop else size)
        if _FENCE.match(line):
            return None
        heading = heading2_title(line.decode("utf-8", "replace"))
        if heading is not None:
            name = normalize(heading).lower()
            if config.section_aliases.get(name, name) == "retired":
                return None
        pos = end + 1
    return None


def failure_header(line: bytes, column_aliases: Mapping[str, str], path: str = ""
                   ) -> list[str] | None:
    """The canonical column names of a failure table's header line, or None when it does
    not decode, does not split, or lacks one of the ``REQUIRED`` columns."""
    from .errors import LedgerParseError
    from .ledgers._table import split_row

    try:
        header = [column_aliases.get(h.lower(), h.lower())
                  for h in split_row(line.decode("utf-8"), path, 0)]
    except (UnicodeDecodeError, LedgerParseError):
        return None
    return header if all(name in header for name in REQUIRED) else None


def inserted_lines(base: bytes, side: bytes) -> tuple[int, list[str]] | None:
    """(offset in base, lines) that ``side`` inserted at one place into ``base``, or None."""
    grown = len(side) - len(base)
    if grown < 0:
        return None
    start = base.rfind(b"\n", 0, common_prefix(base, side)) + 1
    if side[start + grown:] != base[start:] or (grown and not side[:start + grown].endswith(b"\n")):
        return None
    try:
        text = side[start:start + grown].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return start, [line[:-1] if line.endswith("\r") else line for line in text.split("\n")[:-1]]


def _mentions(data: bytes, ids: Iterator[str] | list[str]) -> bool:
    """Whether any of ``ids`` appears as a whole table cell anywhere in ``data``."""
    wanted = {i.encode() for i in ids}
    if not wanted:
        return False
    if len(wanted) <= 16:  # one C scan; an alternation of many IDs would cost n * k
        pattern = re.compile(rb"\|[ \t]*(?:" + b"|".join(map(re.escape, wanted))
                             + rb")[ \t]*(?:\||\r?$)", re.MULTILINE)
        return pattern.search(data) is not None
    return any(piece.strip(b" \t") in wanted
               for line in data.split(b"\n") if b"|" in line
               for piece in line.rstrip(b"\r").split(b"|")[1:])


def table_edit(old: bytes, new: bytes, config: Any, path: str = "",
               reserved_ids: frozenset[str] = frozenset()) -> list[Any] | None:
    """The guard's verdict on a failure ledger whose change stays inside its table, or
    None when that cannot be proven cheaply (then both versions are parsed in full).

    ``old`` must be known to parse. The changed lines (between the common line-aligned
    prefix and suffix) must all be rows of the failure table in both versions; only those
    rows are split and checked, by the same ``check_ledger`` rules. New rows need simple
    IDs mentioned nowhere in ``old``; a deleted ID must not be named elsewhere (e.g. in
    ``## Retired``). So an append to a 10,000-row ledger costs the appended rows.
    """
    from .errors import LedgerParseError
    from .guard import check_ledger
    from .ids import valid_id
    from .ledgers import visible
    from .ledgers._document import entity_forbidden, forbidden
    from .ledgers._render import hidden_markup
    from .ledgers._table import split_row
    from .ledgers.model import FAILURES, Ledger

    if len(new) > config.max_ledger_bytes or old.startswith(BOM) or new.startswith(BOM):
        return None
    start = old.rfind(b"\n", 0, common_prefix(old, new)) + 1
    tail = common_suffix(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    if not (old_end in (start, 0) or old[old_end - 1] == 10) or not (
            new_end in (start, 0) or new[new_end - 1] == 10):
        cut = old.find(b"\n", old_end)
        if cut < 0:
            return None
        old_end, new_end = cut + 1, new_end + cut + 1 - old_end
    if old_end < start or new_end < start:
        return None
    table = failure_table(old, config)
    if table is None or not (table[1] <= start and old_end <= table[2]):
        return None
    header = failure_header(table[0], config.column_aliases)
    if header is None:
        return None
    try:
        old_lines = old[start:old_end].decode("utf-8").split("\n")[:-1]
        new_lines = new[start:new_end].decode("utf-8").split("\n")[:-1]
    except UnicodeDecodeError:
        return None
    where = {name: header.index(name) for name in REQUIRED}
    extra = [(pos, name) for pos, name in enumerate(header) if name not in where]

    def rows(lines: list[str], first: int) -> list[Any] | None:
        out = []
        for offset, raw in enumerate(lines):
            line = raw[:-1] if raw.endswith("\r") else raw
            if (not line.lstrip(" \t").startswith("|") or line.startswith("|||||||")
                    or forbidden().search(line) or ("&" in line and entity_forbidden(line))):
                return None
            try:
                cells = split_row(line, "", 0)
            except LedgerParseError:
                return None
            # the parser's own cell rules: an ID's shape, visible required cells, nothing
            # hidden (anything doubtful goes to the full parse, which names the problem)
            if (len(cells) != len(header) or not valid_id(cells[where["id"]])
                    or not all(visible(cells[where[name]]) for name in REQUIRED[1:])
                    or hidden_markup(line) is not None):
                return None
            out.append(FAILURES.record(
                cells[where["id"]], first + offset, cells[where["tried"]],
                cells[where["failure"]], cells[where["workaround"]],
                extra=tuple((name, cells[pos]) for pos, name in extra)))
        return out

    before = rows(old_lines, old.count(b"\n", 0, start) + 1)
    after = rows(new_lines, new.count(b"\n", 0, start) + 1)
    if before is None or after is None:
        return None
    old_ids = {r.id for r in before}
    new_ids = [r.id for r in after]
    added = [i for i in new_ids if i not in old_ids]
    removed = [i for i in old_ids if i not in set(new_ids)]
    if len(set(new_ids)) != len(new_ids) or any(
            i in reserved_ids for i in added):
        return None
    if _mentions(old, added) or _mentions(old[:start] + old[old_end:], removed):
        return None

    def ledger(records: list[Any]) -> Ledger:
        return Ledger("failures", path, {}, (), {"failures": tuple(records)}, ())

    return check_ledger("failures", ledger(before), ledger(after))


def append_only(old: bytes, new: bytes, config: Any) -> bool:
    """True when ``table_edit`` accepts the change without parsing either version."""
    return table_edit(old, new, config) == []


def _trust_file(repo: Any) -> Any:
    return repo.common_dir / "rehydrate" / "guard-parsed"


def _trust_key(config: Any) -> str:
    import hashlib

    text = repr((sorted(config.column_aliases.items()), sorted(config.section_aliases.items()),
                 config.max_ledger_bytes))
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def load_trusted(repo: Any, config: Any) -> frozenset[str]:
    """Failure-ledger blobs this repository's guard parsed successfully before."""
    key = _trust_key(config)
    try:
        text = _trust_file(repo).read_text(encoding="ascii", errors="replace")
    except OSError:
        return frozenset()
    return frozenset(parts[0] for parts in (line.split() for line in text.splitlines())
                     if len(parts) == 2 and parts[1] == key)


def save_trusted(repo: Any, config: Any, blobs: set[str], known: frozenset[str]) -> None:
    """Remember parsed blobs (best effort: a cache miss only costs a full parse)."""
    fresh = sorted(blobs - known)
    if not fresh:
        return
    path = _trust_file(repo)
    key = _trust_key(config)
    try:
        path.parent.mkdir(exist_ok=True)
        if path.exists() and path.stat().st_size > 65536:
            lines = path.read_text(encoding="ascii", errors="replace").splitlines()
            path.write_text("\n".join(lines[len(lines) // 2:]) + "\n", encoding="ascii")
        with path.open("a", encoding="ascii") as handle:
            handle.write("".join(f"{blob} {key}\n" for blob in fresh))
    except OSError:
        pass
