"""The one reader and merger of the runtimes' JSON hook files.

Claude Code (``.claude/settings.json`` and the plugin's ``hooks/hooks.json``), Codex
(``.codex/hooks.json``), Cursor (``.cursor/hooks.json``), Kiro (its agent file), Gemini
CLI (``.gemini/settings.json``) and Copilot CLI (``.github/hooks/rehydrate.json``) share
the shape ``{"hooks": {Event: [...]}}``; what differs is data on each runtime's row
(``runtimes.HookFile`` and its ``Layout``): whether an event holds matcher groups
(``[{"matcher": …, "hooks": [{"type": "command", "command": …}]}]``) or the command
entries themselves, the field holding the command, which matchers mean "every tool",
whether ours joins the user's group of its matcher, the fields pinned at the top. The
merge keeps every key and hook of the user's, leaves exactly one command of ours per
event (a stale one is rewritten in place, a second one removed) and says whether anything
changed, so a second run changes nothing.

A command of ours is the portable launch line running ``rehydrate hook <runtime>
<event>`` (launchline.py: no machine path, isolated); an older ``<python> -m rehydrate
hook …`` or bare ``rehydrate hook …`` is recognised too (by its parsed words, whatever
interpreter it names), so installing again rewrites it in place; so is a plugin's
launcher (``Layout.launcher``).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path

from ..errors import RehydrateError
from ..launchline import Launch, parse, portable
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from .runtimes import HookFile, Layout, Wire

if TYPE_CHECKING:
    from .runtimes import Installed

__all__ = ["HookFile", "Layout", "Ours", "Wire", "Wired"]


class Ours(NamedTuple):
    kind: str  # launchline.Launch.kind: "portable" | "isolated" | "unisolated" | "bare"; "plugin"
    program: str  # the interpreter or executable it names ("" for the portable line)
    name: str  # the event subcommand
    launch: Launch | None  # None for a plugin's launcher


class Wired(NamedTuple):
    event: str
    matcher: str | None
    command: str
    hook: Ours
    file: str = ""  # the file it was read from, when the reader was told


def command_for(runtime: str, name: str) -> str:
    """The shell command that runs ``rehydrate hook RUNTIME NAME``: the portable launch
    line (the same on every clone; the interpreter is this clone's git config)."""
    return portable("hook", runtime, name)


def parse_command(command: str, runtime: str, launcher: tuple[str, ...] = ()) -> Ours | None:
    """The hook of ours ``command`` runs for ``runtime``, or None (``launcher``: a plugin
    launcher's words that run rehydrate too)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    n = len(launcher)
    if n and len(words) == n + 3 and tuple(words[:n]) == launcher:
        if words[n : n + 2] == ["hook", runtime]:
            return Ours("plugin", words[n - 1], words[n + 2], None)
    launch = parse(words)
    if launch is None or len(launch.args) != 3 or launch.args[:2] != ("hook", runtime):
        return None
    return Ours(launch.kind, launch.program, launch.args[2], launch)


def _ours(entry: object, layout: Layout) -> Ours | None:
    if not isinstance(entry, dict):
        return None
    if layout.typed and entry.get("type") != "command":
        return None
    command = entry.get(layout.key)
    if not isinstance(command, str):
        return None
    return parse_command(command, layout.runtime, layout.launcher)


def _entries(group: object) -> list[object]:
    entries = group.get("hooks") if isinstance(group, dict) else None
    return entries if isinstance(entries, list) else []


def matches(layout: Layout, matcher: object, wanted: str | None) -> bool:
    """Whether a group's ``matcher`` is ``wanted`` (None: any match-everything spelling)."""
    return matcher in layout.match_all if wanted is None else matcher == wanted


def _home(groups: list[object], matcher: str | None) -> dict[str, object]:
    """The first group of ``matcher`` (a fresh one appended when there is none)."""
    for group in groups:
        if isinstance(group, dict) and group.get("matcher") == matcher:
            if isinstance(group.get("hooks"), list):
                return group
    fresh: dict[str, object] = {"hooks": []}
    if matcher is not None:
        fresh = {"matcher": matcher, **fresh}
    groups.append(fresh)
    return fresh


def _place_grouped(
    layout: Layout,
    groups: list[object],
    matcher: str | None,
    name: str,
    wanted: Mapping[str, object],
) -> bool:
    """Leave exactly one hook of ours for ``name`` in ``groups``, in a group of
    ``matcher`` (with ``layout.join``: the first such group, the user's too). A stale
    entry is rewritten in place (its other keys kept); a duplicate, or one under another
    matcher, is taken out, and a group it leaves empty with it."""
    home = _home(groups, matcher) if layout.join else None
    kept = changed = False
    for group in list(groups):
        if not isinstance(group, dict):
            continue
        entries = _entries(group)
        removed = False
        for entry in list(entries):
            ours = _ours(entry, layout)
            if ours is None or ours.name != name or not isinstance(entry, dict):
                continue
            elsewhere = group is not home if home is not None else False
            if kept or elsewhere or not matches(layout, group.get("matcher"), matcher):
                entries.remove(entry)
                removed = changed = True
                continue
            kept = True
            changed = _update(entry, wanted) or changed
        if removed and not entries:
            groups.remove(group)
    if not kept:
        if home is not None:
            _entries(home).append(dict(wanted))
        else:
            fresh: dict[str, object] = {"hooks": [dict(wanted)]}
            groups.append({"matcher": matcher, **fresh} if matcher is not None else fresh)
        changed = True
    return changed


def _place_flat(
    layout: Layout, entries: list[object], name: str, wanted: Mapping[str, object]
) -> bool:
    kept = changed = False
    for entry in list(entries):
        ours = _ours(entry, layout)
        if ours is None or ours.name != name or not isinstance(entry, dict):
            continue
        if kept:
            entries.remove(entry)
            changed = True
            continue
        kept = True
        changed = _update(entry, wanted) or changed
    if not kept:
        entries.append(dict(wanted))
        changed = True
    return changed


def _update(entry: dict[str, object], wanted: Mapping[str, object]) -> bool:
    changed = False
    for key, value in wanted.items():
        if entry.get(key) != value:
            entry[key] = value
            changed = True
    return changed


def invalid(file: str, what: str, fix: str) -> RehydrateError:
    return RehydrateError(f"{file}: {what}", file=file, code="settings_invalid", fix=fix)


def _copy(current: Mapping[str, object] | None) -> dict[str, object]:
    copied = json.loads(json.dumps(current or {}))
    if not isinstance(copied, dict):  # a Mapping dumps as an object
        raise TypeError("a JSON object was expected")
    return copied


def merge_hooks(
    current: Mapping[str, object] | None,
    layout: Layout,
    table: Mapping[str, Wire],
    file: str,
    command: Callable[[str], str] | None = None,
) -> tuple[dict[str, object], bool]:
    """``current`` with one hook of ours per ``table`` event (event -> (matcher, name,
    extra fields of the entry)); (merged, changed). ``command``: the line for a
    subcommand, when not the portable one."""
    merged = _copy(current)
    changed = False
    for key, value in layout.pinned.items():
        changed = changed or merged.get(key) != value
        merged[key] = value
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise invalid(file, "'hooks' is not an object", layout.hooks_fix)
    for event, (matcher, name, fields) in table.items():
        place = hooks.setdefault(event, [])
        if not isinstance(place, list):
            raise invalid(file, f"hooks.{event} is not a list", layout.list_fix.format(event=event))
        line = command(name) if command is not None else command_for(layout.runtime, name)
        wanted = {**layout.extra, layout.key: line, **fields}
        if layout.grouped:
            changed = _place_grouped(layout, place, matcher, name, wanted) or changed
        else:
            changed = _place_flat(layout, place, name, wanted) or changed
    return merged, changed


def merge(
    current: Mapping[str, object] | None,
    hook_file: HookFile,
    command: Callable[[str], str] | None = None,
) -> tuple[dict[str, object], bool]:
    """``merge_hooks`` of a runtime's ``HookFile`` (its layout, events and path)."""
    return merge_hooks(current, hook_file.layout, hook_file.wires, hook_file.path, command)


def wired(data: Mapping[str, object], layout: Layout, file: str = "") -> list[Wired]:
    """Every hook of ours in ``data``, under whichever event (and matcher) it sits."""
    hooks = data.get("hooks")
    found = []
    for event, place in hooks.items() if isinstance(hooks, dict) else []:
        for item in place if isinstance(place, list) else []:
            if layout.grouped:
                matcher = item.get("matcher") if isinstance(item, dict) else None
                entries = _entries(item)
            else:
                matcher, entries = None, [item]
            for entry in entries:
                ours = _ours(entry, layout)
                if ours is not None and isinstance(entry, dict):
                    shown = matcher if isinstance(matcher, str) else None
                    found.append(Wired(str(event), shown, str(entry[layout.key]), ours, file))
    return found


def record_python(root: Path, python: str) -> None:
    """Record ``python`` as this clone's interpreter (git config ``rehydrate.python``, which
    the portable lines read); a clone's own setting, never a tracked file."""
    from .. import git
    from ..launchline import record

    record(git.find_repo(root), python)


def no_link(root: Path, relpath: str) -> Path:
    """``root / relpath``, refused when it (or its folder) is a symlink: a project file
    rehydrate reads or merges is never followed elsewhere."""
    path = root / relpath
    if path.is_symlink() or path.parent.is_symlink():
        raise RehydrateError(
            f"{relpath} is a symlink",
            file=relpath,
            code="unsafe_path",
            fix="replace the symlink with a file",
        )
    return path


def read_json(root: Path, relpath: str) -> dict[str, object] | None:
    """A project JSON file as an object; None when it does not exist."""
    path = no_link(root, relpath)
    never = "fix it; rehydrate never overwrites it"
    from ..readlimit import SUMMARY_LIMIT, load_json, read_file

    try:
        text = read_file(path, SUMMARY_LIMIT, relpath).decode("utf-8")
    except FileNotFoundError:
        return None
    except RehydrateError as exc:  # a FIFO, a device, too large
        raise invalid(relpath, exc.message, never) from None
    except (OSError, ValueError) as exc:
        raise invalid(relpath, f"cannot be read ({exc})", never) from None
    try:
        data = load_json(text)
    except ValueError as exc:
        raise invalid(relpath, f"is not JSON ({exc})", never) from None
    if not isinstance(data, dict):
        raise invalid(relpath, "is not a JSON object", never)
    return data


def write_text(root: Path, relpath: str, text: str, existed: bool) -> str:
    """Write ``relpath`` atomically; 'created' or 'updated'."""
    from ..ledgers.atomicfile import write_in_repo

    write_in_repo(root, relpath, text.encode("utf-8"), create_dirs=True)
    return "updated" if existed else "created"


def install_json(
    root: Path,
    hook_file: HookFile,
    python: str,
    command: Callable[[str], str] | None = None,
) -> str:
    """Merge our hooks into ``hook_file`` (a new file starts with its ``base``), ``python``
    recorded as this clone's interpreter; 'created', 'updated' or 'unchanged'."""
    current = read_json(root, hook_file.path)
    record_python(root, python)
    merged, changed = merge(current if current is not None else hook_file.base, hook_file, command)
    if not changed and current is not None:
        return "unchanged"
    return write_json(root, hook_file.path, merged, current is not None)


def install_row(name: str, root: Path, python: str) -> list[Installed]:
    """The installer of a runtime that is its row alone: its hook file merged."""
    from .runtimes import Installed, hook_file

    wiring = hook_file(name)
    return [Installed(install_json(root, wiring, python), wiring.path)]


def place_file(root: Path, relpath: str, text: str, mode: int | None = None) -> str:
    """Write ``relpath`` when it is absent: 'created'; 'unchanged' when it already holds
    ``text``; 'kept' when it holds something else (the user's: never overwritten)."""
    from ..ledgers.atomicfile import read_at, repo_dir, write_in_repo

    with repo_dir(root, relpath, create=True) as (fd, name):
        current = read_at(fd, name)
    if current == text.encode("utf-8"):
        return "unchanged"
    if current is not None:
        return "kept"
    write_in_repo(root, relpath, text.encode("utf-8"), create_dirs=True, mode=mode)
    return "created"


def write_json(root: Path, relpath: str, data: object, existed: bool) -> str:
    """Write ``data`` as indented JSON; 'created' or 'updated'."""
    return write_text(root, relpath, json.dumps(data, ensure_ascii=False, indent=2) + "\n", existed)
