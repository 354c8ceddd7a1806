"""Read a command line as a shell would: its simple commands, each as words (see
docs/check-command.md). The one module that imports tree-sitter.

A command is parsed with tree-sitter-bash (a real grammar: lists, pipelines, newlines,
``if``/``for``/``while``/``case``, ``$( )``, backticks, subshells, groups, functions,
heredocs). Text the grammar cannot take whole (too long, past the check's budget, not
valid shell) is also read by ``words_of``, a linear lexer that splits at every operator
and newline, so everything that *might* run is matched (quoted text stays one word:
``echo 'go test'`` stays data). Each such reading is named in ``Script.problems``.

A line of plain words and the operators ``&&``, ``||``, ``|``, ``;`` and ``&`` only (no
quotes, expansions, redirections, newlines or reserved words) is read without loading the
grammar: ``plain_tree`` builds the syntax tree tree-sitter-bash builds for it, and the same
walk reads both (tests/test_shell_plain.py compares the two on generated lines).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator, Sequence

from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:  # the grammar is loaded on first use, never at import
    from typing import Protocol

    from tree_sitter import Node as Syntax
    from tree_sitter import Parser

    class Node(Protocol):
        """What the walk reads of a syntax node: tree-sitter's, or ``Plain``'s."""

        @property
        def type(self) -> str: ...
        @property
        def is_named(self) -> bool: ...
        @property
        def start_byte(self) -> int: ...
        @property
        def end_byte(self) -> int: ...
        @property
        def children(self) -> Sequence[Node]: ...
        @property
        def named_children(self) -> Sequence[Node]: ...
        @property
        def parent(self) -> Node | None: ...
        def child_by_field_name(self, name: str, /) -> Node | None: ...
        def children_by_field_name(self, name: str, /) -> Sequence[Node]: ...


# The grammar's error recovery is quadratic on some hostile text (`a|a|...|`: 4 KB costs
# ~0.4 s, 16 KB seconds, and its cancellation is not polled then). Short text is parsed
# here, within a byte budget per check; longer text in a child process that is killed
# at a deadline; longer still, or past the budget, only word by word.
SMALL = 1024
MAX_GRAMMAR_BYTES = 65536
HERE_BUDGET = 16384
CHILDREN = 2
CHILD_SECONDS = 0.4
TEXT_BUDGET = 1 << 20  # bytes read per check, nested strings included (or twice the command)

RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}"}
    | {"case", "esac", "for", "select", "in", "function", "coproc", "[[", "]]", "time"}
)


class Simple(NamedTuple):
    """One simple command: its words (quoting removed, expansions as written) and the
    text fed to it by heredocs and here-strings."""

    words: tuple[str, ...]
    stdin: tuple[str, ...] = ()
    # the words whose ``$`` is literal (``'$T'``, ``\$T``): never expanded as a variable
    literal: frozenset[int] = frozenset()
    # the words that are one unquoted expansion (``$CMD``): split into fields when expanded
    split: frozenset[int] = frozenset()
    # the file its standard output replaces (``> s.sh``, ``>| s.sh``), as written
    writes: str = ""
    # the inputs the shell expands before it feeds them (``<<< "$X"``, an unquoted
    # heredoc, what ``echo "$X"`` prints into the pipe), by index in ``stdin``
    expands: frozenset[int] = frozenset()
    # the file its standard input is redirected from (``< list.txt``), as written
    reads: str = ""


# Markers among the simple commands ``parse`` gives (no command has these words), for the
# variables a later command sees (``commandline.read``): a subshell's (``( … )``, ``$( …
# )``, ``<( … )``, a pipeline stage) are forgotten after it; what may not run (a loop or
# branch body, a function's, what follows ``||``) is not known in it nor after it; what
# follows ``&&`` is known to the rest of that chain only; a function's body where it is
# called runs as the call does, its variables known in it but not after it (CALL_OPEN).
# SCOPE_CLOSE ends each one.
SCOPE_OPEN = Simple(("\x00(",))
MAYBE_OPEN = Simple(("\x00?(",))
UNKNOWN_OPEN = Simple(("\x00!(",))
CALL_OPEN = Simple(("\x00f(",))
SCOPE_CLOSE = Simple(("\x00)",))
# A word that is a list of words (an array's value, the positional parameters): LIST, then
# the items joined by ITEM (an array with either character in an item is not one)
LIST = "\x00["
ITEM = "\x1f"
# A function body has its own positional parameters ($1, "$@"): not the line's; where it
# is called, the call's arguments (PARAMETERS, then the words as written); else unknown
PARAMETERS = "\x00@"
_OWN_PARAMETERS = Simple(("unset", "@"))
_SCOPES = frozenset({"subshell", "command_substitution", "process_substitution"})
# An assignment that is part of another command (`T=1 go test`, `export T=1`), read there.
_ASSIGNS_AS_PART = frozenset({"command", "declaration_command", "variable_assignments"})
_MAYBE = frozenset(
    {"while_statement", "for_statement", "c_style_for_statement", "if_statement"}
    | {"case_statement", "function_definition"}
)


class Script(NamedTuple):
    commands: tuple[Simple, ...]
    problems: tuple[str, ...]  # why parts were read word by word


class Budget:
    """What the grammar may still spend on one check (nested strings share it)."""

    def __init__(
        self, here: int = HERE_BUDGET, children: int = CHILDREN, text: int = TEXT_BUDGET
    ) -> None:
        self.here = here
        self.children = children
        self.text = text


# commands, and the first error (row, column) or why a part was not read (`_Walk.unread`)
Parsed = tuple[list[Simple], tuple[int, int] | str | None]


class Plain:
    """A node of the tree ``plain_tree`` builds: what the walk reads of tree-sitter's."""

    __slots__ = ("type", "children", "start_byte", "end_byte", "is_named")
    parent = None  # the walk asks only of an assignment's, and a plain line has none

    def __init__(self, kind: str, children: list[Plain], start: int, end: int) -> None:
        self.type = kind
        self.children = children
        self.start_byte = start
        self.end_byte = end
        self.is_named = kind not in _OPERATORS

    @property
    def named_children(self) -> list[Plain]:
        return [c for c in self.children if c.is_named]

    def child_by_field_name(self, name: str, /) -> None:
        return None  # no node of a plain line has a field the walk asks for

    def children_by_field_name(self, name: str, /) -> list[Plain]:
        return []


_OPERATORS = frozenset({"&&", "||", "|", ";", "&"})
# First words the grammar reads as nodes of their own (`export A=1 | b` is a subshell's).
_NOT_PLAIN_FIRST = RESERVED | {"export", "declare", "local", "readonly", "typeset", "unset"}
# A plain line's tokens: words of characters that mean nothing to the shell, operators
# (longest first), blanks; a character of none of them (a quote, `$`, `\\`, `#`, `>`, a
# newline, a glob, a brace, …) leaves the line to the grammar.
_PLAIN_TOKEN = r"(?P<word>[A-Za-z0-9_./=:,+@%^-]++)|(?P<op>&&|\|\||[|;&])|[ \t]++"


def plain_tree(text: str) -> Plain | None:
    """The syntax tree of a line of plain words and operators, as tree-sitter-bash builds
    it (``program`` of ``;``/``&``-separated ``list``s, nested to the left, of
    ``pipeline``s of ``command``s), or None for any other line. Linear."""
    tokens: list[tuple[str, int, int]] = []
    at = 0
    for found in re.finditer(_PLAIN_TOKEN, text):
        if found.start() != at:
            return None
        at = found.end()
        if found.lastgroup is not None:
            tokens.append((found.lastgroup, found.start(), at))
    if at != len(text) or not tokens:
        return None
    statements: list[Plain] = []
    index = 0
    while index < len(tokens):
        chain, index = _plain_chain(text, tokens, index)
        if chain is None:
            return None
        statements.append(chain)
        if index < len(tokens):  # `;` or `&`, then another statement or the end
            _, start, end = tokens[index]
            if text[start:end] not in (";", "&"):
                return None
            statements.append(Plain(text[start:end], [], start, end))
            index += 1
    return Plain("program", statements, tokens[0][1], len(text))


def _plain_chain(
    text: str, tokens: list[tuple[str, int, int]], index: int
) -> tuple[Plain | None, int]:
    """Pipelines joined by ``&&``/``||`` from ``tokens[index]``, and the index after them."""
    left, index = _plain_pipeline(text, tokens, index)
    while left is not None and index < len(tokens):
        _, start, end = tokens[index]
        if text[start:end] not in ("&&", "||"):
            break
        if left.type == "pipeline" and len(left.named_children) >= 3:
            # `a | b | c && d`: the grammar nests it as `a | (b | c && d)`, bash as
            # `(a | b | c) && d`; such a line is left to the grammar, as before
            return None, index
        right, index = _plain_pipeline(text, tokens, index + 1)
        if right is None:
            return None, index
        joint = Plain(text[start:end], [], start, end)
        left = Plain("list", [left, joint, right], left.start_byte, right.end_byte)
    return left, index


def _plain_pipeline(
    text: str, tokens: list[tuple[str, int, int]], index: int
) -> tuple[Plain | None, int]:
    stages: list[Plain] = []
    while True:
        words: list[Plain] = []
        while index < len(tokens) and tokens[index][0] == "word":
            _, start, end = tokens[index]
            words.append(Plain("word", [], start, end))
            index += 1
        if not words:
            return None, index  # an operator with no command before or after it
        first = text[words[0].start_byte : words[0].end_byte]
        if first in _NOT_PLAIN_FIRST or "=" in first or first.startswith("-"):
            return None, index  # the grammar's own nodes (assignments, declarations) or gaps
        name = Plain("command_name", [words[0]], words[0].start_byte, words[0].end_byte)
        stages.append(Plain("command", [name, *words[1:]], name.start_byte, words[-1].end_byte))
        if index < len(tokens) and text[tokens[index][1] : tokens[index][2]] == "|":
            stages.append(Plain("|", [], tokens[index][1], tokens[index][2]))
            index += 1
            continue
        if len(stages) == 1:
            return stages[0], index
        return Plain("pipeline", stages, stages[0].start_byte, stages[-1].end_byte), index


def parse(text: str, budget: Budget | None = None) -> Script:
    """The simple commands of ``text``."""
    budget = budget if budget is not None else Budget()
    budget.text -= len(text)
    text = join_continuations(text)
    # within the grammar's limits (longer text is read word by word, as the grammar's is)
    plain = plain_tree(text) if budget.text >= 0 and len(text) <= MAX_GRAMMAR_BYTES else None
    if plain is not None:  # no quotes, so no alias: nothing the walk leaves unread
        return Script(tuple(_Walk(text.encode("ascii")).run(plain)), ())
    parsed, why = _grammar(text.encode("utf-8", "surrogatepass"), budget)
    if parsed is None:
        return Script(tuple(words_of(text)), (why,))
    commands, error = parsed
    if error is None:
        return Script(tuple(commands), ())
    if not isinstance(error, str):
        error = f"not valid shell at line {error[0] + 1}, column {error[1] + 1}"
    return Script(tuple(commands) + tuple(words_of(text)), (error,))


def by_words(text: str, budget: Budget) -> Script:
    """The simple commands of ``text`` as the word lexer reads them (``words_of``), without
    the grammar: for text nested deeper than the grammar is asked to read. Linear."""
    budget.text -= len(text)
    return Script(tuple(words_of(join_continuations(text))), ())


def _grammar(data: bytes, budget: Budget) -> tuple[Parsed | None, str]:
    """The grammar's reading of ``data`` where the budget allows, else why not."""
    if budget.text < 0:
        return None, "more shell text than one check reads"
    if len(data) <= SMALL:
        if len(data) > budget.here:
            return None, "more shell text than one check parses"
        budget.here -= len(data)
        return _parse_here(data), "the shell grammar gave up on it"
    if len(data) > MAX_GRAMMAR_BYTES:
        return None, f"{len(data)} bytes, over the {MAX_GRAMMAR_BYTES} the shell grammar reads"
    if budget.children <= 0 or not hasattr(os, "fork"):
        return None, "more shell text than one check parses"
    budget.children -= 1
    return _parse_in_child(data), f"the shell grammar did not finish in {CHILD_SECONDS} s"


_PARSER: list[Parser] = []


def _parse_here(data: bytes) -> Parsed | None:
    """Commands and first error, or None when the parse ran past its deadline."""
    if not _PARSER:
        import tree_sitter

        _PARSER.append(tree_sitter.Parser(tree_sitter.Language(_bash())))
    parser = _PARSER[0]
    deadline = time.perf_counter() + CHILD_SECONDS
    root = _tree(parser, data, deadline)
    for passes in range(MAX_PREFIX_PASSES + 1):
        if root is None:
            return None
        blanks = _prefixes(root, data) if b"time" in data or b"!" in data else []
        if not blanks or passes == MAX_PREFIX_PASSES:
            break
        data = _blanked(data, blanks)  # read again without them: they change nothing run
        root = _tree(parser, data, deadline)
    assert root is not None
    walk = _Walk(data)
    commands = list(walk.run(root))
    if blanks:  # nested deeper than read again: read as the grammar did, and word by word
        line = data.count(b"\n", 0, blanks[0][0]) + 1
        return commands, f"`time` or `!` before a compound command nested deeper at line {line}"
    if walk.unread:
        return commands, walk.unread
    return commands, (_first_error(root) if root.has_error else None)


def _tree(parser: Parser, data: bytes, deadline: float) -> Syntax | None:
    """The syntax tree of ``data``, or None when the parse ran past ``deadline``."""
    try:
        tree = parser.parse(
            lambda offset, _point: data[offset : offset + 65536],
            progress_callback=lambda *_: time.perf_counter() > deadline,
        )
    except ValueError:  # cancelled: the parser would resume this parse next time
        parser.reset()
        return None
    return tree.root_node


# `time [-p] [--]` and `!` before a compound command (`time { rm -rf build; }`, `! if …`):
# bash reads them as reserved words before a pipeline; tree-sitter-bash only before a
# simple command or a subshell, and reads `time {`, `! for` as a command named `time` or
# `{`, its arguments running on past the group. Neither changes what the pipeline runs
# (`time` reports its time, `!` negates its status), so the text is read again with them
# blanked out (same length: an error's line and column stay). A run of them is blanked at
# once (`! ! time -p {`); one nested inside a group another blanking opened is found on
# the next pass, for at most MAX_PREFIX_PASSES passes (each is a whole parse); one nested
# deeper is an error where it is (the text is then also read word by word, and says so).
_PREFIX_WORDS = frozenset({b"time", b"!"})
_COMPOUND_OPENERS = frozenset({b"{", b"if", b"for", b"while", b"until", b"case", b"select"})
MAX_PREFIX_PASSES = 3


def _prefixes(root: Syntax, data: bytes) -> list[tuple[int, int]]:
    """The byte ranges of the runs of ``time`` and ``!`` (with ``time``'s ``-p`` and
    ``--``) the grammar misread before a compound command. Linear: each node once."""
    found: list[tuple[int, int]] = []
    stack = [(root, False)]  # a node, and whether it is a pipeline's stage after the first
    while stack:
        node, later = stack.pop()
        words: list[Syntax] = []
        negated = node.type == "negated_command" and node.named_children
        inner = node.named_children[0] if negated else None
        if inner is not None and inner.type == "command" and node.children:
            words, node = [node.children[0]], inner  # the `!`, then the command it negates
        elif node.type != "command":
            pipe = node.type == "pipeline"
            stack.extend((c, pipe and i > 0) for i, c in enumerate(node.named_children))
            continue
        stack.extend((c, False) for c in node.named_children)
        if later:  # `a | time {`: a prefix only where a pipeline starts (there, a syntax error)
            continue
        name = node.child_by_field_name("name")
        if name is None:
            continue
        words += [name, *node.children_by_field_name("argument")]
        run = _prefix_run([data[w.start_byte : w.end_byte] for w in words])
        if run:
            found.append((words[0].start_byte, words[run - 1].end_byte))
    return found


def _prefix_run(words: Sequence[bytes]) -> int:
    """How many of ``words`` (as written) are a run of prefixes before a compound
    command's opening word; 0 when they are not."""
    for index, word in enumerate(words):
        if word in _COMPOUND_OPENERS:
            return index
        after_time = index > 0 and words[index - 1] in (b"time", b"-p", b"--")
        if word not in _PREFIX_WORDS and not (after_time and word in (b"-p", b"--")):
            return 0
    return 0


def _blanked(data: bytes, ranges: Sequence[tuple[int, int]]) -> bytes:
    """``data`` with each range's bytes spaces (its newlines kept)."""
    out = bytearray(data)
    for start, end in ranges:
        out[start:end] = re.sub(rb"[^\n]", b" ", data[start:end])
    return bytes(out)


def _bash() -> object:
    """The bash grammar, from the package's compiled binding alone: importing the package
    (or any module of it) runs its ``__init__``, whose ``importlib.resources`` costs ~30 ms
    for query files the check never reads."""
    import importlib.machinery
    import importlib.util

    spec = importlib.util.find_spec("tree_sitter_bash")  # found, not imported
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_binding" + suffix)
            binding = importlib.util.spec_from_file_location("tree_sitter_bash._binding", path)
            if os.path.isfile(path) and binding is not None and binding.loader is not None:
                module = importlib.util.module_from_spec(binding)
                binding.loader.exec_module(module)
                found: object = module.language()
                return found
    from tree_sitter_bash import language  # pragma: no cover - another layout of the package

    return language()  # pragma: no cover


def _parse_in_child(data: bytes) -> Parsed | None:
    """``_parse_here`` in a forked child, killed at the deadline (and its memory capped)."""
    import marshal
    import select
    import signal

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow a fork)
        code = 1
        try:
            os.close(read_end)
            try:
                import resource

                resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
            except (ImportError, ValueError, OSError):
                pass
            parsed = _parse_here(data)
            if parsed is not None:
                out = marshal.dumps(([tuple(s) for s in parsed[0]], parsed[1]))
                with os.fdopen(write_end, "wb") as pipe:
                    pipe.write(out)
                code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.perf_counter() + CHILD_SECONDS
    try:
        while (left := deadline - time.perf_counter()) > 0:
            if not select.select([read_end], [], [], left)[0]:
                break
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                _, status = os.waitpid(pid, 0)
                pid = 0
                if status != 0:
                    return None
                commands, error = marshal.loads(b"".join(chunks))
                return [
                    Simple(tuple(w), tuple(i), frozenset(n), frozenset(f), out, frozenset(x), r)
                    for w, i, n, f, out, x, r in commands
                ], error
            chunks.append(chunk)
        return None
    finally:
        os.close(read_end)
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _first_error(root: Syntax) -> tuple[int, int]:
    """Where the parse went wrong: the first missing token, else the first error node."""
    stack, first = [root], None
    while stack:
        node = stack.pop()
        if node.is_missing:
            return (node.start_point[0], node.start_point[1])
        if node.is_error and first is None:
            first = (node.start_point[0], node.start_point[1])
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return first or (root.start_point[0], root.start_point[1])


_DOUBLE_QUOTED_ESCAPE = r'\\([$`"\\\n])'


def _unescape(match: re.Match[str]) -> str:
    return "" if match[1] == "\n" else match[1]


_ESCAPE = r"(?s)\\(.)"
_WORD_NODES = frozenset({"word", "number"})
_EXPANSIONS = frozenset({"simple_expansion", "expansion"})
_ALIAS_NAME = r"[A-Za-z0-9_.:@%+,^-]++"  # a name bash takes for an alias, of plain characters
_FIRST_WORD = r"([ \t]*+)(" + _ALIAS_NAME + r")(?![^ \t\n;&|])"  # an alias value's first word
_NAMED_FILE = frozenset({"word", "string", "raw_string", "concatenation"})
_WRITING = frozenset({">", ">|", ">>", "&>", "&>>", ">&", "<>"})
_DECLARATIONS = frozenset({"declaration_command", "unset_command", "variable_assignments"})


class _Walk:
    """One pass over a syntax tree, with an explicit stack (no recursion: nesting
    depth is the attacker's)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        # functions defined and not yet called: a body runs where the function is
        # called (`f() { …; }` alone runs nothing)
        self.functions: dict[str, Node] = {}
        # what a pipe's first stage reads, for a pipe the grammar did not put in a pipeline
        # with the command that feeds it (`cat <<'E' | sh`): by the pipe's place
        self.fed: dict[tuple[int, int, str], tuple[str, ...]] = {}
        # the statement whose redirections are a command's, for a command the grammar did
        # not put them on (`a && sh <<'E'`, `a | b > f`: bash's are the last command's)
        self.hung: dict[tuple[int, int, str], Node] = {}
        self.unrolled_bytes = 0  # loop and function bodies read more than once (`unrolled`)
        # functions called before: each later call reads the body again, with its own
        # arguments, while UNROLL_BUDGET lasts (a recursive call ends there)
        self.again: dict[str, Node] = {}
        self.called_again = 0  # bodies read again, at most MAX_CALLED_AGAIN
        self.top: set[tuple[int, int, str]] = set()  # the places of the line's statements
        # aliases the line defined: name -> (value, the byte from which bash reads commands
        # with it: the next line's); the start of the line's statement being read
        self.aliases: dict[str, tuple[str, int]] = {}
        self.alias_bytes = 0  # alias values put in, at most ALIAS_BUDGET
        self.unread = ""  # why a part of the text was not read (the text is then not known)
        self.statement_start = 0
        self._line = (0, -1)  # (a byte, the first newline at or after it): `next_line`

    def called(self, simple: Simple) -> list[Node | Simple]:
        """What to read for a call of a function defined earlier: its body, run as the
        call is (what it sets is known in it, not after it: ``CALL_OPEN``), with the
        call's arguments as its positional parameters (``f() { "$@"; }; f rm -rf build``)."""
        name = simple.words[0] if simple.words else ""
        body = self.functions.pop(name, None)
        if body is None:  # called before: read again, with these arguments, while it lasts
            body = self.again.get(name)
            size = body.end_byte - body.start_byte if body is not None else 0
            if body is None or self.unrolled_bytes + size > UNROLL_BUDGET:
                return []
            if self.called_again >= MAX_CALLED_AGAIN:  # each time its arguments are too
                return []
            self.unrolled_bytes += size
            self.called_again += 1
        self.again[name] = body
        arguments = simple._replace(words=(PARAMETERS, *simple.words[1:]))  # same indexes
        return [SCOPE_CLOSE, body, arguments, CALL_OPEN]

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    def word(self, node: Node) -> str:
        """A word as the shell passes it: quoting removed, expansions as written."""
        kind = node.type
        if kind in _WORD_NODES:
            raw = self.text(node)
            return re.sub(_ESCAPE, _unescape, raw) if "\\" in raw else raw
        if kind == "raw_string":
            return self.text(node)[1:-1]
        if kind in ("string", "translated_string"):
            raw = self.text(node)
            inner = raw[2:-1] if kind == "translated_string" else raw[1:-1]
            return re.sub(_DOUBLE_QUOTED_ESCAPE, _unescape, inner)
        if kind == "ansi_c_string":
            return ansi_c(self.text(node)[2:-1])
        if kind == "concatenation":
            return "".join(self.word(c) for c in node.children)
        if kind == "array":  # `x=(rm -rf build)`: a list of words (`LIST`)
            items = [self.word(c) for c in node.named_children if c.type != "comment"]
            if not any(ITEM in i or "\x00" in i for i in items):
                return LIST + ITEM.join(items)
        return self.text(node)

    def literal(self, node: Node) -> bool:
        """Whether a word holds a ``$`` that quoting or a backslash keeps from expanding
        (also when it holds an expanding one too: such a word is left as written)."""
        raw = self.text(node)
        return "$" in raw and ("'" in raw or "\\$" in raw)

    def command(self, node: Node) -> Simple:
        words: list[str] = []
        stdin: list[str] = []
        literal: set[int] = set()
        split: set[int] = set()
        expands: set[int] = set()
        children = node.children
        for at, child in enumerate(children):
            following = children[at + 1] if at + 1 < len(children) else None
            if _stdin_descriptor(self, child, following):
                continue  # `bash 0<<< '…'`: the grammar reads the `0` as an argument
            if child.is_named and child.type != "variable_assignment" and self.literal(child):
                literal.add(len(words))
            kind = child.type
            bare = child.children[0] if kind == "command_name" and child.children else child
            if bare.type in _EXPANSIONS:  # `$CMD`, `${CMD}`: not in quotes
                split.add(len(words))
            if kind == "variable_assignment":
                name, _, _ = self.text(child).partition("=")
                value = child.child_by_field_name("value")
                words.append(f"{name}={self.word(value) if value is not None else ''}")
            elif kind == "command_name":
                words.append(self.word(child.children[0]) if child.children else "")
            elif kind == "herestring_redirect" and not _other_descriptor(self, child):
                for part in child.named_children:
                    if part.type != "raw_string" and not self.literal(part):
                        expands.add(len(stdin))  # `<<< "$X"`
                    stdin.append(self.word(part))
            elif kind in ("word", "concatenation") and "{" in (raw := self.text(child)):
                expanded = _braces(raw)  # `rm -rf {build,}`; as written when not plain
                words.extend(expanded if expanded != [raw] else [self.word(child)])
            elif child.is_named and kind not in ("file_redirect", "comment"):
                words.append(self.word(child))
        return Simple(
            tuple(words), tuple(stdin), frozenset(literal), frozenset(split), "", frozenset(expands)
        )

    def simple(self, node: Node) -> Simple:
        """A command node as a simple command, with the redirections the grammar hung on
        the list or pipeline it ends (``self.hung``)."""
        statement = self.hung.get(_place(node)) if self.hung else None  # (a loop's copies)
        return self.command(node) if statement is None else self.redirected(node, statement)

    def redirected(self, body: Node, statement: Node) -> Simple:
        """A command with redirections after it: heredoc bodies are its input, and the
        words after a redirection's target are its arguments (``go >x test``: the grammar
        reads ``test`` as a second target)."""
        simple = self.command(body)
        words, stdin, literal = list(simple.words), list(simple.stdin), set(simple.literal)
        expands = set(simple.expands)
        first = next((c for c in statement.children if c != body), None)
        if body.children and _stdin_descriptor(self, body.children[-1], first):
            literal.discard(len(words) - 1)  # `bash 0< s.sh`: the `0` is the redirect's
            words.pop()
        written: list[str] = []
        for redirect in statement.children:
            if redirect.type == "file_redirect":
                targets = [c for c in redirect.named_children if c.type != "file_descriptor"]
                stdin.extend(self.substituted_input(redirect, targets))
                written.append(self.writes(redirect))
                for target in targets[1:]:
                    if self.literal(target):
                        literal.add(len(words))
                    words.append(self.word(target))
            elif redirect.type == "heredoc_redirect" and not _other_descriptor(self, redirect):
                start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
                quoted = start is None or any(q in self.text(start) for q in "'\"\\")
                for body in (c for c in redirect.children if c.type == "heredoc_body"):
                    text = self.text(body)
                    if not quoted and "\\" not in text:
                        expands.add(len(stdin))  # `<<E`: its `$X` expanded, not `<<'E'`
                    stdin.append(text)
                written.extend(map(self.writes, redirect.named_children))  # `cat <<'E' > s.sh`
        files = [name for name in written if name]
        writes = files[0] if len(files) == 1 else "?" if files else ""
        reads = next(filter(None, map(self.reads, statement.children)), "")
        return Simple(
            tuple(words),
            tuple(stdin),
            frozenset(literal),
            simple.split,
            writes,
            frozenset(expands),
            reads,
        )

    def reads(self, redirect: Node) -> str:
        """The file a redirection gives the command as its standard input (``< f``,
        ``0< f``), as written; "" for none or one whose name is not known."""
        parts = redirect.children if redirect.type == "file_redirect" else []
        if parts and parts[0].type == "file_descriptor":
            parts = parts[1:] if self.text(parts[0]) == "0" else []
        if len(parts) < 2 or parts[0].type != "<" or parts[1].type not in _NAMED_FILE:
            return ""
        name = self.word(parts[1])
        return "" if "$" in name or "`" in name else name

    def pipeline(self, node: Node) -> Iterator[tuple[Simple | None, Node]]:
        """Each stage of a pipeline (a command, with what the stage before it prints as
        its input: ``echo 'go test' | sh``), or another node."""
        fed = self.fed.get(_place(node), ())  # `cat <<'E' | sh`: what cat passes on
        expanded = False  # what the stage before printed holds expansions (`echo "$X"`)
        for stage in node.named_children:
            if stage.type != "command":
                if stage.type == "pipeline" and fed:  # the rest of the pipe, nested
                    self.fed[_place(stage)] = fed
                fed, expanded = (), False
                yield None, stage
                continue
            simple = self.simple(stage)
            if simple.stdin:  # `echo X | sh <<< 'Y'`: its own input, not the pipe's
                fed = ()
            more = range(len(simple.stdin), len(simple.stdin) + len(fed)) if expanded else ()
            simple = simple._replace(stdin=simple.stdin + fed, expands=simple.expands.union(more))
            yield simple, stage
            fed, expanded = passed_on(simple), _passes_expanded(simple)

    def writes(self, redirect: Node) -> str:
        """The file a redirection replaces with the command's standard output (``> s.sh``,
        ``1>| s.sh``), as written; ``?`` for a file it writes otherwise (``>> s.sh``,
        ``2> s.sh``, ``&> s.sh``) or one whose name is not known; "" for no file."""
        parts = redirect.children if redirect.type == "file_redirect" else []
        stdout = not parts or parts[0].type != "file_descriptor" or self.text(parts[0]) == "1"
        parts = parts[1:] if parts and parts[0].type == "file_descriptor" else parts
        if len(parts) < 2 or parts[0].type not in _WRITING:
            return ""
        raw = self.text(parts[1])
        if raw == "/dev/null" or (parts[0].type == ">&" and (raw.isdigit() or raw == "-")):
            return ""  # `2>/dev/null`, `2>&1`: no file
        name = self.word(parts[1]) if parts[1].type in _NAMED_FILE else "$"
        replaced = stdout and parts[0].type in (">", ">|")
        return name if replaced and name and "$" not in name and "`" not in name else "?"

    def substituted_input(self, redirect: Node, targets: Sequence[Node]) -> tuple[str, ...]:
        """``sh < <(echo …)``: what the command in the process substitution passes on, as
        the input of the command redirected from it."""
        if redirect.children[0].type != "<" or not targets:
            return ()
        if targets[0].type != "process_substitution":
            return ()
        inner = targets[0].named_children
        if len(inner) != 1 or inner[0].type not in ("command", "pipeline"):
            return ()
        if inner[0].type == "command":
            return passed_on(self.command(inner[0]))
        stages = [staged for staged, _ in self.pipeline(inner[0])]  # `<(echo … | base64 -d)`
        return passed_on(stages[-1]) if stages and stages[-1] is not None else ()

    def feed_the_pipe(self, statement: Node, out: tuple[str, ...]) -> None:
        """``cat <<'E' | sh``: the grammar puts the rest of the pipe inside the heredoc's
        redirect; what the command prints is that pipe's input (not after ``&&``)."""
        for redirect in statement.children if out else ():
            if redirect.type != "heredoc_redirect":
                continue
            for part in redirect.named_children:
                if part.type == "pipeline" and part.children[0].type in ("|", "|&"):
                    self.fed[_place(part)] = out

    def declaration(self, node: Node) -> Simple:
        """``export A=1 B``, ``unset A``, ``A=1 B=2`` as words, for the variables that
        later commands of the line see (``commandline.read``)."""
        node_children: Sequence[Node]
        if node.type == "variable_assignment":
            node_children = [node]
            words = []
        else:
            node_children = node.named_children
            words = [self.text(node.children[0])] if node.type != "variable_assignments" else []
        for child in node_children:
            if child.type == "variable_assignment":
                name, _, _ = self.text(child).partition("=")
                value = child.child_by_field_name("value")
                words.append(f"{name}={self.word(value) if value is not None else ''}")
            elif child.type in ("variable_name", "word"):
                words.append(self.text(child))
        return Simple(tuple(words))

    def run(self, root: Node) -> Iterator[Simple]:
        self.top = {_place(c) for c in root.named_children}  # the line's own statements
        yield from self._run([root])
        while True:  # a body not called by its name as a command may still run
            rest = self._may_be_called()
            if not rest:
                return
            yield from self._run(rest)

    def _may_be_called(self) -> list[Node | Simple]:
        """The bodies of functions not called by name as a command that something after
        their definition could still call: ``trap f EXIT``, ``eval f``, ``bash -c f``
        after ``export -f f``, ``$F``, a sourced file. A body is left unread only when the
        rest of the line holds neither the function's name nor anything that can
        compute a name or read commands from elsewhere (``f() { …; }; echo hi``)."""
        stack: list[Node | Simple] = []
        if not self.functions:
            return stack
        calls = [m.start() for m in re.finditer(_MAY_CALL, self.data)][-1:]
        many = len(self.functions) > MAX_UNCALLED  # each name is searched for: bounded work
        for name, body in list(self.functions.items()):
            rest = self.data[body.end_byte :]
            later = bool(calls) and calls[0] >= body.end_byte
            if many or later or name.encode("utf-8", "surrogateescape") in rest:
                del self.functions[name]
                stack += [SCOPE_CLOSE, body, _OWN_PARAMETERS, UNKNOWN_OPEN]
        return stack

    def _run(self, stack: list[Node | Simple]) -> Iterator[Simple]:
        while stack:
            node = stack.pop()
            if isinstance(node, Simple):  # a scope's marker
                yield node
                continue
            if self.aliases and _place(node) in self.top:
                self.statement_start = node.start_byte
            kind = node.type
            if kind == "function_definition" and self.defined(node):
                continue
            if kind == "for_statement" and self.unrolled(node, stack):
                yield MAYBE_OPEN
                continue
            if kind in _SCOPES or kind in _MAYBE:
                yield SCOPE_OPEN if kind in _SCOPES else UNKNOWN_OPEN
                variable = node.child_by_field_name("variable") if kind == "for_statement" else None
                if variable is not None:  # `for T in …`: T is what the loop last set
                    yield Simple(("unset", self.text(variable)))
                stack.append(SCOPE_CLOSE)
                stack.extend(reversed(self.live(node)))
                continue
            if kind == "list":  # `a && b || c`: the grammar nests it to the left
                first, rest, either = _chain(node, self.hung)
                live = self.short_circuited(first, rest)
                stack += [SCOPE_CLOSE, *reversed(live), UNKNOWN_OPEN if either else MAYBE_OPEN]
                stack.append(first)
                continue
            if kind == "command":
                yield from self._simple_command(node, stack)
                continue
            if kind in _DECLARATIONS or (
                kind == "variable_assignment"
                and node.parent is not None
                and node.parent.type not in _ASSIGNS_AS_PART
            ):
                yield self.declaration(node)  # then its value, for the $( ) inside it
            elif kind == "pipeline":
                for staged, stage in self.pipeline(node):
                    if staged is not None:
                        yield self.aliased(staged, stage)
                        stack += self.called(staged)
                        stack.extend(reversed(stage.children))
                    else:  # `export T=1 | …`: each stage runs in a subshell
                        stack += [SCOPE_CLOSE, stage, SCOPE_OPEN]
                continue
            elif kind == "redirected_statement":
                yield from self._statement(node, stack)
                continue
            stack.extend(reversed(node.children))

    def defined(self, node: Node) -> bool:
        """Take in a function's definition (its body runs where it is called); False for
        one the grammar left without a name or body."""
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None:
            return False
        self.functions[self.text(name)] = body  # a later call reads this body first
        return True

    def _simple_command(self, node: Node, stack: list[Node | Simple]) -> Iterator[Simple]:
        """A command node: it, then what a function it calls runs, then its words (for
        the ``$( )`` in them). A line's own ``exit`` ends it: nothing after it runs."""
        simple = self.simple(node)
        if simple.words[:1] in (("alias",), ("unalias",)):
            self.alias(simple.words, node)
        yield self.aliased(simple, node)
        if simple.words[:1] == ("exit",) and _place(node) in self.top:
            stack[:] = [n for n in stack if isinstance(n, Simple) or _place(n) not in self.top]
        else:
            stack += self.called(simple)
        stack.extend(reversed(node.children))

    def alias(self, words: tuple[str, ...], node: Node) -> None:
        """Take in ``alias NAME=VALUE`` and ``unalias NAME``: a statement of the line's own
        defines an alias for the commands bash reads after it, from the next line on
        (``alias r='rm -rf'⏎r build``; on its own line's rest it is not one yet). A value
        holding an expansion, or a definition where it may not run, leaves the name
        unknown, so not expanded."""
        own = _place(node) in self.top
        if words[1:] == ("-a",) and words[0] == "unalias":
            self.aliases.clear()
            return
        ready = self.next_line(node.end_byte)
        for word in words[1:]:
            name, eq, value = word.partition("=")
            self.aliases.pop(name, None)
            if own and eq and words[0] == "alias" and re.fullmatch(_ALIAS_NAME, name):
                if "$" not in value and "`" not in value:
                    self.aliases[name] = (value, ready)

    def next_line(self, at: int) -> int:
        """Where the line after byte ``at`` starts (past the end: none), each newline
        searched for once while the statements come in order (linear)."""
        start, newline = self._line
        if not start <= at <= newline:
            found = self.data.find(b"\n", at)
            newline = found if found >= 0 else len(self.data)
            self._line = (at, newline)
        return newline + 1

    def aliased(self, simple: Simple, node: Node) -> Simple:
        """``simple`` as bash reads it when its command word (after assignments and
        redirections, and after ``time [-p]``), unquoted, names an alias in force: the
        alias's value in its place, read again as a text of this shell (as ``eval`` reads
        one); else ``simple``. A value ending in a blank has the next word read as an
        alias too (``alias s='sudo '``: ``s r build``); a value's own first word is one in
        turn (never the same alias twice). At most ALIAS_BUDGET bytes put in per text:
        past them the text is not known (``unread``)."""
        name = node.child_by_field_name("name")
        if not self.aliases or not simple.words or name is None:
            return simple
        if self.alias_bytes > ALIAS_BUDGET:  # each value is read whole: bounded work
            self.unread = f"aliases put in for more than {ALIAS_BUDGET} bytes were not read"
            return simple
        words = [name, *node.children_by_field_name("argument")]
        at = 0
        if self.text(name) == "time":  # a reserved word: bash reads a command word after it
            at = 1
            while at < len(words) - 1 and self.text(words[at]) in ("-p", "--"):
                at += 1
        if simple.words[0] == "eval" and self.text(name) == "eval":  # aliases are in force there
            return self._in_force(simple, 1)
        value, end = "", at
        while end < len(words) and self.alias_bytes <= ALIAS_BUDGET:
            found = self._alias(self.text(words[end]))
            if found is None:
                break
            value, end = value + found[0], end + 1
            if not found[1]:  # its value does not end in a blank: the next word is its own
                break
        if end == at:
            return simple
        if self.alias_bytes > ALIAS_BUDGET:
            self.unread = f"aliases put in for more than {ALIAS_BUDGET} bytes were not read"
            return simple
        head = self.data[node.start_byte : words[at].start_byte].decode("utf-8", "surrogateescape")
        rest = self.data[words[end - 1].end_byte : node.end_byte]
        text = head + value + rest.decode("utf-8", "surrogateescape")
        return self._in_force(Simple(("eval", text), literal=frozenset({1})), 0)  # read there

    def _in_force(self, simple: Simple, given: int) -> Simple:
        """``eval``'s ``simple`` with the aliases in force defined before its text (as its
        first line: in force from the next), for the text read again with them: the
        words after the first ``given`` kept as they are, quoted for the definition."""
        defined = [
            f"{name}='" + value.replace("'", "'\\''") + "'"
            for name, (value, at) in self.aliases.items()
            if at <= self.statement_start
        ]
        if not defined:
            return simple
        text = "alias " + " ".join(defined) + "\n"
        self.alias_bytes += len(text)
        if self.alias_bytes > ALIAS_BUDGET:
            self.unread = f"aliases put in for more than {ALIAS_BUDGET} bytes were not read"
            return simple
        if not given:
            return simple._replace(words=("eval", text + simple.words[1]))
        shifted = (i + (i >= given) for i in simple.literal)  # a word put in after `eval`
        split = frozenset(i + (i >= given) for i in simple.split)
        words = (*simple.words[:given], text, *simple.words[given:])
        return simple._replace(words=words, literal=frozenset({given, *shifted}), split=split)

    def _alias(self, word: str) -> tuple[str, bool] | None:
        """What ``word`` as written stands for, when it is an alias in force (quoted or
        escaped it is not one: ``'r'``, ``\\r``): its value, with the value's first word
        put in too where that is another alias, and whether the value ends in a blank."""
        found = self.aliases.get(word)
        if found is None or found[1] > self.statement_start:
            return None
        value, seen = found[0], {word}
        self.alias_bytes += len(value)  # what is put in, and each value read once
        first = re.match(_FIRST_WORD, value)
        while first and first[2] in self.aliases and first[2] not in seen:
            inner = self.aliases[first[2]]
            if inner[1] > self.statement_start or self.alias_bytes > ALIAS_BUDGET:
                break
            seen.add(first[2])
            self.alias_bytes += len(inner[0])
            value = first[1] + inner[0] + value[first.end() :]
            first = re.match(_FIRST_WORD, inner[0])
        return value, found[0][-1:] in (" ", "\t")

    def status(self, node: Node) -> int | None:
        """The exit status of a part whose status is known before it runs: ``true``,
        ``:`` (0), ``false`` (1), and ``!`` before one of them; else None."""
        if node.type == "negated_command" and node.named_children:
            inner = self.status(node.named_children[0])
            return None if inner is None else 1 - inner
        if node.type != "command":
            return None
        return _KNOWN_STATUS.get(self.command(node).words)

    def short_circuited(self, first: Node, rest: list[tuple[str, Node]]) -> list[Node]:
        """The parts of a chain after ``first`` that may run: not one after ``&&`` when
        the status before it is known to be a failure (``false && …``), nor after ``||``
        when it is known to be a success (``true || …``)."""
        live: list[Node] = []
        status = self.status(first)
        for operator, part in rest:
            if status is not None and operator and (operator == "&&") != (status == 0):
                continue  # never runs; the status stays
            live.append(part)
            if operator:
                status = self.status(part)
        return live

    def live(self, node: Node) -> list[Node]:
        """The children of a compound command that may run: not the body of ``if``,
        ``while`` or ``until`` whose condition is known to send it elsewhere (``if false;
        then …``, ``while false``, ``until true``), nor the other branches of ``if true``."""
        if node.type == "if_statement":
            return self.branches(node)
        children = list(node.children)
        conditions = [c for c in node.children_by_field_name("condition") if c.is_named]
        status = self.status(conditions[-1]) if conditions else None
        if status is None:
            return children
        if node.type == "while_statement":
            until = children[0].type == "until"
            body = node.child_by_field_name("body")
            return [c for c in children if c != body] if status == (0 if until else 1) else children
        return children

    def branches(self, node: Node) -> list[Node]:
        """The parts of an ``if`` that may run, clause by clause: each clause's condition
        until one is known to be true, the body after a condition not known to be false,
        and nothing after a condition known to be true (``if false; then :; elif false;
        then X; fi`` runs no ``X``, ``elif true; then :; else X`` neither)."""
        dead: set[tuple[int, int, str]] = set()
        taken = False
        for clause in _clauses(node):
            conditions, body, whole = clause
            if taken:  # (never the first clause: nothing is before it)
                dead.update(map(_place, whole))
                continue
            status = self.status(conditions[-1]) if conditions else None
            if status == 1:
                dead.update(_place(c) for c in body)
            taken = status == 0
        out: list[Node] = []
        for child in node.children:
            if _place(child) in dead:
                continue
            if child.type in ("elif_clause", "else_clause"):
                out += [c for c in child.children if _place(c) not in dead]
            else:
                out.append(child)
        return out

    def unrolled(self, node: Node, stack: list[Node | Simple]) -> bool:
        """``for p in a b; do …; done`` over plain words: its body once per word, with
        ``p`` set to it (as a part that runs, certainly, when there is a word), pushed on
        ``stack``. Not when the body may leave early (``break``, ``continue``, ``exit``,
        ``return``) or the copies would pass ``UNROLL_BUDGET`` bytes (nested loops)."""
        variable, body = node.child_by_field_name("variable"), node.child_by_field_name("body")
        values = node.children_by_field_name("value")
        if variable is None or body is None or not values or len(values) > MAX_UNROLLED:
            return False
        if not all(v.type in _WORD_NODES and re.fullmatch(_PLAIN, self.text(v)) for v in values):
            return False
        size = body.end_byte - body.start_byte
        if self.unrolled_bytes + size * len(values) > UNROLL_BUDGET:
            return False
        if re.search(_LEAVES, self.data[body.start_byte : body.end_byte]):
            return False
        self.unrolled_bytes += size * len(values)
        name = self.text(variable)
        stack.append(SCOPE_CLOSE)
        for value in reversed(values):
            stack += [body, Simple((f"{name}={self.text(value)}",))]
        return True

    def _statement(self, node: Node, stack: list[Node | Simple]) -> Iterator[Simple]:
        """A statement with redirections: a command with them, or a list or pipeline whose
        last command has them (``a | sh <<'E'``); what is in it is read next."""
        body = node.child_by_field_name("body")
        if body is not None and body.type == "command":
            simple = self.redirected(body, node)
            yield self.aliased(simple, body)
            self.feed_the_pipe(node, passed_on(simple))
            stack += self.called(simple)
            stack.extend(reversed(body.children))
            stack.extend(reversed([c for c in node.children if c != body]))
            return
        if body is not None:
            _hang(node, body, self.hung)
        stack.extend(reversed(node.children))


MAX_UNCALLED = 64  # more functions defined and not called: every body is read
_KNOWN_STATUS: dict[tuple[str, ...], int] = {("true",): 0, (":",): 0, ("false",): 1}
MAX_CALLED_AGAIN = 16  # later calls whose bodies are read again, each with its arguments
MAX_UNROLLED = 16  # more words in a `for` loop: its body read once, its variable not known
UNROLL_BUDGET = 16384  # bytes of loop bodies read again per text (nested loops multiply)
ALIAS_BUDGET = 65536  # bytes of alias values put in per text (each use copies its value)
_PLAIN = r"[A-Za-z0-9_./:@%+=,-]++"  # a word that is itself: no expansion, pattern, quote
_LEAVES = rb"\b(?:break|continue|exit|return)\b"  # a loop body that may stop early
# What can call a function without its name written out: an expansion, an escape, or
# commands read from a file (`source`, `.`).
_MAY_CALL = rb"[$`\\]|\bsource\b|(?:^|[\s;&|(])\.[ \t]"


_BRACES = r"^([A-Za-z0-9_./:@%+=-]*+)\{([A-Za-z0-9_./:@%+=,-]*+)\}([A-Za-z0-9_./:@%+=-]*+)$"


def _braces(word: str) -> list[str]:
    """An unquoted word as brace expansion makes it: ``{build,dist}`` is ``build dist``,
    ``{build,}`` is ``build`` (an empty word is dropped); other words as written."""
    found = re.match(_BRACES, word)
    if found is None or "," not in found[2]:
        return [word]
    head, tail = found[1], found[3]
    return [w for w in (head + part + tail for part in found[2].split(",")) if w]


def _chain(
    node: Node, hung: dict[tuple[int, int, str], Node]
) -> tuple[Node, list[tuple[str, Node]], bool]:
    """The first part of an ``&&``/``||`` chain, the parts after it in order with the
    operator before each ("" for a redirection's target), and whether an ``||`` joins
    them (then a later part may run when an earlier one did not). A redirection the
    grammar hung on a part of it (``a && echo … > f && sh f``) is its last command's (put
    in ``hung``), and the chain goes on through it."""
    rest: list[tuple[str, Node]] = []
    either = False
    while node.type in ("list", "redirected_statement"):
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None or body.type != "list":
                break
            _hang(node, body, hung)
            rest.extend(("", c) for c in reversed([c for c in node.children if c != body]))
            node = body
            continue
        children = node.children
        either = either or any(c.type == "||" for c in children)
        operator = ""
        right: list[tuple[str, Node]] = []
        for child in children[1:]:
            if child.is_named:
                right.append((operator, child))
            else:
                operator = child.type
        rest.extend(reversed(right))
        node = children[0]
    rest.reverse()
    return node, rest, either


def _hang(statement: Node, body: Node, hung: dict[tuple[int, int, str], Node]) -> None:
    """Give ``statement``'s redirections to the last command of its ``body`` (a list or
    pipeline the grammar hung them on: ``a && sh <<'E'``), as bash does."""
    last: Node | None = body
    while last is not None and last.type in ("list", "pipeline"):
        last = last.named_children[-1] if last.named_children else None
    if last is not None and last.type == "command":
        hung[_place(last)] = statement


_ECHO_OPTION = r"^-[neE]++$"


_REDIRECTS = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})


def _stdin_descriptor(walk: _Walk, node: Node, following: Node | None) -> bool:
    """Whether ``node`` is a ``0`` written against the redirection after it (``0< f``,
    ``0<<< '…'``, ``0<<E``), which tree-sitter-bash reads as an argument (``3<`` it
    reads as a descriptor): bash's standard input, the redirection's own."""
    return (
        node.type == "number"
        and following is not None
        and following.type in _REDIRECTS
        and following.start_byte == node.end_byte
        and walk.text(node) == "0"
    )


def _other_descriptor(walk: _Walk, redirect: Node) -> bool:
    """Whether a here-document or here-string goes to a descriptor other than standard
    input (``bash 3<<'E'``: the script is not bash's input)."""
    first = redirect.children[0] if redirect.children else None
    return first is not None and first.type == "file_descriptor" and walk.text(first) != "0"


def _clauses(node: Node) -> Iterator[tuple[list[Node], list[Node], list[Node]]]:
    """An ``if`` statement's clauses in order: each one's condition (none for ``else``),
    its body, and the clause node itself (none for the first: its parts are the
    statement's own children)."""
    first: list[Node] = []
    for child in node.children:
        if child.type in ("elif_clause", "else_clause"):
            break
        first.append(child)
    yield (*_clause(first), [])
    for child in node.children:
        if child.type == "elif_clause":
            yield (*_clause(list(child.children)), [child])
        elif child.type == "else_clause":
            yield [], [c for c in child.children if c.is_named], [child]


def _clause(parts: list[Node]) -> tuple[list[Node], list[Node]]:
    """The named parts before ``then`` (the condition) and after it (the body)."""
    then = next((i for i, c in enumerate(parts) if c.type == "then"), len(parts))
    named = [(i, c) for i, c in enumerate(parts) if c.is_named]
    return [c for i, c in named if i < then], [c for i, c in named if i > then]


def _place(node: Node) -> tuple[int, int, str]:
    return (node.start_byte, node.end_byte, node.type)


def passed_on(simple: Simple) -> tuple[str, ...]:
    """What a pipeline stage writes to the next: its input for ``tee`` and a bare
    ``cat`` (``cat <<'E' | sh``, ``echo … | tee log | sh``), its input decoded for
    ``base64 -d`` (``echo cm0g… | base64 -d | sh``), else what it prints."""
    if simple.words[:1] == ("tee",) or simple.words == ("cat",):
        return simple.stdin
    if simple.words[:1] == ("base64",) and simple.words[1:] in _DECODE:
        return _decoded("".join(simple.stdin))
    return printed(simple.words)


_DECODE = frozenset({("-d",), ("--decode",), ("-D",), ("-d", "-i"), ("-di",)})


def _decoded(text: str) -> tuple[str, ...]:
    """``text`` as ``base64 -d`` prints it (nothing when it is not base64)."""
    import binascii

    try:
        data = binascii.a2b_base64(text.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        return ()
    return (data.decode("utf-8", "surrogateescape"),) if data else ()


def _passes_expanded(simple: Simple) -> bool:
    """Whether what ``simple`` passes on holds expansions the shell made (``echo "$X"``,
    ``cat <<< "$X"``; not ``echo '$X'``, whose ``$X`` is text)."""
    if simple.words[:1] in (("tee",), ("base64",)) or simple.words == ("cat",):
        return bool(simple.stdin) and all(i in simple.expands for i in range(len(simple.stdin)))
    return not simple.literal


def printed(words: tuple[str, ...]) -> tuple[str, ...]:
    """What ``echo``/``printf`` print, as script text (``echo go test -v`` prints every
    word after echo's own options; ``printf '%s\\n' 'a' 'b'`` each argument on a line,
    a format without ``%`` itself)."""
    if words[:1] == ("echo",):
        start = 1
        while start < len(words) and re.match(_ECHO_OPTION, words[start]):
            start += 1
        return (" ".join(words[start:]),)
    if words[:1] == ("printf",):
        start = 2 if words[1:2] == ("--",) else 1
        if start >= len(words):
            return ()
        form = words[start]
        exact = formatted(form, words[start + 1 :])
        if exact is not None:
            return (exact,)
        if "%" not in form:
            return (form.replace("\\n", "\n"),)
        return ("\n".join(words[start + 1 :]),)  # another format: each argument, a line
    return ()


_FORMAT_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}


def formatted(form: str, args: Sequence[str]) -> str | None:
    """What ``printf FORM ARGS…`` prints, for a format of plain text, ``%s``, ``%%`` and
    the escapes ``\\n``, ``\\t``, ``\\\\``: the format again for each ``%s``'s worth of
    arguments, as printf reuses it (``printf '%s %s' rm -rf build`` prints ``rm -rfbuild
    ``). None for any other directive or escape, and for more than MAX_GRAMMAR_BYTES of
    output (a long format reused for many arguments would be quadratic). Linear."""
    pieces = re.split(r"(%%|%s|\\.?|%)", form)
    if any(p in ("%", "\\") or (p[:1] == "\\" and p[1:] not in _FORMAT_ESCAPES) for p in pieces):
        return None
    slots = pieces.count("%s")
    count = max(len(args), 1)
    if len(form) * (-(-count // slots) if slots else 1) + sum(map(len, args)) > MAX_GRAMMAR_BYTES:
        return None
    out: list[str] = []
    for at in range(0, count, slots or count):  # once when it takes no argument
        given = iter(args[at : at + slots])
        for piece in pieces:
            if piece == "%s":
                out.append(next(given, ""))
            elif piece == "%%":
                out.append("%")
            else:
                out.append(_FORMAT_ESCAPES[piece[1]] if piece[:1] == "\\" else piece)
    return "".join(out)


def join_continuations(text: str) -> str:
    """``text`` with its line continuations (backslash, line feed) removed where the
    shell removes them (outside single quotes): ``go te\\⏎st`` is ``go test``. Linear."""
    if "\\\n" not in text:
        return text
    out: list[str] = []
    single = double = False
    index, end = 0, len(text)
    while index < end:
        char = text[index]
        if char == "\\" and not single:
            if text.startswith("\n", index + 1):
                index += 2
                continue
            out.append(text[index : index + 2])
            index += 2
            continue
        if char == "'" and not double:
            single = not single
        elif char == '"' and not single:
            double = not double
        out.append(char)
        index += 1
    return "".join(out)


# The linear word lexer: a segment is a run of blanks, redirections and words (quoted
# text stays inside its word); operators, newlines, `$(`, backticks and parentheses end it.
_REDIRECT = r"[0-9]*+(?:&>>|&>|>>|>&|<&|<<<|<<-|<<|<>|>\||[<>])"
_WORD_TEXT = (
    r"""(?:'[^']*+'?|"(?:[^"\\]|\\.)*+"?|\$'(?:[^'\\]|\\.)*+'?|\\.|\\\Z"""
    r"""|[^\s;&|()<>'"\\`])++"""
)
_SEGMENT = rf"(?s)(?:[ \t\r]++|\\\n|{_REDIRECT}|{_WORD_TEXT})++"
_TOKEN = rf"(?s)(?P<blank>[ \t\r]++|\\\n)|(?P<redirect>{_REDIRECT})|(?P<word>{_WORD_TEXT})"
_PIECE = r"""(?s)'[^']*+'?|"(?:[^"\\]|\\.)*+"?|\$'(?:[^'\\]|\\.)*+'?|\\.|\\\Z|[^'"\\]++"""


def unquote(word: str) -> str:
    """``word`` with its quoting removed, expansions as written (as ``_Walk.word``)."""
    if "'" not in word and '"' not in word and "\\" not in word:
        return word
    if "$'" not in word:  # the common shapes, by string methods only (no per-piece code)
        if "\\" not in word and "'" not in word:
            return word.replace('"', "")  # one kind of quote: each one a delimiter
        if "\\" not in word and '"' not in word:
            return word.replace("'", "")
        if "'" not in word and '"' not in word and _MARK not in word:
            return _unescape_bare(word)
    out = []
    for piece in re.findall(_PIECE, word):
        if piece.startswith("$'"):
            out.append(ansi_c(piece[2:].removesuffix("'")))
        elif piece.startswith("'"):
            out.append(piece[1:].removesuffix("'"))
        elif piece.startswith('"'):
            inner = piece[1:-1] if piece.endswith('"') and len(piece) > 1 else piece[1:]
            out.append(re.sub(_DOUBLE_QUOTED_ESCAPE, _unescape, inner))
        elif piece.startswith("\\"):
            out.append(re.sub(_ESCAPE, _unescape, piece))
        else:
            out.append(piece)
    return "".join(out)


# What bash makes of a backslash in ``$'…'``: a letter's character, a byte in octal (1-3
# digits) or hex (``\xHH``), a character ``\uHHHH``/``\UHHHHHHHH``, a control one ``\cX``.
_ANSI_C = (
    r"(?s)\\(?:([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})"
    r"|c(.)|(.))"
)
_ANSI_C_LETTERS = {
    **{"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r"},
    **{"t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"},
}


def ansi_c(body: str) -> str:
    """The text of ``$'body'`` as bash makes it (``$'\\x62uild'`` is ``build``): an
    unknown escape keeps its backslash, and the text ends at a NUL, as in bash."""
    if "\\" not in body:
        return body
    return re.sub(_ANSI_C, _ansi_c_escape, body).partition("\0")[0]


def _ansi_c_escape(found: re.Match[str]) -> str:
    byte_octal, byte_hex, short, long, control, other = found.groups()
    if control is not None:  # bash's TOCTRL
        return "\x7f" if control == "?" else chr(ord(control.upper()) & 0x1F)
    if other is not None:
        return _ANSI_C_LETTERS.get(other, found[0])
    if short or long:
        code = int(short or long, 16)
        return chr(code) if code <= 0x10FFFF else found[0]
    byte = int(byte_octal, 8) & 0xFF if byte_octal else int(byte_hex, 16)
    return chr(byte) if byte < 0x80 else chr(0xDC00 + byte)  # a byte, as surrogateescape


_SPECIAL = r"['\"\\<>$]"
_MARK = "\ue000"  # stands for an escaped backslash while the others are removed


def _unescape_bare(word: str) -> str:
    """Backslash escapes outside quotes: ``\\x`` is ``x``, ``\\`` + line feed nothing, a
    lone trailing backslash itself."""
    text = word.replace("\\\\", _MARK).replace("\\\n", "")
    tail = "\\" if text.endswith("\\") else ""
    text = (text[:-1] if tail else text).replace("\\", "")
    return text.replace(_MARK, "\\") + tail


def words_of(text: str) -> Iterator[Simple]:
    """Every run of words between operators, each distinct run once, in linear time (the
    fallback reading): newlines, ``$(``, backticks and parentheses split too, a comment
    is read as words, redirection targets are dropped, and a leading reserved word
    (``then go test``) is skipped."""
    for segment in dict.fromkeys(re.findall(_SEGMENT, text)):
        if not re.search(_SPECIAL, segment):
            words = segment.split()
        else:
            words, skip = [], False
            for match in re.finditer(_TOKEN, segment):
                kind = match.lastgroup
                if kind == "redirect":
                    skip = True
                elif kind == "word":
                    if not skip:
                        words.append(unquote(match[0]))
                    skip = False
        start = 0
        while start < len(words) and words[start] in RESERVED:
            start += 1
        if start < len(words):
            yield Simple(tuple(words[start:]))
