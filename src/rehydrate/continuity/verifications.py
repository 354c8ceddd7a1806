"""Stale verifications: a ``## Verified`` row whose artifact's blob is no longer the recorded one.

Shared by ``status`` (and usable by the prompt builder): ``artifact_blobs`` reads the
current blob id of every artifact at the state's own source (commit, index or work
tree) in one git process; ``split_stale`` is pure.
"""

from collections.abc import Mapping, Sequence

from .. import git
from ..errors import RehydrateError
from ..ledgers.model import Verification
from ..records import NamedTuple
from ..state import State


class Checked(NamedTuple):
    """One active verification with the artifact's blob id now (None: missing)."""

    verification: Verification
    current: str | None

    @property
    def stale(self) -> bool:
        return self.current != self.verification.blob


def artifact_key(artifact: str) -> str:
    """The repository-relative path an Artifact cell names (backticks and ``./`` dropped)."""
    path = artifact.strip().strip("`").strip()
    while path.startswith("./"):
        path = path[2:]
    return path


def _safe(path: str) -> bool:
    return bool(path) and not path.startswith("/") and ".." not in path.split("/")


def artifact_blobs(repo: git.Repo, state: State) -> dict[str, str | None]:
    """Artifact path -> its blob id at ``state``'s source (None: missing or outside the repo)."""
    paths = sorted({artifact_key(v.artifact) for v in state.ledgers["task"].section("verified")})
    found: dict[str, str | None] = {p: None for p in paths}
    safe = [p for p in paths if _safe(p)]
    if not safe:
        return found
    if state.source.kind == "worktree":
        for path in safe:
            try:
                found[path] = git.read_worktree(repo, [path])[path].blob
            except RehydrateError:  # a symlinked directory leaving the repo: treat as missing
                found[path] = None
        return found
    if state.source.kind == "staged":
        entries = git.index_entries(repo, safe)
    else:
        entries = git.tree_entries(repo, state.commit, safe) if state.commit else {}
    for path in safe:
        entry = entries.get(path)
        found[path] = (entry[1] or None) if entry else None
    return found


def check_verifications(
    verifications: Sequence[Verification], artifacts: Mapping[str, str | None]
) -> list[Checked]:
    """Each verification with its artifact's current blob id, in ledger order."""
    return [Checked(v, artifacts.get(artifact_key(v.artifact))) for v in verifications]


def split_stale(
    verifications: Sequence[Verification], artifacts: Mapping[str, str | None]
) -> tuple[list[Checked], list[Checked]]:
    """(stale, current): a verification is stale when its artifact changed or is missing."""
    checked = check_verifications(verifications, artifacts)
    return [c for c in checked if c.stale], [c for c in checked if not c.stale]
