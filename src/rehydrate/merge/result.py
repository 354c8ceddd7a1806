"""What a ledger merge returns: the merged bytes, its conflicts and notes; and the ID
allocator that renumbers colliding rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..records import NamedTuple

# (ours, base, theirs) -> (merged, clean?): git merge-file, injected so this module stays pure.
MergeText = Callable[[bytes, bytes, bytes], tuple[bytes, bool]]


class Conflict(NamedTuple):
    """One thing the merge would not decide: a stable code, the item ID, what differs."""

    code: str
    item_id: str | None
    message: str

    def __str__(self) -> str:
        ident = f" {self.item_id}" if self.item_id else ""
        return f"{self.code}{ident}: {self.message}"


class MergeResult(NamedTuple):
    """The merged bytes (with conflict markers when ``conflicts``), and what was done."""

    data: bytes
    conflicts: list[Conflict]
    notes: list[str]
    renamed: dict[str, str]  # theirs' colliding ID -> the ID it got

    @property
    def clean(self) -> bool:
        return not self.conflicts


class Allocator:
    """Free IDs for renumbered rows: one scan of the IDs in use, then counting up."""

    def __init__(self, taken: Iterable[str]) -> None:
        self.taken = set(taken)
        self.high: dict[str, int] = {}

    def renumber(self, item_id: str) -> str:
        from ..ledgers import ids

        parts = ids.split_id(item_id)
        if parts is None:
            new = ids.renumber(self.taken, item_id)
        else:
            if parts.prefix not in self.high:
                # Counting a look-alike ID too (F-7-x) only makes the number higher: still free.
                cut = len(parts.prefix)
                heads = (i[cut:].split("-", 1)[0] for i in self.taken if i.startswith(parts.prefix))
                self.high[parts.prefix] = max((int(h) for h in heads if h.isdigit()), default=0)
            self.high[parts.prefix] += 1
            new = f"{parts.prefix}{self.high[parts.prefix]:0{parts.width}d}"
        self.taken.add(new)
        return new
