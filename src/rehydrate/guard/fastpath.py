"""The guard's fast path for the failure ledger: a change that only inserts rows into its
table is judged on those rows (``table_edit``), without parsing the whole file. Whether an
old version parsed before is remembered per repository in ``.git/rehydrate/guard-parsed``
(``load_trusted``/``save_trusted``), keyed by the settings that affect parsing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..failtable import find, rows, settings_key
from ..ledgers.appendonly import BOM, common_prefix, common_suffix
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from ..config import Config
    from ..git import Repo
    from ..ledgers.model import Failure
    from .rules import Violation


def _mentions(data: bytes, ids: Iterator[str] | list[str]) -> bool:
    """Whether any of ``ids`` appears as a whole table cell anywhere in ``data``."""
    wanted = {i.encode() for i in ids}
    if not wanted:
        return False
    if len(wanted) <= 16:  # one C scan; an alternation of many IDs would cost n * k
        pattern = re.compile(
            rb"\|[ \t]*(?:" + b"|".join(map(re.escape, wanted)) + rb")[ \t]*(?:\||\r?$)",
            re.MULTILINE,
        )
        return pattern.search(data) is not None
    return any(
        piece.strip(b" \t") in wanted
        for line in data.split(b"\n")
        if b"|" in line
        for piece in line.rstrip(b"\r").split(b"|")[1:]
    )


def _changed_lines(old: bytes, new: bytes) -> tuple[int, int, int] | None:
    """(start, old end, new end): the whole lines between the common prefix and suffix."""
    start = old.rfind(b"\n", 0, common_prefix(old, new)) + 1
    tail = common_suffix(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    if not (old_end in (start, 0) or old[old_end - 1] == 10) or not (
        new_end in (start, 0) or new[new_end - 1] == 10
    ):
        cut = old.find(b"\n", old_end)
        if cut < 0:
            return None
        old_end, new_end = cut + 1, new_end + cut + 1 - old_end
    if old_end < start or new_end < start:
        return None
    return start, old_end, new_end


def table_edit(
    old: bytes,
    new: bytes,
    config: Config,
    path: str = "",
    reserved_ids: frozenset[str] = frozenset(),
) -> list[Violation] | None:
    """The guard's verdict on a failure ledger whose change stays inside its table, or
    None when that cannot be proven cheaply (then both versions are parsed in full).

    ``old`` must be known to parse. The changed lines (between the common line-aligned
    prefix and suffix) must all be rows of the failure table in both versions; only those
    rows are split and checked, by the same ``check_ledger`` rules. New rows need simple
    IDs mentioned nowhere in ``old``; a deleted ID must not be named elsewhere (e.g. in
    ``## Retired``). So an append to a 10,000-row ledger costs the appended rows.
    """
    from ..ledgers.model import Ledger
    from .rules import check_ledger

    if len(new) > config.max_ledger_bytes or old.startswith(BOM) or new.startswith(BOM):
        return None
    span = _changed_lines(old, new)
    table = find(old, config.section_aliases, config.column_aliases, path)
    if span is None or table is None:
        return None
    start, old_end, new_end = span
    if not (table.start <= start and old_end <= table.end):
        return None
    try:
        old_lines = old[start:old_end].decode("utf-8").split("\n")[:-1]
        new_lines = new[start:new_end].decode("utf-8").split("\n")[:-1]
    except UnicodeDecodeError:
        return None
    before = rows(old_lines, old.count(b"\n", 0, start) + 1, table.header, path)
    after = rows(new_lines, new.count(b"\n", 0, start) + 1, table.header, path)
    if before is None or after is None:
        return None
    old_ids = {r.id for r in before}
    new_ids = [r.id for r in after]
    added = [i for i in new_ids if i not in old_ids]
    removed = [i for i in old_ids if i not in set(new_ids)]
    if len(set(new_ids)) != len(new_ids) or any(i in reserved_ids for i in added):
        return None
    if _mentions(old, added) or _mentions(old[:start] + old[old_end:], removed):
        return None

    def ledger(records: list[Failure]) -> Ledger:
        return Ledger("failures", path, {}, (), {"failures": tuple(records)}, ())

    return check_ledger("failures", ledger(before), ledger(after))


def append_only(old: bytes, new: bytes, config: Config) -> bool:
    """True when ``table_edit`` accepts the change without parsing either version."""
    return table_edit(old, new, config) == []


def _trust_file(repo: Repo) -> Path:
    return repo.common_dir / "rehydrate" / "guard-parsed"


def _trust_key(config: Config) -> str:
    return settings_key(config.column_aliases, config.section_aliases, config.max_ledger_bytes)[:12]


def load_trusted(repo: Repo, config: Config) -> frozenset[str]:
    """Failure-ledger blobs this repository's guard parsed successfully before."""
    key = _trust_key(config)
    try:
        text = _trust_file(repo).read_text(encoding="ascii", errors="replace")
    except OSError:
        return frozenset()
    return frozenset(
        parts[0]
        for parts in (line.split() for line in text.splitlines())
        if len(parts) == 2 and parts[1] == key
    )


def save_trusted(repo: Repo, config: Config, blobs: set[str], known: frozenset[str]) -> None:
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
            path.write_text("\n".join(lines[len(lines) // 2 :]) + "\n", encoding="ascii")
        with path.open("a", encoding="ascii") as handle:
            handle.write("".join(f"{blob} {key}\n" for blob in fresh))
    except OSError:
        pass
