"""What an interpreter's code runs: the command lines and argument lists that Python,
node, perl, ruby and awk code hands to a shell or runs, read from the code's string
literals (never run). ``commandline`` asks it what a command hands on."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..patterns import compiled

PYTHON_VALUED = frozenset({"-W", "-X", "-Q"})  # interpreter options that take a value
_NAME = r"^[A-Za-z_][A-Za-z0-9_]*+$"

# A shell command line a Python one-liner hands to a shell: os.system('...'),
# os.popen('...'), subprocess.*('...', shell=True). Linear: no nested quantifiers.
_PY_SHELL = (
    r"""(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput))"""
    r"""\(\s*+(?:'([^'\\\n]*+)'|"([^"\\\n]*+)")"""
)

# subprocess.*([...]) with string literals only: the argument list it runs.
_PY_ARGV = (
    r"subprocess\.(?:run|call|check_call|check_output|Popen)\(\s*+\["
    r"((?:\s*+(?:'[^'\\\n]*+'|\"[^\"\\\n]*+\")\s*+,?)++)\s*+\]"
)
_PY_STRING = r"'([^'\\\n]*+)'|\"([^\"\\\n]*+)\""
# os.execv*(path, [argv]), os.execl*(path, argv0, ...), os.spawnv*(mode, path, [argv]),
# os.spawnl*(mode, path, argv0, ...), pty.spawn([argv]): group 1 the path, 2 the argv
_PY_ARG = r"(?:'[^'\\\n]*+'|\"[^\"\\\n]*+\")"
_PY_EXEC = (
    rf"(?:os\.exec(?:v|vp|ve|vpe|l|lp|le|lpe)\(\s*+({_PY_ARG})\s*+,"
    rf"|os\.spawn(?:v|vp|ve|vpe|l|lp|le|lpe)\(\s*+[\w.]++\s*+,\s*+({_PY_ARG})\s*+,|pty\.spawn\()"
    rf"\s*+\[?+((?:\s*+{_PY_ARG}\s*+,?)++)"
)
_PY_COMMENT = r"(?m)^[ \t]*+#.*+$"  # a comment line: what it mentions does not run
_PY_IMPORT_AS = r"\bimport[ \t]++(os|subprocess|pty)[ \t]++as[ \t]++([A-Za-z_][A-Za-z0-9_]*+)"
_PY_FROM_IMPORT = r"\bfrom[ \t]++(os|subprocess|pty)[ \t]++import[ \t]++([A-Za-z0-9_, \t]++)"


def python_scripts(args: Sequence[str], stdin: tuple[str, ...]) -> Iterator[str | tuple[str, ...]]:
    """What ``python -c CODE`` runs, or the program on its input (``python3 - <<'EOF'``,
    ``echo … | python3``): the command lines it hands to a shell (``os.system('...')``,
    ...) and the argument lists it runs (``subprocess.run(['go', 'test'])``)."""
    code = None
    index = 0
    while index < len(args):
        token = args[index]
        if token == "-c" or (token[:1] == "-" and token.endswith("c") and token[1:].isalpha()):
            code = args[index + 1] if index + 1 < len(args) else None
            break
        if token == "-" or not token.startswith("-"):
            code = "\n".join(stdin) if token == "-" else None  # `python3 script.py`: a file
            break
        index += 2 if token in PYTHON_VALUED else 1
    else:
        code = "\n".join(stdin)  # `python3 <<< '…'`: no script named, its input is one
    if code and not _changes_environment(code):
        yield from _python_calls(re.sub(_PY_COMMENT, "", code) if "#" in code else code)


def _python_calls(code: str) -> Iterator[str | tuple[str, ...]]:
    """The command lines and argument lists Python ``code`` runs with string literals,
    also through a module alias (``import subprocess as sp``) or an imported name (``from
    subprocess import run``): ``os.system``/``popen``/``subprocess.*``, ``os.exec*``,
    ``os.spawn*``, ``pty.spawn``."""
    if "import" in code and " as " in code or "from " in code:
        code = _python_unaliased(code)
    for found in compiled(_PY_SHELL).finditer(code):
        yield found[1] if found[1] is not None else found[2]
    for found in compiled(_PY_ARGV).finditer(code):
        yield tuple(a or b for a, b in compiled(_PY_STRING).findall(found[1]))
    for found in compiled(_PY_EXEC).finditer(code):
        words = [a or b for a, b in compiled(_PY_STRING).findall(found[3])]
        if words:  # `os.execvp('go', ['go', 'test'])`: the file, then argv after argv[0]
            path = found[1] or found[2]
            yield (path[1:-1] if path else words[0], *words[1:])


def _python_unaliased(code: str) -> str:
    """``code`` with ``sp.run(`` for ``import subprocess as sp`` and a bare ``run(`` after
    ``from subprocess import run`` spelled ``subprocess.run(`` (also for os and pty): at
    most ``MAX_ALIASES`` names, each one pass over the code (linear)."""
    renames: list[tuple[str, str]] = []
    for found in compiled(_PY_IMPORT_AS).finditer(code):
        renames.append((rf"(?<![\w.]){re.escape(found[2])}\.", f"{found[1]}."))
    for found in compiled(_PY_FROM_IMPORT).finditer(code):
        for name, _, alias in (n.strip().partition(" as ") for n in found[2].split(",")):
            alias = alias.strip() or name
            if compiled(_NAME).match(alias) and compiled(_NAME).match(name):
                renames.append((rf"(?<![\w.]){re.escape(alias)}\(", f"{found[1]}.{name}("))
    for pattern, spelled in renames[:MAX_ALIASES]:
        code = re.sub(pattern, spelled, code)
    return code


MAX_ALIASES = 8


# Interpreters that run a one-liner (``node -e CODE``, ``perl -e CODE``, ``ruby -e CODE``):
# program -> the options whose value is the code. What the code hands to a shell or runs
# as an argument list is read like ``python -c``'s: a call with string literals only.
# A loop over input lines (``perl -ne``, ``ruby -pe``) may run it no time: not read.
ONE_LINERS: dict[str, frozenset[str]] = {
    "node": frozenset({"-e", "--eval", "-p", "--print"}),
    "perl": frozenset({"-e", "-E"}),
    "ruby": frozenset({"-e"}),
}
_LOOPS = frozenset("np")
_STR = r"'([^'\\\n]*+)'|" + r'"([^"\\\n]*+)"'
_LITERAL = _STR
# node: child_process's execSync/exec take a command line; execFile*/spawn* a program
# and its arguments. Called on the module (`require('child_process').exec`,
# `child_process.exec`) or bare (destructured), never as another object's method.
_CALLED = r"(?:child_process\.|\)\.|(?<![\w$.]))"
_NODE_SHELL = _CALLED + r"(?:execSync|exec)\(\s*+(?:" + _STR + r"|`([^`\\$\n]*+)`)"
_NODE_ARGV = (
    _CALLED
    + r"(?:execFileSync|execFile|spawnSync|spawn)\(\s*+(?:"
    + _STR
    + r")\s*+(?:,\s*+\[((?:\s*+(?:"
    + _STR
    + r")\s*+,?)*+)\])?+"
)
# perl and ruby: system/exec/spawn with one string (a command line) or several (a
# program and its arguments), with or without parentheses; backticks, qx(), %x().
_SYSTEM = (
    r"(?<![\w$@%&.>:])(?:system|exec|spawn)\b\s*+\(?+\s*+((?:"
    + _STR
    + r")(?:\s*+,\s*+(?:"
    + _STR
    + r"))*+)"
)
_BACKTICK = r"`([^`\\\n]*+)`|(?:qx|%x)(?:\(([^()\\\n]*+)\)|\{([^{}\\\n]*+)\})"


def one_liner_scripts(
    program: str, args: Sequence[str], stdin: tuple[str, ...]
) -> Iterator[str | tuple[str, ...]]:
    """What ``node -e``/``perl -e``/``ruby -e`` code runs, or the program on its input
    (no script file, or ``-``): command lines and argument lists."""
    options = ONE_LINERS[program]
    codes: list[str] = []
    index = 0
    while index < len(args) and args[index].startswith("-"):
        token = args[index]
        index += 1
        name, eq, value = token.partition("=")
        letters = token[1:] if program != "node" and token[1:].isalpha() else ""
        if _LOOPS & set(letters):
            return  # `perl -ne`, `ruby -n -e`: run once per input line, maybe never
        if eq and name in options:
            codes.append(value)
        elif (token in options or letters[-1:] in ("e", "E")) and index < len(args):
            codes.append(args[index])
            index += 1
    if not codes and (index >= len(args) or args[index] == "-"):
        codes = ["\n".join(stdin)]  # `node <<< '…'`, `perl - <<'E'`: the program is its input
    for code in codes:
        yield from _calls(program, code)


AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_AWK_VALUED = frozenset({"-F", "-v", "--field-separator", "--assign"})


def awk_scripts(args: Sequence[str]) -> Iterator[str | tuple[str, ...]]:
    """The command lines an awk program runs with ``system("…")`` in its ``BEGIN`` block,
    when that block is the whole program (then awk reads no input: it runs once; a rule
    for input lines may run no time). Not for a program read from a file (``-f``)."""
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "--":
        option = args[index]
        index += 1
        if option.startswith(("-f", "--file", "-E", "--exec")):
            return  # the program is a file's
        if option in _AWK_VALUED:
            index += 1  # `-F ,`, `-v x=1` (`-F,` and `-vx=1` hold theirs)
    if index < len(args) and args[index] == "--":
        index += 1
    if index < len(args):
        block = _begin_block(args[index])
        if block is not None:
            for found in compiled(_SYSTEM).finditer(block):
                words = tuple(a or b for a, b in compiled(_LITERAL).findall(found[1]))
                if len(words) == 1:  # awk's system() takes one string: a command line
                    yield words[0]


def _begin_block(program: str) -> str | None:
    """The body of ``BEGIN { … }`` when it is all of ``program`` (braces in strings
    skipped), else None. Linear."""
    found = compiled(r"\A\s*+BEGIN\s*+\{").match(program)
    if found is None:
        return None
    depth, index, quoted = 1, found.end(), False
    while index < len(program) and depth:
        char = program[index]
        if quoted:
            quoted = char != '"' or program[index - 1] == "\\"
        elif char == '"':
            quoted = True
        else:
            depth += (char == "{") - (char == "}")
        index += 1
    rest = program[index:].strip(" \t\n;")
    return program[found.end() : index - 1] if depth == 0 and not rest else None


def _calls(program: str, code: str) -> Iterator[str | tuple[str, ...]]:
    """The command lines (strings) and argument lists (tuples) ``code`` runs."""
    if _changes_environment(code):
        return
    if program == "node":
        for found in compiled(_NODE_SHELL).finditer(code):
            yield next(g for g in found.groups() if g is not None)
        for found in compiled(_NODE_ARGV).finditer(code):
            first = found[1] if found[1] is not None else found[2]
            rest = tuple(a or b for a, b in compiled(_LITERAL).findall(found[3] or ""))
            yield (first, *rest)
        return
    for found in compiled(_SYSTEM).finditer(code):
        words = tuple(a or b for a, b in compiled(_LITERAL).findall(found[1]))
        if all(_literal(program, w) for w in words):
            yield words[0] if len(words) == 1 else words
    for found in compiled(_BACKTICK).finditer(code):
        text = next(g for g in found.groups() if g is not None)
        if _literal(program, text):
            yield text


# What a one-liner writes to give what it runs another environment (``env=`` and ``{env:
# …}`` options, ``os.environ[…] =``, ``process.env.X =``, ``ENV[…] =``, ``$ENV{…} =``):
# then the command it runs is another invocation (as ``env -u`` is), so none is read.
_ENVIRONMENT = ("env=", "env =", "env:", "environ", "putenv", "process.env", "ENV[", "$ENV{")


def _changes_environment(code: str) -> bool:
    return any(mark in code for mark in _ENVIRONMENT)


def _literal(program: str, text: str) -> bool:
    """Whether a string of ``program``'s code is the text it runs: a Ruby ``#{...}``
    is filled in when it runs (a shell would read it as a comment)."""
    return program != "ruby" or "#{" not in text
