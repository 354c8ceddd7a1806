"""History-shaped attacks (invariants 1-5) as builders: each one makes a real history in
a fresh copy of the base repository and says what the guard must conclude.

A builder returns a ``Scenario``: the tip the server / CI had accepted (``old``), the
tip that is pushed (``new``), the expected verdict and what the refusal must name, the
pushes that establish ``old`` on a server and the attack push itself, and, where the
attack can be tried locally, a ``hook`` callable that tries it through the installed
hook and returns (HEAD before, HEAD after, stderr). Where it cannot, ``hook_na`` says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from adversarial.helpers import PATHS, commit_all, commit_tree, git, rev, write_bytes

FAIL = PATHS["failures"]
SPEC = PATHS["spec"]
F1 = "| F-001 | go test -tags=musl | linker crash | default tags |\n"
F2 = "| F-002 | pip install -e . | resolver loop | use uv |\n"
F3 = "| F-003 | make all | timeout | make -j4 |\n"
C2 = "| C-002 | run the linter | SHOULD | team |\n"
C5 = "| C-005 | avoid globals | SHOULD NOT | team |\n"
RETIRED_HEAD = "| ID | Reason | Date | Replaced by |\n|---|---|---|---|\n"

NA_ONLY_HEAD = (
    "the local hook knows only HEAD (CONTRACT §3): after a reset, rebase or "
    "orphan checkout the lost row is not in HEAD, so there is nothing to try"
)
NA_NO_HOOK_RUNS = "git runs no pre-commit hook for this operation (rebase, replace, fetch)"
NA_SERVER_ONLY = "a sequence of pushes exists only on a server"


def not_local(build: Callable[[Path], Scenario]) -> Callable[[Path], Scenario]:
    """Mark a builder whose attack cannot be tried through the local hook (its Scenario
    says why in ``hook_na``): no ``hook`` way is generated for it."""
    build.not_local = True  # type: ignore[attr-defined]
    return build


def server_only(build: Callable[[Path], Scenario]) -> Callable[[Path], Scenario]:
    """Mark a builder that exists only as a push (no ``--range`` way)."""
    build.server_only = True  # type: ignore[attr-defined]
    return build


def row(fid: str, tried: str, failure: str = "boom", workaround: str = "retry") -> str:
    return f"| {fid} | {tried} | {failure} | {workaround} |\n"


def text(repo: Path, path: str = FAIL) -> str:
    return (repo / path).read_text(encoding="utf-8")


def replace(repo: Path, old: str, new: str, path: str = FAIL) -> None:
    body = text(repo, path)
    assert old in body, (old, path)
    write_bytes(repo, path, body.replace(old, new, 1))


def append_after(repo: Path, anchor: str, line: str, path: str = FAIL) -> None:
    replace(repo, anchor, anchor + line, path)


def commit(repo: Path, message: str = "edit") -> str:
    proc = commit_all(repo, message)
    assert proc.returncode == 0, proc.stderr
    return rev(repo)


def hook_commit(repo: Path, message: str = "attempt", *extra: str) -> tuple[str, str, str]:
    """Stage everything and ``git commit`` through the installed hook."""
    before = rev(repo)
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "-m", message, *extra, check=False)
    return before, rev(repo), proc.stderr


@dataclass
class Scenario:
    old: str
    new: str
    refused: bool
    path: str | tuple[str, ...] | None = None
    ident: str | None = None
    setup: list[list[str]] = field(default_factory=list)  # pushes establishing `old`
    attack: list[str] | None = None  # the attack push's arguments
    ref: str = "refs/heads/main"
    hook: Callable[[], tuple[str, str, str]] | None = None
    hook_na: str | None = None
    range_na: str | None = None

    def __post_init__(self) -> None:
        if not self.setup:
            self.setup = [[f"{self.old}:refs/heads/main"]]
        if self.attack is None:
            self.attack = ["--force", f"{self.new}:{self.ref}"]


# --- invariant 1: the range judges what the branch now holds --------------------------------


@not_local
def reset_then_new_commit(repo: Path) -> Scenario:
    base = rev(repo)
    append_after(repo, F3, row("F-004", "cargo build"))
    old = commit(repo, "add F-004")
    git(repo, "reset", "-q", "--hard", base)
    append_after(repo, F3, row("F-005", "npm ci"))
    new = commit(repo, "add F-005 instead")
    return Scenario(old, new, True, FAIL, "F-004", hook_na=NA_ONLY_HEAD)


def amend_drops_row(repo: Path) -> Scenario:
    append_after(repo, F3, row("F-004", "cargo build") + row("F-005", "npm ci"))
    old = commit(repo, "add F-004 and F-005")
    replace(repo, row("F-005", "npm ci"), "")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "--no-verify", "-m", "add F-004")
    new = rev(repo)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", old)
        replace(repo, row("F-005", "npm ci"), "")
        return hook_commit(repo, "add F-004", "--amend")

    return Scenario(old, new, True, FAIL, "F-005", hook=hook)


@not_local
def rebase_drops_a_commit(repo: Path) -> Scenario:
    base = rev(repo)
    (repo / ".git" / "info").mkdir(exist_ok=True)  # git's text merge, as without `init`
    (repo / ".git" / "info" / "attributes").write_text(f"{FAIL} merge=text\n")
    replace(repo, F1, row("F-004", "cargo build") + F1)
    first = commit(repo, "add F-004")
    append_after(repo, F3, row("F-005", "npm ci"))
    old = commit(repo, "add F-005")
    proc = git(repo, "rebase", "-q", "--onto", base, first, check=False)
    assert proc.returncode == 0, proc.stderr
    new = rev(repo)
    assert "F-004" not in text(repo) and "F-005" in text(repo)
    return Scenario(old, new, True, FAIL, "F-004", hook_na=NA_NO_HOOK_RUNS)


@not_local
def orphan_root(repo: Path) -> Scenario:
    append_after(repo, F3, row("F-004", "cargo build"))
    old = commit(repo, "add F-004")
    git(repo, "checkout", "-q", "--orphan", "fresh")
    replace(repo, row("F-004", "cargo build"), "")
    new = commit(repo, "a fresh start")
    return Scenario(old, new, True, FAIL, "F-004", hook_na=NA_ONLY_HEAD)


@not_local
def force_push_edits_a_cell(repo: Path) -> Scenario:
    """GitHub's `before..sha` after a force-push: the new history re-adds F-004 with a
    different Workaround; every new commit is fine against its own parent."""
    base = rev(repo)
    append_after(repo, F3, row("F-004", "cargo build", workaround="add swap"))
    commit(repo, "add F-004")
    write_bytes(repo, "README.md", "more\n")
    old = commit(repo, "readme")
    git(repo, "reset", "-q", "--hard", base)
    append_after(repo, F3, row("F-004", "cargo build", workaround="ignore it"))
    new = commit(repo, "add F-004")
    return Scenario(old, new, True, FAIL, "F-004", hook_na=NA_ONLY_HEAD)


@not_local
def rewind_to_ancestor(repo: Path) -> Scenario:
    base = rev(repo)
    append_after(repo, F3, row("F-004", "cargo build"))
    old = commit(repo, "add F-004")
    return Scenario(old, base, True, FAIL, "F-004", hook_na=NA_ONLY_HEAD)


@not_local
def rewrite_weakens_a_level(repo: Path) -> Scenario:
    base = rev(repo)
    replace(repo, "| run the linter | SHOULD |", "| run the linter | MUST |", SPEC)
    old = commit(repo, "C-002 is a MUST")
    git(repo, "reset", "-q", "--hard", base)
    write_bytes(repo, "README.md", "rewritten\n")
    new = commit(repo, "rewritten history")
    return Scenario(old, new, True, SPEC, "C-002", hook_na=NA_ONLY_HEAD)


@not_local
def rewrite_unretires(repo: Path) -> Scenario:
    base = rev(repo)
    replace(
        repo,
        "| F-003 | fixed upstream | 2026-01-01 | |\n",
        "| F-003 | fixed upstream | 2026-01-01 | |\n| F-002 | uv is the default | 2026-02-01 | |\n",
    )
    old = commit(repo, "retire F-002")
    git(repo, "reset", "-q", "--hard", base)
    append_after(repo, F3, row("F-004", "cargo build"))
    new = commit(repo, "add F-004")
    return Scenario(old, new, True, FAIL, "F-002", hook_na=NA_ONLY_HEAD)


def _upstream_and_topic(repo: Path, upstream: str, topic: str) -> tuple[str, str, str]:
    """main gains ``upstream`` rows, branch topic (from base) gains ``topic`` rows."""
    base = rev(repo)
    append_after(repo, F3, upstream)
    main = commit(repo, "upstream rows")
    git(repo, "checkout", "-q", "-b", "topic", base)
    append_after(repo, F3, topic)
    old = commit(repo, "topic rows")
    return base, main, old


@not_local
def rebase_renumbers(repo: Path) -> Scenario:
    _, main, old = _upstream_and_topic(
        repo, row("F-004", "upstream build"), row("F-004", "topic build")
    )
    proc = git(repo, "rebase", "-q", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    new = rev(repo)
    body = text(repo)
    assert row("F-004", "upstream build") in body and "| topic build |" in body
    return Scenario(
        old,
        new,
        False,
        setup=[[f"{main}:refs/heads/main", f"{old}:refs/heads/topic"]],
        ref="refs/heads/topic",
        hook_na=NA_NO_HOOK_RUNS,
    )


@not_local
def rebase_same_row_kept_once(repo: Path) -> Scenario:
    same = row("F-004", "cargo build")
    _, main, old = _upstream_and_topic(repo, same, same)
    proc = git(repo, "rebase", "-q", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    new = rev(repo)
    return Scenario(
        old,
        new,
        False,
        setup=[[f"{main}:refs/heads/main", f"{old}:refs/heads/topic"]],
        ref="refs/heads/topic",
        hook_na=NA_NO_HOOK_RUNS,
    )


@not_local
def rebase_renumber_loses_another_row(repo: Path) -> Scenario:
    _, main, old = _upstream_and_topic(
        repo,
        row("F-004", "upstream build"),
        row("F-004", "topic build") + row("F-005", "second topic"),
    )
    body = text(repo).replace(row("F-004", "topic build") + row("F-005", "second topic"), "")
    body = body.replace(F3, F3 + row("F-004", "upstream build") + row("F-005", "topic build"), 1)
    new = commit_tree(repo, {FAIL: body}, [main], "topic rows (rebased)")
    return Scenario(
        old,
        new,
        True,
        FAIL,
        None,
        setup=[[f"{main}:refs/heads/main", f"{old}:refs/heads/topic"]],
        ref="refs/heads/topic",
        hook_na=NA_NO_HOOK_RUNS,
    )


@not_local
def rebase_renumber_edits_content(repo: Path) -> Scenario:
    _, main, old = _upstream_and_topic(
        repo, row("F-004", "upstream build"), row("F-004", "topic build", workaround="pin 1.2")
    )
    body = text(repo).replace(row("F-004", "topic build", workaround="pin 1.2"), "")
    body = body.replace(
        F3,
        F3 + row("F-004", "upstream build") + row("F-005", "topic build", workaround="pin 2.0"),
        1,
    )
    new = commit_tree(repo, {FAIL: body}, [main], "topic rows (rebased)")
    return Scenario(
        old,
        new,
        True,
        FAIL,
        None,
        setup=[[f"{main}:refs/heads/main", f"{old}:refs/heads/topic"]],
        ref="refs/heads/topic",
        hook_na=NA_NO_HOOK_RUNS,
    )


@not_local
def squash_keeps_everything(repo: Path) -> Scenario:
    base = rev(repo)
    append_after(repo, F3, row("F-004", "cargo build"))
    commit(repo, "add F-004")
    append_after(repo, row("F-004", "cargo build"), row("F-005", "npm ci"))
    old = commit(repo, "add F-005")
    git(repo, "reset", "-q", "--soft", base)
    new = commit(repo, "add F-004 and F-005")
    return Scenario(old, new, False, hook_na=NA_ONLY_HEAD)


def amend_message_only(repo: Path) -> Scenario:
    append_after(repo, F3, row("F-004", "cargo build"))
    old = commit(repo, "add F-004")
    git(repo, "commit", "-q", "--amend", "--no-verify", "-m", "add F-004 (cargo)")
    new = rev(repo)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", old)
        return hook_commit(repo, "add F-004, reworded", "--amend")

    return Scenario(old, new, False, hook=hook)


def amend_adds_a_row(repo: Path) -> Scenario:
    append_after(repo, F3, row("F-004", "cargo build"))
    old = commit(repo, "add F-004")
    append_after(repo, row("F-004", "cargo build"), row("F-005", "npm ci"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--amend", "--no-verify", "-m", "add F-004, F-005")
    new = rev(repo)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", old)
        append_after(repo, row("F-004", "cargo build"), row("F-005", "npm ci"))
        return hook_commit(repo, "add F-004, F-005", "--amend")

    return Scenario(old, new, False, hook=hook)


def _side(repo: Path, name: str, line: str, start: str) -> str:
    git(repo, "checkout", "-q", "-b", name, start)
    append_after(repo, F3, line)
    sha = commit(repo, f"{name} row")
    git(repo, "checkout", "-q", "main")
    return sha


def merge_drops_one_side(repo: Path) -> Scenario:
    base = rev(repo)
    _side(repo, "side", row("F-005", "side row"), base)
    append_after(repo, F3, row("F-004", "main row"))
    m1 = commit(repo, "main row")
    git(repo, "merge", "-q", "-s", "ours", "--no-verify", "--no-edit", "side")
    new = rev(repo)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", m1)
        proc = git(repo, "merge", "-q", "-s", "ours", "--no-edit", "side", check=False)
        after = rev(repo)
        git(repo, "merge", "--abort", check=False)
        return m1, after, proc.stderr

    return Scenario(base, new, True, FAIL, "F-005", hook=hook)


def merge_keeps_both(repo: Path) -> Scenario:
    base = rev(repo)
    _side(repo, "side", row("F-005", "side row"), base)
    replace(repo, F1, row("F-004", "main row") + F1)
    m1 = commit(repo, "main row")
    proc = git(repo, "merge", "-q", "--no-verify", "--no-edit", "side", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    new = rev(repo)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", m1)
        proc = git(repo, "merge", "-q", "--no-edit", "side", check=False)
        return m1, rev(repo), proc.stderr

    return Scenario(base, new, False, hook=hook)


def _criss_cross(repo: Path, bad: bool) -> tuple[str, str, Callable[[], tuple[str, str, str]]]:
    base = rev(repo)
    b1 = _side(repo, "b", row("F-005", "b row"), base)
    replace(repo, F1, row("F-004", "a row") + F1)
    a1 = commit(repo, "a row")
    git(repo, "merge", "-q", "--no-verify", "--no-edit", b1)
    git(repo, "checkout", "-q", "b")
    strategy = ["-s", "ours"] if bad else []
    git(repo, "merge", "-q", "--no-verify", "--no-edit", *strategy, a1)
    m2 = rev(repo)
    git(repo, "checkout", "-q", "main")
    proc = git(repo, "merge", "-q", "--no-verify", "--no-edit", "-s", "ours", m2, check=False)
    assert proc.returncode == 0, proc.stderr
    new = rev(repo)

    def hook() -> tuple[str, str, str]:
        git(repo, "checkout", "-q", "-f", "b")
        git(repo, "reset", "-q", "--hard", b1)
        proc = git(repo, "merge", "-q", "--no-edit", *strategy, a1, check=False)
        after = rev(repo)
        git(repo, "merge", "--abort", check=False)
        return b1, after, proc.stderr

    return base, new, hook


def criss_cross_drops(repo: Path) -> Scenario:
    base, new, hook = _criss_cross(repo, bad=True)
    return Scenario(base, new, True, FAIL, "F-004", hook=hook)


def criss_cross_keeps_both(repo: Path) -> Scenario:
    base, new, hook = _criss_cross(repo, bad=False)
    return Scenario(base, new, False, hook=hook)


def _octopus_sides(repo: Path) -> tuple[str, list[str]]:
    base = rev(repo)
    sides = [_side(repo, f"o{i}", row(f"F-00{i}", f"octo {i}"), base) for i in (4, 5, 6)]
    return base, sides


def octopus_drops(repo: Path) -> Scenario:
    base, sides = _octopus_sides(repo)
    git(repo, "merge", "-q", "--no-verify", "--no-edit", "-s", "ours", *sides)
    new = rev(repo)
    assert len(git(repo, "rev-list", "--parents", "-n1", "HEAD").stdout.split()) == 5

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", base)
        proc = git(repo, "merge", "-q", "--no-edit", "-s", "ours", *sides, check=False)
        after = rev(repo)
        git(repo, "merge", "--abort", check=False)
        return base, after, proc.stderr

    return Scenario(base, new, True, FAIL, "F-004", hook=hook)


@not_local
def octopus_keeps_all(repo: Path) -> Scenario:
    base, sides = _octopus_sides(repo)
    body = text(repo).replace(F3, F3 + "".join(row(f"F-00{i}", f"octo {i}") for i in (4, 5, 6)))
    new = commit_tree(repo, {FAIL: body}, [base, *sides], "octopus")
    return Scenario(
        base,
        new,
        False,
        hook_na="git's octopus strategy never runs the merge driver (docs/merging.md)",
    )


@not_local
def merge_with_swapped_parents(repo: Path) -> Scenario:
    """A merge whose first parent is the side: main's row F-004 is lost against parent 2."""
    base = rev(repo)
    side = _side(repo, "side", row("F-005", "side row"), base)
    replace(repo, F1, row("F-004", "main row") + F1)
    m1 = commit(repo, "main row")
    new = commit_tree(repo, {}, [side, m1], "merge main into side", base=side)
    return Scenario(base, new, True, FAIL, "F-004", hook_na="git never writes swapped parents")


def _same_id_both_sides(repo: Path) -> tuple[str, str, str]:
    base = rev(repo)
    side = _side(repo, "side", row("F-004", "side row"), base)
    replace(repo, F1, row("F-004", "main row") + F1)
    m1 = commit(repo, "main row")
    return base, side, m1


@not_local
def merge_renumber_with_edited_content(repo: Path) -> Scenario:
    """The merge excuse (renumbered rows) abused: side's F-004 comes back as F-005 with
    another Workaround."""
    base, side, m1 = _same_id_both_sides(repo)
    body = text(repo).replace(F3, F3 + row("F-005", "side row", workaround="give up"))
    new = commit_tree(repo, {FAIL: body}, [m1, side], "merge side")
    return Scenario(
        base,
        new,
        True,
        FAIL,
        None,
        hook_na="the merge driver renumbers faithfully; only plumbing writes this",
    )


@not_local
def merge_keeps_one_of_two_same_ids(repo: Path) -> Scenario:
    base, side, m1 = _same_id_both_sides(repo)
    new = commit_tree(repo, {}, [m1, side], "merge side", base=m1)
    return Scenario(
        base,
        new,
        True,
        FAIL,
        "F-004",
        hook_na="the merge driver renumbers; only plumbing writes this",
    )


@not_local
def same_tip(repo: Path) -> Scenario:
    append_after(repo, F3, row("F-004", "cargo build"))
    old = commit(repo, "add F-004")
    return Scenario(old, old, False, hook_na="nothing to commit")


@not_local
def rewind_losing_nothing(repo: Path) -> Scenario:
    base = rev(repo)
    write_bytes(repo, "README.md", "more\n")
    old = commit(repo, "readme")
    return Scenario(old, base, False, hook_na=NA_ONLY_HEAD)


# --- invariant 3: a waiver covers its own commit and nothing else ---------------------------


def _drop_f2(repo: Path, message: str) -> str:
    replace(repo, F2, "")
    return commit(repo, message)


def _waiver_hook(repo: Path, base: str, message: str) -> Callable[[], tuple[str, str, str]]:
    def hook() -> tuple[str, str, str]:
        git(repo, "checkout", "-q", "-f", "main")
        git(repo, "reset", "-q", "--hard", base)
        replace(repo, F2, "")
        return hook_commit(repo, message)

    return hook


def _waiver_message(message: str) -> Callable[[Path], Scenario]:
    def build(repo: Path) -> Scenario:
        base = rev(repo)
        new = _drop_f2(repo, message)
        return Scenario(base, new, True, FAIL, "F-002", hook=_waiver_hook(repo, base, message))

    return build


@not_local
def merge_waiver_covers_parents(repo: Path) -> Scenario:
    base = rev(repo)
    git(repo, "checkout", "-q", "-b", "side")
    s1 = _drop_f2(repo, "drop F-002")
    git(repo, "checkout", "-q", "main")
    write_bytes(repo, "README.md", "main\n")
    m1 = commit(repo, "readme")
    tree_of_side = {FAIL: text(repo).replace(F2, "")}
    new = commit_tree(repo, tree_of_side, [m1, s1], "merge side\n\nRehydrate-Waiver: legal request")
    return Scenario(
        base,
        new,
        True,
        FAIL,
        "F-002",
        hook_na="the local hook never honours a waiver: see the other waiver cases",
    )


def waiver_on_previous_commit(repo: Path) -> Scenario:
    base = rev(repo)
    write_bytes(repo, "README.md", "x\n")
    commit(repo, "readme\n\nRehydrate-Waiver: harmless")
    new = _drop_f2(repo, "drop F-002")
    return Scenario(base, new, True, FAIL, "F-002", hook=_waiver_hook(repo, base, "drop F-002"))


def waiver_on_next_commit(repo: Path) -> Scenario:
    base = rev(repo)
    _drop_f2(repo, "drop F-002")
    write_bytes(repo, "README.md", "x\n")
    new = commit(repo, "readme\n\nRehydrate-Waiver: covers the one before")
    return Scenario(base, new, True, FAIL, "F-002", hook=_waiver_hook(repo, base, "drop F-002"))


BROKEN = "| F-001 | go test -tags=musl | linker crash |\n"  # one cell short: unparseable


@not_local
def waived_break_then_free_rewrite(repo: Path) -> Scenario:
    base = rev(repo)
    replace(repo, F1, BROKEN)
    commit(repo, "wip\n\nRehydrate-Waiver: mid-migration")
    replace(repo, BROKEN, F1)
    replace(repo, F2, "")
    new = commit(repo, "repair the table")
    return Scenario(
        base,
        new,
        True,
        FAIL,
        "F-002",
        hook_na="the hook compares with HEAD; an unparseable HEAD is the range "
        "check's case (CONTRACT §3: 'with the last parseable state')",
    )


@not_local
def waived_break_then_edit_a_cell(repo: Path) -> Scenario:
    base = rev(repo)
    replace(repo, F1, BROKEN)
    commit(repo, "wip\n\nRehydrate-Waiver: mid-migration")
    replace(repo, BROKEN, "| F-001 | go test -tags=musl | linker crash | ignore it |\n")
    new = commit(repo, "repair the table")
    return Scenario(
        base,
        new,
        True,
        FAIL,
        "F-001",
        hook_na="the hook compares with HEAD; an unparseable HEAD is the range check's case",
    )


@not_local
def waived_break_then_restore(repo: Path) -> Scenario:
    base = rev(repo)
    replace(repo, F1, BROKEN)
    commit(repo, "wip\n\nRehydrate-Waiver: mid-migration")
    replace(repo, BROKEN, F1)
    new = commit(repo, "restore the table")
    return Scenario(base, new, False, hook_na="the break itself needs --no-verify")


@not_local
def waiver_on_its_own_commit(repo: Path) -> Scenario:
    base = rev(repo)
    new = _drop_f2(repo, "drop F-002\n\nRehydrate-Waiver: removed on legal request (TICKET-1)")
    return Scenario(base, new, False, hook_na="the local hook never honours a waiver")


def waiver_then_append(repo: Path) -> Scenario:
    base = rev(repo)
    _drop_f2(repo, "drop F-002\n\nRehydrate-Waiver: removed on legal request (TICKET-1)")
    append_after(repo, F3, row("F-004", "cargo build"))
    new = commit(repo, "add F-004")

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", "HEAD~1")
        append_after(repo, F3, row("F-004", "cargo build"))
        return hook_commit(repo, "add F-004")

    return Scenario(base, new, False, hook=hook)


# --- invariant 2: settings are read per commit ---------------------------------------------

MOVE = '[ledgers]\nspec = "docs/Spec2.md"\n'
WAIVE = "\n\nRehydrate-Waiver: the team moved the spec"


def _move_spec(
    repo: Path, config: str = MOVE, name: str = ".rehydrate.toml", target: str = "docs/Spec2.md"
) -> str:
    write_bytes(repo, name, config)
    git(repo, "mv", SPEC, target)
    return commit(repo, "move the spec" + WAIVE)


def delete_hidden_by_later_move(repo: Path) -> Scenario:
    base = rev(repo)
    replace(repo, C2, "", SPEC)
    commit(repo, "drop C-002")
    new = _move_spec(repo)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", base)
        replace(repo, C2, "", SPEC)
        return hook_commit(repo, "drop C-002")

    return Scenario(base, new, True, SPEC, "C-002", hook=hook)


def delete_hidden_by_later_pyproject_move(repo: Path) -> Scenario:
    base = rev(repo)
    replace(repo, C2, "", SPEC)
    commit(repo, "drop C-002")
    new = _move_spec(
        repo,
        '[project]\nname = "x"\n\n[tool.rehydrate.ledgers]\nspec = "docs/Spec2.md"\n',
        "pyproject.toml",
    )

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", base)
        replace(repo, C2, "", SPEC)
        return hook_commit(repo, "drop C-002")

    return Scenario(base, new, True, SPEC, "C-002", hook=hook)


def move_delete_move_back(repo: Path) -> Scenario:
    base = rev(repo)
    moved = _move_spec(repo)
    replace(repo, C2, "", "docs/Spec2.md")
    commit(repo, "drop C-002 at the new path")
    (repo / ".rehydrate.toml").unlink()
    git(repo, "mv", "docs/Spec2.md", SPEC)
    new = commit(repo, "move it back" + WAIVE)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", moved)
        replace(repo, C2, "", "docs/Spec2.md")
        return hook_commit(repo, "drop C-002 at the new path")

    return Scenario(base, new, True, "docs/Spec2.md", "C-002", hook=hook)


SECTION_ALIAS = '[aliases.sections]\n"Regeln" = "Constraints"\n'


def section_alias_removed_later(repo: Path) -> Scenario:
    write_bytes(repo, ".rehydrate.toml", SECTION_ALIAS)
    replace(repo, "## Constraints", "## Regeln", SPEC)
    old = commit(repo, "German section name" + WAIVE)
    replace(repo, C2, "", SPEC)
    commit(repo, "drop C-002")
    (repo / ".rehydrate.toml").unlink()
    replace(repo, "## Regeln", "## Constraints", SPEC)
    new = commit(repo, "back to English" + WAIVE)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", old)
        replace(repo, C2, "", SPEC)
        return hook_commit(repo, "drop C-002")

    return Scenario(old, new, True, SPEC, "C-002", hook=hook)


COLUMN_ALIAS = '[aliases.columns]\n"Stufe" = "Level"\n'


def column_alias_removed_later(repo: Path) -> Scenario:
    write_bytes(repo, ".rehydrate.toml", COLUMN_ALIAS)
    replace(repo, "| ID | Rule | Level | Source |", "| ID | Rule | Stufe | Source |", SPEC)
    old = commit(repo, "German column name" + WAIVE)
    replace(repo, "| write tests first | MUST |", "| write tests first | SHOULD |", SPEC)
    commit(repo, "relax C-004")
    (repo / ".rehydrate.toml").unlink()
    replace(repo, "| ID | Rule | Stufe | Source |", "| ID | Rule | Level | Source |", SPEC)
    new = commit(repo, "back to English" + WAIVE)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", old)
        replace(repo, "| write tests first | MUST |", "| write tests first | SHOULD |", SPEC)
        return hook_commit(repo, "relax C-004")

    return Scenario(old, new, True, SPEC, "C-004", hook=hook)


def config_change_with_deletion(repo: Path) -> Scenario:
    base = rev(repo)
    write_bytes(repo, ".rehydrate.toml", MOVE)
    body = text(repo, SPEC).replace(C2, "")
    (repo / SPEC).unlink()
    write_bytes(repo, "docs/Spec2.md", body)
    new = commit(repo, "move and trim")

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", base)
        write_bytes(repo, ".rehydrate.toml", MOVE)
        (repo / SPEC).unlink()
        write_bytes(repo, "docs/Spec2.md", body)
        return hook_commit(repo, "move and trim")

    return Scenario(base, new, True, (SPEC, ".rehydrate.toml"), None, hook=hook)


def unparseable_config_with_deletion(repo: Path) -> Scenario:
    base = rev(repo)
    write_bytes(repo, ".rehydrate.toml", "[ledgers\nspec = \n")
    replace(repo, C2, "", SPEC)
    new = commit(repo, "drop C-002, break the settings")

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", base)
        write_bytes(repo, ".rehydrate.toml", "[ledgers\nspec = \n")
        replace(repo, C2, "", SPEC)
        return hook_commit(repo, "drop C-002, break the settings")

    return Scenario(base, new, True, (SPEC, ".rehydrate.toml"), None, hook=hook)


def unparseable_config_later_hides_deletion(repo: Path) -> Scenario:
    base = rev(repo)
    replace(repo, C2, "", SPEC)
    commit(repo, "drop C-002")
    write_bytes(repo, ".rehydrate.toml", "[ledgers\nspec = \n")
    new = commit(repo, "settings" + WAIVE)

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", base)
        replace(repo, C2, "", SPEC)
        return hook_commit(repo, "drop C-002")

    return Scenario(base, new, True, SPEC, "C-002", hook=hook)


@not_local
def worktree_config_redirects_the_range(repo: Path) -> Scenario:
    base = rev(repo)
    replace(repo, C2, "", SPEC)
    new = commit(repo, "drop C-002")
    write_bytes(repo, ".rehydrate.toml", MOVE)  # uncommitted: must decide nothing
    write_bytes(repo, "docs/Spec2.md", "---\nledger: spec\n---\n# Spec\n")
    return Scenario(
        base,
        new,
        True,
        SPEC,
        "C-002",
        hook_na="covered by test_guard_settings (the hook reads staged settings)",
    )


def move_then_delete_at_new_path(repo: Path) -> Scenario:
    base = rev(repo)
    moved = _move_spec(repo)
    replace(repo, C2, "", "docs/Spec2.md")
    new = commit(repo, "drop C-002")

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", moved)
        replace(repo, C2, "", "docs/Spec2.md")
        return hook_commit(repo, "drop C-002")

    return Scenario(base, new, True, "docs/Spec2.md", "C-002", hook=hook)


def waived_move_then_append(repo: Path) -> Scenario:
    base = rev(repo)
    moved = _move_spec(repo)
    append_after(repo, C5, "| C-006 | keep the changelog | MUST | team |\n", "docs/Spec2.md")
    new = commit(repo, "add C-006")

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", moved)
        append_after(repo, C5, "| C-006 | keep the changelog | MUST | team |\n", "docs/Spec2.md")
        return hook_commit(repo, "add C-006")

    return Scenario(base, new, False, hook=hook)


def unrelated_setting(repo: Path) -> Scenario:
    base = rev(repo)
    write_bytes(repo, ".rehydrate.toml", "diff_lines = 50\n")
    new = commit(repo, "tune the prompt")

    def hook() -> tuple[str, str, str]:
        git(repo, "reset", "-q", "--hard", base)
        write_bytes(repo, ".rehydrate.toml", "diff_lines = 50\n")
        return hook_commit(repo, "tune the prompt")

    return Scenario(base, new, False, hook=hook)


# --- invariant 4: no object substitution ---------------------------------------------------


def replace_bad_commit(repo: Path) -> Scenario:
    base = rev(repo)
    bad = _drop_f2(repo, "drop F-002")
    good = commit_tree(
        repo, {FAIL: text(repo).replace(F3, F3 + F2 + row("F-004", "x"))}, [base], "drop F-002"
    )
    git(repo, "replace", bad, good)

    def hook() -> tuple[str, str, str]:
        # replace HEAD's failure blob by one without F-002, then drop F-002 for real
        git(repo, "replace", "-d", bad)
        git(repo, "reset", "-q", "--hard", base)
        real = rev(repo, f"{base}:{FAIL}")
        fake = git(
            repo, "hash-object", "-w", "--stdin", input=text(repo).replace(F2, "")
        ).stdout.strip()
        git(repo, "replace", "-f", real, fake)
        replace(repo, F2, "")
        return hook_commit(repo, "drop F-002")

    return Scenario(
        base,
        new=bad,
        refused=True,
        path=FAIL,
        ident="F-002",
        attack=["--force", f"{bad}:refs/heads/main", "refs/replace/*:refs/replace/*"],
        hook=hook,
    )


@not_local
def replace_blob(repo: Path) -> Scenario:
    base = rev(repo)
    real = rev(repo, f"{base}:{FAIL}")
    bad = _drop_f2(repo, "drop F-002")
    bad_blob = rev(repo, f"{bad}:{FAIL}")
    git(repo, "replace", bad_blob, real)
    return Scenario(
        base,
        bad,
        True,
        FAIL,
        "F-002",
        attack=["--force", f"{bad}:refs/heads/main", "refs/replace/*:refs/replace/*"],
        hook_na="see replace_bad_commit: the hook variant replaces HEAD's blob",
    )


@not_local
def replace_graft(repo: Path) -> Scenario:
    base = rev(repo)
    bad = _drop_f2(repo, "drop F-002")
    write_bytes(repo, "README.md", "x\n")
    new = commit(repo, "readme")
    alt = commit_tree(repo, {}, [], "unrelated root", base=bad)
    git(repo, "replace", "--graft", bad, alt)
    return Scenario(
        base,
        new,
        True,
        FAIL,
        "F-002",
        attack=["--force", f"{new}:refs/heads/main", "refs/replace/*:refs/replace/*"],
        hook_na="a graft changes parents, not HEAD's tree, which is all the hook reads",
    )


@not_local
def info_grafts(repo: Path) -> Scenario:
    base = rev(repo)
    bad = _drop_f2(repo, "drop F-002")
    write_bytes(repo, "README.md", "x\n")
    new = commit(repo, "readme")
    alt = commit_tree(repo, {}, [], "unrelated root", base=bad)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "grafts").write_text(f"{bad} {alt}\n")
    return Scenario(
        base,
        new,
        True,
        FAIL,
        "F-002",
        hook_na="a graft changes parents, not HEAD's tree, which is all the hook reads",
    )


@server_only
@not_local
def push_replace_ref_only(repo: Path) -> Scenario:
    base = rev(repo)
    good = commit_tree(repo, {FAIL: text(repo).replace(F2, "")}, [], "x")
    git(repo, "replace", base, good)
    return Scenario(
        base,
        base,
        True,
        None,
        None,
        range_na=NA_SERVER_ONLY,
        attack=[f"refs/replace/{base}:refs/replace/{base}"],
        ref=f"refs/replace/{base}",
        hook_na=NA_SERVER_ONLY,
    )


@not_local
def replace_tree(repo: Path) -> Scenario:
    base = rev(repo)
    bad = _drop_f2(repo, "drop F-002")
    git(repo, "replace", rev(repo, f"{bad}^{{tree}}"), rev(repo, f"{base}^{{tree}}"))
    return Scenario(
        base,
        bad,
        True,
        FAIL,
        "F-002",
        attack=["--force", f"{bad}:refs/heads/main", "refs/replace/*:refs/replace/*"],
        hook_na="see replace_bad_commit: the hook variant replaces HEAD's blob",
    )


@not_local
def waiver_in_git_notes(repo: Path) -> Scenario:
    base = rev(repo)
    bad = _drop_f2(repo, "drop F-002")
    git(repo, "notes", "add", "-m", "Rehydrate-Waiver: legal request", bad)
    return Scenario(
        base,
        bad,
        True,
        FAIL,
        "F-002",
        attack=["--force", f"{bad}:refs/heads/main", "refs/notes/*:refs/notes/*"],
        hook_na="notes are written after the commit; the hook never honours a waiver",
    )


def _config_with_deletion(files: dict[str, str]) -> Callable[[Path], Scenario]:
    def build(repo: Path) -> Scenario:
        base = rev(repo)
        for name, body in files.items():
            write_bytes(repo, name, body)
        replace(repo, C2, "", SPEC)
        new = commit(repo, "drop C-002, odd settings")

        def hook() -> tuple[str, str, str]:
            git(repo, "reset", "-q", "--hard", base)
            for name, body in files.items():
                write_bytes(repo, name, body)
            replace(repo, C2, "", SPEC)
            return hook_commit(repo, "drop C-002, odd settings")

        return Scenario(base, new, True, (SPEC, *files), None, hook=hook)

    return build


HISTORIES: dict[str, dict[str, Callable[[Path], Scenario]]] = {
    "1-range": {
        "reset-then-new-commit-drops-row": reset_then_new_commit,
        "amend-drops-row": amend_drops_row,
        "rebase-drops-a-commit": rebase_drops_a_commit,
        "orphan-root-commit": orphan_root,
        "force-push-rewrites-a-cell": force_push_edits_a_cell,
        "rewind-to-ancestor-a-descends-from-b": rewind_to_ancestor,
        "rewrite-weakens-a-level": rewrite_weakens_a_level,
        "rewrite-unretires": rewrite_unretires,
        "rebase-renumber-loses-another-row": rebase_renumber_loses_another_row,
        "rebase-renumber-edits-content": rebase_renumber_edits_content,
        "merge-drops-one-side": merge_drops_one_side,
        "criss-cross-merge-drops": criss_cross_drops,
        "octopus-merge-drops": octopus_drops,
        "merge-with-swapped-parents": merge_with_swapped_parents,
        "merge-renumber-with-edited-content": merge_renumber_with_edited_content,
        "merge-keeps-one-of-two-same-ids": merge_keeps_one_of_two_same_ids,
    },
    "1-range-legit": {
        "rebase-renumbers-with-the-driver": rebase_renumbers,
        "rebase-same-row-kept-once": rebase_same_row_kept_once,
        "squash-keeps-everything": squash_keeps_everything,
        "amend-message-only": amend_message_only,
        "amend-adds-a-row": amend_adds_a_row,
        "merge-keeps-both": merge_keeps_both,
        "criss-cross-keeps-both": criss_cross_keeps_both,
        "octopus-keeps-all": octopus_keeps_all,
        "a-equals-b": same_tip,
        "rewind-losing-nothing": rewind_losing_nothing,
    },
    "2-settings": {
        "deletion-hidden-by-later-waived-move": delete_hidden_by_later_move,
        "deletion-hidden-by-later-pyproject-move": delete_hidden_by_later_pyproject_move,
        "move-delete-move-back": move_delete_move_back,
        "section-alias-removed-later": section_alias_removed_later,
        "column-alias-removed-later": column_alias_removed_later,
        "config-change-with-deletion": config_change_with_deletion,
        "unparseable-config-with-deletion": unparseable_config_with_deletion,
        "unparseable-config-later-hides-deletion": unparseable_config_later_hides_deletion,
        "worktree-config-redirects-the-range": worktree_config_redirects_the_range,
        "move-then-delete-at-new-path": move_then_delete_at_new_path,
        "ambiguous-config-with-deletion": _config_with_deletion(
            {".rehydrate.toml": MOVE, "pyproject.toml": "[tool.rehydrate]\ndiff_lines = 5\n"}
        ),
        "config-points-into-dot-git-with-deletion": _config_with_deletion(
            {".rehydrate.toml": '[ledgers]\nspec = ".git/Spec.md"\n'}
        ),
        "config-unknown-key-with-deletion": _config_with_deletion(
            {".rehydrate.toml": 'ledger_paths = "elsewhere"\n'}
        ),
    },
    "2-settings-legit": {
        "waived-move-then-append": waived_move_then_append,
        "unrelated-setting": unrelated_setting,
    },
    "3-waiver": {
        "waiver-mid-body": _waiver_message(
            "drop F-002\n\nRehydrate-Waiver: legal request\n\nAnd more prose after it."
        ),
        "waiver-empty-reason": _waiver_message("drop F-002\n\nRehydrate-Waiver:"),
        "waiver-blank-reason-spaces": _waiver_message("drop F-002\n\nRehydrate-Waiver:    "),
        "waiver-invisible-reason": _waiver_message("drop F-002\n\nRehydrate-Waiver: \u3164"),
        "waiver-lowercase-key": _waiver_message("drop F-002\n\nrehydrate-waiver: legal request"),
        "waiver-uppercase-key": _waiver_message("drop F-002\n\nREHYDRATE-WAIVER: legal request"),
        "waiver-in-subject-only": _waiver_message("Rehydrate-Waiver: legal request"),
        "waiver-lookalike-key": _waiver_message(
            "drop F-002\n\nRehydrate\u2010Waiver: legal request"
        ),
        "waiver-in-merge-covers-parents": merge_waiver_covers_parents,
        "waiver-on-n-excuses-n-plus-1": waiver_on_previous_commit,
        "waiver-on-n-plus-1-excuses-n": waiver_on_next_commit,
        "waived-break-then-free-rewrite": waived_break_then_free_rewrite,
        "waived-break-then-edit-a-cell": waived_break_then_edit_a_cell,
        "waiver-in-git-notes": waiver_in_git_notes,
    },
    "3-waiver-legit": {
        "waiver-on-its-own-commit": waiver_on_its_own_commit,
        "waiver-then-append": waiver_then_append,
        "restore-after-waived-break": waived_break_then_restore,
    },
    "4-substitution": {
        "replace-ref-hides-bad-commit": replace_bad_commit,
        "replace-ref-swaps-the-blob": replace_blob,
        "replace-graft-hides-parent": replace_graft,
        "info-grafts-hides-parent": info_grafts,
        "push-of-a-replace-ref": push_replace_ref_only,
        "replace-ref-swaps-the-tree": replace_tree,
    },
}
