"""Match a shell command against the active failed attempts (see docs/check-command.md).

Commands are tokenised with ``shlex`` (never run through a shell), split at
``&&``, ``||``, ``;`` and ``|``, and stripped of ``VAR=value`` prefixes and
wrappers (``env``, ``sudo``, ``time``, ``nice``, ``command``, ...). Two
simple commands match

* **exactly** when program, subcommand words, the *set* of flags with their
  values and the positional arguments (in order) are equal;
* **loosely** when program and subcommand words are equal, the failed command
  has at least one *distinctive* flag, and the candidate carries every one of
  them with the same value (other flags and positional arguments may differ).

Precision beats recall: a command that merely shares a program with a failed
one is never refused.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..ledgers import Ledger

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*+=")
_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_:-]*+$")  # a subcommand word: no '/', '.', '='
_PROGRAM = re.compile(r"^[A-Za-z0-9_./~+-]++$")
_BACKTICKS = re.compile(r"`++")
MAX_SPANS = 256  # inline-code spans read from one Tried cell


def _code_spans(cell: str) -> list[str]:
    """The inline-code spans of ``cell`` as CommonMark reads them (a run of N backticks
    up to the next run of exactly N), in linear time: each run's next run of the same
    length is found in one right-to-left pass, not by a backtracking search."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(cell)] if "`" in cell else []
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        following[i] = last.get(length)
        last[length] = i
    spans = []
    i = 0
    while i < len(runs):
        j = following[i]
        if j is None:
            i += 1
            continue
        content = cell[runs[i][1] : runs[j][0]]
        if content:
            spans.append(content)
        i = j + 1
    return spans


_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "|&", ";;", "(", ")", "\n"})
_REDIRECTS = frozenset({">", ">>", "<", "<<", "<<<", ">&", "<&", "&>", "&>>", ">|"})
MAX_SUBCOMMAND_WORDS = 2

# Wrappers run the command that follows them: name -> options that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "sudo": frozenset(
        {
            "-u",
            "--user",
            "-g",
            "--group",
            "-h",
            "--host",
            "-p",
            "--prompt",
            "-C",
            "--close-from",
            "-D",
            "--chdir",
            "-r",
            "--role",
            "-t",
            "--type",
        }
    ),
    "doas": frozenset({"-u", "-C"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid"}),
    "nohup": frozenset(),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "builtin": frozenset(),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
}
# Wrappers whose first positional argument is theirs, not the command's.
_WRAPPER_ARGS = {"timeout": 1}
# Flags that only change how much is printed or how fast: never distinctive.
COMMON_FLAGS = frozenset(
    {
        "v",
        "vv",
        "vvv",
        "verbose",
        "q",
        "quiet",
        "s",
        "silent",
        "h",
        "help",
        "version",
        "color",
        "colour",
        "no-color",
        "no-colour",
        "progress",
        "no-progress",
        "debug",
        "count",
        "j",
        "jobs",
        "parallel",
        "json",
        "no-pager",
        "pager",
    }
)
# Steps of a failed compound command that are set-up, not the attempt itself.
_SETUP = frozenset(
    {"cd", "pushd", "popd", "export", "source", ".", "set", "echo", "true", "unset", "printf", ":"}
)


@dataclass(frozen=True)
class Flag:
    name: str  # without leading dashes
    dashes: str  # "-" or "--"
    value: str | None  # the '=value' (or, where unambiguous, the next word)

    @property
    def distinctive(self) -> bool:
        """Carries a value, or is a long boolean flag that is not merely cosmetic."""
        if self.name in COMMON_FLAGS:
            return False
        return self.value is not None or len(self.name) > 1


@dataclass(frozen=True)
class Command:
    """One simple command, normalised."""

    program: str
    env: frozenset[str]  # leading VAR=value assignments
    words: tuple[str, ...]  # subcommand words (``test`` in ``go test``)
    rest: tuple[str, ...]  # everything after the subcommand words, quoting removed
    text: str  # as written

    def parse(
        self, valued: frozenset[str], greedy: bool = False
    ) -> tuple[frozenset[Flag], tuple[str, ...], tuple[Flag, ...]]:
        """(flag set, positional args, flags in order). A flag named in ``valued`` (every
        flag when ``greedy``) takes the next word as its value when written without '='."""
        flags: list[Flag] = []
        positional: list[str] = []
        tokens = list(self.rest)
        index = 0
        while index < len(tokens):
            token = tokens[index]
            index += 1
            if token == "--":
                positional.extend(tokens[index:])
                break
            if token.startswith("-") and token != "-" and not _is_number(token):
                dashes = "--" if token.startswith("--") else "-"
                name, eq, value = token[len(dashes) :].partition("=")
                flag_value: str | None = value if eq else None
                if (
                    not eq
                    and (greedy or name in valued)
                    and index < len(tokens)
                    and not tokens[index].startswith("-")
                ):
                    flag_value = tokens[index]
                    index += 1
                flags.append(Flag(name, dashes, flag_value))
            else:
                positional.append(token)
        return frozenset(flags), tuple(positional), tuple(flags)


def _is_number(token: str) -> bool:
    return bool(re.match(r"^-\d+(\.\d+)?$", token))


def tokenize(text: str) -> list[list[str]] | None:
    """Split a command line into simple commands (word lists); None if it cannot be lexed."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    commands: list[list[str]] = [[]]
    skip_next = False
    for token in tokens:
        if skip_next:
            skip_next = False
            continue
        if token in _OPERATORS:
            commands.append([])
        elif token in _REDIRECTS:
            current = commands[-1]
            if current and current[-1].isdigit():
                current.pop()  # the fd number in 2>&1
            skip_next = True
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def normalize(words: Sequence[str], text: str = "") -> Command | None:
    """Strip env assignments and wrappers; None when nothing command-like is left."""
    words = list(words)
    env: set[str] = set()
    changed = True
    while changed and words:
        changed = False
        while words and _ASSIGNMENT.match(words[0]):
            env.add(words.pop(0))
            changed = True
        if words and os.path.basename(words[0]) in WRAPPERS:
            wrapper = os.path.basename(words.pop(0))
            takes_value = WRAPPERS[wrapper]
            while words and (
                words[0].startswith("-") or (wrapper == "env" and _ASSIGNMENT.match(words[0]))
            ):
                option = words.pop(0)
                if _ASSIGNMENT.match(option):
                    env.add(option)
                elif option == "--":
                    break
                if option in takes_value and words:
                    words.pop(0)
            for _ in range(_WRAPPER_ARGS.get(wrapper, 0)):
                if words:
                    words.pop(0)
            changed = True
    if not words or not _PROGRAM.match(words[0]) or words[0].startswith("-"):
        return None
    program = os.path.basename(words[0]) or words[0]
    sub: list[str] = []
    index = 1
    while index < len(words) and len(sub) < MAX_SUBCOMMAND_WORDS and _WORD.match(words[index]):
        sub.append(words[index])
        index += 1
    return Command(
        program, frozenset(env), tuple(sub), tuple(words[index:]), text or shlex.join(words)
    )


def commands_in(text: str) -> list[Command]:
    """Every simple command in a command line (pipelines and lists included)."""
    split = tokenize(text)
    if split is None:
        split = [text.split()]
    out = []
    for words in split:
        command = normalize(words, " ".join(words))
        if command is not None:
            out.append(command)
    return out


def attempts_in_cell(cell: str) -> list[Command]:
    """The commands a failure row's Tried cell records: its inline-code spans that look
    like commands; failing that, the whole cell if it does."""
    # each distinct span once, and a bounded number of them: a cell of a megabyte of code
    # spans is no record of commands, and must not cost minutes (issue 13)
    spans = list(dict.fromkeys(span.strip() for span in _code_spans(cell)))[:MAX_SPANS]
    found: list[Command] = []
    for span in spans or [cell]:
        if not spans and not re.match(r"^[a-z0-9_./~+-]", span):
            continue  # prose ("Used ...", "Example: ...") is not a command
        commands = commands_in(span)
        if len(commands) > 1:
            commands = [c for c in commands if c.program not in _SETUP] or commands
        found.extend(commands)
    return found


def match(candidate: Command, failed: Command) -> str | None:
    """'exact', 'loose' or None (see the module docstring)."""
    if (
        candidate.program != failed.program
        or candidate.words != failed.words
        or not failed.env <= candidate.env
    ):
        return None
    valued = frozenset(_named_with_value(candidate) | _named_with_value(failed))
    c_flags, c_pos, c_order = candidate.parse(valued)
    f_flags, f_pos, _ = failed.parse(valued)
    if c_flags == f_flags and c_pos == f_pos:
        return "exact"
    if candidate.parse(valued, greedy=True)[:2] == failed.parse(valued, greedy=True)[:2]:
        return "exact"  # the same flags each followed by the same word (`-X POST`)
    required = [f for f in f_flags if f.distinctive]
    if not required and not failed.env:
        return None
    offered = _offered(candidate.rest, c_order)
    names = {(f.dashes, f.name) for f in c_flags}

    def carried(flag: Flag) -> bool:
        if flag.value is not None:
            return (flag.dashes, flag.name, flag.value) in offered
        if (flag.dashes, flag.name) not in names:
            return False
        # `--target x86_64`: the word after a bare flag may be its value; keep it
        word = _word_after(failed.rest, flag)
        return word is None or (flag.dashes, flag.name, word) in offered or word in c_pos

    return "loose" if all(carried(f) for f in required) else None


def _word_after(rest: Sequence[str], flag: Flag) -> str | None:
    written = flag.dashes + flag.name
    for index, token in enumerate(rest[:-1]):
        if token == written and not rest[index + 1].startswith("-"):
            return rest[index + 1]
    return None


def _named_with_value(command: Command) -> set[str]:
    return {t.lstrip("-").partition("=")[0] for t in command.rest if t.startswith("-") and "=" in t}


def _offered(rest: Sequence[str], flags: Iterable[Flag]) -> set[tuple[str, str, str | None]]:
    """Every (dashes, name, value) a candidate's flags can stand for: a flag written
    without '=' followed by a word may be boolean or may take that word."""
    out: set[tuple[str, str, str | None]] = set()
    tokens = list(rest)
    for flag in flags:
        out.add((flag.dashes, flag.name, flag.value))
        if flag.value is None:
            written = flag.dashes + flag.name
            for index, token in enumerate(tokens[:-1]):
                if token == written and not tokens[index + 1].startswith("-"):
                    out.add((flag.dashes, flag.name, tokens[index + 1]))
    return out


@dataclass(frozen=True)
class Hit:
    """A failed attempt that covers the command."""

    id: str
    kind: str  # "exact" | "loose"
    line: int
    path: str
    tried: str
    failure: str
    workaround: str
    command: str  # the simple command that matched
    attempt: str  # the recorded attempt it matched

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "match": self.kind,
            "path": self.path,
            "line": self.line,
            "tried": self.tried,
            "failure": self.failure,
            "workaround": self.workaround,
            "command": self.command,
            "attempt": self.attempt,
        }

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line}: {self.id} ({self.kind} match of `{self.attempt}`)\n"
            f"  tried:      {self.tried}\n  failure:    {self.failure}\n"
            f"  workaround: {self.workaround}"
        )


def check_command(text: str, failures: Ledger) -> list[Hit]:
    """Active failed attempts that cover ``text`` (exact matches first, then loose)."""
    candidates = commands_in(text)
    hits: list[Hit] = []
    for row in failures.active("failures"):
        for attempt in attempts_in_cell(row.tried):
            found = next(
                ((c, kind) for c in candidates if (kind := match(c, attempt)) is not None), None
            )
            if found is not None:
                command, kind = found
                hits.append(
                    Hit(
                        row.id,
                        kind,
                        row.line,
                        failures.path,
                        row.tried,
                        row.failure,
                        row.workaround,
                        command.text,
                        attempt.text,
                    )
                )
                break
    return sorted(hits, key=lambda h: (h.kind != "exact", h.line))


def load_failures(repo: Any, config: Any) -> Ledger:
    """The failed-attempts ledger as it is in the work tree (fails closed when unreadable)."""
    from .. import git
    from ..state import parse_file

    path = config.path_of("failures")
    return parse_file("failures", git.read_worktree(repo, [path])[path], config, "work tree")


def command_from_hook(event: Any) -> str | None:
    """``tool_input.command`` of a Claude Code PreToolUse event, or None."""
    if not isinstance(event, dict):
        return None
    tool_input = event.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    command = tool_input.get("command")
    return command if isinstance(command, str) and command.strip() else None
