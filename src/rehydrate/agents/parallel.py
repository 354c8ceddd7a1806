"""What GNU ``parallel`` runs when its arguments are written in the line (``:::``).

``parallel [OPTIONS] [COMMAND ...] ::: A B ::: C`` runs, through a shell, COMMAND with
each combination of the inputs appended, shell-quoted (``parallel rm -rf ::: build`` runs
``rm -rf build``), or put where ``{}`` stands; with no COMMAND, each input is itself the
command line (``parallel ::: 'go test ./...'``). Read only where that is certain: every
option before the command known to this table and none of those that change what runs or
where (``--dry-run``, ``-q``, ``-m``/``-X``/``--xargs``, ``-n``, ``-I``, ``--colsep``,
``--pipe``, ``-S``, ``--workdir``, ...), inputs written as ``:::`` only (not ``::::``
files, ``:::+`` links or stdin), no replacement string but ``{}``, and at most
``MAX_JOBS`` commands. Anything else is not read here: a miss, never a wrong refusal.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Sequence
from itertools import product

MAX_JOBS = 16  # commands composed from one line's inputs; more are not read
_SWITCHES = frozenset(
    "-k --keep-order --tag -v --verbose --bar --progress --eta -u --ungroup --line-buffer"
    " --lb --group --will-cite --no-notice --shuf --silent".split()
)
_VALUED = frozenset(
    "-j --jobs -P --max-procs --joblog --results --res --timeout --retries --delay --halt"
    " --memfree --load --tmpdir --tagstring --env --termseq --nice --halt-on-error".split()
)
_INPUT = ":::"
_OTHER_INPUTS = frozenset({"::::", ":::+", "::::+"})


def scripts(args: Sequence[str]) -> Iterator[str]:
    """The command lines ``parallel ARGS`` hands to a shell, when they are certain."""
    index = _after_options(args)
    if index is None or _INPUT not in args[index:]:
        return
    start = args.index(_INPUT, index)
    template, sources = list(args[index:start]), _sources(args[start:])
    if sources is None or any(_replacements(word) for word in template):
        return
    jobs = list(product(*sources))
    if not jobs or len(jobs) > MAX_JOBS:
        return
    for job in jobs:
        if not template:
            yield " ".join(job)  # each input is a command line
            continue
        quoted = " ".join(map(shlex.quote, job))  # as parallel quotes them
        words = [w.replace("{}", quoted) for w in template]
        yield " ".join(words if any("{}" in w for w in template) else [*words, quoted])


def _after_options(args: Sequence[str]) -> int | None:
    """Where the command starts (after parallel's own options); None when an option is
    not one this module knows to leave what runs alone."""
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != _INPUT:
        option = args[index]
        index += 1
        if option == "--":
            return index
        name, eq, _ = option.partition("=")
        if name in _SWITCHES and not eq:
            continue
        if name in _VALUED:
            index += 0 if eq else 1
            continue
        if option[:2] in ("-j", "-P") and option[2:].isdigit():
            continue  # `-j4`
        return None
    return index if index <= len(args) else None


def _sources(args: Sequence[str]) -> list[list[str]] | None:
    """The input sources, ``::: A B ::: C`` -> ``[[A, B], [C]]``; None when one is of a
    kind not read here or is empty."""
    sources: list[list[str]] = []
    for word in args:
        if word in _OTHER_INPUTS:
            return None
        if word == _INPUT:
            sources.append([])
        else:
            sources[-1].append(word)
    return sources if all(sources) else None


def _replacements(word: str) -> bool:
    """Whether ``word`` holds a replacement string other than ``{}`` (``{.}``, ``{1}``,
    ``{/}``, ``{#}``, ...): those are not read here."""
    return "{" in word.replace("{}", "")
