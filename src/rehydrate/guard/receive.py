"""The guard on a server: a pre-receive hook's ``<old> <new> <ref>`` lines.

Each ref is judged on its own by ``guard_range.check_range``: its new commits, and a
forced update's old tip against its new tip. A protected branch cannot be deleted (it
could come back at an old commit with nothing new to check), and ``refs/replace/*`` is
refused (it substitutes objects for every reader that honours it).

Any other deleted branch leaves its tip under ``refs/rehydrate/deleted/`` in the bare
repository (written once the push is accepted): a branch created again at that name is
judged against that tip as a forced update would be, so deleting a branch and pushing it
back at an old commit loses nothing silently. Clients cannot push ``refs/rehydrate/*``
but well-formed leases under ``refs/rehydrate/claims/`` (``guard.claims``).
A ref whose new tip holds no ledger at the paths in force is reported on stderr
(``notes``): a server whose ledgers live elsewhere would otherwise judge nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..config import Config
from ..errors import RehydrateError
from ..git import (
    Repo,
    config_get_all,
    symbolic_head,
    verify_commit,
    write_ref_unquarantined,
)
from ..records import NamedTuple
from .judge import ZERO
from .range import RangeSpec, check_range_at, default_settings, is_ancestor
from .report import GuardReport
from .rules import FIXES, Violation
from .unjudged import unjudged


def protected_refs(repo: Repo) -> frozenset[str]:
    """Branches whose deletion a server refuses: the default branch (HEAD) and every
    ``rehydrate.protectedBranch`` (git config, repeatable; a name or a full ref)."""
    out: set[str] = set()
    default = symbolic_head(repo)
    if default is not None:
        out.add(default)
    for name in config_get_all(repo, "rehydrate.protectedBranch"):
        out.add(name if name.startswith("refs/") else f"refs/heads/{name}")
    return frozenset(out)


class Update(NamedTuple):
    """One line of a pre-receive hook's stdin."""

    old: str
    new: str
    ref: str

    def describe(self, forced: bool) -> str:
        if self.new in ZERO:
            return f"{self.ref}: delete (was {self.old[:12]})"
        if self.old in ZERO:
            return f"{self.ref}: create at {self.new[:12]}"
        return f"{self.ref}: {self.old[:12]} -> {self.new[:12]}{' (forced)' if forced else ''}"


def parse_updates(lines: Sequence[str]) -> list[Update]:
    out: list[Update] = []
    for raw in lines:
        if not raw.strip():
            continue
        parts = raw.split()
        if len(parts) != 3 or not all(
            len(o) in (40, 64) and all(c in "0123456789abcdef" for c in o) for o in parts[:2]
        ):
            raise RehydrateError(
                f"bad pre-receive line {raw.strip()[:200]!r}",
                code="usage",
                fix="feed '<old> <new> <ref>' lines on stdin (git does)",
            )
        out.append(Update(*parts))
    return out


DELETED = "refs/rehydrate/deleted/"


def _deleted_tip(repo: Repo, ref: str) -> str | None:
    """The tip ``ref`` had when it was last deleted, as recorded, or None."""
    return verify_commit(repo, DELETED + ref[5:])


def _record_deleted(repo: Repo, deleted: Sequence[Update]) -> None:
    """Keep each deleted branch's tip under ``refs/rehydrate/deleted/``. git forbids ref
    updates inside pre-receive's object quarantine; the tip was on the server already,
    so the ref is written to the repository itself, outside the quarantine."""
    for update in deleted:
        write_ref_unquarantined(repo, DELETED + update.ref[5:], update.old)


def _reserved(repo: Repo, update: Update) -> Violation | None:
    if update.ref.startswith("refs/replace/") and update.new not in ZERO:
        return Violation(
            "replace_ref_refused",
            update.ref,
            None,
            None,
            "a replace ref substitutes one object for another behind every reader's back",
            FIXES["replace_ref_refused"],
        )
    if update.ref.startswith("refs/rehydrate/claims/"):
        from .claims import check_claim_update

        return check_claim_update(repo, update.old, update.new, update.ref)
    if update.ref.startswith("refs/rehydrate/"):
        return Violation(
            "reserved_ref_refused",
            update.ref,
            None,
            None,
            "refs/rehydrate/* is the server's record of deleted branch tips",
            FIXES["reserved_ref_refused"],
        )
    return None


def check_pre_receive(repo: Repo, lines: Sequence[str]) -> GuardReport:
    """``<old> <new> <ref>`` lines: every new commit of each ref, a forced update's old tip
    against its new tip (a re-created branch's: its recorded deleted tip), no deletion
    of a protected branch, no ``refs/replace/*`` or ``refs/rehydrate/*`` but leases."""
    updates = parse_updates(lines)
    protected = protected_refs(repo) if any(u.new in ZERO for u in updates) else frozenset()
    violations: list[Violation] = []
    reports: list[GuardReport] = []
    deleted: list[Update] = []
    fallback: list[Config] = []  # the bare repository's settings, read once when needed
    for update in updates:
        reserved = _reserved(repo, update)
        if reserved is not None:
            violations.append(reserved)
        elif update.ref.startswith("refs/rehydrate/claims/"):
            continue  # a lease, judged whole by _reserved: no ledger history to walk
        elif update.new in ZERO:
            if update.ref in protected:
                violations.append(_protected(update))
            elif update.ref.startswith("refs/heads/"):
                deleted.append(update)
        else:
            fallback = fallback or [default_settings(repo)]
            reports.append(_pushed(repo, update, fallback[0]))
            violations.extend(reports[-1].violations)
    if deleted and not violations:
        _record_deleted(repo, deleted)
    return GuardReport(
        "pre-receive",
        tuple(violations),
        tuple(w for r in reports for w in r.waived),
        tuple(sorted({p for r in reports for p in r.ledgers})),
        sum(r.commits for r in reports),
        tuple(n for r in reports for n in r.notes),
    )


def _pushed(repo: Repo, update: Update, fallback: Config) -> GuardReport:
    """One ref's new commits (and a forced update's old tip against the new), each refusal
    naming the update; the notes: what could not be judged at the new tip."""
    old = update.old
    if old in ZERO and update.ref.startswith("refs/heads/"):
        old = _deleted_tip(repo, update.ref) or old
    forced = old not in ZERO and not is_ancestor(repo, old, update.new)
    where = f" [{Update(old, update.new, update.ref).describe(forced)}]"
    if old != update.old:
        where = f" [{update.ref}: created again at {update.new[:12]}, deleted at {old[:12]}]"
    spec = RangeSpec((update.new, "--not", "--all"), ((update.new, old),) if forced else ())
    report, config = check_range_at(repo, spec, update.new, mode="pre-receive", fallback=fallback)
    return GuardReport(
        report.mode,
        tuple(replace(v, message=v.message + where) for v in report.violations),
        report.waived,
        report.ledgers,
        report.commits,
        tuple(unjudged(repo, update.ref, update.new, config)),
    )


def _protected(update: Update) -> Violation:
    return Violation(
        "protected_branch_deleted",
        update.ref,
        None,
        None,
        "deleting a protected branch would let it come back at an old "
        f"commit [{update.describe(False)}]",
        FIXES["protected_branch_deleted"],
    )
