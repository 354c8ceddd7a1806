"""What the command check remembers about a failure-ledger blob it parsed in full.

One small file per blob, ``.git/rehydrate/failures-parsed/<blob id>-<settings key>.json``,
written atomically after a successful parse: that the blob parsed (its existence), the
failure table's columns and the lines of its active rows. The key covers the parse
settings and the parser's own files, so a changed parser or configuration starts
afresh.

The check never lets a command through on this file's word: it only tells ``failfile``
that the bytes parsed (so they need not be parsed again to be *read*), and lets a
refusal found on the bytes be confirmed without the full parse. A cell that matched
but that this file does not place in an active row's Tried column is confirmed by the
full parse instead (docs/design.md, "The command check on a big ledger").
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import RehydrateError
from ..readlimit import load_json, read_file

INDEX_DIR = "rehydrate/failures-parsed"
KEEP = 64  # blobs remembered per repository
MAX_RECORD_BYTES = 8 << 20  # a larger file is no record of ours
_PARSER_FILES = ("_document", "_markdown", "_table", "_render", "_frontmatter", "failures")
_COLUMNS = ("id", "tried", "failure", "workaround")
_SPACES = re.compile(r"[ \t]++")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


class Index(NamedTuple):
    width: int  # cells per row of the failure table
    columns: dict[str, int]  # id / tried / failure / workaround -> cell position
    active: list[tuple[int, int]]  # runs of active rows' line numbers, inclusive

    def is_active(self, line: int) -> bool:
        """Whether ``line`` is an active row's (a binary search over the runs)."""
        runs = self.active
        low, high = 0, len(runs)
        while low < high:
            middle = (low + high) // 2
            if runs[middle][1] < line:
                low = middle + 1
            else:
                high = middle
        return low < len(runs) and runs[low][0] <= line


def split_cells(text: str) -> list[str]:
    """A table line's cells, as ``ledgers.split_row`` gives them for a well-formed row."""
    body = text.rstrip("\r").strip(" \t")
    inner = body[1:-1] if len(body) > 1 and body.endswith("|") else body[1:]
    if "\\" in inner:
        parts = [p.replace("\\|", "|") for p in _UNESCAPED_PIPE.split(inner)]
    else:
        parts = inner.split("|")
    cells = [p.strip(" \t") for p in parts]
    return [_SPACES.sub(" ", c) if "  " in c or "\t" in c else c for c in cells]


def settings_key(config: Any) -> str:
    """The settings and parser a record holds for: aliases, the size limit, and the size
    and mtime of the parser's files and of the package's ``__init__`` (which an upgrade
    replaces), so a changed parser starts afresh."""
    package = Path(__file__).resolve().parents[1]
    stamps = []
    files = [package / "__init__.py", *(package / "ledgers" / f"{n}.py" for n in _PARSER_FILES)]
    for path in files:
        try:
            info = os.stat(path)
            stamps.append((info.st_mtime_ns, info.st_size))
        except OSError:
            stamps.append((0, 0))
    text = repr(
        (
            sorted(config.column_aliases.items()),
            sorted(config.section_aliases.items()),
            config.max_ledger_bytes,
            stamps,
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _path(repo: Any, blob: str, config: Any) -> Path:
    return Path(repo.common_dir) / INDEX_DIR / f"{blob}-{settings_key(config)}.json"


def parsed_before(repo: Any, config: Any, blob: str) -> bool:
    return _path(repo, blob, config).is_file()


def read(repo: Any, config: Any, blob: str) -> Index | None:
    """The record of ``blob``, or None (absent, unreadable, or not of this shape)."""
    try:
        path = _path(repo, blob, config)
        data = load_json(read_file(path, MAX_RECORD_BYTES))
        columns = {name: int(data["columns"][name]) for name in _COLUMNS}
        active = [(int(a), int(b)) for a, b in data["active"]]
        return Index(int(data["width"]), columns, active)
    except (OSError, ValueError, KeyError, TypeError, RehydrateError):
        return None


def _agrees(data: bytes, header: list[str], rows: Any) -> bool:
    """The bytes' table has the parse's rows where ``header`` says (first and last row)."""
    text = data.split(b"\n")
    for row in (rows[0], rows[-1]):
        if row.line > len(text):
            return False
        cells = split_cells(text[row.line - 1].decode("utf-8", "replace"))
        if len(cells) != len(header) or cells[header.index("tried")] != row.tried:
            return False
        if cells[header.index("id")] != row.id:
            return False
    return True


def write(repo: Any, config: Any, blob: str, data: bytes, ledger: Any) -> None:
    """Record a blob that parsed (best effort: a missing record costs a full parse)."""
    from ..ledgers.appendonly import failure_header, failure_table
    from ..ledgers.atomicfile import atomic_write

    width, columns = 0, {name: -1 for name in _COLUMNS}
    table = failure_table(data, config)
    header = failure_header(table[0], config.column_aliases) if table else None
    rows = ledger.active("failures")
    if header is not None and rows and _agrees(data, header, rows):
        width, columns = len(header), {name: header.index(name) for name in _COLUMNS}
    lines = sorted(r.line for r in rows)
    runs: list[list[int]] = []
    for line in lines:
        if runs and runs[-1][1] == line - 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    record = {"width": width, "columns": columns, "active": runs}
    path = _path(repo, blob, config)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(record, separators=(",", ":")).encode())
        old = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        for stale in old[:-KEEP]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass
