"""Invariants 7, 8 and 9 three ways: the pure rules, a real commit through the installed
hook (HEAD must not move), and ``guard --range`` over the same change committed with
``--no-verify`` (exit exactly 1, the message naming the ledger and the item).

7. Judged on what renders, not on code points.  8. Task.md byte for byte.
9. IDs have a shape.  LEGIT: the twins, which must pass all three ways.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial.content import (
    HTML_COMMENTS,
    ID_SHAPES,
    LEGIT,
    LOOKALIKE_VALUES,
    NEXT_ACTION,
    RENDERS_EMPTY,
    TASK_BYTES,
    Attack,
)
from adversarial.helpers import (
    BASE,
    PATHS,
    REFUSED,
    assert_refusal_names,
    assert_violations_well_formed,
    commit_tree,
    git,
    guard_range,
    ledger_texts,
    make_base_repo,
    rev,
    run,
    write_ledgers,
)
from rehydrate.errors import RehydrateError
from rehydrate.guard.rules import check_ledger
from rehydrate.ledgers import parse_ledger

ATTACKS = RENDERS_EMPTY + NEXT_ACTION + HTML_COMMENTS + LOOKALIKE_VALUES + TASK_BYTES + ID_SHAPES
WAYS = ["pure", "hook", "range"]


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base_repo(tmp_path_factory.mktemp("content") / "base")


def _changed(attack: Attack) -> dict[str, str]:
    new = ledger_texts(attack.edit)
    return {k: t for k, t in new.items() if t != BASE[k]}


def _target_path(attack: Attack) -> str:
    return PATHS[attack.edit[0][0]]


def _pure(attack: Attack) -> list[str]:
    """Refusals of the pure rules: a parse error of the new text, or check_ledger's list."""
    found: list[str] = []
    for kind, text in _changed(attack).items():
        path = PATHS[kind]
        old = parse_ledger(kind, path, BASE[kind].encode())
        try:
            new = parse_ledger(kind, path, text.encode("utf-8"))
        except RehydrateError as exc:  # an unparseable new state is a refusal
            found.append(f"{path}: ledger_unparseable {exc}")
            continue
        found.extend(str(v) for v in check_ledger(kind, old, new))
    return found


def _attack_commit(repo: Path, attack: Attack) -> str:
    """The attack as a commit on top of the base, made with plumbing (no hook, no work
    tree): what an agent gets in with ``--no-verify`` or ``git commit-tree``."""
    return commit_tree(repo, {PATHS[k]: t for k, t in _changed(attack).items()}, ["HEAD"], "attack")


def _attempt(repo: Path, attack: Attack, way: str) -> tuple[int, str]:
    """Try ``attack`` one way; returns (exit code, messages)."""
    if way == "pure":
        found = _pure(attack)
        return (REFUSED if found else 0), "\n".join(found)
    head = rev(repo)
    if way == "hook":
        write_ledgers(repo, _changed(attack))
        git(repo, "add", "-A")
        staged = run(repo, "guard", "--staged")  # the hook's own exit code, exactly
        proc = git(repo, "commit", "-q", "-m", "attack", check=False)
        moved = rev(repo) != head
        git(repo, "reset", "-q", "--hard", head)
        assert (proc.returncode == 0) == moved, proc.stderr
        assert moved == (staged.code == 0), (staged.code, staged.err, proc.stderr)
        return staged.code, proc.stderr
    sha = _attack_commit(repo, attack)
    verdict = guard_range(repo, f"{head}..{sha}")
    if verdict.code in (0, 1):
        assert_violations_well_formed(verdict.report)
        if verdict.code == 1:
            assert all(v["commit"] == sha for v in verdict.report["violations"])
    return verdict.code, verdict.err


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_is_refused(base_repo: Path, attack: Attack, way: str) -> None:
    code, messages = _attempt(base_repo, attack, way)
    assert code == REFUSED, f"{way}: not refused (exit {code}):\n{messages}"
    assert_refusal_names(messages, _target_path(attack), attack.ident)


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("attack", LEGIT)
def test_legitimate_twin_passes(base_repo: Path, attack: Attack, way: str) -> None:
    code, messages = _attempt(base_repo, attack, way)
    assert code == 0, f"{way}: refused a legitimate change (exit {code}):\n{messages}"
