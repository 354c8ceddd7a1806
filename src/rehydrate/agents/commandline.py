"""Every command a command line would run, normalised for matching (docs/check-command.md).

``read`` asks ``shell.parse`` for the simple commands of a line, strips each of its
``VAR=value`` prefixes and wrappers (``env``, ``sudo``, ``time``, ``nice``, ``nohup``,
``command``, ``exec``, ``xargs``, ...), and looks inside what a command hands to a
shell: ``bash -c STRING`` (any shell, any option cluster holding ``c``), ``eval ARGS``,
``env -S STRING``, a heredoc or here-string fed to a shell, and ``find -exec CMD ;``.
Nesting is bounded (``MAX_DEPTH``); every nested string is part of the text that held
it, so the work stays proportional to the input times that depth.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import shell

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*+=")
_WORD = re.compile(r"^[A-Za-z][A-Za-z0-9_:-]*+$")  # a subcommand word: no '/', '.', '='
_PROGRAM = re.compile(r"^[A-Za-z0-9_./~+-]++$")
MAX_SUBCOMMAND_WORDS = 2
MAX_DEPTH = 8

# Wrappers run the command that follows them: name -> options that take a value.
WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "sudo": frozenset(
        {"-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C"}
        | {"--close-from", "-D", "--chdir", "-r", "--role", "-t", "--type"}
    ),
    "doas": frozenset({"-u", "-C"}),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "--pid"}),
    "nohup": frozenset(),
    "setsid": frozenset(),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "builtin": frozenset(),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    # xargs runs its command with more arguments appended: a loose match still holds
    "xargs": frozenset(
        {"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n"}
        | {"--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"}
    ),
}
# Wrappers whose first positional argument is theirs, not the command's.
_WRAPPER_ARGS = {"timeout": 1}
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "su"})
_SCRIPT_OPTION = re.compile(r"^-[A-Zabd-z]*+c[A-Za-z]*+$")  # -c, -lc, -ec, -xec ...
_SHELL_VALUED = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@dataclass(frozen=True)
class Flag:
    name: str  # without leading dashes
    dashes: str  # "-" or "--"
    value: str | None  # the '=value' (or, where unambiguous, the next word)


@dataclass(frozen=True)
class Command:
    """One simple command, normalised."""

    program: str
    env: frozenset[str]  # leading VAR=value assignments
    words: tuple[str, ...]  # subcommand words (``test`` in ``go test``)
    rest: tuple[str, ...]  # everything after the subcommand words, quoting removed
    text: str  # as written
    inner: tuple[str, ...] = ()  # scripts it hands to a shell (``env -S STRING``)
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def parse(
        self, valued: frozenset[str], greedy: bool = False
    ) -> tuple[frozenset[Flag], tuple[str, ...], tuple[Flag, ...]]:
        """(flag set, positional args, flags in order). A flag named in ``valued`` (every
        flag when ``greedy``) takes the next word as its value when written without '='.
        Remembered per ``valued``: one candidate is compared with many attempts."""
        key = (valued, greedy)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = _parse(self.rest, valued, greedy)
        return found

    @property
    def valued(self) -> frozenset[str]:
        """Names of the flags written ``--name=value``."""
        found = self.cache.get("valued")
        if found is None:
            found = self.cache["valued"] = frozenset(
                t.lstrip("-").partition("=")[0] for t in self.rest if t[:1] == "-" and "=" in t
            )
        return found


def _parse(
    tokens: Sequence[str], valued: frozenset[str], greedy: bool
) -> tuple[frozenset[Flag], tuple[str, ...], tuple[Flag, ...]]:
    flags: list[Flag] = []
    positional: list[str] = []
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


_NUMBER = re.compile(r"^-\d++(\.\d++)?$")


def _is_number(token: str) -> bool:
    return bool(_NUMBER.match(token))


def normalize(words: Sequence[str], text: str = "") -> Command | None:
    """Strip env assignments and wrappers; None when nothing command-like is left."""
    text = text or " ".join(words)
    first = words[0] if words else ""
    if first and "=" not in first and "/" not in first and first not in WRAPPERS:
        return _command(words, 0, frozenset(), (), text)  # the common case, quickly
    env: set[str] = set()
    inner: list[str] = []
    index = _prefixes_end(words, env, inner)
    if index is None:
        return None
    if index >= len(words):  # `env -S 'go test'`: the string is the command
        return Command("env", frozenset(env), (), (), text, tuple(inner)) if inner else None
    return _command(words, index, frozenset(env), tuple(inner), text)


def _command(
    words: Sequence[str], index: int, env: frozenset[str], inner: tuple[str, ...], text: str
) -> Command | None:
    """The command whose program is ``words[index]``."""
    if not _PROGRAM.match(words[index]) or words[index].startswith("-"):
        return None
    program = os.path.basename(words[index]) or words[index]
    start = end = index + 1
    while end < len(words) and end - start < MAX_SUBCOMMAND_WORDS and _WORD.match(words[end]):
        end += 1
    return Command(program, env, tuple(words[start:end]), tuple(words[end:]), text, inner)


def _prefixes_end(words: Sequence[str], env: set[str], inner: list[str]) -> int | None:
    """Where the program starts, after assignments and wrappers (collected into ``env``
    and ``inner``); None for ``command -v``, which looks a program up, not runs it."""
    index, end = 0, len(words)
    changed = True
    while changed and index < end:
        changed = False
        while index < end and _ASSIGNMENT.match(words[index]):
            env.add(words[index])
            index += 1
            changed = True
        wrapper = os.path.basename(words[index]) if index < end else ""
        if wrapper not in WRAPPERS:
            continue
        index += 1
        if wrapper == "command" and index < end and words[index] in ("-v", "-V"):
            return None
        index = _options_end(words, index, wrapper, env, inner)
        changed = True
    return index


def _options_end(
    words: Sequence[str], index: int, wrapper: str, env: set[str], inner: list[str]
) -> int:
    """Where a wrapper's own options (and arguments) end."""
    takes_value, end = WRAPPERS[wrapper], len(words)
    while index < end and (
        words[index].startswith("-") or (wrapper == "env" and _ASSIGNMENT.match(words[index]))
    ):
        option = words[index]
        index += 1
        if _ASSIGNMENT.match(option):
            env.add(option)
        elif option == "--":
            break
        if option in takes_value and index < end:
            if option in ("-S", "--split-string") and wrapper == "env":
                inner.append(words[index])
            index += 1
    return min(end, index + _WRAPPER_ARGS.get(wrapper, 0))


class Reading(NamedTuple):
    commands: tuple[Command, ...]  # each distinct simple command once
    problems: tuple[str, ...]  # parts read word by word, and why


def read(text: str, budget: shell.Budget | None = None) -> Reading:
    """Every simple command ``text`` would run, however deeply it is wrapped."""
    budget = (
        budget if budget is not None else shell.Budget(text=max(shell.TEXT_BUDGET, 2 * len(text)))
    )
    seen: dict[tuple[Any, ...], Command] = {}
    read_words: set[tuple[str, ...]] = set()  # each distinct word list normalised once
    problems: list[str] = []
    pending: list[tuple[str | tuple[str, ...], int]] = [(text, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            parsed = shell.parse(item, budget)
            problems.extend(parsed.problems)
            simples: list[shell.Simple] = list(parsed.commands)
        else:
            simples = [shell.Simple(item)]
        for simple in simples:
            if simple.words in read_words and not simple.stdin:
                continue
            read_words.add(simple.words)
            command = normalize(simple.words)
            if command is None:
                continue
            key = (command.program, command.env, command.words, command.rest)
            if key in seen:
                continue
            seen[key] = command
            nested = list(_handed_on(command, simple))
            if nested and depth >= MAX_DEPTH:
                problems.append(f"shells nested more than {MAX_DEPTH} deep were not read")
                continue
            if nested and budget.text <= 0:
                problems.append("nested shell text past what one check reads was not read")
                continue
            pending.extend((n, depth + 1) for n in reversed(nested))
    return Reading(tuple(seen.values()), tuple(dict.fromkeys(problems)))


def _handed_on(command: Command, simple: shell.Simple) -> Iterator[str | tuple[str, ...]]:
    """What ``command`` runs in turn: scripts (strings) and commands (word lists)."""
    yield from command.inner
    args = command.words + command.rest
    if command.program == "eval":
        yield " ".join(args)
    elif command.program in SHELLS:
        skip = False
        for index, token in enumerate(args):
            if skip:
                skip = False
            elif _SCRIPT_OPTION.match(token):
                script = next((t for t in args[index + 1 :] if not t.startswith("-")), None)
                if script is not None:
                    yield script
                return
            elif token in _SHELL_VALUED:
                skip = True  # `-o pipefail`
            elif not token.startswith(("-", "+")):
                return  # `bash script.sh`: a file we do not read
        yield from simple.stdin  # `bash <<'EOF'`, `sh -s <<<'...'`
    elif command.program == "find":
        for index, token in enumerate(args):
            if token in _EXEC:
                tail = args[index + 1 :]
                stop = next((i for i, t in enumerate(tail) if t in (";", "+")), len(tail))
                yield tuple(tail[:stop])
