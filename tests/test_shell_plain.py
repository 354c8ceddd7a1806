"""A line of plain words and operators is read without the grammar (issue 28 item 5):
``shell.plain_tree`` builds the tree tree-sitter-bash builds for it, and the one walk reads
both. Compared here on generated lines: every line the plain reader takes gives exactly the
commands, scope markers and fed input the grammar's reading gives; every other line is the
grammar's."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rehydrate.agents import shell

# Words that mean something to the walk or to the check: echo/printf feed a later `sh`, tee
# and cat pass it on, assignments, reserved words, numbers, every plain character.
WORDS = ["echo", "printf", "sh", "bash", "tee", "cat", "eval", "cd", "go", "test", "-n", "-e"]
WORDS += ["A=1", "--tags=musl", "=x", "x=", "2", "10", "if", "time", "in", "do", "done", "then"]
WORDS += ["./pkg1/...", "a:b,c", "+x", "@y", "%s", "^z", "-", "--", "rm", "-rf", "build", "f"]
WORDS += ["export", "unset", "declare", "local", "readonly", "typeset", "B", "-x", "x=y=z"]
OPERATORS = ["&&", "||", "|", ";", "&"]
BLANKS = ["", " ", "  ", "\t"]


def _line(draw: st.DrawFn) -> str:
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 9))):
        kind = draw(st.sampled_from(["word", "word", "word", "op"]))
        token = draw(st.sampled_from(WORDS if kind == "word" else OPERATORS))
        parts.append(draw(st.sampled_from(BLANKS if kind == "op" else BLANKS[1:])))
        parts.append(token)
    parts.append(draw(st.sampled_from(BLANKS)))
    return "".join(parts)


lines = st.composite(_line)


def _by_grammar(text: str) -> tuple[shell.Simple, ...] | None:
    """The grammar's reading, or None where the grammar finds the line invalid."""
    parsed = shell._parse_here(text.encode())
    assert parsed is not None
    commands, error = parsed
    return tuple(commands) if error is None else None


@settings(max_examples=1500, deadline=None)
@given(lines())
def test_a_plain_line_reads_as_the_grammar_reads_it(text: str) -> None:
    tree = shell.plain_tree(text)
    grammar = _by_grammar(text)
    if tree is None or grammar is None:
        return  # the grammar's to read; or one of its gaps (the tree test covers those)
    assert shell.parse(text).commands == grammar, text
    assert shell.parse(text).problems == ()


def _shape(node: shell.Node) -> tuple[object, ...]:
    kind = "word" if node.type == "number" else node.type  # one kind of word to the walk
    return (kind, node.is_named, node.start_byte, node.end_byte, [_shape(c) for c in node.children])


def _masked(text: str) -> str:
    """``text`` with every word made ``x…x`` (same length): the grammar's tree of the line's
    shape, free of its gaps on some plain words (``A=1 a:b,c`` is invalid to it, not to bash)."""
    return "".join(c if c in "&|; \t" else "x" for c in text)


@settings(max_examples=1000, deadline=None)
@given(lines())
def test_a_plain_line_has_the_grammars_tree(text: str) -> None:
    """The tree itself, node by node, against the grammar's tree of the same shape: the walk
    reads a word only through its bytes, so the same tree is the same reading."""
    tree = shell.plain_tree(text)
    if tree is None:
        return
    import tree_sitter

    parser = tree_sitter.Parser(tree_sitter.Language(shell._bash()))
    root = parser.parse(_masked(text).encode()).root_node
    assert not root.has_error, text
    assert _shape(tree) == _shape(root), text


def test_a_word_the_grammar_drops_is_kept() -> None:
    """tree-sitter-bash drops a bare ``==`` word; bash passes it, and so does the plain reader."""
    assert shell.parse("test a == b && go test").commands[0].words == ("test", "a", "==", "b")


ACCEPTED = [
    "go test ./... && make test",
    "tool7 --flag-99999 --mode m1 ./pkg1/... && make test",
    "a | b && c | d | e || f ; g & h",
    "npm ci; npm test;",
    "make build &",
    "go build -tags=musl ./... && go vet --tags=musl",
    "echo rm -rf build | sh",
]
REFUSED = [
    "a &&",  # a chain that ends in its operator
    "&& a",
    "a ;; b",  # case's terminator
    "a |& b",  # stderr too: the grammar's
    "a &; b",
    "a || | b",
    "if a; then b; fi",
    "a && time b",
    "A=1 go build ./... && go test",  # the grammar's assignment nodes
    "go build && export A=1",  # a declaration
    "- x=",  # tree-sitter reads `x=` as an assignment and drops `-`
    # tree-sitter-bash reads a chain that starts with three or more piped commands as
    # `a | (b | c && d)`, bash as `(a | b | c) && d`: that line stays the grammar's, as before
    "a | b | c && d",
    "a | b | c | d || e",
    "a\nb",  # a newline
    "a # b",  # a comment
    "a > b",
    "a 'b' && c",
    "a $B && c",
    "a *.py && c",
    "a ~/x && c",
    "{ a; }",
    "(a)",
    "a && b\\",
    "",
    "   ",
    "a && ünïcode",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_the_plain_reader_takes_plain_lines(text: str) -> None:
    assert shell.plain_tree(text) is not None
    assert shell.parse(text).commands == _by_grammar(text)


@pytest.mark.parametrize("text", REFUSED)
def test_the_plain_reader_leaves_every_other_line_to_the_grammar(text: str) -> None:
    assert shell.plain_tree(text) is None


def test_a_fed_shell_on_a_plain_line_is_read() -> None:
    """``echo … | sh`` runs what echo prints: the walk's pipeline feeds it, on either tree."""
    (echo, sh) = shell.parse("echo rm -rf build | sh").commands
    assert sh == shell.Simple(("sh",), ("rm -rf build",), expands=frozenset({0}))
    assert echo.words[0] == "echo"


def test_a_long_plain_line_is_read_word_by_word_as_before() -> None:
    """Past the grammar's limit the line is read word by word, as the grammar's would be."""
    text = "a && " * (shell.MAX_GRAMMAR_BYTES // 5) + "go test"
    script = shell.parse(text)
    assert script.problems and "over the" in script.problems[0]


def test_a_plain_two_command_line_loads_no_grammar() -> None:
    code = (
        "import sys; from rehydrate.agents import shell; "
        "assert len(shell.parse('go test ./... && make test').commands) == 4; "
        "print('tree_sitter' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
