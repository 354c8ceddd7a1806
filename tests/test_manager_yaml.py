"""Text edits of lefthook.yml and .pre-commit-config.yaml: the user's layout and comments
kept, the result checked by loading it, refused when rehydrate cannot edit it safely."""

from __future__ import annotations

import textwrap

import pytest

from rehydrate.errors import RehydrateError
from rehydrate.guard import manager_yaml
from rehydrate.guard.managers import GUARD_ID
from rehydrate.ledgers.yamlsafe import load

LINES = ["echo guard", 'test -n "$x" || exit $?']
SCRIPT = 'echo guard\ntest -n "$x" || exit $?\n'
HOOKS = ("pre-commit", "pre-merge-commit")


def _lefthook(text: str) -> str:
    return manager_yaml.add_lefthook(textwrap.dedent(text), "lefthook.yml", HOOKS, GUARD_ID, LINES)


@pytest.mark.parametrize(
    "before",
    [
        pytest.param("", id="empty"),
        pytest.param("# only a comment\n", id="comment"),
        pytest.param(
            """\
            # team hooks
            pre-commit:
              parallel: true  # kept
              commands:
                lint:
                  run: npm run lint
            """,
            id="commands",
        ),
        pytest.param(
            """\
            pre-commit:
                jobs:
                    - run: make check
            output: [summary]
            """,
            id="jobs-four-spaces",
        ),
        pytest.param("pre-commit:\npre-merge-commit:\n  commands:\n", id="nulls"),
        pytest.param("pre-commit:\n  commands:\n    lint:\n      run: x", id="no-final-newline"),
    ],
)
def test_lefthook_gets_the_guard_and_keeps_the_rest(before: str) -> None:
    after = _lefthook(before)
    old = load(textwrap.dedent(before)) or {}
    new = load(after)
    for hook in HOOKS:
        assert new[hook]["commands"][GUARD_ID] == {"run": SCRIPT}
        del new[hook]["commands"][GUARD_ID]
        section = old.get(hook) or {}
        assert new[hook] == {**section, "commands": section.get("commands") or {}}
    for key in set(old) - set(HOOKS):
        assert new[key] == old[key]
    for line in textwrap.dedent(before).splitlines():
        assert line in after  # every line of the user's, comments too, as it was
    assert _lefthook(after) == after  # idempotent
    assert manager_yaml.remove_block(after).strip() == textwrap.dedent(before).strip()


@pytest.mark.parametrize(
    "before, why",
    [
        pytest.param("pre-commit: {commands: {}}\n", "no plain", id="flow-section"),
        pytest.param("pre-commit:\n  commands: {lint: {run: x}}\n", "layout", id="flow-commands"),
        pytest.param("x: &a 1\npre-commit:\n  y: *a\n", "anchors", id="anchors"),
        pytest.param('"pre-commit":\n  commands:\n', "no plain", id="quoted-key"),
        pytest.param("- a\n- b\n", "not a mapping", id="a-list"),
        pytest.param(
            "pre-commit:\n  commands:\n    - run: x\n", "not a mapping", id="commands-list"
        ),
    ],
)
def test_lefthook_layouts_it_cannot_edit_are_refused(before: str, why: str) -> None:
    with pytest.raises(RehydrateError) as caught:
        _lefthook(before)
    assert why in str(caught.value) and caught.value.code == "hook_manager_config"
    assert caught.value.file == "lefthook.yml"


def test_a_guard_command_added_by_hand_is_left_alone() -> None:
    mine = "pre-commit:\n  commands:\n    rehydrate-guard:\n      run: rehydrate guard --staged\n"
    after = _lefthook(mine)
    assert after.startswith(mine) and after.count(GUARD_ID) == 2  # pre-merge-commit added


def _pre_commit(text: str) -> str:
    return manager_yaml.add_pre_commit(
        textwrap.dedent(text), ".pre-commit-config.yaml", GUARD_ID, LINES
    )


@pytest.mark.parametrize(
    "before",
    [
        pytest.param("", id="empty"),
        pytest.param("repos:\n", id="null-repos"),
        pytest.param(
            """\
            default_stages: [pre-commit]
            repos:
            - repo: https://example.com/black
              rev: 24.1.0
              hooks:
              - id: black
            # a commented-out repo stays below
            ci:
              autofix_prs: false
            """,
            id="items-at-zero",
        ),
        pytest.param(
            """\
            repos:
                -   repo: local  # the team's
                    hooks:
                        -   id: fmt
                            name: fmt
                            entry: fmt
                            language: system
            """,
            id="items-indented",
        ),
    ],
)
def test_pre_commit_gets_a_local_hook_and_keeps_the_rest(before: str) -> None:
    after = _pre_commit(before)
    old = load(textwrap.dedent(before)) or {}
    new = load(after)
    *kept, ours = new["repos"]
    assert kept == (old.get("repos") or [])
    hook = ours["hooks"][0]
    assert ours["repo"] == "local" and hook["id"] == GUARD_ID
    assert hook["args"] == ["-c", SCRIPT] and hook["pass_filenames"] == "false"
    assert {k: v for k, v in new.items() if k != "repos"} == {
        k: v for k, v in old.items() if k != "repos"
    }
    for line in textwrap.dedent(before).splitlines():
        assert line in after
    assert _pre_commit(after) == after
    assert manager_yaml.names_guard("pre-commit", after, "pre-merge-commit", GUARD_ID)


def test_pre_commit_with_the_guard_already_there_is_kept() -> None:
    remote = "repos:\n- repo: https://example.com/rehydrate\n  rev: v1\n  hooks:\n"
    remote += "  - id: rehydrate-guard\n"
    assert _pre_commit(remote) == remote


@pytest.mark.parametrize(
    "before",
    [
        pytest.param("repos: []\n", id="flow-repos"),
        pytest.param("repos: !!seq []\n", id="tag"),
        pytest.param("repos:\n  repo: local\n", id="repos-a-mapping"),
    ],
)
def test_pre_commit_layouts_it_cannot_edit_are_refused(before: str) -> None:
    with pytest.raises(RehydrateError) as caught:
        _pre_commit(before)
    assert caught.value.code == "hook_manager_config" and caught.value.fix


@pytest.mark.parametrize(
    "text, hook, expected",
    [
        pytest.param(
            "repos:\n- repo: x\n  hooks:\n  - id: rehydrate-guard\n",
            "pre-merge-commit",
            True,
            id="no-stages-all",
        ),
        pytest.param(
            "repos:\n- repo: x\n  hooks:\n  - id: rehydrate-guard\n    stages: [commit]\n",
            "pre-commit",
            True,
            id="old-stage-name",
        ),
        pytest.param(
            "repos:\n- repo: x\n  hooks:\n  - id: rehydrate-guard\n    stages: [pre-push]\n",
            "pre-commit",
            False,
            id="other-stage",
        ),
        pytest.param(
            "default_stages: [pre-push]\nrepos:\n- repo: x\n  hooks:\n  - id: rehydrate-guard\n",
            "pre-commit",
            False,
            id="default-stages",
        ),
        pytest.param(
            "repos:\n- repo: x\n  hooks:\n  - id: black\n", "pre-commit", False, id="absent"
        ),
        pytest.param("repos: [", "pre-commit", False, id="broken"),
    ],
)
def test_pre_commit_names_the_guard(text: str, hook: str, expected: bool) -> None:
    assert manager_yaml.names_guard("pre-commit", text, hook, GUARD_ID) is expected


def test_husky_block_is_appended_once_and_removed_exactly() -> None:
    block = [manager_yaml.BEGIN, "guard", manager_yaml.END]
    mine = "npm test\n"
    once = manager_yaml.put_block(mine, block)
    assert once.startswith(mine) and once.endswith(manager_yaml.END + "\n")
    assert manager_yaml.put_block(once, block) == once
    assert manager_yaml.remove_block(once) == mine
    assert manager_yaml.exits_early("exec npm test\n" + once)
    assert not manager_yaml.exits_early("npm test || exit 1\n" + once)
