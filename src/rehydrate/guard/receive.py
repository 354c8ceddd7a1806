"""The guard on a server: a pre-receive hook's ``<old> <new> <ref>`` lines.

Each ref is judged on its own by ``guard_range.check_range``: its new commits, and a
forced update's old tip against its new tip. A protected branch cannot be deleted (it
could come back at an old commit with nothing new to check), and ``refs/replace/*`` is
refused (it substitutes objects for every reader that honours it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..errors import RehydrateError
from ..git import Repo, run
from .range import ZERO, RangeSpec, check_range, is_ancestor
from .report import GuardReport, Waived
from .rules import FIXES, Violation


def protected_refs(repo: Repo) -> frozenset[str]:
    """Branches whose deletion a server refuses: the default branch (HEAD) and every
    ``rehydrate.protectedBranch`` (git config, repeatable; a name or a full ref)."""
    out: set[str] = set()
    proc = run(repo, "symbolic-ref", "-q", "HEAD", check=False)
    if proc.returncode == 0:
        out.add(proc.stdout.decode().strip())
    proc = run(repo, "config", "--get-all", "rehydrate.protectedBranch", check=False)
    for name in proc.stdout.decode().split():
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


def check_pre_receive(repo: Repo, lines: Sequence[str]) -> GuardReport:
    """``<old> <new> <ref>`` lines: every new commit of each ref, a forced update's old tip
    against its new tip, no deletion of a protected branch, no ``refs/replace/*``."""
    updates = parse_updates(lines)
    protected = protected_refs(repo) if any(u.new in ZERO for u in updates) else frozenset()
    violations: list[Violation] = []
    waived: list[Waived] = []
    commits = 0
    ledgers: set[str] = set()
    for update in updates:
        forced = (
            update.old not in ZERO
            and update.new not in ZERO
            and not is_ancestor(repo, update.old, update.new)
        )
        where = f" [{update.describe(forced)}]"
        if update.ref.startswith("refs/replace/") and update.new not in ZERO:
            violations.append(
                Violation(
                    "replace_ref_refused",
                    update.ref,
                    None,
                    None,
                    "a replace ref substitutes one object for another behind every reader's back",
                    FIXES["replace_ref_refused"],
                )
            )
            continue
        if update.new in ZERO:
            if update.ref in protected:
                violations.append(
                    Violation(
                        "protected_branch_deleted",
                        update.ref,
                        None,
                        None,
                        "deleting a protected branch would let it come back at an old "
                        f"commit{where}",
                        FIXES["protected_branch_deleted"],
                    )
                )
            continue
        spec = RangeSpec(
            (update.new, "--not", "--all"), ((update.new, update.old),) if forced else ()
        )
        report = check_range(repo, spec, mode="pre-receive")
        commits += report.commits
        ledgers.update(report.ledgers)
        violations.extend(
            Violation(v.code, v.path, v.line, v.item_id, v.message + where, v.fix, commit=v.commit)
            for v in report.violations
        )
        waived.extend(report.waived)
    return GuardReport(
        "pre-receive", tuple(violations), tuple(waived), tuple(sorted(ledgers)), commits
    )
