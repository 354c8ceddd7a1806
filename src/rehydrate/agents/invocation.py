"""A simple command as a model of what it runs, and the comparison of two of them.

``model(command)`` reads a normalised ``commandline.Command`` with its tool's row of
``tooltable.TOOLS``: the program, its subcommand path, its options as a set of
(name, value) with every alias, cluster and ``=``/space spelling made one and the
cosmetic ones dropped, its positional arguments in order, and the environment it is
given. ``compare(candidate, failed)`` says

* ``"exact"`` when the two models are equal: the same invocation (refused);
* ``"close"`` when program and subcommand path are equal and the two share something
  more (an option, or their positional arguments), but differ: the candidate is
  allowed, with a note naming the row (docs/check-command.md, *Three outcomes*);
* None otherwise.

Precision first: a different positional argument (``origin my-feature`` against
``origin main``), another option value, an option more or less, or an environment
variable more (``CGO_ENABLED=0`` may be the workaround) is a different invocation.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..patterns import compiled
from ..records import NamedTuple
from .commandline import Command, _is_number, _join
from .tooltable import COSMETIC_ENV, GENERIC, Tool, tool

Option = tuple[str, str | None]
_CHDIR = "--chdir="  # the directory a command runs in, as `commandline` notes it
_SUBCOMMAND = r"^[A-Za-z][A-Za-z0-9_:-]*+$"  # no "/", "." or "="


class Model(NamedTuple):
    program: str
    path: tuple[str, ...]
    options: frozenset[Option]
    positional: tuple[str, ...]
    env: frozenset[str]
    cwd: str = "."  # where it runs, from where the line starts ("?": not known)


def _is_option(token: str) -> bool:
    return token.startswith("-") and token != "-" and not _is_number(token)


def model(command: Command, valued: frozenset[str] = frozenset(), greedy: bool = False) -> Model:
    """``command`` as what it runs. ``valued``: names of unknown options that take the
    next word (written ``--name=value`` in one of the commands compared); ``greedy``:
    every unknown option written without ``=`` takes the next word."""
    key = (valued, greedy)
    found = command.models.get(key)
    if isinstance(found, Model):
        return found
    row = tool(command.program)
    model = _read(command, row, command.words + command.rest, valued, greedy)
    command.models[key] = model
    return model


def _read(
    command: Command, row: Tool, tokens: tuple[str, ...], valued: frozenset[str], greedy: bool
) -> Model:
    options: list[Option] = []
    positional: list[str] = []
    words: list[str] = []
    depth = row.depth if row is not GENERIC else 0
    env = command.env
    index = 0
    run_from = -1  # where what a subcommand runs starts (`docker run IMAGE ...`)
    while index < len(tokens):
        token = tokens[index]
        index += 1
        sub = row.paths.get(tuple(words), tuple(words))[0] if words else ""
        if token == "--":
            positional.extend(tokens[index:])
            break
        if token.startswith("+") and not words and row is not GENERIC:
            options.append((token, None))  # `cargo +nightly build`: a toolchain
            continue
        if not _is_option(token):
            if len(words) < depth:
                words.append(row.subcommands.get(token, token) if not words else token)
                if len(words) == 1 and words[0] in row.nested:
                    depth += 1
            elif row.stops and " ".join(words) in row.stops:
                run_from = len(positional)
                positional.extend(tokens[index - 1 :])  # `docker run IMAGE ARGS...`
                break
            else:
                positional.append(token)
            continue
        index = _option(token, tokens, index, row, sub, valued, greedy, options)
    path = row.paths.get(tuple(words), tuple(words))
    if row.scripts and len(path) == 2 and path[0] == row.scripts and path[1] not in row.builtins:
        path = path[1:]  # `yarn run build` is `yarn build`
    if row.flags_env or row.config_env:  # `GOFLAGS=-tags=musl go test`: options given first
        env, given = _flags_from_env(env, row, " ".join(path), valued, greedy)
        options[:0] = given
    env, options, cwd = _chdir(env, options, row)  # `make -C web` is `cd web && make`
    if " ".join(path) in row.files:  # `rm -rf ./build/` is `rm -rf build`
        mine = positional if run_from < 0 else positional[:run_from]
        positional[: len(mine)] = [_path(p) for p in mine]
    if row.kinds and positional and run_from != 0:  # `kubectl delete pods web-0`
        kind, slash, name = positional[0].partition("/")
        if kind in row.kinds and (not slash or name):
            positional[:1] = [row.kinds[kind], name] if slash else [row.kinds[kind]]
    forced = row.forcing.get(" ".join(path))
    if forced and len(positional) > 1:
        _push(forced, positional, options)
    kept = frozenset(_kept(options, row))
    env = frozenset(e for e in env if "=" not in e or e.partition("=")[0] not in COSMETIC_ENV)
    if row is GENERIC and positional and compiled(_SUBCOMMAND).match(positional[0]):
        path = (positional[0],)  # an unknown tool: its first word stands for its subcommand
    return Model(command.program, path, kept, tuple(positional), env, cwd)


def _push(forced: str, positional: list[str], options: list[Option]) -> None:
    """``git push REMOTE REFS``: a ``+`` before every ref is ``--force`` (``git push origin
    +main``), and each ref spelled one way (``_refspec``); in place."""
    refs = positional[1:]
    if all(r.startswith("+") for r in refs) or (forced, None) in options:
        positional[1:] = [r[1:] if r.startswith("+") else r for r in refs]
        options.append((forced, None))
    positional[1:] = [_refspec(r) for r in positional[1:]]


def _refspec(ref: str) -> str:
    """One spelling of a pushed ref: ``main:main``, ``refs/heads/main`` and
    ``refs/heads/main:refs/heads/main`` are ``main`` (``+`` kept: it forces that ref)."""
    force = "+" if ref.startswith("+") else ""
    source, colon, target = ref[len(force) :].partition(":")
    source, target = source.removeprefix("refs/heads/"), target.removeprefix("refs/heads/")
    if colon and source != target:
        return f"{force}{source}:{target}"
    return force + source


def _chdir(
    env: frozenset[str], options: list[Option], row: Tool
) -> tuple[frozenset[str], list[Option], str]:
    """The environment and options without the directory the command runs in, and that
    directory: where the line moved it (``commandline``: ``--chdir=DIR`` in its
    environment), then each of the tool's ``-C DIR`` options, relative to the one before."""
    given = [e for e in env if e.startswith(_CHDIR)]
    moves = [value for name, value in options if name in row.chdir and value is not None]
    if not given and not moves:
        return env, options, "."
    where = given[0][len(_CHDIR) :] if given else "."
    for move in moves:
        where = _join(where, move)
    kept = [(n, v) for n, v in options if n not in row.chdir] if moves else options
    return env - frozenset(given), kept, where


def _kept(options: list[Option], row: Tool) -> Iterator[Option]:
    """The options that change what runs, each path-valued one's path spelled one way."""
    cosmetic, prefixes = row.cosmetic, row.cosmetic_values
    given = {name for name, _ in options} if row.implied else set()
    for name, value in options:
        if value is None and row.implied.get(name) in given:
            continue  # `rm -rfd`: what -r does already
        if value is not None and (name, value) in row.switches:
            name, value = row.switches[name, value], None  # `--profile release`
        if name in cosmetic:
            continue
        if value is not None and name in row.defaults and _path(value) == row.defaults[name]:
            continue  # `git --git-dir=./.git`
        if value is not None and name in row.images and value.endswith(":latest"):
            value = value[: -len(":latest")]  # `-t app:latest` is `-t app`
        if value is not None and name in prefixes and value.startswith(prefixes[name]):
            continue  # `git -c core.pager=cat`
        yield (name, _path(value) if value is not None and name in row.path_values else value)


def _path(word: str) -> str:
    """One spelling of a path: ``./build/``, ``build//`` and ``build`` are ``build``; a
    Go package pattern (``./...``) and ``/`` stay as written. The result is part of
    every spelling (the ledger scan looks for it as written)."""
    if "..." in word:
        return word
    if word.startswith("/"):  # `rm -rf /repo/build` where the check runs in /repo
        inside = _join(".", word)
        word = word if inside[:1] in ("/", "?") else inside
    start = 0
    while word.startswith("./", start) and len(word) > start + 2:
        start += 2
    word = word[start:] if start else word
    return word.rstrip("/") or word


def _flags_from_env(
    env: frozenset[str], row: Tool, sub: str, valued: frozenset[str], greedy: bool
) -> tuple[frozenset[str], list[Option]]:
    """The environment without the variables the tool reads as options (``row.flags_env``,
    ``row.config_env``), and the options their values spell."""
    names = {n.replace("{sub}", sub) for n in row.flags_env.split()}
    options: list[Option] = []
    taken: set[str] = set()
    for entry in env:
        name, eq, value = entry.partition("=")
        if not eq:
            continue
        if name in names:
            tokens = tuple(value.split())
            if not all(_is_option(t) for t in tokens):
                continue  # not flags after all: left in the environment, as written
        elif row.config_env and name.lower().startswith(row.config_env):
            option = name[len(row.config_env) :].lower().replace("_", "-")
            tokens = (f"--{option}={value}",)  # `npm_config_legacy_peer_deps=true`
            if value.lower() in _ON and not row.takes_value(row.name(f"--{option}", sub), sub):
                tokens = (f"--{option}",)  # `PIP_NO_CACHE_DIR=1`: the switch
        else:
            continue
        index = 0
        while index < len(tokens):
            token = tokens[index]
            index += 1
            index = _option(token, tokens, index, row, sub, valued, greedy, options)
        taken.add(entry)
    return env - taken, options


_ON = frozenset({"true", "1", "yes", "on"})  # a switch's value in its variable


def _option(
    token: str,
    tokens: tuple[str, ...],
    index: int,
    row: Tool,
    sub: str,
    valued: frozenset[str],
    greedy: bool,
    out: list[Option],
) -> int:
    """Add the option(s) ``token`` spells to ``out``; the index after its value."""
    spelled, eq, value = token.partition("=")
    single = not token.startswith("--")
    if row.style == "posix" and single and not eq and len(token) > 2 and token[1].isalpha():
        whole = row.name(token, sub)
        if whole == token and not row.takes_value(whole, sub):
            return _cluster(token, tokens, index, row, sub, out)
    name = row.name(_whole(spelled, row, sub) if not single else spelled, sub)
    if eq:  # `--legacy-peer-deps=true` is the switch itself, where the parser takes that
        if row.takes_value(name, sub):
            out.append((name, value))
        elif row.strict:  # `git push --force=true`: git's error, as written (never cosmetic)
            out.append((token, None))
        else:
            out.append((name, None if value.lower() == "true" else value))
        return index
    bare = spelled.lstrip("-")
    takes = row.takes_value(name, sub) or bare in valued or (greedy and row is GENERIC)
    if takes and name in row.numeric and not _numeric_next(tokens, index):
        takes = False  # `make -j deploy`: -j without a number takes nothing
    if takes and index < len(tokens) and (row is not GENERIC or not _is_option(tokens[index])):
        out.append((name, tokens[index]))
        return index + 1
    out.append((name, None))
    return index


def _whole(spelling: str, row: Tool, sub: str) -> str:
    """A long option abbreviated to a prefix of one option only in ``row.longs[sub]``, the
    complete list of the (sub)command's long options, written out (``rm --rec``: ``rm
    --recursive``); an exact spelling, an ambiguous prefix (``git push --forc``) or a
    subcommand with no list: as written. The one place a prefix becomes an option."""
    known = row.longs.get(sub, row.longs.get("*"))
    if known is None or spelling in known:
        return spelling
    whole = ""
    for option in known:
        if option.startswith(spelling):
            if whole:
                return spelling  # ambiguous: the program refuses it
            whole = option
    return whole or spelling


def _cluster(
    token: str, tokens: tuple[str, ...], index: int, row: Tool, sub: str, out: list[Option]
) -> int:
    """``-fr`` is ``-f -r``; ``-j4`` is ``-j 4``; ``-am msg`` is ``-a -m msg``."""
    for at in range(1, len(token)):
        if not token[at].isalpha():  # `-n5`: the rest is the value of the option before
            previous = out.pop()
            out.append((previous[0], token[at:]))
            return index
        name = row.name("-" + token[at], sub)
        if row.takes_value(name, sub):
            attached = token[at + 1 :]
            if attached:
                out.append((name, attached))
                return index
            if index < len(tokens) and (name not in row.numeric or _numeric_next(tokens, index)):
                out.append((name, tokens[index]))
                return index + 1
            out.append((name, None))
            return index
        out.append((name, None))
    return index


def _numeric_next(tokens: tuple[str, ...], index: int) -> bool:
    """Whether the word at ``index`` is a number: written out, or what an arithmetic
    expansion or a count of processors prints (``make -j $(nproc) deploy``)."""
    if index >= len(tokens):
        return False
    token = tokens[index]
    if token.startswith("$((") and token.endswith("))"):
        return True
    return token.replace(".", "", 1).isdigit() or bool(compiled(_COUNTED).fullmatch(token))


# What prints the number of processors, as a word: `$(nproc)`, `` `nproc` ``, getconf, sysctl
_COUNT = (
    r"[ \t]*+(?:nproc(?:[ \t]++--all)?+|getconf[ \t]++_NPROCESSORS_ONLN"
    r"|sysctl[ \t]++-n[ \t]++hw\.(?:ncpu|logicalcpu))[ \t]*+"
)
_COUNTED = rf"\$\({_COUNT}\)|`{_COUNT}`"


def _valued_names(command: Command) -> frozenset[str]:
    """Names of the options ``command`` writes ``--name=value`` (for unknown tools)."""
    return command.valued


def compare(candidate: Command, failed: Command) -> str | None:
    """'exact', 'close' or None (see the module docstring)."""
    if candidate.program != failed.program:
        return None
    valued = _valued_names(candidate) | _valued_names(failed)
    mine, theirs = model(candidate, valued), model(failed, valued)
    if mine == theirs and mine.cwd != "?":  # run where the line cannot tell: never exact
        return "exact"
    if tool(candidate.program) is GENERIC and mine.env == theirs.env:
        # an unknown tool: each bare flag may take the word after it (`curl -X POST`)
        if model(candidate, valued, True) == model(failed, valued, True):
            return "exact"
    if mine.path != theirs.path:
        return None
    shared = (mine.options & theirs.options) or (
        mine.positional == theirs.positional and (theirs.options or theirs.positional)
    )
    return "close" if shared else None
