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

import json
from collections.abc import Sequence
from pathlib import Path

from ..failtable import settings_key, split_cells
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Config
    from ..git import Repo
    from ..ledgers.model import Failure, Ledger

from ..errors import RehydrateError
from ..readlimit import load_json, read_file

INDEX_DIR = "rehydrate/failures-parsed"
KEEP = 64  # blobs remembered per repository
MAX_RECORD_BYTES = 8 << 20  # a larger file is no record of ours
_COLUMNS = ("id", "tried", "failure", "workaround")


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


def _key(config: Config) -> str:
    return settings_key(config.column_aliases, config.section_aliases, config.max_ledger_bytes)


def _path(repo: Repo, blob: str, config: Config) -> Path:
    return Path(repo.common_dir) / INDEX_DIR / f"{blob}-{_key(config)}.json"


def parsed_before(repo: Repo, config: Config, blob: str) -> bool:
    return _path(repo, blob, config).is_file()


def read(repo: Repo, config: Config, blob: str) -> Index | None:
    """The record of ``blob``, or None (absent, unreadable, or not of this shape)."""
    try:
        path = _path(repo, blob, config)
        data = load_json(read_file(path, MAX_RECORD_BYTES))
        if not isinstance(data, dict):
            return None
        columns = {name: int(data["columns"][name]) for name in _COLUMNS}
        active = [(int(a), int(b)) for a, b in data["active"]]
        return Index(int(data["width"]), columns, active)
    except (OSError, ValueError, KeyError, TypeError, RehydrateError):
        return None


def _agrees(data: bytes, header: Sequence[str], rows: Sequence[Failure]) -> bool:
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


def write(repo: Repo, config: Config, blob: str, data: bytes, ledger: Ledger) -> None:
    """Record a blob that parsed (best effort: a missing record costs a full parse)."""
    from ..failtable import find
    from ..ledgers.atomicfile import atomic_write

    width, columns = 0, {name: -1 for name in _COLUMNS}
    table = find(data, config.section_aliases, config.column_aliases)
    header = table.header if table is not None else None
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
