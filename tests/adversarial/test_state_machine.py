"""A hypothesis state machine over a real repository and a real bare remote.

It mixes random ledger edits (add, retire, delete a row, edit an immutable cell, weaken
or strengthen a level) with commits through the hook, ``--no-verify`` commits, waived
commits, amends, resets, squashes, rebases, merges and force-pushes, and keeps a model
of the Spec ledger of every commit *outside git*. The oracle is CONTRACT §3, on the
model: ``guard --range OLD..NEW`` (and the pre-receive hook behind ``git push --force``)
refuses exactly when

* some commit of ``NEW --not OLD`` is not monotone against one of its parents and does
  not carry a waiver (a bad intermediate commit later repaired is still refused), or
* ``NEW`` does not descend from ``OLD`` and some row of ``OLD`` is lost, rewritten or
  weakened in ``NEW`` (a rewrite that loses content).

Where the contract leaves the verdict open (a rewrite whose only losses a waived commit
of the new history explains) the two ways must merely agree. The local hook is checked
on every hooked commit: it refuses exactly the non-monotone change against HEAD.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import event as _event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from adversarial.helpers import (
    BASE,
    PATHS,
    commit_tree,
    git,
    guard_range,
    make_base_repo,
    make_server,
    rev,
    write_bytes,
)

SPEC = PATHS["spec"]
LEVELS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
STRICTER = {("SHOULD", "MUST"), ("SHOULD NOT", "MUST NOT")} | {("MAY", lv) for lv in LEVELS}
WEAKER = {
    ("MUST", "SHOULD"),
    ("MUST", "MAY"),
    ("MUST NOT", "SHOULD NOT"),
    ("MUST NOT", "MAY"),
    ("SHOULD", "MAY"),
    ("SHOULD NOT", "MAY"),
    ("MUST", "MUST NOT"),
    ("SHOULD", "MUST NOT"),
}
WAIVER = "\n\nRehydrate-Waiver: agreed in review (TICKET-7)"


def event(label: str) -> None:
    """hypothesis.event, also when a pinned program runs outside hypothesis."""
    try:
        _event(label)
    except InvalidArgument:
        pass


@dataclass(frozen=True)
class Row:
    id: str
    rule: str
    level: str


@dataclass(frozen=True)
class Spec:
    rows: tuple[Row, ...]
    retired: tuple[tuple[str, str], ...] = ()

    def render(self) -> str:
        out = [
            "---",
            "ledger: spec",
            "---",
            "# Spec",
            "",
            "## Constraints",
            "",
            "| ID | Rule | Level | Source |",
            "|---|---|---|---|",
        ]
        out += [f"| {r.id} | {r.rule} | {r.level} | team |" for r in self.rows]
        out += ["", "## Retired", "", "| ID | Reason | Date | Replaced by |", "|---|---|---|---|"]
        out += [f"| {i} | {reason} | 2026-01-01 | |" for i, reason in self.retired]
        return "\n".join(out) + "\n"

    def active(self) -> list[Row]:
        gone = {i for i, _ in self.retired}
        return [r for r in self.rows if r.id not in gone]


INITIAL = Spec(
    (
        Row("C-001", "rule one", "MUST"),
        Row("C-002", "rule two", "SHOULD"),
        Row("C-003", "rule three", "MAY"),
        Row("C-004", "rule four", "SHOULD NOT"),
    )
)


def monotone(old: Spec, new: Spec) -> bool:
    """CONTRACT §2/§3 on the model: no row lost, no Rule edited, no level weakened or
    rewritten, no retirement removed or edited."""
    now = {r.id: r for r in new.rows}
    for r in old.rows:
        after = now.get(r.id)
        if after is None or after.rule != r.rule:
            return False
        if after.level != r.level and (r.level, after.level) not in STRICTER:
            return False
    return set(old.retired) <= set(new.retired)


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("machine")
    repo = make_base_repo(root / "repo", {**BASE, "spec": INITIAL.render()})
    server = make_server(root / "server.git")
    git(repo, "remote", "add", "origin", str(server))
    assert git(repo, "push", "-q", "origin", "main", check=False).returncode == 0
    return repo, server


class LedgerHistory(RuleBasedStateMachine):
    seed: tuple[Path, Path]

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="adv-machine-"))
        self.repo = Path(shutil.copytree(self.seed[0], self.dir / "repo", symlinks=True))
        self.server = Path(shutil.copytree(self.seed[1], self.dir / "server.git", symlinks=True))
        git(self.repo, "remote", "set-url", "origin", str(self.server))
        head = rev(self.repo)
        self.states: dict[str, Spec] = {head: INITIAL}
        self.waived: set[str] = set()
        self.pending = INITIAL
        self.old = head
        self.counter = 10
        self.touch = 0
        self.broken = False  # a step failed: teardown must not mask it with its own check

    def _assert(self, ok: bool, message: str) -> None:
        if not ok:
            self.broken = True
            raise AssertionError(message)

    # --- the work tree -------------------------------------------------------------------

    def _write(self, spec: Spec) -> None:
        self.pending = spec
        write_bytes(self.repo, SPEC, spec.render())

    def _head(self) -> str:
        return rev(self.repo)

    def _readme(self) -> None:
        self.touch += 1
        write_bytes(self.repo, "README.md", f"touch {self.touch}\n")

    def add_row(self, pick: int, level: str) -> None:
        self.counter += 1
        rows = list(self.pending.rows)
        rows.insert(
            pick % (len(rows) + 1), Row(f"C-{self.counter:03d}", f"rule {self.counter}", level)
        )
        self._write(replace(self.pending, rows=tuple(rows)))

    def retire_row(self, pick: int) -> None:
        active = self.pending.active()
        if active:
            target = active[pick % len(active)]
            self._write(
                replace(self.pending, retired=self.pending.retired + ((target.id, "obsolete"),))
            )

    def delete_row(self, pick: int) -> None:
        active = self.pending.active()
        if active:
            target = active[pick % len(active)]
            self._write(
                replace(self.pending, rows=tuple(r for r in self.pending.rows if r != target))
            )

    def _edit(self, pick: int, change) -> None:
        active = self.pending.active()
        if not active:
            return
        target = active[pick % len(active)]
        new = change(target)
        if new is not None:
            self._write(
                replace(
                    self.pending, rows=tuple(new if r == target else r for r in self.pending.rows)
                )
            )

    def edit_rule(self, pick: int) -> None:
        self._edit(pick, lambda r: replace(r, rule=r.rule + " (reworded)"))

    def weaken_level(self, pick: int, choice: int) -> None:
        def weaker(r: Row) -> Row | None:
            options = sorted(b for a, b in WEAKER if a == r.level)
            return replace(r, level=options[choice % len(options)]) if options else None

        self._edit(pick, weaker)

    def strengthen_level(self, pick: int, choice: int) -> None:
        def stronger(r: Row) -> Row | None:
            options = sorted(b for a, b in STRICTER if a == r.level and b != r.level)
            return replace(r, level=options[choice % len(options)]) if options else None

        self._edit(pick, stronger)

    @rule(
        op=st.sampled_from(["add", "add", "retire", "delete", "edit_rule", "weaken", "strengthen"]),
        pick=st.integers(0, 99),
        choice=st.integers(0, 9),
    )
    def edit(self, op: str, pick: int, choice: int) -> None:
        """One random ledger edit in the work tree (allowed or not)."""
        if op == "add":
            self.add_row(pick, LEVELS[choice % len(LEVELS)])
        elif op == "retire":
            self.retire_row(pick)
        elif op == "delete":
            self.delete_row(pick)
        elif op == "edit_rule":
            self.edit_rule(pick)
        elif op == "weaken":
            self.weaken_level(pick, choice)
        else:
            self.strengthen_level(pick, choice)
        event(f"edit {op}")

    # --- commits -------------------------------------------------------------------------

    def _record(self, spec: Spec, waived: bool) -> str:
        head = self._head()
        self.states[head] = spec
        if waived:
            self.waived.add(head)
        return head

    @rule(mode=st.sampled_from(["hook", "no-verify", "waiver"]))
    def commit(self, mode: str) -> None:
        self._readme()
        before = self._head()
        git(self.repo, "add", "-A")
        message = "work" + (WAIVER if mode == "waiver" else "")
        args = ["commit", "-q", "-m", message] + ([] if mode == "hook" else ["--no-verify"])
        proc = git(self.repo, *args, check=False)
        moved = self._head() != before
        if mode == "hook":
            expect_refused = not monotone(self.states[before], self.pending)
            self._assert(
                moved != expect_refused,
                f"local hook: expected {'refusal' if expect_refused else 'a commit'}\n"
                f"{proc.stderr}",
            )
            if not moved:
                return
        assert moved, proc.stderr
        self._record(self.pending, mode == "waiver")

    def _parents(self, sha: str) -> list[str]:
        return git(self.repo, "rev-list", "--parents", "-n1", sha).stdout.split()[1:]

    @precondition(lambda self: len(self._parents(self._head())) == 1)
    @rule()
    def amend(self) -> None:
        self._readme()
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "--amend", "--no-verify", "-m", "amended")
        self._record(self.pending, False)

    @precondition(lambda self: len(self._parents(self._head())) >= 1)
    @rule()
    def reset_hard(self) -> None:
        git(self.repo, "reset", "-q", "--hard", "HEAD~1")
        self.pending = self.states[self._head()]

    def _linear_depth(self, n: int) -> bool:
        sha = self._head()
        for _ in range(n):
            parents = self._parents(sha)
            if len(parents) != 1:
                return False
            sha = parents[0]
        return True

    @precondition(lambda self: self._linear_depth(2))
    @rule()
    def squash_two(self) -> None:
        spec = self.states[self._head()]
        git(self.repo, "reset", "-q", "--soft", "HEAD~2")
        git(self.repo, "commit", "-q", "--no-verify", "-m", "squashed")
        self._record(spec, False)

    @precondition(lambda self: self._linear_depth(2) and self.pending == self.states[self._head()])
    @rule()
    def rebase_two(self) -> None:
        """``git rebase --force-rebase HEAD~2``: same contents, new commits."""
        before = git(self.repo, "rev-list", "--reverse", "HEAD~2..HEAD").stdout.split()
        git(self.repo, "checkout", "-q", "--", ".")
        git(self.repo, "rebase", "-q", "--force-rebase", "HEAD~2")
        after = git(self.repo, "rev-list", "--reverse", "HEAD~2..HEAD").stdout.split()
        assert len(before) == len(after) == 2
        for old, new in zip(before, after, strict=True):
            self.states[new] = self.states[old]
            if old in self.waived:
                self.waived.add(new)

    def _side(self) -> tuple[str, Spec]:
        head = self._head()
        self.counter += 1
        spec = self.states[head]
        side = replace(
            spec,
            rows=spec.rows + (Row(f"C-{self.counter:03d}", f"side rule {self.counter}", "MUST"),),
        )
        sha = commit_tree(self.repo, {SPEC: side.render()}, [head], "side work")
        self.states[sha] = side
        return sha, side

    @precondition(lambda self: self.pending == self.states[self._head()])
    @rule()
    def merge_side(self) -> None:
        sha, side = self._side()
        git(self.repo, "checkout", "-q", "--", ".")
        git(self.repo, "merge", "-q", "--no-ff", "--no-verify", "-m", "merge side", sha)
        self._record(side, False)
        self.pending = side

    @precondition(lambda self: self.pending == self.states[self._head()])
    @rule(waive=st.booleans())
    def merge_side_dropping_it(self, waive: bool) -> None:
        keep = self.states[self._head()]
        sha, _ = self._side()
        git(self.repo, "checkout", "-q", "--", ".")
        git(
            self.repo,
            "merge",
            "-q",
            "--no-ff",
            "--no-verify",
            "-s",
            "ours",
            "-m",
            "merge side, keep ours" + (WAIVER if waive else ""),
            sha,
        )
        self._record(keep, waive)

    # --- the verdict -----------------------------------------------------------------------

    def _expected(self, old: str, new: str) -> bool | None:
        """True: refused; False: passes; None: the contract leaves it open."""
        commits = git(self.repo, "rev-list", new, "--not", old).stdout.split()
        for sha in commits:
            if sha in self.waived:
                continue
            if any(not monotone(self.states[p], self.states[sha]) for p in self._parents(sha)):
                return True
        descends = (
            git(self.repo, "merge-base", "--is-ancestor", old, new, check=False).returncode == 0
        )
        if not descends and not monotone(self.states[old], self.states[new]):
            return None if any(c in self.waived for c in commits) else True
        return False

    def _check_range(self) -> bool:
        head = self._head()
        expected = self._expected(self.old, head)
        verdict = guard_range(self.repo, f"{self.old}..{head}")
        self._assert(verdict.code in (0, 1), verdict.err)
        if expected is not None:
            self._assert(
                (verdict.code == 1) == expected,
                f"guard --range {self.old[:8]}..{head[:8]}: expected "
                f"{'refusal' if expected else 'pass'}, got exit {verdict.code}\n"
                f"{verdict.err}",
            )
        return verdict.code == 1

    @rule()
    def force_push(self) -> None:
        head = self._head()
        refused = self._check_range()
        event("force push refused" if refused else "force push accepted")
        proc = git(
            self.repo, "push", "-q", "--force", "origin", f"{head}:refs/heads/main", check=False
        )
        on_server = rev(self.server, "refs/heads/main")
        self._assert(
            (proc.returncode != 0) == refused,
            f"the server {'accepted' if proc.returncode == 0 else 'refused'} what "
            f"--range {'refused' if refused else 'accepted'}:\n{proc.stderr}",
        )
        self._assert(on_server == (self.old if refused else head), "the server ref moved")
        self.old = on_server

    def teardown(self) -> None:
        try:
            if not self.broken:
                self._check_range()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def test_range_refuses_exactly_the_histories_that_lose_content(seed: tuple[Path, Path]) -> None:
    LedgerHistory.seed = seed
    run_state_machine_as_test(
        LedgerHistory,
        settings=settings(
            max_examples=30,
            stateful_step_count=10,
            deadline=None,
            derandomize=True,
            phases=(Phase.explicit, Phase.generate),
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )


# Pinned programs: the same machine and oracle on fixed step sequences, so the histories
# hypothesis found once are replayed on every run whatever it generates this time.
PROGRAMS = {
    "push-merge-then-rewind": [
        ("merge_side", {}),
        ("force_push", {}),
        ("reset_hard", {}),
        ("force_push", {}),
    ],
    "amend-keeps-then-amend-drops": [
        ("edit", {"op": "add", "pick": 0, "choice": 0}),
        ("commit", {"mode": "hook"}),
        ("force_push", {}),
        ("amend", {}),
        ("force_push", {}),
        ("edit", {"op": "delete", "pick": 0, "choice": 0}),
        ("amend", {}),
        ("force_push", {}),
    ],
    "reset-then-new-commit": [
        ("edit", {"op": "add", "pick": 0, "choice": 1}),
        ("commit", {"mode": "hook"}),
        ("force_push", {}),
        ("reset_hard", {}),
        ("edit", {"op": "add", "pick": 1, "choice": 2}),
        ("commit", {"mode": "hook"}),
        ("force_push", {}),
    ],
    "squash-and-rebase-keep-everything": [
        ("edit", {"op": "add", "pick": 0, "choice": 0}),
        ("commit", {"mode": "hook"}),
        ("edit", {"op": "strengthen", "pick": 1, "choice": 0}),
        ("commit", {"mode": "hook"}),
        ("force_push", {}),
        ("squash_two", {}),
        ("force_push", {}),
        ("edit", {"op": "retire", "pick": 0, "choice": 0}),
        ("commit", {"mode": "hook"}),
        ("rebase_two", {}),
        ("force_push", {}),
    ],
    "waived-and-unwaived-dropping-merges": [
        ("merge_side_dropping_it", {"waive": True}),
        ("force_push", {}),
        ("merge_side_dropping_it", {"waive": False}),
        ("force_push", {}),
    ],
    "weaken-no-verify-then-push": [
        ("edit", {"op": "weaken", "pick": 0, "choice": 0}),
        ("commit", {"mode": "hook"}),
        ("commit", {"mode": "no-verify"}),
        ("force_push", {}),
        ("edit", {"op": "edit_rule", "pick": 1, "choice": 0}),
        ("commit", {"mode": "waiver"}),
        ("force_push", {}),
    ],
}


@pytest.mark.parametrize("program", [pytest.param(v, id=k) for k, v in PROGRAMS.items()])
def test_pinned_program(seed: tuple[Path, Path], program: list[tuple[str, dict]]) -> None:
    LedgerHistory.seed = seed
    machine = LedgerHistory()
    try:
        for name, kwargs in program:
            getattr(machine, name)(**kwargs)
    finally:
        machine.teardown()
