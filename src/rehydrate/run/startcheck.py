"""Before a run starts its first session: what happened since the last session was judged.

1. **A session its loop never judged** (its open mark is left: the loop was killed) is
   judged now, against its HEAD_before, and recorded as ``interrupted``.
2. **The state since the last judgement**: the last session left ``judged.json``, the
   state it was judged clean at (its HEAD_after; its HEAD_before when it was refused and
   not reverted). Whatever changed since (commits, ledger files in the work tree) is
   named, and judged by the guard as the CI would judge it (``Rehydrate-Waiver:``
   trailers count here: they are how a person accepts a refused change). A refusal
   means the run would start on top of a refused state: it does not start (exit 1), and
   the message names each violation and the repair (reset, or a waiver trailer). A
   rewind (HEAD moved back to an ancestor of that state, as ``git reset`` does) is named
   and accepted: it writes nothing new, and it is how a person undoes a session. The
   state is per branch: on another branch than the last session's, nothing is compared
   (that branch's history is the guard's and the CI's to judge), and that is said;
   unless the last session's refused commits are in that branch's history too.

So a write that reaches the ledgers after its session was judged (by a process that
escaped the loop, or late) is never taken as the next session's starting point unseen:
it is named, and refused when the guard refuses it.
"""

from __future__ import annotations

from .. import git
from ..config import Config
from ..continuity import sessions as record
from ..errors import GitError
from ..ledgers import KINDS
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from .owner import Judged, OpenMark, clear_mark, ledger_blobs, open_marks, read_judged, write_judged

if TYPE_CHECKING:
    from ..guard.rules import Violation


class StartCheck(NamedTuple):
    notes: tuple[str, ...]  # for people: what was found and judged
    violations: tuple[Violation, ...]  # non-empty: do not start
    repair: str


def judged_state(
    repo: git.Repo, config: Config, entry: record.SessionRecord, reverted: bool
) -> Judged:
    """The state to leave in ``judged.json`` once ``entry`` is recorded."""
    head = git.head(repo) or ""
    refused = entry.guard == "refused" and not reverted
    base = (entry.head_before or head) if refused else head
    paths = [config.path_of(k) for k in KINDS]
    ledgers = ledger_blobs(repo, paths)
    return Judged(entry.number, base, head, ledgers, entry.verdict, git.branch(repo))


def _orphan(repo: git.Repo, config: Config, mark: OpenMark, now: str) -> record.SessionRecord:
    """Judge a session its loop never judged (from its HEAD_before as committed)."""
    from ..state import Source, load_state
    from .judge import Snapshot, judge

    head = git.head(repo)
    before_head = mark.head_before or head
    ledgers = {}
    if before_head:
        try:
            ledgers = dict(load_state(repo, config, Source("rev", before_head)).ledgers)
        except Exception:  # noqa: BLE001 (any unreadable base: judge without progress)
            ledgers = {}
    judgement = judge(repo, config, Snapshot(before_head, ledgers)) if ledgers else None
    violations = judgement.violations if judgement else ()
    return record.SessionRecord(
        number=mark.number,
        start=mark.start or now,
        end=now,
        agent=mark.agent,
        exit=None,
        ended_by=record.INTERRUPTED,
        head_before=before_head,
        head_after=head,
        commits=judgement.commits if judgement else 0,
        progress=judgement.progress if judgement else (),
        guard="refused" if violations else "pass",
        violations=tuple(
            " ".join(x for x in (v.code, v.item_id or "", v.path) if x) for v in violations
        ),
        uncommitted=judgement.uncommitted if judgement else (),
        committed_ledgers=None,
        cost_usd=None,
        context_peak=None,
        verdict=record.STOPPED,
        log=f"{record.SESSIONS_DIR}/{mark.number}.log",
    )


def settle_orphans(repo: git.Repo, config: Config, now: str) -> list[str]:
    """Record every session whose loop died before judging it; the notes for people."""
    recorded = {r.number for r in record.read_index(repo.root)}
    notes = []
    for mark in open_marks(repo.root):
        if mark.number not in recorded:
            entry = _orphan(repo, config, mark, now)
            record.append(repo.root, entry)
            write_judged(repo.root, judged_state(repo, config, entry, False))
            notes.append(
                f"rehydrate run: session #{mark.number} was never judged (its loop, pid "
                f"{mark.pid or '?'}, died); judged now and recorded as interrupted: guard "
                f"{entry.guard}" + "".join(f"\n  refused: {v}" for v in entry.violations)
            )
        clear_mark(repo.root, mark.number)
    return notes


def check_start(repo: git.Repo, config: Config) -> StartCheck:
    """Compare the repository with the last judged state and judge what changed."""
    from ..git.sessions import count_between, worktree_index
    from ..guard.range import check_range, is_ancestor, resolve_range
    from ..guard.staged import check_staged
    from ..state import uncommitted_ledgers

    judged = read_judged(repo.root)
    head = git.head(repo)
    uncommitted = tuple(uncommitted_ledgers(repo, config))
    notes: list[str] = []
    found: list[Violation] = []
    base = None
    branch = git.branch(repo)
    if (
        judged is not None
        and head is not None
        and judged.branch != branch
        and not _refused_under(repo, judged, head)
    ):
        notes.append(
            f"rehydrate run: the last judged session (#{judged.number}) ran on "
            f"{judged.branch or 'a detached HEAD'}, this run is on "
            f"{branch or 'a detached HEAD'}: its state is not compared with this one"
        )
        judged = None
    if judged is not None and head is not None:
        base = judged.base
        if not git.commit_exists(repo, base):  # gone (gc after a rewrite): nothing to compare with
            notes.append(f"rehydrate run: the last judged state {base[:12]} is gone")
            base = None
        paths = [config.path_of(k) for k in KINDS]
        blobs = ledger_blobs(repo, paths)
        moved = [p for p in paths if blobs.get(p) != judged.ledgers.get(p)]
        if head != judged.head or moved:
            what = []
            if head != judged.head:
                what.append(f"HEAD moved from {judged.head[:12]} to {head[:12]}")
            if moved:
                what.append(f"{', '.join(moved)} changed in the work tree")
            notes.append(
                f"rehydrate run: since session #{judged.number} was judged, "
                f"{' and '.join(what)}; judged now by the guard (waiver trailers count)"
            )
        if base is not None and base != head and is_ancestor(repo, head, base):
            notes.append(
                f"rehydrate run: HEAD was rewound from {base[:12]} to {head[:12]}, an "
                "earlier state; what was recorded after it is not in the ledgers now "
                f"(git reset --keep {base[:12]} brings it back)"
            )
            base = head
        if base is not None and base != head:
            try:
                report = check_range(repo, resolve_range(repo, f"{base}..{head}"), fallback=config)
            except GitError as exc:
                notes.append(f"rehydrate run: cannot read {base[:12]}..{head[:12]}: {exc}")
            else:
                found += report.violations
                if report.violations:
                    notes.append(
                        f"rehydrate run: {count_between(repo, base, head)} commit(s) since the "
                        f"last state judged clean ({base[:12]}) hold refused changes"
                    )
    if uncommitted and head is not None:
        with worktree_index(repo, uncommitted):
            found += check_staged(repo, config).violations
    repair = _repair(base, head, uncommitted, judged) if found else ""
    return StartCheck(tuple(notes), tuple(found), repair)


def _refused_under(repo: git.Repo, judged: Judged, head: str) -> bool:
    """Whether the refused commits of the last judged session are in HEAD's history
    (then another branch is no way around them)."""
    from ..guard.range import is_ancestor

    if judged.base == judged.head:
        return False
    try:
        return is_ancestor(repo, judged.head, head)
    except GitError:
        return True  # cannot tell: compare, fail closed


def _repair(
    base: str | None, head: str | None, uncommitted: tuple[str, ...], judged: Judged | None
) -> str:
    lines = ["Repair, then rerun:"]
    if base is not None and head is not None and base != head:
        ref = f"refs/rehydrate/run/session-{judged.number}" if judged else None
        keep = f"git update-ref {ref} {head[:12]} && " if ref else ""
        lines.append(
            f"  - go back to the last state judged clean: {keep}git reset --keep {base[:12]}"
            + (f" (the commits stay reachable from {ref})" if ref else "")
        )
        lines.append(
            "  - or, if a person means the change: rewrite the refused commit with a "
            "'Rehydrate-Waiver: <reason>' trailer (git rebase -i / git commit --amend)"
        )
    if uncommitted:
        lines.append(
            f"  - uncommitted: git checkout HEAD -- {' '.join(uncommitted)} (or fix the rows)"
        )
    return "\n".join(lines)
