"""Notes the hooks keep between events, under ``.rehydrate/`` (ignored by git).

Every write is atomic (the one atomic writer, never through a symlink); a note that
cannot be read is not trusted (treated as absent). ``claim`` takes a note so that of
two hooks running at once only one gets it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .. import digests
from ..errors import RehydrateError
from .core import STATE_DIR

# A runtime's notes, named under .rehydrate/ after its prefix (``Runtime.file``).
PROMPT = "session-prompt.md"  # the full rehydration prompt the capped context names
WARNING = "precompact.json"  # an automatic compaction began over uncommitted ledgers
VERDICT = "postcompact.json"  # a verdict that came before the session start showing it
HOLD = "hold.json"  # the next tool call (or stop) waits for the verdict: see ``hold_of``
ENVELOPE = "compaction-envelope.json"  # the continuity envelope PreCompact records


def hold_of(session: str | None) -> str:
    """The hold note of one session (``hold-<digest>.json``): a compaction holds the next
    tool call of the session it compacted, never another session's in the same repository
    (a subagent, a second terminal). A runtime that names no session uses ``HOLD``."""
    if not session:
        return HOLD

    digest = digests.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()
    return f"hold-{digest[:16]}.json"


def holds_of(session: str | None) -> tuple[str, ...]:
    """The holds a session's next tool call or stop claims: its own, then one written
    where the session was not named."""
    return tuple(dict.fromkeys((hold_of(session), HOLD)))


def state_dir(root: Path) -> Path:
    """``.rehydrate/`` under ``root``, made (with its ``.gitignore``) when missing."""
    folder = root / STATE_DIR
    if folder.is_symlink():
        raise RehydrateError(
            f"{STATE_DIR} is a symlink",
            file=STATE_DIR,
            code="unsafe_path",
            fix=f"remove the symlink {STATE_DIR}",
        )
    folder.mkdir(exist_ok=True)
    if not os.path.lexists(folder / ".gitignore"):  # a symlink there is never written through
        from ..ledgers.atomicfile import write_in_repo

        write_in_repo(root, f"{STATE_DIR}/.gitignore", b"*\n", exclusive=True)
    return folder


def store(root: Path, relpath: str, obj: object) -> None:
    """Write a note: text as it is, anything else as JSON."""
    from ..ledgers.atomicfile import write_in_repo

    state_dir(root)
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
    write_in_repo(root, relpath, text.encode("utf-8", "backslashreplace"))


def peek(root: Path, relpath: str) -> dict[str, object] | None:
    """A stored JSON note, or None (a broken one is not trusted)."""
    from ..errors import RehydrateError
    from ..readlimit import SUMMARY_LIMIT, load_json, read_file

    try:  # written by us, but the agent can write there too: bounded, typed, never a FIFO
        data = load_json(read_file(root / relpath, SUMMARY_LIMIT))
    except (OSError, ValueError, RehydrateError):
        return None
    return data if isinstance(data, dict) else None


def remove(root: Path, relpath: str) -> None:
    (root / relpath).unlink(missing_ok=True)


def take(root: Path, relpath: str) -> dict[str, object] | None:
    """Read and remove a stored JSON note."""
    data = peek(root, relpath)
    remove(root, relpath)
    return data


def claim(root: Path, relpath: str) -> dict[str, object] | None:
    """Take a note so that exactly one of several hooks running at once gets it: it is
    renamed to a name of this process's own first (atomic), then read and removed."""
    mine = f"{relpath}.claimed-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        os.rename(root / relpath, root / mine)
    except FileNotFoundError:
        return None
    except OSError:  # e.g. a read-only disk: a note that cannot be consumed is not
        return None  # delivered (it would hold every call after it)
    try:
        return take(root, mine)
    except OSError:
        return None


def now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
