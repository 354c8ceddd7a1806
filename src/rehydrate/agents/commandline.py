"""Every command a command line would run, normalised for matching (docs/check-command.md).

``read`` asks ``shell.parse`` for the simple commands of a line, strips each of its
``VAR=value`` prefixes and wrappers (``env``, ``sudo``, ``time``, ``nice``, ``nohup``,
``command``, ``exec``, ``xargs``, ...), and looks inside what a command hands to a
shell: ``bash -c STRING`` (any shell, any option cluster holding ``c``), ``eval ARGS``,
``env -S STRING``, a heredoc or here-string fed to a shell, and ``find -exec CMD ;``.
Each command carries the directory it runs in when the line moved it (``cd web && …``:
``--chdir=web`` in its environment; ``?`` when not known), as ``env -C`` does.
Shells nested up to ``MAX_DEPTH`` deep are parsed; deeper ones are read by the word lexer
alone (``shell.by_words``: every run of words between operators and newlines, and every
quoted string of several words, a possible command), so no depth of nesting hides one.
Every nested string is part of the text that held it, and the check's text budget bounds
what all of them read together.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property

from ..patterns import compiled
from ..records import NamedTuple
from . import shell
from .interpreters import (
    AWKS,
    ONE_LINERS,
    PYTHON_VALUED,
    awk_scripts,
    one_liner_scripts,
    python_scripts,
)
from .tooltable import SUBCOMMAND_OF, TOOLS, program_name, tool

_ASSIGNMENT = r"^[A-Za-z_][A-Za-z0-9_]*+="
_WORD = r"^[A-Za-z][A-Za-z0-9_:-]*+$"  # a subcommand word: no '/', '.', '='
_PROGRAM = r"^[A-Za-z0-9_./~+-]++$"
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
    "strace": frozenset(
        {"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-X", "-P"}
        | {"--output", "--trace", "--attach", "--string-limit", "--user", "--env"}
    ),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-n", "-l", "-A", "-D", "-E", "-F"}),
    "flock": frozenset({"-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"}),
    "coproc": frozenset(),
    "busybox": frozenset(),
    "npx": frozenset({"-p", "--package", "-c", "--call"}),
    "bunx": frozenset({"-p", "--package"}),
    "chronic": frozenset(),
    "caffeinate": frozenset({"-t", "-w"}),
    "unbuffer": frozenset(),
    "faketime": frozenset({"-f"}),
    "taskset": frozenset({"-c", "--cpu-list"}),
    "chrt": frozenset(),
    "systemd-run": frozenset({"-u", "--unit", "-p", "--property", "-E", "--setenv"}),
    "runuser": frozenset({"-u", "--user", "-g", "--group", "-G", "--supp-group"}),
    # xargs runs its command with more arguments appended: compared as written
    "xargs": frozenset(
        {"-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L", "--max-lines", "-n"}
        | {"--max-args", "-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"}
    ),
}
# Wrappers whose first positional arguments are theirs, not the command's, unless one of
# the options named gave them (``taskset -c 0 CMD``: the CPU list is the option's value).
_WRAPPER_ARGS = {"timeout": 1, "flock": 1, "faketime": 1, "taskset": 1, "chrt": 1}
_ARGS_GIVEN_BY = {"taskset": frozenset({"-c", "--cpu-list"})}
# ``env`` options that take the environment away: a command run without what the row ran
# with is another invocation (the removal may be the workaround), never refused by it.
_ENV_CLEARED = frozenset({"-i", "-", "--ignore-environment"})
_ENV_UNSET = frozenset({"-u", "--unset"})
# Wrapper options that run the command in another directory (``env -C DIR``, ``sudo -D
# DIR``): kept with the environment as ``--chdir=DIR``, another invocation unless ``.``.
_CHDIR = {"env": frozenset({"-C", "--chdir"}), "sudo": frozenset({"-D", "--chdir"})}
# Options whose value is a script the wrapper hands to a shell (``env -S``, ``flock -c``).
_SCRIPT_VALUES = {
    "env": frozenset({"-S", "--split-string"}),
    "flock": frozenset({"-c", "--command"}),
    "npx": frozenset({"-c", "--call"}),
}
# Programs that run their arguments, joined, as one script (``watch -n1 'go test'``);
# name -> their options that take a value, and the one whose value is the script.
SCRIPT_RUNNERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "watch": (
        frozenset({"-n", "--interval", "-q", "--equexit", "-s", "--shotsdir"}),
        frozenset(),
    ),
    "script": (
        frozenset({"-c", "--command", "-E", "--echo", "-I", "--log-in", "-O", "--log-out"})
        | frozenset({"-T", "--log-timing", "-m", "--logging-format", "-B", "--log-io"}),
        frozenset({"-c", "--command"}),
    ),
    "trap": (frozenset(), frozenset()),
}
_PYTHON = r"^python[0-9.]*+$"
_MINOR = r"[0-9]\.[0-9]++$"
# A program word that is what `which`, `command -v` or `type -P` prints for a name: a path
# to the program of that name
_LOCATE = r"(?:which|command[ \t]++-v|type[ \t]++-P)[ \t]++([A-Za-z0-9_.+-]++)[ \t]*+"
_LOCATED = rf"^\$\([ \t]*+{_LOCATE}\)$|^`[ \t]*+{_LOCATE}`$"
# A program word that is the user's shell, or this one: `$SHELL`, `${BASH}`, `${SHELL:-sh}`
_SHELL_VARIABLE = r"^(?:\$(?:SHELL|BASH)|\$\{(?:SHELL|BASH)(?::?-(?:ba|da|z|k)?sh)?+\})$"
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "su", "runuser"})
_USERS_FIRST = frozenset({"su", "runuser"})  # `su root -c '…'`: the user, then the script
# bash's builtins: `builtin NAME` runs nothing when NAME is none (`builtin rm`: an error)
_BUILTINS = frozenset(
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue"
    " declare dirs disown echo enable eval exec exit export false fc fg getopts hash help"
    " history jobs kill let local logout mapfile popd printf pushd pwd read readarray"
    " readonly return set shift shopt source suspend test times trap true type typeset"
    " ulimit umask unalias unset wait".split()
)
_SCRIPT_OPTION = r"^-[A-Zabd-z]*+c[A-Za-z]*+$"  # -c, -lc, -ec, -xec ...
_SHELL_VALUED = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_SHELL_LETTERS = r"^-[A-Za-z]++$"  # with an `n` (`-n`, `-nc`): read, not run
_SHELL_CLUSTER = r"^[-+][A-Za-bd-z]++$"  # `-euo pipefail`: -o's value is next
_SOURCES = frozenset({"source", "."})  # read a script into this shell: `. <(echo '...')`
_STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})  # a script file
_PRINTERS = frozenset({"echo", "printf", "cat", "tee", "base64"})  # see shell.passed_on
_RUNS_FILES = SHELLS | _SOURCES | {"chmod", "cat"}  # what reads or runs a file, not writes it
_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


class Flag(NamedTuple):
    name: str  # without leading dashes
    dashes: str  # "-" or "--"
    value: str | None  # the '=value' (or, where unambiguous, the next word)


Parsed = tuple[frozenset[Flag], tuple[str, ...], tuple[Flag, ...]]


class _Fields(NamedTuple):
    program: str
    env: frozenset[str]  # leading VAR=value assignments
    words: tuple[str, ...]  # subcommand words (``test`` in ``go test``)
    rest: tuple[str, ...]  # everything after the subcommand words, quoting removed
    text: str  # as written
    inner: tuple[str, ...] = ()  # scripts it hands to a shell (``env -S STRING``)


class Command(_Fields):
    """One simple command, normalised: equal and hashed by its fields. NamedTuples, not
    dataclasses, here and on every record of the hook's path: ``dataclasses`` imports
    ``inspect``, milliseconds of every hook's start-up (docs/design.md, speed2)."""

    # readings of this command remembered per (valued, greedy): one candidate meets many
    # attempts. Not fields: a copy (``_replace``) reads itself afresh.
    @cached_property
    def parsed(self) -> dict[tuple[frozenset[str], bool], Parsed]:
        return {}

    @cached_property
    def models(self) -> dict[tuple[frozenset[str], bool], object]:
        return {}

    def parse(self, valued: frozenset[str], greedy: bool = False) -> Parsed:
        """(flag set, positional args, flags in order). A flag named in ``valued`` (every
        flag when ``greedy``) takes the next word as its value when written without '='.
        Remembered per ``valued``: one candidate is compared with many attempts."""
        key = (valued, greedy)
        found = self.parsed.get(key)
        if found is None:
            found = self.parsed[key] = _parse(self.rest, valued, greedy)
        return found

    @cached_property
    def valued(self) -> frozenset[str]:
        """Names of the flags written ``--name=value``, not ``--name=true``/``=false``
        (a switch spelled so: ``git push --force=true`` takes no next word)."""
        return frozenset(
            name
            for name, _, value in (
                t.lstrip("-").partition("=") for t in self.rest if t[:1] == "-" and "=" in t
            )
            if value.lower() not in ("true", "false")
        )


def _parse(tokens: Sequence[str], valued: frozenset[str], greedy: bool) -> Parsed:
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


_NUMBER = r"^-\d++(\.\d++)?$"


def _is_number(token: str) -> bool:
    return bool(compiled(_NUMBER).match(token))


def normalize(words: Sequence[str], text: str = "") -> Command | None:
    """Strip env assignments and wrappers; None when nothing command-like is left."""
    text = text or " ".join(words)
    first = words[0] if words else ""
    if first and "=" not in first and "/" not in first and first not in _PREFIXES:
        return _command(words, 0, frozenset(), (), text)  # the common case, quickly
    env: set[str] = set()
    inner: list[str] = []
    index = _prefixes_end(words, env, inner)
    if index is None:
        return None
    if index >= len(words):  # `env -S 'go test'`: the string is the command
        return Command("env", frozenset(env), (), (), text, tuple(inner)) if inner else None
    return _command(words, index, frozenset(env), tuple(inner), text)


def _repository_file(word: str) -> str | None:
    """The path of a program spelled as a file of the repository (``./deploy.sh``,
    ``scripts/deploy.sh``, an absolute path inside the directory the check runs in), one
    spelling per file and never a bare name: ``./old/deploy.sh`` and ``./mytool`` are not
    ``./scripts/deploy.sh`` or ``mytool`` on PATH. None for a bare name or a program
    installed elsewhere (``/usr/bin/rm``, ``$HOME/sdk/go/bin/go``), known by its name."""
    if "/" not in word or word.startswith(("~", "$")):
        return None
    path = posixpath.normpath(word)
    path = _from_here(path) if path.startswith("/") else path
    if path.startswith("/"):
        return None
    return path if path.startswith("../") else "./" + path


def _command(
    words: Sequence[str], index: int, env: frozenset[str], inner: tuple[str, ...], text: str
) -> Command | None:
    """The command whose program is ``words[index]``."""
    word = words[index]
    if "$(" in word or "`" in word:  # `"$(command -v rm)" -rf build` runs rm
        located = compiled(_LOCATED).match(word)
        word = located[1] or located[2] if located else word
    elif word[:1] == "$" and compiled(_SHELL_VARIABLE).match(word):
        word = "sh"  # `$SHELL -c '…'`, `"$BASH" -c '…'`: a shell, whichever one
    base = word.rpartition("/")[2] if "/" in word else word
    if not compiled(_PROGRAM).match(base) or word.startswith("-"):
        return None
    program = program_name(base)
    if program in SUBCOMMAND_OF:  # `docker-compose up` is `docker compose up`
        return _command(
            [*words[:index], *SUBCOMMAND_OF[program], *words[index + 1 :]], index, env, inner, text
        )
    file = _repository_file(word)
    if file is not None and program not in TOOLS and not compiled(_PYTHON).match(program):
        program = file  # a known tool is known by its name wherever it is installed
    if base != program and compiled(_MINOR).search(base):  # `pip3.12`: that one's, maybe not
        env = env | {base}  # the one `pip` runs: another invocation (the name is kept)
    if compiled(_PYTHON).match(program) or program == "python":
        module = _python_module(words, index + 1)
        if module is not None:  # `python -m pip install` is `pip install`
            name, after, options = module
            kept = [o for o in options if o not in tool("python").cosmetic]
            if kept:  # `python -W error -m pytest`, `-O`, `-I`: the interpreter runs otherwise
                env = env | {" ".join(kept)}
            return _command([*words[:index], name, *words[after:]], index, env, inner, text)
    start = end = index + 1
    while (
        end < len(words)
        and end - start < MAX_SUBCOMMAND_WORDS
        and compiled(_WORD).match(words[end])
    ):
        end += 1
    return Command(program, env, tuple(words[start:end]), tuple(words[end:]), text, inner)


def _python_module(words: Sequence[str], index: int) -> tuple[str, int, list[str]] | None:
    """(module, index after it, the options before it) of ``python [options] -m MODULE``,
    or None."""
    options: list[str] = []
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        if option == "-m" and index + 1 < len(words):
            return program_name(words[index + 1].partition(".")[0]), index + 2, options
        if option.startswith("-m") and len(option) > 2:
            return program_name(option[2:].partition(".")[0]), index + 1, options
        if option in ("-c", "--"):
            return None
        valued = option in PYTHON_VALUED and index + 1 < len(words)
        options.append(f"{option} {words[index + 1]}" if valued else option)
        index += 2 if valued else 1
    return None


# Project runners that run a command in the project's environment (``uv run pytest``):
# the command follows ``run``. That environment may not be the one the bare command runs
# in (``uv run pytest`` is the usual workaround for ``pytest: command not found``), so the
# runner and its options are kept with the environment: ``uv run pytest`` is refused by a
# row ``uv run pytest``, advised by a row ``pytest``.
RUNNERS = frozenset({"uv", "poetry", "pipenv", "pdm", "rye", "hatch"})
_PREFIXES = frozenset(WRAPPERS) | RUNNERS  # first words that may not be the program


def _runner_end(words: Sequence[str], index: int, env: set[str]) -> int:
    """Where the command after ``RUNNER run [options]`` starts (``index`` at ``run``)."""
    end = len(words)
    start = index = index + 1
    while index < end and words[index].startswith("-") and words[index] != "--":
        index += 1
    if index < end and words[index] == "--":
        index += 1
    given = [w for w in words[start - 2 : index] if w != "--"]
    env.add(" ".join(given))  # `uv run`, `uv run --with x`: kept as written
    return index


def _prefixes_end(words: Sequence[str], env: set[str], inner: list[str]) -> int | None:
    """Where the program starts, after assignments and wrappers (collected into ``env``
    and ``inner``); None for ``command -v``, which looks a program up, not runs it."""
    index, end = 0, len(words)
    changed = True
    while changed and index < end:
        changed = False
        while index < end and compiled(_ASSIGNMENT).match(words[index]):
            env.add(words[index])
            index += 1
            changed = True
        wrapper = os.path.basename(words[index]) if index < end else ""
        if wrapper in RUNNERS and index + 1 < end and words[index + 1] == "run":
            index = _runner_end(words, index + 1, env)
            changed = True
            continue
        if wrapper not in WRAPPERS or (wrapper == "runuser" and not _runs_as(words[index:])):
            continue  # `runuser -l root -c '…'` is read as su is
        index += 1
        if wrapper == "command" and index < end and words[index] in ("-v", "-V"):
            return None
        if wrapper == "builtin" and index < end and words[index] not in _BUILTINS:
            return None  # `builtin rm …`: "not a shell builtin", nothing runs
        if wrapper == "coproc":  # `coproc NAME { …; }`: the grammar reads `{` as a word
            if index + 1 < end and words[index + 1] == "{" and compiled(_NAME).match(words[index]):
                index += 1
            if index < end and words[index] == "{":
                index += 1
        start, index = index, _options_end(words, index, wrapper, env, inner)
        own = words[start:index]
        if any(_looks_only(wrapper, w) for w in own):
            return None  # `sudo -l CMD`, `env --help`: the command is not run
        if _elsewhere(wrapper, own):
            env.add(_CHDIR_ENV + "?")  # `sudo -i`, `systemd-run`: another directory
        changed = True
    return index


def _runs_as(words: Sequence[str]) -> bool:
    """``runuser -u USER [--] CMD`` runs CMD itself (without ``-u``: as su does)."""
    return any(w in ("-u", "--user") or w.startswith("--user=") for w in words)


def _elsewhere(wrapper: str, own: Sequence[str]) -> bool:
    """Whether the wrapper runs its command in a directory not known here: a login
    (``sudo -i``, ``--login``: the user's home), or ``systemd-run`` without
    ``--same-dir`` (the service manager's directory)."""
    if wrapper == "sudo":
        return any(w == "--login" or (compiled(_SHELL_LETTERS).match(w) and "i" in w) for w in own)
    if wrapper == "systemd-run":
        return not any(w in ("--same-dir", "-d") for w in own)
    return False


# Wrapper options that only list, edit or print, and run no command (``sudo -l go test``
# says whether it may run); ``--help`` and ``--version`` for every wrapper.
_LOOKS_ONLY = {"sudo": frozenset({"-l", "--list", "-e", "--edit", "-V"})}


def _looks_only(wrapper: str, option: str) -> bool:
    if option in ("--help", "--version") or option in _LOOKS_ONLY.get(wrapper, ()):
        return True
    # a cluster of sudo's switches holding -l (`-El`)
    return wrapper == "sudo" and "l" in option and bool(compiled(_SHELL_LETTERS).match(option))


def _options_end(
    words: Sequence[str],
    index: int,
    wrapper: str,
    env: set[str],
    inner: list[str],
    args: bool = True,
) -> int:
    """Where a wrapper's own options (and arguments) end."""
    takes_value, end = WRAPPERS[wrapper], len(words)
    given = _ARGS_GIVEN_BY.get(wrapper, frozenset())
    while index < end and (
        words[index].startswith("-")
        or (wrapper == "env" and compiled(_ASSIGNMENT).match(words[index]))
    ):
        option = words[index]
        index += 1
        if compiled(_ASSIGNMENT).match(option):
            env.add(option)
            continue
        if option == "--":
            break
        name, eq, value = option.partition("=")
        if wrapper == "env" and (option in _ENV_CLEARED or _clears(option)):
            env.add("-i")  # `env -i`, `env -iu X`: the environment is cleared
        if eq and name in takes_value:  # `--split-string='go test'`
            _value(wrapper, name, value, env, inner)
            args = args and name not in given
            continue
        taken = _valued_letter(option, takes_value)
        if taken is None:
            continue
        letter, attached = taken
        args = args and letter not in given
        if attached:  # `-S'go test'`, `-n5`
            _value(wrapper, letter, attached, env, inner)
        elif index < end:  # `-u root`, `-Eu root`
            _value(wrapper, letter, words[index], env, inner)
            index += 1
    if not args or wrapper not in _WRAPPER_ARGS:
        return index
    index = min(end, index + _WRAPPER_ARGS[wrapper])
    if index < end and words[index].startswith("-"):  # `flock FILE -c '...'`
        return _options_end(words, index, wrapper, env, inner, args=False)
    return index


def _value(wrapper: str, option: str, value: str, env: set[str], inner: list[str]) -> None:
    """Take in what the value of a wrapper's ``option`` changes: a script it hands to a
    shell (``env -S``), a variable it unsets (``env -u``), the directory (``env -C``)."""
    if option in _SCRIPT_VALUES.get(wrapper, ()):
        inner.append(value)
    elif wrapper == "env" and option in _ENV_UNSET:
        env.add(value)  # a name without `=`: unset
    elif option in _CHDIR.get(wrapper, ()) and value.rstrip("/") not in (".", ""):
        env.add(f"--chdir={value}")


def _clears(option: str) -> bool:
    """``env``'s ``-i`` in a cluster of its switches (``-vi``, ``-iu NAME``)."""
    for letter in option[1:] if option[1:2] != "-" else "":
        if letter == "i":
            return True
        if not letter.isalpha() or "-" + letter in WRAPPERS["env"]:
            return False
    return False


def _valued_letter(option: str, takes_value: frozenset[str]) -> tuple[str, str] | None:
    """(the option that takes a value, the value attached to it) of ``option`` as written
    (``-u``, ``--user``), in a cluster (``-Eu``: ``-u``, ``""``) or with its value attached
    (``-Sgo test``: ``-S``, ``go test``); None when it takes none."""
    if option in takes_value:
        return option, ""
    if option.startswith("--") or len(option) < 2:
        return None
    for at in range(1, len(option)):
        letter = "-" + option[at]
        if letter in takes_value:
            return letter, option[at + 1 :]
        if not option[at].isalpha():
            return None
    return None


_VARIABLE = r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*+)\}|([A-Za-z_][A-Za-z0-9_]*+))"
# An item of a list, or all of them joined: `${x[1]}`, `${x[@]}`, `${x[*]}`, `$1`, `${10}`,
# `$@`, `$*` (a list's name alone, `$x`, is its first item)
_ELEMENT = (
    r"\$\{([A-Za-z_][A-Za-z0-9_]*+)\[([@*]|[0-9]++)\]\}|\$\{([1-9][0-9]*+|[@*])\}|\$([1-9@*])"
)
# a whole list, as its items: `${x[@]}`, `$@`, `${@}`, and a slice of one (`${x[@]:1}`,
# `"${@:2}"`, `${@:2:1}`: from an offset, so many items; literal numbers only)
_WHOLE_LIST = (
    r"\$\{([A-Za-z_][A-Za-z0-9_]*+)\[@\](?::([0-9]++)(?::([0-9]++))?+)?+\}"
    r"|\$@|\$\{@(?::([0-9]++)(?::([0-9]++))?+)?+\}"
)
_PARAMETERS = "@"  # the positional parameters' entry in `_Variables.values`
# a variable a text names (`$T`, `${T}`, `${x[@]}`, `$1`, `"$@"`): the name
_NAMED = r"\$\{?+([A-Za-z_][A-Za-z0-9_]*+|[0-9@*#])"
_POSITIONAL_NAMES = frozenset("0123456789@*#")
_WAS_SET = "\x00set:"  # before PWD or IFS in the values a text is given: its line set it
# An assignment: NAME=, NAME+= (appended), NAME[i]= (an item)
_ASSIGNS = r"^([A-Za-z_][A-Za-z0-9_]*+)(\[[^]=]*+\])?+(\+)?+="
_DYNAMIC = ("$", "`")
_PWD_PRINTED = r"\$\([ \t]*+pwd[ \t]*+\)|`[ \t]*+pwd[ \t]*+`"


# Builtins that set the variables they name to what they read or compute.
_SETTERS = frozenset({"read", "mapfile", "readarray", "getopts", "printf", "let", "select"})
_NAME = r"^[A-Za-z_][A-Za-z0-9_]*+$"
_OPENERS = frozenset(
    {shell.SCOPE_OPEN.words, shell.MAYBE_OPEN.words, shell.UNKNOWN_OPEN.words}
    | {shell.CALL_OPEN.words}
)


_CD = frozenset({"cd", "pushd", "popd"})
_XARGS_SWITCHES = frozenset({"-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"})
_XARGS_WORD = r"^[A-Za-z0-9_./:@%+=,-]++$"  # read by xargs as itself


def _xargs(words: tuple[str, ...], stdin: tuple[str, ...]) -> tuple[str, ...]:
    """What ``xargs CMD`` runs when its input is written in the line (``echo build |
    xargs rm -rf``, ``xargs -I{} rm {} <<< build``): once, ``CMD`` with the input's words
    (``-I R``: one line, whole, put for ``R``); ``words`` as written when that is not known
    (another option, quotes in the input, more words than ``-n`` takes: several runs)."""
    index, most, replace_by = 1, 0, ""
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        index += 1
        if option in _XARGS_SWITCHES:
            continue
        if option in ("-n", "--max-args", "-I") and index < len(words):
            value, index = words[index], index + 1
        elif option.startswith(("-n", "-I")) and len(option) > 2:
            value = option[2:]
        elif option.startswith(("--max-args=", "--replace=")):
            value = option.partition("=")[2]
        else:
            return words
        if option.startswith(("-I", "--replace")):
            replace_by = value
        elif not value.isdigit():
            return words
        else:
            most = int(value)
    text = "".join(stdin)
    items = text.split()
    if not items or not all(compiled(_XARGS_WORD).match(i) for i in items) or index >= len(words):
        return words
    command = words[index:]
    if replace_by:  # the whole line, its blanks kept (`xargs -I{} sh -c '{}'`)
        lines = [line.strip(" \t") for line in text.split("\n") if line.strip()]
        if len(lines) != 1:
            return words
        return tuple(w.replace(replace_by, lines[0]) for w in command)
    if most and len(items) > most:
        return words
    return (*command, *items)


_IFS = " \t\n"
_NOT_SPLIT = ("$", "`", "*", "?", "[")  # not known, or a pattern matched against files


def _printed_value(value: str) -> str:
    """An assignment's value that is one ``$( … )`` (or backticks) of one ``echo`` or
    ``printf`` of words written out: what it prints, less its trailing newlines, as a
    substitution gives it (``c=$(printf 'rm -rf %s' build)``, ``c=$(echo rm -rf build)``);
    else the value as it is (not known, when it holds an expansion). At most ``shell.SMALL``
    bytes inside, parsed here; ``echo -e`` with a backslash is not read."""
    if value.startswith("$(") and value.endswith(")") and not value.startswith("$(("):
        inner = value[2:-1]
    elif len(value) > 1 and value[0] == value[-1] == "`":
        inner = value[1:-1]
    else:
        return value
    if len(inner) > shell.SMALL or "$" in inner or "`" in inner or "\x00" in inner:
        return value
    parsed = shell.parse(inner)
    simples = [c for c in parsed.commands if c.words and c.words[0][:1] != "\x00"]
    if parsed.problems or len(simples) != 1 or simples[0] != shell.Simple(simples[0].words):
        return value  # several commands, input, a redirection: not read
    words = simples[0].words
    if words[0] == "echo":
        options = [w for w in words[1:] if re.match(r"^-[neE]++$", w)]
        if any("e" in w for w in options) and "\\" in " ".join(words):
            return value
        printed: str | None = shell.printed(words)[0]
    elif words[0] == "printf" and len(words) > 1:
        at = 2 if words[1] == "--" and len(words) > 2 else 1
        printed = shell.formatted(words[at], words[at + 1 :])
    else:
        return value
    return printed.rstrip("\n") if printed is not None else value


def _fields(value: str, ifs: str) -> list[str]:
    """The fields bash splits ``value`` into by ``ifs``: runs of its blanks separate and
    are dropped at the ends; each other character of it ends one field. Linear."""
    blanks = "".join(c for c in ifs if c in _IFS)
    others = "".join(c for c in ifs if c not in _IFS)
    value = value.strip(blanks)
    if not value or not ifs:
        return [value] if value else []
    run = f"[{re.escape(blanks)}]++" if blanks else ""
    if not others:
        return re.split(run, value)
    around = f"[{re.escape(blanks)}]*+" if blanks else ""
    pieces = re.split(f"{around}[{re.escape(others)}]{around}" + (f"|{run}" if run else ""), value)
    return pieces[:-1] if not pieces[-1] else pieces


_CWD = "\x00cwd"  # the working directory's entry in `_Variables`' journal
_FILE = "\x00file:"  # before a path: what a file written by the line holds, in `values`
_CHDIR_ENV = "--chdir="  # the environment's entry for another directory (`env -C DIR`)


def _join(cwd: str, target: str) -> str:
    """The directory ``cd TARGET`` moves to from ``cwd``: relative to where the line
    started (``.``), absolute when outside it, ``?`` when not known before the line runs
    (``cd -``, ``cd ~``, ``cd $D``). ``cd sub && cd ..`` is back (``cd`` is logical)."""
    if cwd == "?" or not target or target[0] in "-~" or "$" in target or "`" in target:
        return "?"
    if target.startswith("/"):
        where = posixpath.normpath(target)
    else:
        where = posixpath.normpath(posixpath.join(cwd, target))
    return _from_here(where) if where.startswith("/") else where


def _from_here(path: str) -> str:
    """An absolute ``path`` inside the directory the check runs in (where the row was
    recorded) relative to it, ``.`` for that directory; any other path as it is."""
    here = os.getcwd().rstrip("/")
    if path == here:
        return "."
    return path[len(here) + 1 :] if path.startswith(here + "/") else path


def _split_chdir(env: frozenset[str]) -> tuple[str, frozenset[str]]:
    """(the directory ``env`` names, the rest of it)."""
    moved = [e for e in env if e.startswith(_CHDIR_ENV)]
    if not moved:
        return ".", env
    return moved[0][len(_CHDIR_ENV) :], env - frozenset(moved)


def _moved(command: Command, cwd: str) -> Command:
    """``command`` run from ``cwd``: its environment names the directory it runs in
    (``cd web && npm i`` and ``env -C web npm i`` are one; ``.`` is none)."""
    if cwd == "." and not any(e.startswith(_CHDIR_ENV) for e in command.env):
        return command
    given, env = _split_chdir(command.env)
    where = _join(cwd, given) if given != "." else cwd
    return command._replace(env=env if where == "." else env | {_CHDIR_ENV + where})


def _login(command: Command) -> frozenset[str]:
    """A login shell (``su -``, ``su -l``, ``runuser -l``) starts in the user's home:
    what it runs is in a directory not known here."""
    if command.program in _USERS_FIRST and any(
        w == "-" or w == "--login" or (compiled(_SHELL_LETTERS).match(w) is not None and "l" in w)
        for w in command.words + command.rest
    ):
        return frozenset({_CHDIR_ENV + "?"})
    return frozenset()


class _Variables:
    """The shell variables a command line sets before a command runs, when their values
    are written out (``T=musl; go test -tags=$T``), and those it exports."""

    def __init__(
        self,
        cwd: str = ".",
        files: Mapping[str, str] | None = None,
        environment: Iterable[str] = (),
    ) -> None:
        # the directory the next command runs in, relative to where the line starts
        # ("." there; "?" not known; see `_join`), and what `pushd` left to `popd`
        self.cwd = cwd
        self._stack: list[str] = []
        self._failable = False  # the last command was a `cd` that may have failed
        # the variables' values, and the files written (`_FILE` + path -> the text)
        self.values: dict[str, str] = dict(files or {})
        self.wrote_any = bool(files)
        # every file the text wrote or may have written (`_FILE` + path; + "?": any),
        # whatever it holds now: none of them is read where it lies (`_on_disk`)
        self.touched: set[str] = set()
        for entry in environment:  # `NAME=value` entries: variables of a shell given them
            if compiled(_ASSIGNMENT).match(entry) and not any(m in entry for m in _DYNAMIC):
                name, _, value = entry.partition("=")
                self.values.setdefault(name, value)
        # an array or the positional parameters were set (or given: `inherited`)
        self.lists = any(v.startswith(shell.LIST) for v in self.values.values())
        self._exported: dict[str, str] = {}  # name -> "name=value"
        self._frozen: frozenset[str] | None = frozenset()
        # PWD set, unset or read by the line (or by the one whose text this is: `eval`):
        # not the directory; IFS set or unset by the line: known only by its value
        self._pwd_set = _WAS_SET + "PWD" in self.values
        self._ifs_set = _WAS_SET + "IFS" in self.values
        # (name, value, export) before each change, for undoing a subshell's changes
        self._journal: list[tuple[str, str | None, str | None]] = []
        # each open scope: its marker, where its changes start, the names it set itself
        self._opened: list[tuple[tuple[str, ...], int, list[str]]] = []
        self._unknown = 0  # open scopes whose assignments may not run
        self._params_level = -1  # `_unknown` where the positional parameters were set

    def scope(self, simple: shell.Simple) -> bool:
        """Take in a scope's marker (``shell.SCOPE_OPEN`` and the others): leaving a
        subshell undoes what it set; leaving a part that may not have run (``a && T=1;``)
        forgets what it set. Linear: each change is undone or forgotten once."""
        words = simple.words
        failable, self._failable = self._failable, False
        if failable and words != shell.MAYBE_OPEN.words:
            self._moved_to("?", False)  # `cd sub; …`: in sub, or here when it failed
        if words in _OPENERS:
            self._unknown += words == shell.UNKNOWN_OPEN.words
            self._opened.append((words, len(self._journal), [_CWD] if failable else []))
            return True
        if words != shell.SCOPE_CLOSE.words:
            return False
        if not self._opened:
            return True
        opener, start, names = self._opened.pop()
        self._unknown -= opener == shell.UNKNOWN_OPEN.words
        if opener == shell.SCOPE_OPEN.words:
            while len(self._journal) > start:
                name, value, exported = self._journal.pop()
                if name == _CWD:
                    self.cwd = value or "?"
                    continue
                if name.startswith(_FILE):  # a subshell's write is not undone: not known
                    self.values.pop(name, None)
                    continue
                self.values.pop(name, None)
                self._exported.pop(name, None)
                if value is not None:
                    self.values[name] = value
                if exported is not None:
                    self._exported[name] = exported
                self._frozen = None
        else:
            for name in names:
                if name == _CWD:  # `cd web && …; npm i`: in web or here, not known
                    self._moved_to("?", False)
                else:
                    self._drop(name)  # set in a part that may not have run: not known
        return True

    @property
    def may_not_run(self) -> bool:
        """Whether the command read now is in a part that may not run (a branch, a loop,
        a function's body, after ``||``)."""
        return self._unknown > 0

    @property
    def exported(self) -> frozenset[str]:
        """The exported assignments (``NAME=value``), as a command's environment."""
        if self._frozen is None:
            self._frozen = frozenset(self._exported.values())
        return self._frozen

    def exported_to(self, simple: shell.Simple, given: frozenset[str]) -> frozenset[str]:
        """The environment a command written as ``simple`` runs with: the exported
        assignments and those the text was ``given``, but not those it expands itself
        (``export T=musl; go test -tags=$T`` sets T to spell a word of the command line,
        not for the program to read; a ``'$T'`` is no expansion)."""
        exported = self.exported | given
        if not exported:
            return exported
        named = {
            a or b
            for i, w in enumerate(simple.words)
            if "$" in w and i not in simple.literal
            for a, b in compiled(_VARIABLE).findall(w)
        }
        return frozenset(e for e in exported if e.partition("=")[0] not in named)

    def record(self, words: tuple[str, ...], simple: shell.Simple | None = None) -> bool:
        """Take in ``words`` (of ``simple``) when they only set, export or unset variables."""
        if not words:
            return False
        head = words[0]
        if head in _SETTERS:  # `read T`, `printf -v T …`: a value not known before it runs
            self._computed(words, simple)
            return False
        if head in ("export", "unset", "declare", "typeset", "readonly", "local"):
            for word in words[1:]:
                if head == "unset":
                    self._drop(word.partition("[")[0])  # `unset 'x[1]'`: x not known
                elif compiled(_ASSIGNS).match(word):
                    self._assign(word, head == "export")
                elif head == "export" and word in self.values:
                    self._set(word, self.values[word], True)
            return True
        if head in ("set", shell.PARAMETERS):  # `set -- rm -rf build`, a function's call
            self._parameters(words[1:], head == shell.PARAMETERS)
            return True
        if head == "shift":
            self._shift(words[1:])
            return False
        if all(compiled(_ASSIGNS).match(w) for w in words):
            for word in words:
                self._assign(word, False)
            return True
        return False

    def _assign(self, word: str, export: bool) -> None:
        """``NAME=value``, ``NAME+=value`` (appended to a known value), ``NAME[i]=value``
        (an item of a list: the list is no longer known)."""
        found = compiled(_ASSIGNS).match(word)
        assert found is not None
        name, value = found[1], _printed_value(self.expand((word[found.end() :],))[0])
        old = self.values.get(name) if found[3] else value
        if found[2] or old is None:
            self._drop(name)
        elif found[3] and old.startswith(shell.LIST) != value.startswith(shell.LIST):
            self._drop(name)  # a word to a list, a list to a word: not followed
        elif found[3]:  # `x+=(more)`, `T+=x`
            items = value[len(shell.LIST) :] if value.startswith(shell.LIST) else value
            glue = shell.ITEM if old.startswith(shell.LIST) and old != shell.LIST and items else ""
            self._set(name, old + glue + items, export)
        else:
            self._set(name, value, export)

    def _parameters(self, args: tuple[str, ...], call: bool = False) -> None:
        """``set``'s arguments: options, then (after ``--``, ``-`` or the first word that
        is none) the positional parameters, which only options leave as they were; or
        (``call``) a function's arguments where it is called, known in its body even
        where the body may not run (they are what it runs with)."""
        index = 0
        while not call and index < len(args) and args[index][:1] in "-+" and args[index] != "-":
            if args[index] == "--":
                break
            index += 2 if args[index] in ("-o", "+o") else 1
        if call:
            given = args  # `f -- x`: its $1 is `--`
        elif index < len(args):
            given = args[index + 1 :] if args[index] in ("--", "-") else args[index:]
        else:
            return  # options only: the parameters as they were
        self._drop(_PARAMETERS)
        if _listable(given):
            self._set(_PARAMETERS, shell.LIST + shell.ITEM.join(given), False, given=call)

    def _computed(self, words: tuple[str, ...], simple: shell.Simple | None) -> None:
        """A builtin's names (``read T``, ``printf -v T``) are not known after it, unless it
        reads text written out, or prints words written out (``_read``, ``_printed``)."""
        for word in words[1:]:
            if compiled(_NAME).match(word):
                self._drop(word)
        found = self._read(words, self.fed(simple)) if simple and words[0] == "read" else None
        if simple and words[0] == "printf":
            found = self._printed(self.expand(simple.words, simple.literal))
        for name, value in (found or {}).items():
            self._set(name, value, False)

    def _read(self, words: tuple[str, ...], fed: tuple[str, ...]) -> dict[str, str] | None:
        """What ``read [-r] [NAME…]`` sets from the one input it is fed, when that is
        known (``read -r c <<< 'rm -rf build'``): the first line split into fields by
        IFS's blanks, the last name taking the rest; REPLY, the line, for no name. None
        for another option, text not known, a backslash without ``-r``, another IFS."""
        index, raw = 1, False
        while index < len(words) and words[index] in ("-r", "--"):
            raw, index = raw or words[index] == "-r", index + 1
            if words[index - 1] == "--":
                break
        names = words[index:]
        ifs = self.values.get("IFS", _IFS if not self._ifs_set else None)
        if len(fed) != 1 or ifs is None or ifs.strip(_IFS) or not ifs:
            return None
        if not all(compiled(_NAME).match(n) for n in names) or any(m in fed[0] for m in _DYNAMIC):
            return None
        line = fed[0].partition("\n")[0]
        if not raw and "\\" in line:
            return None
        if not names:
            return {"REPLY": line}
        values: dict[str, str] = {}
        rest = line.strip(ifs)
        for name in names[:-1]:
            field = re.match(f"[^{re.escape(ifs)}]*+", rest)
            assert field is not None
            values[name], rest = field[0], rest[field.end() :].lstrip(ifs)
        values[names[-1]] = rest
        return values

    def _printed(self, words: tuple[str, ...]) -> dict[str, str] | None:
        """What ``printf -v NAME FORMAT [ARG…]`` sets, for arguments written out and a
        format ``shell.formatted`` reads. None for anything else."""
        if words[1:2] != ("-v",) or len(words) < 4 or not compiled(_NAME).match(words[2]):
            return None
        at = 4 if words[3] == "--" else 3
        if at >= len(words) or any(m in w for w in words[at:] for m in _DYNAMIC):
            return None
        value = shell.formatted(words[at], words[at + 1 :])
        return {words[2]: value} if value is not None else None

    def _shift(self, args: tuple[str, ...]) -> None:
        """``shift [N]``: the positional parameters without their first N, when they are
        known and the shift runs wherever they were set (``f() { shift; "$@"; }``, not in
        a branch of its own); else they are not known (N past their count: bash shifts
        nothing, and says so)."""
        items = self.items(_PARAMETERS)
        count = self.expand(args)[0] if len(args) == 1 else "1" if not args else ""
        level, self._params_level = self._params_level, -1
        self._drop(_PARAMETERS)
        if items is None or self._unknown != level or not count.isascii():
            return
        if count.isdigit() and int(count) <= len(items):
            self._set(_PARAMETERS, shell.LIST + shell.ITEM.join(items[int(count) :]), False, True)

    def items(self, name: str) -> list[str] | None:
        """The items of the list ``name`` (an array, ``@``), when it is known."""
        value = self.values.get(name)
        if value is None or not value.startswith(shell.LIST):
            return None
        body = value[len(shell.LIST) :]
        return body.split(shell.ITEM) if body else []

    def chdir(self, words: tuple[str, ...]) -> None:
        """Take in ``cd DIR``, ``pushd DIR``, ``popd``: where the commands after it run."""
        head, args = words[0], [w for w in words[1:] if w not in ("-L", "-P", "-e", "--")]
        if head == "popd":
            where = self._stack.pop() if self._stack and not args else "?"
        else:
            if head == "pushd":
                self._stack.append(self.cwd)
            where = _join(self.cwd, args[0]) if len(args) == 1 else "?"  # `cd`: $HOME
        before = self.cwd
        self._moved_to(where, True)
        # A `cd` may fail: certain only for what runs after it with `&&` (`cd sub && …`:
        # the chain it heads, or the one it is part of), then not known
        chained = bool(self._opened) and self._opened[-1][0] == shell.MAYBE_OPEN.words
        self._failable = not chained and self.cwd != before

    def _moved_to(self, where: str, named: bool) -> None:
        if self._opened:
            self._journal.append((_CWD, self.cwd, None))
            if named:
                self._opened[-1][2].append(_CWD)
        self.cwd = "?" if self._unknown else where

    def wrote(self, path: str, text: str) -> None:
        """The file ``path`` (from where the text starts) now holds ``text`` ("": not
        known), for what runs after it as a variable set here is (``a && echo … > s.sh &&
        sh s.sh``; a write in a subshell, a branch or a loop is not known after it)."""
        if path == "?":  # somewhere not known: any of them
            for name in [n for n in self.values if n.startswith(_FILE)]:
                self._drop(name)
            self.touched.add(_FILE + "?")
            return
        name = _FILE + path
        self._drop(name)
        self.touched.add(name)
        if text and not self._unknown:
            self.wrote_any = True
            if self._opened:
                self._opened[-1][2].append(name)
            self.values[name] = text

    def inherited(self, texts: Sequence[str] | None) -> dict[str, str]:
        """What a text run from here starts with: the files known written; for ``texts``
        this shell reads itself (``eval``'s, an alias's), the variables they name too
        (each looked up, so that many evals of a line with many variables stay linear),
        and whether the line set PWD or IFS (then the text's are not the defaults)."""
        files = self.files()
        if texts is None:
            return files
        names = {"IFS", "PWD"}
        for text in texts:
            for found in compiled(_NAMED).finditer(text) if "$" in text else ():
                names.add(_PARAMETERS if found[1] in _POSITIONAL_NAMES else found[1])
        given = files | {n: self.values[n] for n in names if n in self.values}
        for name, was_set in (("PWD", self._pwd_set), ("IFS", self._ifs_set)):
            if was_set:  # the text reads them as this line left them, known or not
                given[_WAS_SET + name] = ""
        return given

    def files(self) -> dict[str, str]:
        """The files known written, for a text run from here (its writes are its own)."""
        return (
            {n: v for n, v in self.values.items() if n.startswith(_FILE)} if self.wrote_any else {}
        )

    def _pwd(self) -> str | None:
        """``$PWD``: the directory the next command runs in, when the line has moved it
        only in ways followed here and has not set PWD itself."""
        if self._pwd_set or self.cwd == "?":
            return None
        return posixpath.normpath(posixpath.join(os.getcwd(), self.cwd))

    def _set(self, name: str, value: str, export: bool, given: bool = False) -> None:
        """``name`` is ``value`` from here; ``given``: set by the shell wherever the part
        runs (a function's parameters), so known in a part that may not run too."""
        self._drop(name)
        if (self._unknown and not given) or any(mark in value for mark in _DYNAMIC):
            return  # not known before it runs
        self.lists |= value.startswith(shell.LIST)
        if name == _PARAMETERS:  # the part the positional parameters were set in
            self._params_level = self._unknown
        if self._opened:
            self._opened[-1][2].append(name)
        self.values[name] = value
        if export and not value.startswith(shell.LIST):  # bash exports no array
            self._exported[name] = f"{name}={value}"
            self._frozen = None

    def resolve(self, simple: shell.Simple) -> tuple[str, ...]:
        """The words ``simple`` runs with: known variables and ``$(echo WORD)`` put in,
        unquoted expansions split (``CMD='go test'; $CMD`` runs ``go test``)."""
        if self.lists and any("@" in w for w in simple.words):
            simple = self.spread(simple)
        words = _echoed(self.expand(simple.words, simple.literal))
        return self.fields(words, simple.split) if simple.split else words

    def fed(self, simple: shell.Simple) -> tuple[str, ...]:
        """The input ``simple`` is fed, with the variables the shell expands in it put in
        (``X='go test'; sh <<< "$X"``, ``echo "$X" | sh``), and a file the text wrote
        that it reads (``echo build > f; xargs rm -rf < f``)."""
        stdin = simple.stdin
        if simple.expands:
            stdin = tuple(
                self.expand((t,))[0] if i in simple.expands else t for i, t in enumerate(stdin)
            )
        written = self.values.get(_FILE + _join(self.cwd, simple.reads)) if simple.reads else None
        return stdin + (written,) if written and self.wrote_any else stdin

    def fields(self, words: tuple[str, ...], split: frozenset[int]) -> tuple[str, ...]:
        """``words`` with each one that is an unquoted expansion (``split``), once its
        value is known, split into fields as bash splits it: by IFS when the line set it
        to a known value, else by blanks; an empty one is no word. As written when the
        value is not known, or holds a pattern that would be matched against files."""
        ifs = self.values.get("IFS", _IFS if not self._ifs_set else None)
        if ifs is None:
            return words
        out: list[str] = []
        for index, word in enumerate(words):
            if index not in split or any(c in word for c in _NOT_SPLIT):
                out.append(word)
            else:
                out.extend(_fields(word, ifs))
        return tuple(out)

    def _drop(self, name: str) -> None:
        self._pwd_set |= name == "PWD"
        self._ifs_set |= name == "IFS"
        if self._opened:
            self._journal.append((name, self.values.get(name), self._exported.get(name)))
        self.values.pop(name, None)
        if self._exported.pop(name, None) is not None:
            self._frozen = None

    def expand(
        self, words: tuple[str, ...], literal: frozenset[int] = frozenset()
    ) -> tuple[str, ...]:
        """``words`` with each variable whose value is known put in (not in the words
        ``literal`` names: ``'$T'`` is the two characters)."""
        expanding = [i for i, w in enumerate(words) if ("$" in w or "`" in w) and i not in literal]
        if not expanding:
            return words
        values = self.values
        pwd = (
            self._pwd() if any("PWD" in words[i] or "pwd" in words[i] for i in expanding) else None
        )
        if not values and pwd is None:
            return words

        def value(found: re.Match[str]) -> str:
            name = found[1] or found[2]
            known = values.get(name)
            if known is not None:
                return known if not known.startswith(shell.LIST) else item(name, "0")
            return pwd if name == "PWD" and pwd is not None else found[0]

        def item(name: str, index: str, written: str = "") -> str:
            items = self.items(name)
            if items is None:
                return written
            if index in ("@", "*"):
                return " ".join(items)
            number = int(index) - (name == _PARAMETERS)  # `$1` is the first
            return items[number] if number < len(items) else ""

        def element(found: re.Match[str]) -> str:
            if found[1]:
                return item(found[1], found[2], found[0])  # `${x[1]}`, `${x[*]}`
            return item(_PARAMETERS, found[3] or found[4], found[0])  # `$1`, `${10}`, `$*`

        out = list(words)
        for i in expanding:
            word = words[i]
            if "pwd" in word:  # `"$(pwd)/build"`: what `pwd` prints is $PWD
                word = compiled(_PWD_PRINTED).sub("${PWD}", word)
            if self.lists:
                word = compiled(_ELEMENT).sub(element, word)
            out[i] = compiled(_VARIABLE).sub(value, word)
        return tuple(out)

    def _slice(self, whole: re.Match[str]) -> list[str] | None:
        """The items a whole list or a slice of it (``_WHOLE_LIST``) stands for, when
        known: ``${@:N}`` counts from ``$0``, which is not known, so N is at least 1."""
        items = self.items(whole[1] or _PARAMETERS)
        start, count = (whole[2], whole[3]) if whole[1] else (whole[4], whole[5])
        if items is None or start is None:
            return items
        first = int(start) - (not whole[1])  # `${@:1}` is `$1` on: the first item
        if first < 0:
            return None
        return items[first : first + int(count)] if count is not None else items[first:]

    def spread(self, simple: shell.Simple) -> shell.Simple:
        """``simple`` with each word that is a whole known list (``"${x[@]}"``, ``"$@"``)
        as its items, one word each (unquoted: each split into fields later)."""
        words: list[str] = []
        literal: set[int] = set()
        split: set[int] = set()
        for index, word in enumerate(simple.words):
            whole = compiled(_WHOLE_LIST).fullmatch(word) if index not in simple.literal else None
            items = self._slice(whole) if whole else None
            for item in [word] if items is None else items:
                if index in simple.literal:
                    literal.add(len(words))
                if index in simple.split:
                    split.add(len(words))
                words.append(item)
        return simple._replace(
            words=tuple(words), literal=frozenset(literal), split=frozenset(split)
        )


# `$(echo WORD)` (or backticks) with one literal word that is not an option: that word;
# `$(printf WORD)`, `$(printf 'WORD')` too (a format with no `%` or escape is printed as is).
_ECHOED = (
    r"\$\(\s*+echo\s++([A-Za-z0-9_./:+@%][A-Za-z0-9_./:+@%-]*+)\s*+\)"
    r"|`\s*+echo\s++([A-Za-z0-9_./:+@%][A-Za-z0-9_./:+@%-]*+)\s*+`"
    r"|\$\(\s*+printf\s++('?+)([A-Za-z0-9_./:+@][A-Za-z0-9_./:+@-]*+)\3\s*+\)"
)


# `$(echo WORDS)` with plain words: what it prints, for a text read again whole (eval);
# `$(printf 'WORDS')` too, a format with no `%` or escape being printed as it is
_WORDS = r"([A-Za-z0-9_./:+@%][A-Za-z0-9_./:+@%=-]*+(?:[ \t]++[A-Za-z0-9_./:+@%=-]++)*+)"
_ECHOED_LINE = (
    r"\$\(\s*+echo\s++" + _WORDS + r"\s*+\)|`\s*+echo\s++" + _WORDS + r"\s*+`"
    r"|\$\(\s*+printf\s++'" + _WORDS.replace("%", "") + r"'\s*+\)"
)


def _listable(items: Sequence[str]) -> bool:
    """Whether ``items`` can be held as one list value: none holds the characters the
    value is built with (``shell.LIST``, ``shell.ITEM``); else the list is not known."""
    return not any(shell.ITEM in i or "\x00" in i for i in items)


def _echoed_line(script: str) -> str:
    """A text a shell reads (``eval``'s words, a ``-c`` script, its input) with each
    ``$(echo WORDS)`` or ``$(printf 'WORDS')`` of plain words as what it prints: run as a
    command, it runs that. A text that is one ``$( )`` whose commands only print is what
    they print (``bash -c "$(cat <<'E' … E)"``, as ``<( )`` in ``_substituted_script``)."""
    whole = script.strip()
    if whole.startswith("$(") and whole.endswith(")") and not whole.startswith("$(("):
        printed = "\n".join(_substituted_script(whole[2:-1]))
        if printed:
            return printed
    return (
        compiled(_ECHOED_LINE).sub(lambda m: m[1] or m[2] or m[3], script)
        if "echo" in script or "printf" in script
        else script
    )


def _echoed(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` with each ``$(echo WORD)`` replaced by what it prints (``"$(echo go)"
    test`` runs ``go test``): the one substitution whose output is known before it runs."""
    if not any("$(" in w or "`" in w for w in words):
        return words
    return tuple(compiled(_ECHOED).sub(lambda m: m[1] or m[2] or m[4], w) for w in words)


def _take_writes(known: _Variables, simple: shell.Simple) -> None:
    """Take in the files ``simple`` writes, for a later command of the same text that
    runs one as a script (``cat > s.sh <<'E' … E`` then ``bash s.sh``): what ``cat``/
    ``tee`` pass on or ``echo``/``printf`` print, replacing the file (``>``, or ``tee``'s
    own). A file is forgotten when a later command writes it otherwise or names it (``cp
    x s.sh``, ``sed -i … s.sh``), and every one when a command writes a file not known
    (``> "$F"``, ``>> log``, ``tee -a``)."""
    words, cwd = simple.words, known.cwd
    if known.wrote_any and words:
        command = normalize(words)  # `sudo sh s.sh` runs it, `timeout 5 cp x s.sh` not
        if command is None or command.program not in _RUNS_FILES:
            for word in words[1:]:
                known.wrote(_join(cwd, word), "")
    tee = words[:1] == ("tee",)
    if simple.writes == "?" or (tee and any(w.startswith("-") for w in words)):
        known.wrote("?", "")  # `tee -a`: appended to what was there
    elif simple.writes:
        known.wrote(_join(cwd, simple.writes), "\n".join(shell.passed_on(simple)))
    elif tee:  # `tee s.sh <<'E'`
        for word in words[1:]:
            known.wrote(_join(cwd, word), "\n".join(simple.stdin))


def _run_by_a_shell(text: str) -> bool:
    """Whether a script file run by its path is read by a shell: one with no ``#!`` line
    (the shell runs it) or a shell's (``#!/bin/sh``, ``#!/usr/bin/env bash``)."""
    if not text.startswith("#!"):
        return True
    names = [os.path.basename(w) for w in text[2:].partition("\n")[0].split()[:2]]
    interpreter = names[1:2] if names[:1] == ["env"] else names[:1]  # `#!/usr/bin/env bash`
    return bool(interpreter) and interpreter[0] in SHELLS


def _file_reader(
    known: _Variables, command: Command, line: str
) -> Callable[[str], tuple[str, ...]]:
    """What a file named by ``command`` holds, seen from where it runs: a script the
    text wrote before, else the file as it is now (``_on_disk``) when nothing in the
    ``line`` checked can have written it first."""
    given = [e[len(_CHDIR_ENV) :] for e in command.env if e.startswith(_CHDIR_ENV)]
    where = given[0] if given else "."

    def script(word: str) -> tuple[str, ...]:
        path = _join(where, word)
        text = known.values.get(_FILE + path) if known.wrote_any else None
        if text is None and not {_FILE + path, _FILE + "?"} & known.touched:
            text = _on_disk(path, word, line)
        return (text,) if text else ()

    return script


SCRIPT_LIMIT = shell.MAX_GRAMMAR_BYTES  # a script file read where it lies (`bash ci.sh`)


class _FromDisk(str):
    """A script read where it lies (``_on_disk``): only what it runs for certain is
    checked, not its branches. A project's ``./dev.sh lint`` with a ``clean)`` case
    that runs a failed command does not run it; which branch runs is a matter of the
    arguments, which the check does not match against the script's tests. A script the
    line itself wrote is the agent's text, read as the line is."""


def _on_disk(path: str, word: str, line: str) -> str | None:
    """The script at ``path`` (from where the check runs) as a shell would read it now:
    a regular file of at most ``SCRIPT_LIMIT`` bytes, holding no NUL (a shell refuses a
    binary file), read without blocking (a FIFO gives nothing). Only when ``word``, as
    written, occurs once in ``line``, where it runs: a line that names the file again
    may write it before (``cp x s.sh; bash s.sh``), in ways not followed."""
    if "$" in path or "?" in path or line.count(os.path.basename(word) or word) != 1:
        return None
    from ..errors import RehydrateError
    from ..readlimit import read_text_file

    try:
        text = read_text_file(path, SCRIPT_LIMIT)
    except (OSError, RehydrateError, ValueError):  # missing, unreadable, too large, a FIFO
        return None
    return None if "\x00" in text else _FromDisk(text)


class Reading(NamedTuple):
    commands: tuple[Command, ...]  # each distinct simple command once
    problems: tuple[str, ...]  # parts read word by word, and why


_NOT_KNOWN_HERE = "$?"  # a `cd` target whose directory is not known (`_join` reads "$")


def _directory_change(
    words: tuple[str, ...], budget: shell.Budget, depth: int = 0
) -> tuple[str, ...] | None:
    """The ``cd``, ``pushd`` or ``popd`` a simple command runs in this shell, as words:
    written first, or behind assignments, ``command`` or ``builtin`` (``CDPATH=… cd dir``
    goes where CDPATH says: not known), or in the text ``eval`` runs (not known where).
    None when it changes no directory (``command -v cd`` only prints)."""
    index, searched = 0, False
    while index < len(words) and compiled(_ASSIGNMENT).match(words[index]):
        searched |= words[index].startswith("CDPATH=")
        index += 1
    while index < len(words) and words[index] in ("command", "builtin"):
        index += 1
        while index < len(words) and words[index].startswith("-"):
            if words[index - 1] != "builtin" and set(words[index]) & {"v", "V"}:
                return None  # `command -v cd`: says what cd is, runs nothing
            index += 1
    if index >= len(words):
        return None
    head = words[index]
    if head in _CD:
        return (head, _NOT_KNOWN_HERE) if searched else words[index:]
    if head != "eval":
        return None
    while index < len(words) and words[index] == "eval":  # `eval eval cd sub`: one text
        index += 1
    if depth >= MAX_DEPTH:  # nested deeper than the reader reads: nothing there runs checked
        return None
    text = " ".join(words[index:])
    if not any(name in text for name in _CD):
        return None  # no `cd` in it: read no further (the text is read once, as `eval`'s)
    if budget.text <= 0:  # past what one check reads: where it leaves the shell, not known
        return ("cd", _NOT_KNOWN_HERE)
    inner = shell.parse(text, budget).commands
    if any(_directory_change(s.words, budget, depth + 1) for s in inner):
        return ("cd", _NOT_KNOWN_HERE)  # `eval 'cd sub'`: followed inside, not here
    return None


def _simples(
    item: str | tuple[str, ...],
    depth: int,
    certain: bool,
    budget: shell.Budget,
    problems: list[str],
) -> list[shell.Simple]:
    """The simple commands of a text (past the nesting bound, as the word lexer reads
    them), or of a word list; none of a script file read where it lies that cannot be
    read whole (its words would have no parts that may not run)."""
    if not isinstance(item, str):
        return [shell.Simple(item)]
    parsed = shell.parse(item, budget) if depth <= MAX_DEPTH else shell.by_words(item, budget)
    if certain and (parsed.problems or depth > MAX_DEPTH):
        problems.append("a script file that could not be read whole was not checked")
        return []
    problems.extend(parsed.problems)
    return list(parsed.commands)


def read(text: str, budget: shell.Budget | None = None) -> Reading:
    """Every simple command ``text`` would run, however deeply it is wrapped."""
    budget = (
        budget if budget is not None else shell.Budget(text=max(shell.TEXT_BUDGET, 2 * len(text)))
    )
    seen: dict[tuple[object, ...], Command] = {}
    read_words: set[tuple[tuple[str, ...], str]] = set()  # each word list, directory once
    fed: set[tuple[tuple[object, ...], tuple[str, ...]]] = set()  # each command, input once
    problems: list[str] = []
    # each text or word list with the environment and directory it runs in (what handed
    # it on ran with: `cd /tmp && bash -c '...'`, `CGO_ENABLED=0 sh -c '...'`)
    # ... and whether it comes from a script file read where it lies (`certain`: only what
    # runs for certain is read; a text the grammar cannot read whole, not at all)
    pending: list[tuple[str | tuple[str, ...], int, frozenset[str], dict[str, str], bool]]
    pending = [(text, 0, frozenset(), {}, False)]
    while pending:
        item, depth, outer, files, certain = pending.pop()
        certain = certain or isinstance(item, _FromDisk)
        simples = _simples(item, depth, certain, budget, problems)
        base, outer = _split_chdir(outer)
        # what earlier commands of this text set, in order, the files written before it
        # ran (`echo … > s.sh; sudo sh s.sh`), and the environment it was given, which a
        # shell reads as its variables (`export X='go test'; sh <<< '$X'`)
        known = _Variables(base, files, outer)
        for simple in simples:
            # a function's arguments are its call's words as they run (`f rm -rf $D`); in a
            # script on disk, a part that may not run is not read (its tests are on the
            # script's arguments, which are not matched here)
            given = known.resolve(simple) if simple.words[:1] == (shell.PARAMETERS,) else ()
            if (
                known.scope(simple)
                or known.record(given or simple.words, simple)
                or (certain and known.may_not_run)
            ):
                continue
            written = simple
            simple = simple._replace(words=known.resolve(simple), stdin=known.fed(simple))
            _take_writes(known, simple)
            if simple.stdin and simple.words[:1] == ("xargs",):  # `echo build | xargs rm`
                simple = simple._replace(words=_xargs(simple.words, simple.stdin))
            moved = _directory_change(simple.words, budget)
            if moved is not None:
                known.chdir(moved)
            if (simple.words, known.cwd) in read_words and not simple.stdin and not known.exported:
                continue
            read_words.add((simple.words, known.cwd))
            command = normalize(simple.words)
            if command is None:
                continue
            exported = known.exported_to(written, outer)
            if exported:  # `export CGO_ENABLED=0; go build` runs with it set
                command = command._replace(env=command.env | exported)
            command = _moved(command, known.cwd)
            key = (command.program, command.env, command.words, command.rest)
            # a shell fed its input (`sh <<'A'` inside `sh <<'B'`) is read once per input
            if key in seen and (not simple.stdin or (key, simple.stdin) in fed):
                continue
            seen.setdefault(key, command)
            if simple.stdin:
                fed.add((key, simple.stdin))
            nested = list(_handed_on(command, simple, _file_reader(known, command, text)))
            if depth > MAX_DEPTH:  # read word by word: any quoted string may be a script too
                nested += [w for w in simple.words if len(w.split()) > 1 and w not in nested]
            if nested and budget.text <= 0:
                problems.append("nested shell text past what one check reads was not read")
                continue
            if nested and depth >= MAX_DEPTH:  # still read, each text shorter than its parent
                problems.append(f"shells nested more than {MAX_DEPTH} deep were read word by word")
            handed = command.env | _login(command)
            texts = [n for n in nested if isinstance(n, str)] if command.program == "eval" else None
            inherited = known.inherited(texts)
            pending.extend((n, depth + 1, handed, inherited, certain) for n in reversed(nested))
    return Reading(tuple(seen.values()), tuple(dict.fromkeys(problems)))


def _handed_on(
    command: Command, simple: shell.Simple, script: Callable[[str], tuple[str, ...]]
) -> Iterator[str | tuple[str, ...]]:
    """What ``command`` runs in turn: scripts (strings) and commands (word lists);
    ``script`` gives what the line wrote to a file before (``_file_reader``)."""
    yield from command.inner
    args = command.words + command.rest
    program = command.program
    if program.startswith(("./", "../")):  # `./s.sh`: a script the line wrote, run by sh?
        yield from filter(_run_by_a_shell, script(program))
    if program == "eval":  # eval reads its words joined: `eval "$(echo go test)"` too
        args = args[1:] if args[:1] == ("--",) else args
        skip = 0
        while skip < len(args) and args[skip] == "eval":  # `eval eval X` is `eval X`: one
            skip += 1  # level, so that a run of evals never passes the nesting bound
        yield _echoed_line(" ".join(args[skip:]))
    elif program in SCRIPT_RUNNERS:
        yield from _runner_script(program, args)
    elif program in SHELLS:
        yield from _shell_scripts(args, simple, program, script)
    elif program in _SOURCES and args:
        yield from _sourced(args[0], simple, script)
    elif program == "python" or compiled(_PYTHON).match(program):
        yield from python_scripts(args, simple.stdin)
    elif program in ONE_LINERS:
        yield from one_liner_scripts(program, args, simple.stdin)
    elif program in AWKS:
        yield from awk_scripts(args)
    elif program == "parallel":  # GNU parallel: `parallel rm -rf ::: build`
        from . import parallel

        yield from parallel.scripts(args)
    elif program == "find":
        for index, token in enumerate(args):
            if token in _EXEC:
                tail = args[index + 1 :]
                stop = next((i for i, t in enumerate(tail) if t in (";", "+")), len(tail))
                yield tuple(tail[:stop])


def _sourced(
    file: str, simple: shell.Simple, script: Callable[[str], tuple[str, ...]]
) -> Iterator[str]:
    """What ``source FILE`` (``. FILE``) reads into this shell, when it is known: what a
    process substitution prints (``. <(echo '…')``), its input (``/dev/stdin``), a file
    the line wrote before."""
    if file.startswith("<(") and file.endswith(")"):
        yield from _substituted_script(file[2:-1])
    elif file in _STDIN_FILES:  # `source /dev/stdin <<< '…'`
        yield from map(_echoed_line, simple.stdin)
    else:
        yield from script(file)


def _shell_scripts(
    args: Sequence[str],
    simple: shell.Simple,
    program: str,
    script: Callable[[str], tuple[str, ...]],
) -> Iterator[str]:
    """The scripts a shell is handed: ``-c STRING``, ``<(echo '...')``, its stdin, a
    file the line wrote before (``script``)."""
    skip = from_stdin = user = False
    for index, token in enumerate(args):
        if skip:
            skip = False
        elif token == "--noexec" or ("n" in token and compiled(_SHELL_LETTERS).match(token)):
            return  # `bash -n -c '...'`: the script is read, not run
        elif compiled(_SCRIPT_OPTION).match(token):
            at = next((i for i in range(index + 1, len(args)) if args[i][:1] != "-"), None)
            after = args[index + 1 : at]  # `bash -c -n '...'`: still the shell's options
            if at is not None and not any(
                "n" in t and compiled(_SHELL_LETTERS).match(t) for t in after
            ):
                yield _echoed_line(_positionals(args[at], args[at + 1 :]))  # `sh -c '$1' _ X`
            return
        elif token in _SHELL_VALUED or (
            token[-1] in "oO" and compiled(_SHELL_CLUSTER).match(token)
        ):
            skip = True  # `-o pipefail`, `-euo pipefail`
        elif token.startswith("<(") and token.endswith(")"):
            yield from _substituted_script(token[2:-1])  # `bash <(echo '...')`
            return
        elif token == "--" or not token.startswith(("-", "+")):
            if from_stdin:
                break  # `bash -s -- ARGS <<< '…'`: the arguments of the script on stdin
            if token == "--" or (program in _USERS_FIRST and not user):
                user = token != "--"  # `su root -c '…'`
                continue
            if token in _STDIN_FILES:  # `bash /dev/stdin <<< '…'`: the script is its input
                break
            yield from script(token)  # `bash s.sh` after `cat > s.sh <<'E'`; else not read
            return
        elif compiled(_SHELL_LETTERS).match(token) and "s" in token:
            from_stdin = True
    yield from map(_echoed_line, simple.stdin)  # `bash <<'EOF'`, `sh <<<"$(echo …)"`


# In a `-c` script: text quoting keeps literal (skipped), and the positional parameters.
_POSITIONAL = r"""'[^']*+'|\\.|"\$@"|"\$\*"|\$[@*]|\$\{([0-9]++)\}|\$([0-9])"""
_PLAIN_ARGUMENT = r"[A-Za-z0-9_./=:,+@%^ \t-]*+"  # what reads the same pasted into a script


def _positionals(script: str, given: Sequence[str]) -> str:
    """``script`` with ``$0``…``$9``, ``${N}``, ``$@`` and ``$*`` replaced by the arguments
    the shell was given after it (``sh -c '$0 $1 $2' rm -rf build`` runs ``rm -rf build``,
    ``bash -c 'eval "$1"' _ 'go test'`` evals ``go test``). Only where every argument is
    plain text, which reads the same pasted in; a parameter with no argument is empty."""
    if "$" not in script or not given:
        return script
    if not all(compiled(_PLAIN_ARGUMENT).fullmatch(a) for a in given):
        return script

    def pasted(found: re.Match[str]) -> str:
        text = found[0]
        if text.startswith(("'", "\\")):
            return text
        if found[1] is not None or found[2] is not None:
            number = int(found[1] if found[1] is not None else found[2])
            return given[number] if number < len(given) else ""
        rest = given[1:]
        if text == '"$@"':
            return " ".join(f'"{a}"' for a in rest)
        return f'"{" ".join(rest)}"' if text == '"$*"' else " ".join(rest)

    return compiled(_POSITIONAL).sub(pasted, script)


def _runner_script(program: str, args: Sequence[str]) -> Iterator[str]:
    """The script ``watch``, ``script`` or ``trap`` hands to a shell."""
    takes_value, scripts = SCRIPT_RUNNERS[program]
    index = 0
    # `script -q /dev/null -c '…'`: script's options may follow its file (getopt permutes)
    while index < len(args) and (args[index].startswith("-") or program == "script"):
        if program == "trap":
            break
        option = args[index]
        index += 1
        if option == "--":
            break
        if not option.startswith("-"):
            continue  # the typescript file
        name, eq, value = option.partition("=")
        if eq:
            if name in scripts:
                yield value
            continue
        taken = _valued_letter(option, takes_value)
        if taken is None:
            continue
        letter, attached = taken
        value = attached or (args[index] if index < len(args) else "")
        index += 0 if attached else 1
        if letter in scripts:
            yield value  # `script -qc 'go test'`
    rest = args[index:]
    if program == "trap":
        if rest and rest[0] != "-":
            yield rest[0]  # `trap 'go test' EXIT`
    elif program == "watch" and rest:
        yield " ".join(rest)  # watch runs its arguments through `sh -c`


def _substituted_script(text: str) -> Iterator[str]:
    """What ``<( )`` prints (a script a shell then reads), when every command in it only
    prints: ``echo``/``printf``, or ``cat``/``tee``/``base64 -d`` passing on their input
    (``bash <(cat <<'E' … E)``); nothing when another command may change it (``grep``),
    or when the text is not shell read whole (``echo a) … $(echo b`` is two of them)."""
    parsed = shell.parse(text)
    simples = [s for s in parsed.commands if s.words and s.words[0][:1] != "\x00"]
    if not parsed.problems and all(s.words[0] in _PRINTERS for s in simples):
        for simple in simples:
            yield from shell.passed_on(simple)
