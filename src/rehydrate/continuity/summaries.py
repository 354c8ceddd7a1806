"""Two-phase promotion of compaction summaries (seed 000) over refs under ``refs/rehydrate/``.

A summary is first *proposed*: stored as a git blob and named by a candidate ref.
*Promotion* verifies it against the ledgers at HEAD and only then moves
``refs/rehydrate/summaries/current`` with a compare-and-swap (``git update-ref
<ref> <new> <old>``). A candidate that fails verification is kept under
``rejected/`` for inspection and never becomes current; a promotion that loses a
race changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import git
from ..config import Config
from ..errors import CASConflict, RehydrateError
from ..state import Source
from .verify import Verification, verify_source

PREFIX = "refs/rehydrate/summaries/"
CURRENT = PREFIX + "current"
_HEX = re.compile(r"^[0-9a-f]{4,64}$")


def candidate_ref(blob: str) -> str:
    return f"{PREFIX}candidates/{blob}"


def rejected_ref(blob: str) -> str:
    return f"{PREFIX}rejected/{blob}"


@dataclass(frozen=True)
class Promotion:
    """What ``promote`` did: ``promoted`` (current moved) or ``rejected`` (verification failed)."""

    outcome: str
    candidate: str
    previous: str | None
    verification: Verification


def propose(repo: git.Repo, data: bytes) -> str:
    """Store ``data`` as a candidate summary; return its id (the blob id). Idempotent."""
    blob = git.write_blob(repo, data)
    existing = git.read_ref(repo, candidate_ref(blob))
    if existing is None:
        problem = git.update_ref(
            repo, candidate_ref(blob), blob, git.zero_oid(repo), "rehydrate: propose summary"
        )
        if problem and git.read_ref(repo, candidate_ref(blob)) != blob:
            raise CASConflict(
                problem, code="cas_conflict", item_id=blob, fix="retry `rehydrate summary propose`"
            )
    return blob


def _full_id(repo: git.Repo, text: str, prefix: str) -> str:
    """A candidate id as given (full, or an unambiguous prefix of one under ``prefix``)."""
    if not _HEX.match(text):
        raise RehydrateError(
            f"{text!r} is not a summary id",
            code="usage",
            fix="pass the id printed by `rehydrate summary propose`",
        )
    matches = [
        ref.rsplit("/", 1)[1]
        for ref, _ in git.for_each_ref(repo, prefix)
        if ref.rsplit("/", 1)[1].startswith(text)
    ]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise RehydrateError(
            f"summary id {text!r} is ambiguous", code="usage", fix="pass more characters of the id"
        )
    return text


def expected_current(repo: git.Repo, expect: str) -> str:
    """``--expect`` as an object id: 'none' or zeros mean 'no current summary yet'."""
    if expect.lower() in ("none", "0") or set(expect) == {"0"}:
        return git.zero_oid(repo)
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", expect):
        raise RehydrateError(
            f"--expect {expect!r} is not an object id",
            code="usage",
            fix="pass the current summary id (`rehydrate summary show --id current`) or 'none'",
        )
    return expect


def promote(repo: git.Repo, config: Config, candidate: str, expect: str) -> Promotion:
    """Verify a candidate against HEAD, then CAS it into ``current``.

    Raises CASConflict (exit 1) when ``current`` is not ``expect`` — before or at the
    swap — and changes nothing then.
    """
    old = expected_current(repo, expect)
    blob = _full_id(repo, candidate, PREFIX + "candidates/")
    if git.read_ref(repo, candidate_ref(blob)) != blob:
        where = " (it was rejected)" if git.read_ref(repo, rejected_ref(blob)) else ""
        raise RehydrateError(
            f"no candidate summary {blob}{where}",
            code="candidate_missing",
            item_id=blob,
            fix="propose it first: rehydrate summary propose FILE",
        )
    zero = git.zero_oid(repo)
    current = git.read_ref(repo, CURRENT) or zero
    if current != old:
        raise _conflict(current, old)
    data = git.cat_blobs(repo, [blob])[blob]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = ""
    verification, _ = verify_source(repo, config, Source("rev", "HEAD"), text)
    previous = None if old == zero else old
    if not verification.ok:
        git.update_ref(repo, rejected_ref(blob), blob, zero, "rehydrate: reject summary")
        git.update_ref(repo, candidate_ref(blob), zero, blob, "rehydrate: reject summary")
        return Promotion("rejected", blob, previous, verification)
    problem = git.update_ref(repo, CURRENT, blob, old, f"rehydrate: promote summary {blob}")
    if problem is not None:
        now = git.read_ref(repo, CURRENT) or zero
        raise _conflict(now, old, problem)
    git.update_ref(repo, candidate_ref(blob), zero, blob, "rehydrate: promoted")
    return Promotion("promoted", blob, previous, verification)


def _conflict(found: str, expected: str, detail: str | None = None) -> CASConflict:
    def show(oid: str) -> str:
        return "none" if set(oid) == {"0"} else oid

    message = (
        f"another promotion got there first: {CURRENT} is {show(found)}, "
        f"not {show(expected)}; nothing was changed"
    )
    if detail and found == expected:
        message = f"another promotion holds {CURRENT} ({detail}); nothing was changed"
    return CASConflict(
        message,
        code="cas_conflict",
        file=CURRENT,
        fix=f"verify against the new current summary and retry with --expect {show(found)}",
    )


def show(repo: git.Repo, which: str = "current") -> tuple[str, bytes]:
    """(id, bytes) of the current summary, or of a candidate / rejected one by id."""
    if which == "current":
        blob = git.read_ref(repo, CURRENT)
        if blob is None:
            raise RehydrateError(
                "no current summary yet",
                code="summary_missing",
                file=CURRENT,
                fix="rehydrate summary propose FILE, then promote",
            )
    else:
        blob = _full_id(repo, which, PREFIX)
        if not any(oid == blob for _, oid in git.for_each_ref(repo, PREFIX)):
            raise RehydrateError(
                f"no summary {which}",
                code="summary_missing",
                fix="list them with: git for-each-ref refs/rehydrate/",
            )
    return blob, git.cat_blobs(repo, [blob])[blob]
