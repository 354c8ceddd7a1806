"""A merge being concluded in the index (``git commit`` with ``MERGE_HEAD``, or the
``pre-merge-commit`` hook): each parent's version of each ledger, the merge bases'
versions (read only when a finding needs them), the merge seen from each parent for
``judge``'s merge excuses (``excuses.excuse_merge``) and the merge's own findings
(``conflicts``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from ..ledgers import Ledger
from ..typecheck import TYPE_CHECKING
from .conflicts import single_value_findings
from .judge import REGULAR, ZERO, Merge
from .rules import Violation

if TYPE_CHECKING:
    from ..errors import LedgerParseError
    from ..git import Repo
    from ..git.changes import RawChange


class _Parses(Protocol):
    """What the merge check needs of ``staged``'s per-run parser (kept here: no cycle)."""

    def parse(self, kind: str, path: str, blob: str, data: bytes) -> Ledger | LedgerParseError: ...


class StagedMerge:
    """The index as a merge of ``labels`` (HEAD first, then every merged head)."""

    def __init__(
        self,
        repo: Repo,
        labels: Sequence[str],
        changes: Sequence[Sequence[RawChange]],
        data: Mapping[str, bytes],
        parser: _Parses,
        last_parseable: Callable[[str, str, str], Ledger | None],
    ) -> None:
        """``last_parseable(commit, kind, path)``: the newest version that parses."""
        self.repo, self.labels, self.data, self.parser = repo, list(labels), data, parser
        self.last_parseable = last_parseable
        self.merged: dict[str, str | None] = {}  # path -> the index's blob
        self.parent_blobs: dict[str, list[str | None]] = {}  # path -> each label's blob
        for index, found in enumerate(changes):
            for change in found:
                self.merged[change.path] = _blob(change.new_blob, change.new_mode)
                blobs = self.parent_blobs.setdefault(change.path, [""] * len(labels))
                blobs[index] = _blob(change.old_blob, change.old_mode)
        for path, blobs in self.parent_blobs.items():  # unchanged against a label: the index's
            for index, blob in enumerate(blobs):
                if blob == "":
                    blobs[index] = self.merged[path]
        self._commits: list[str] | None = None
        self._bases: dict[str, list[Ledger]] = {}

    def _ledger(self, kind: str, path: str, blob: str | None) -> Ledger | None:
        if blob is None or blob not in self.data:
            return None
        got = self.parser.parse(kind, path, blob, self.data[blob])
        return got if isinstance(got, Ledger) else None

    def _sides(self, kind: str, path: str) -> tuple[Ledger | None, list[Ledger | None]]:
        merged = self._ledger(kind, path, self.merged.get(path))
        parents = [self._ledger(kind, path, b) for b in self.parent_blobs.get(path, [])]
        return merged, parents

    def bases(self, kind: str, path: str) -> list[Ledger]:
        """The ledger at every merge base (its last parseable version there)."""
        if path not in self._bases:
            from .. import git
            from ..git.changes import merge_bases

            if self._commits is None:
                self._commits = merge_bases(self.repo, self.labels)
            out: list[Ledger] = []
            specs = [f"{c}:{path}" for c in self._commits]
            for commit, spec in zip(self._commits, specs, strict=True):
                raw = git.read_specs(self.repo, [spec])[spec]
                if raw is None:
                    continue
                parsed = self.parser.parse(kind, path, spec, raw)
                got = (
                    parsed
                    if isinstance(parsed, Ledger)
                    else self.last_parseable(commit, kind, path)
                )
                if got is not None:
                    out.append(got)
            self._bases[path] = out
        return self._bases[path]

    def sides(self, kind: str, path: str, index: int) -> Merge:
        """The merge seen from parent ``index``: for ``judge``'s merge excuses."""
        parents = self._sides(kind, path)[1]
        parent = parents[index] if index < len(parents) else None
        others = [p for i, p in enumerate(parents) if i != index and p is not None]
        return Merge(parent, others, lambda: self.bases(kind, path))

    def findings(self, kind: str, path: str) -> list[Violation]:
        """The merge's own findings for one ledger: Task's single values."""
        merged, parents = self._sides(kind, path)
        kept = [p for p in parents if p is not None]
        if kind != "task" or merged is None or not kept or len(kept) < len(parents):
            return []
        return single_value_findings(merged, kept, lambda: self.bases(kind, path))


def _blob(blob: str, mode: str) -> str | None:
    return blob if blob not in ZERO and mode in REGULAR else None
