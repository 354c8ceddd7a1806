"""Issue 24, classes 4-6: what a renderer hides is refused (the AST decides, one function),
and a chained next action is refused on its structure, code spans exempt. Three ways
each (pure rules, a real ``git commit`` through the installed hook, ``guard --range``),
every refusal naming the file (and the item, for a row); every twin passes all three;
the prompt never carries what was refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adversarial.content import Attack
from adversarial.helpers import (
    PATHS,
    REFUSED,
    assert_refusal_names,
    git,
    make_base_repo,
    run,
    write_ledgers,
)
from adversarial.rendering import CHAINED, HIDDEN, SHOWN, SINGLE
from adversarial.test_content_rules import WAYS, _attempt, _changed, _target_path


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base_repo(tmp_path_factory.mktemp("rendering") / "base")


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("attack", HIDDEN + CHAINED)
def test_hidden_or_chained_is_refused(base_repo: Path, attack: Attack, way: str) -> None:
    code, messages = _attempt(base_repo, attack, way)
    assert code == REFUSED, f"{way}: not refused (exit {code}):\n{messages}"
    assert_refusal_names(messages, _target_path(attack), attack.ident)
    assert "Traceback" not in messages


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("attack", SHOWN + SINGLE)
def test_the_twin_passes(base_repo: Path, attack: Attack, way: str) -> None:
    code, messages = _attempt(base_repo, attack, way)
    assert code == 0, f"{way}: refused a legitimate change (exit {code}):\n{messages}"


@pytest.mark.parametrize("attack", HIDDEN[:3] + HIDDEN[-3:])
def test_the_prompt_never_carries_hidden_text(base_repo: Path, attack: Attack) -> None:
    """The work tree holds the hidden text: the prompt refuses to build (exit 2, naming the
    ledger and line) rather than hand the model what no reader sees."""
    write_ledgers(base_repo, _changed(attack))
    try:
        result = run(base_repo, "prompt", "--worktree")
    finally:
        run_git_checkout(base_repo)
    assert result.code == 2, result.out[-2000:]
    assert _target_path(attack) in result.err and "html_comment" in result.err, result.err


def test_the_prompt_carries_the_twin(base_repo: Path) -> None:
    attack = SHOWN[0].values[0]  # a link without a title
    write_ledgers(base_repo, _changed(attack))
    try:
        result = run(base_repo, "prompt", "--worktree")
    finally:
        run_git_checkout(base_repo)
    assert result.code in (0, 3), result.err  # 3: the base's unknown write blocks, printed
    assert "use swap" in result.out and PATHS["failures"] in result.out


def run_git_checkout(repo: Path) -> None:
    git(repo, "checkout", "-q", "--", ".")


_FRAGMENTS = [
    "<b>",
    "</b>",
    "<br>",
    "<kbd>",
    "</kbd>",
    "<p>",
    "<span title=x>",
    "<x-y>",
    "<details>",
    "<!--",
    "<",
    ">",
    "[",
    "]",
    "(",
    ")",
    "](",
    "![",
    "!",
    " ",
    '"t"',
    "'t'",
    "a",
    "then",
    "http://e/x",
    "<http://e>",
    "&amp;",
    "&nbsp;",
    "&lt;",
    "*",
    "_",
    "`",
    "\\",
    ";",
    "|",
]


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=14).map("".join))
def test_the_plain_fast_path_agrees_with_the_tree(text: str) -> None:
    """Whenever ``render_inline`` answers without mistune, the tree says the same: nothing
    hidden, the same line breaks, the same visible characters."""
    from rehydrate.ledgers._render import _has_visible
    from rehydrate.ledgers._visible import BREAK, _plain_inline, _render_inline

    fast = _plain_inline(text)
    if fast is None:
        return
    tree = _render_inline(text)
    assert tree.hidden == (), (text, tree.hidden)
    assert (BREAK in {k for k, _ in fast.pieces}) == (BREAK in {k for k, _ in tree.pieces}), text
    shown = "".join(t for k, t in fast.pieces if k != BREAK)
    want = "".join(t for k, t in tree.pieces if k != BREAK)
    assert _has_visible(shown) == _has_visible(want), (text, shown, want)
