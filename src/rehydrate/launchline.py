"""How every hook, driver and plugin that rehydrate writes starts rehydrate: one place.

A launch line runs ``<python> -I -m rehydrate …``. ``-I`` (isolated mode) keeps the
current directory off ``sys.path`` and ignores every ``PYTHON*`` variable and the user
site, so an untracked ``rehydrate.py``, ``click.py`` or ``sitecustomize.py`` in the
repository a hook guards, or ``PYTHONPATH=.`` in the agent's environment, is never
imported (``python -m`` alone puts the current directory first; a console script
honours ``PYTHONPATH``).

Where the line lands decides how it names the interpreter:

* untracked places (``.git/hooks``, ``merge.rehydrate.driver`` in ``.git/config``) hold
  the absolute path (``argv``, ``command``);
* tracked files (agent settings, hook-manager configurations, plugins) are shared by
  every clone, so they hold no machine path: the ``portable`` line reads the
  interpreter from this clone's ``git config --local rehydrate.python`` (``record``;
  ``--local``, so ``git -c`` cannot point it elsewhere) and, when it is unset or gone,
  says so on stderr and exits ``MISSING_GATE`` for an event that gates a tool call
  (the runtimes' "block") or ``MISSING_OTHER`` otherwise (a warning, never a loop).

``parse`` reads any launch line back (ours, old or current), so installers rewrite a
stale one in place and ``doctor`` names an unsafe one (``problem``).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence

from .records import NamedTuple
from .typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from . import git

PYTHON_KEY = "rehydrate.python"  # git config: this clone's interpreter
ISOLATED = "-I"
MODULE = ("-m", "rehydrate")
ARGV0 = "rehydrate"  # $0 of the portable line's shell
GATES = frozenset({"pre-tool-use", "before-tool", "before-shell-execution"})
MISSING_GATE = 2  # Claude Code, Codex, Gemini CLI, Cursor, Kiro: exit 2 blocks the tool call
MISSING_OTHER = 1  # a non-blocking error: shown, never blocks a stop again and again
DOC = "docs/integrations/native-hook.md"
_MARK = "--get rehydrate.python) && ["  # in every portable script, old or new


def interpreter() -> str:
    """This Python, by absolute path (the virtualenv's, not resolved past it)."""
    return os.path.abspath(sys.executable)


def argv(python: str | None = None) -> list[str]:
    """``[python, "-I", "-m", "rehydrate"]``: the isolated launch of ``python``."""
    return [python or interpreter(), ISOLATED, *MODULE]


def command(*args: str, python: str | None = None) -> str:
    """The shell command running ``rehydrate ARGS`` isolated, by absolute path."""
    return shlex.join([*argv(python), *args])


def missing_exit(args: Sequence[str]) -> int:
    """What the portable line exits with when rehydrate cannot run (see the module doc)."""
    return MISSING_GATE if args and args[-1] in GATES else MISSING_OTHER


def script(code: int) -> str:
    """The portable line's shell program (``$@``: rehydrate's arguments). No braces (lefthook
    reads them as templates), no single quotes (it is quoted whole). ``-f`` as well as
    ``-x``: exec of a directory would end the shell with 126, which no runtime blocks on.
    On a gate an exit 1 (an interpreter without rehydrate: "No module named rehydrate")
    becomes ``code``: no answer of ours there is 1, and 1 would let the tool call run."""
    run = f'"$p" {ISOLATED} -m rehydrate "$@"'
    if code == MISSING_GATE:  # 1 is no answer of ours there: Python could not import rehydrate
        run = f'{run}; c=$?; [ "$c" -eq 1 ] && exit {code}; exit "$c"'
    else:
        run = f"exec {run}"
    return (
        f'if p=$(git config --local --get {PYTHON_KEY}) && [ -f "$p" ] && [ -x "$p" ]; '
        f"then {run}; fi; "
        f'echo "rehydrate cannot run: git config {PYTHON_KEY} is \\"$p\\" (unset, or no '
        f"interpreter there). Fix: run rehydrate init (or rehydrate hook install) in this "
        f'clone, with the rehydrate you use; {DOC}" >&2; exit {code}'
    )


def portable_argv(*args: str) -> list[str]:
    """``sh -c SCRIPT rehydrate ARGS``: the same words on every clone."""
    return ["sh", "-c", script(missing_exit(args)), ARGV0, *args]


def portable(*args: str) -> str:
    """``portable_argv`` as one shell command (what a tracked settings file holds)."""
    return shlex.join(portable_argv(*args))


class Launch(NamedTuple):
    """A launch line read back: how it starts rehydrate, and rehydrate's arguments."""

    kind: str  # "isolated" | "unisolated" (python -m, no -I) | "bare" | "portable"
    program: str  # the interpreter, the executable, or "" (portable: git config's)
    args: tuple[str, ...]
    current: bool  # exactly what this rehydrate writes (kind aside)


def parse(words: Sequence[str]) -> Launch | None:
    """The launch ``words`` are, or None when they do not start rehydrate."""
    if len(words) >= 4 and words[:2] == ["sh", "-c"] and words[3] == ARGV0 and _MARK in words[2]:
        args = tuple(words[4:])
        return Launch("portable", "", args, words[2] == script(missing_exit(args)))
    if words and os.path.basename(words[0]) == "rehydrate":
        return Launch("bare", words[0], tuple(words[1:]), False)
    try:
        at = list(words).index("-m", 1)
    except ValueError:
        return None
    flags = words[1:at]
    if at + 1 >= len(words) or words[at + 1] != "rehydrate":
        return None
    if not all(f.startswith("-") and not f.startswith("--") for f in flags):
        return None
    isolated = ISOLATED in flags
    args = tuple(words[at + 2 :])
    kind = "isolated" if isolated else "unisolated"
    return Launch(kind, words[0], args, isolated and list(flags) == [ISOLATED])


def parse_shell(line: str) -> Launch | None:
    """``parse`` of a shell command line (None when it does not split)."""
    try:
        return parse(shlex.split(line))
    except ValueError:
        return None


def problem(launch: Launch) -> str | None:
    """Why ``launch`` is unsafe or out of date (None: it is what this rehydrate writes)."""
    if launch.kind == "unisolated":
        return (
            f"runs `{launch.program} -m rehydrate` without {ISOLATED}: python -m puts the "
            "current directory first on sys.path, so a rehydrate.py or click.py in the "
            "repository (or PYTHONPATH) would run instead of rehydrate"
        )
    if launch.kind == "bare":
        return (
            f"runs the console script `{launch.program}`, which honours PYTHONPATH and "
            "depends on PATH: a rehydrate.py or click.py that PYTHONPATH reaches would run "
            "instead of rehydrate"
        )
    if not launch.current:
        return "is not the launch line this rehydrate writes (older, or edited)"
    return None


def machine_path(launch: Launch) -> bool:
    """Whether ``launch`` names this machine's interpreter (wrong in a tracked file)."""
    return launch.kind in ("isolated", "unisolated") and os.path.isabs(launch.program)


def recorded(repo: git.Repo) -> str | None:
    """The interpreter this clone's git config records, or None."""
    from . import git

    value = (git.config_get(repo, PYTHON_KEY, local=True) or "").strip()
    return value or None


def record(repo: git.Repo, python: str | None = None) -> str:
    """Record ``python`` (default: this one) in this clone's git config; a line for people."""
    from . import git

    wanted = python or interpreter()
    before = recorded(repo)
    if before == wanted:
        return f"kept     git config {PYTHON_KEY}"
    git.config_set(repo, PYTHON_KEY, wanted)
    return f"{'updated' if before is not None else 'set':<9} git config {PYTHON_KEY}"
