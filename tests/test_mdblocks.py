"""Markdown's building blocks (``rehydrate.mdblocks``): code spans and fences agree with
mistune's CommonMark reading; front matter is bounded the one way every reader uses."""

from __future__ import annotations

import mistune
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rehydrate.mdblocks import code_spans, fence_closes, fence_open, front_matter_bounds

_MD = mistune.create_markdown(renderer=None)


def _mistune_spans(text: str) -> list[str]:
    found: list[str] = []

    def walk(tokens: list[dict[str, object]]) -> None:
        for token in tokens:
            if token.get("type") == "codespan":
                found.append(str(token["raw"]))
            children = token.get("children")
            if isinstance(children, list):
                walk(children)

    walk(_MD("x " + text + "\n"))  # 'x ': inline text, never a fence or a list item
    return found


def _span_contents(text: str) -> list[str]:
    out = []
    for start, end, run in code_spans(text):
        content = text[start + run : end - run]
        if len(content) >= 2 and content[0] == content[-1] == " " and content.strip(" "):
            content = content[1:-1]  # CommonMark strips one space each side
        out.append(content)
    return out


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="``` a*_", max_size=24))
def test_code_spans_pair_runs_as_mistune_does(text: str) -> None:
    assert _span_contents(text.strip()) == _mistune_spans(text.strip())


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        pytest.param("`a`", [(0, 3, 1)], id="one-span"),
        pytest.param("``", [], id="one-run-of-two"),
        pytest.param("`a``b`", [(0, 6, 1)], id="other-length-inside"),
        pytest.param("``a`b``", [(0, 7, 2)], id="double"),
        pytest.param("`a", [], id="unclosed"),
        pytest.param("`a` `b`", [(0, 3, 1), (4, 7, 1)], id="two"),
    ],
)
def test_code_spans_table(text: str, spans: list[tuple[int, int, int]]) -> None:
    assert code_spans(text) == spans


def _mistune_fence(line: str) -> bool:
    tokens = _MD(line + "\n")
    return bool(tokens) and tokens[0]["type"] == "block_code" and tokens[0].get("style") == "fenced"


_LINE = st.text(alphabet="   ``~~~a\t", min_size=1, max_size=10)


@settings(max_examples=400, deadline=None)
@given(_LINE)
def test_fence_open_agrees_with_mistune(line: str) -> None:
    assert (fence_open(line) is not None) == _mistune_fence(line)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["```", "~~~~", " ``` x", "````"]), _LINE)
def test_fence_closes_agrees_with_mistune(opener: str, line: str) -> None:
    fence = fence_open(opener)
    assert fence is not None
    tokens = _MD(opener + "\nbody\n" + line + "\n\nafter\n")
    closed = tokens[0]["type"] == "block_code" and len(tokens) > 1
    assert fence_closes(line, fence) == closed


@pytest.mark.parametrize(
    ("lines", "end"),
    [
        pytest.param([], None, id="empty"),
        pytest.param(["# Title"], None, id="no-block"),
        pytest.param(["----", "a: 1", "---"], None, id="four-dashes-opens-nothing"),
        pytest.param(["---", "a: 1", "---", "body"], 2, id="closed"),
        pytest.param(["--- \t", "a: 1", "... "], 2, id="dots-and-blanks"),
        pytest.param(["---", "---"], 1, id="empty-block"),
        pytest.param(["---", "a: 1"], 2, id="unclosed-is-len"),
        pytest.param(["---"], 1, id="only-opener"),
    ],
)
def test_front_matter_bounds_table(lines: list[str], end: int | None) -> None:
    assert front_matter_bounds(lines) == end
    assert front_matter_bounds(iter(lines)) == end  # a generator is read the same way
