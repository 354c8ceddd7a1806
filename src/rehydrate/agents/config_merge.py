"""Merging rehydrate's hooks into a runtime's JSON hook file, and reading them back.

Codex (``.codex/hooks.json``), Cursor (``.cursor/hooks.json``) and Kiro share the shape
``{"hooks": {Event: [...]}}``; what differs is whether an event holds matcher groups
(``[{"matcher": …, "hooks": [{"type": "command", "command": …}]}]``, Claude's shape) or
the command entries themselves (``[{"command": …}]``). Either way the merge keeps every
key and hook of the user's, leaves exactly one command of ours per event (a stale one is
rewritten in place, a second one removed) and says whether anything changed, so a
second run changes nothing.

A command of ours is the portable launch line running ``rehydrate hook <runtime>
<event>`` (launchline.py: no machine path, isolated); an older ``<python> -m rehydrate
hook …`` or bare ``rehydrate hook …`` is recognised too (by its parsed words, whatever
interpreter it names), so installing again rewrites it in place.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ..errors import RehydrateError
from ..launchline import Launch, parse_shell, portable


class Ours(NamedTuple):
    kind: str  # launchline.Launch.kind: "portable" | "isolated" | "unisolated" | "bare"
    program: str  # the interpreter or executable it names ("" for the portable line)
    name: str  # the event subcommand
    launch: Launch


class Wired(NamedTuple):
    event: str
    matcher: str | None
    command: str
    hook: Ours


def command_for(runtime: str, name: str) -> str:
    """The shell command that runs ``rehydrate hook RUNTIME NAME``: the portable launch
    line (the same on every clone; the interpreter is this clone's git config)."""
    return portable("hook", runtime, name)


def parse_command(command: str, runtime: str) -> Ours | None:
    """The hook of ours ``command`` runs for ``runtime``, or None."""
    launch = parse_shell(command)
    if launch is None or len(launch.args) != 3 or launch.args[:2] != ("hook", runtime):
        return None
    return Ours(launch.kind, launch.program, launch.args[2], launch)


def _ours(entry: Any, runtime: str, key: str) -> Ours | None:
    if not isinstance(entry, dict):
        return None
    command = entry.get(key)
    return parse_command(command, runtime) if isinstance(command, str) else None


class Layout(NamedTuple):
    """How one runtime's hook file is shaped."""

    runtime: str
    grouped: bool  # events hold matcher groups (True) or command entries (False)
    key: str = "command"  # the field holding the command line
    extra: Mapping[str, Any] = {}  # fields a fresh entry of ours gets ({"type": "command"})


def _entries(group: Any) -> list[Any]:
    entries = group.get("hooks") if isinstance(group, dict) else None
    return entries if isinstance(entries, list) else []


def _place_grouped(
    layout: Layout, groups: list[Any], matcher: str | None, name: str, wanted: Mapping[str, Any]
) -> bool:
    kept = changed = False
    for group in list(groups):
        entries = _entries(group)
        for entry in list(entries):
            ours = _ours(entry, layout.runtime, layout.key)
            if ours is None or ours.name != name:
                continue
            if kept or group.get("matcher") != matcher:
                entries.remove(entry)
                changed = True
                if not entries:
                    groups.remove(group)
                continue
            kept = True
            changed = _update(entry, wanted) or changed
    if not kept:
        fresh: dict[str, Any] = {"hooks": [dict(wanted)]}
        groups.append({"matcher": matcher, **fresh} if matcher is not None else fresh)
        changed = True
    return changed


def _place_flat(layout: Layout, entries: list[Any], name: str, wanted: Mapping[str, Any]) -> bool:
    kept = changed = False
    for entry in list(entries):
        ours = _ours(entry, layout.runtime, layout.key)
        if ours is None or ours.name != name:
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


def _update(entry: dict[str, Any], wanted: Mapping[str, Any]) -> bool:
    changed = False
    for key, value in wanted.items():
        if entry.get(key) != value:
            entry[key] = value
            changed = True
    return changed


def invalid(file: str, what: str, fix: str) -> RehydrateError:
    return RehydrateError(f"{file}: {what}", file=file, code="settings_invalid", fix=fix)


def merge_hooks(
    current: Mapping[str, Any] | None,
    layout: Layout,
    table: Mapping[str, tuple[str | None, str, Mapping[str, Any]]],
    file: str,
) -> tuple[dict[str, Any], bool]:
    """``current`` with one hook of ours per ``table`` event (event -> (matcher, name,
    extra fields of the entry)); (merged, changed)."""
    merged: dict[str, Any] = json.loads(json.dumps(current or {}))
    hooks = merged.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise invalid(file, "'hooks' is not an object", "make 'hooks' an object of event -> list")
    changed = False
    for event, (matcher, name, fields) in table.items():
        place = hooks.setdefault(event, [])
        if not isinstance(place, list):
            raise invalid(file, f"hooks.{event} is not a list", f"make hooks.{event} a list")
        wanted = {**layout.extra, layout.key: command_for(layout.runtime, name), **fields}
        if layout.grouped:
            changed = _place_grouped(layout, place, matcher, name, wanted) or changed
        else:
            changed = _place_flat(layout, place, name, wanted) or changed
    return merged, changed


def wired(data: Mapping[str, Any], layout: Layout) -> list[Wired]:
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
                ours = _ours(entry, layout.runtime, layout.key)
                if ours is not None:
                    shown = matcher if isinstance(matcher, str) else None
                    found.append(Wired(event, shown, entry[layout.key], ours))
    return found


def record_python(root: Path, python: str) -> None:
    """Record ``python`` as this clone's interpreter (git config ``rehydrate.python``, which
    the portable lines read); a clone's own setting, never a tracked file."""
    from .. import git
    from ..launchline import record

    record(git.find_repo(root), python)


def read_json(root: Path, relpath: str) -> dict[str, Any] | None:
    """A project JSON file as an object; None when it does not exist."""
    path = root / relpath
    if path.is_symlink() or path.parent.is_symlink():
        raise RehydrateError(
            f"{relpath} is a symlink",
            file=relpath,
            code="unsafe_path",
            fix="replace the symlink with a file",
        )
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
    relpath: str,
    layout: Layout,
    table: Mapping[str, tuple[str | None, str, Mapping[str, Any]]],
    python: str,
    base: Mapping[str, Any] | None = None,
) -> str:
    """Merge our hooks into ``relpath`` (``base``: the fields a new file starts with);
    'created', 'updated' or 'unchanged'."""
    current = read_json(root, relpath)
    record_python(root, python)
    merged, changed = merge_hooks(current if current is not None else base, layout, table, relpath)
    if not changed and current is not None:
        return "unchanged"
    text = json.dumps(merged, ensure_ascii=False, indent=2) + "\n"
    return write_text(root, relpath, text, current is not None)


def events_of(table: Mapping[str, tuple[str | None, str, Mapping[str, Any]]]) -> Sequence[str]:
    return tuple(name for _, name, _ in table.values())


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


def write_json(root: Path, relpath: str, data: Any, existed: bool) -> str:
    """Write ``data`` as indented JSON; 'created' or 'updated'."""
    return write_text(root, relpath, json.dumps(data, ensure_ascii=False, indent=2) + "\n", existed)


def place(
    entries: list[Any], runtime: str, event: str, wanted: dict[str, Any], key: str = "command"
) -> bool:
    """Leave exactly one hook of ours for ``event`` in ``entries`` (hook objects whose
    ``key`` is a command): a stale one is rewritten in place, a duplicate removed, none
    added. True when anything changed."""
    kept = changed = False
    for entry in list(entries):
        command = entry.get(key) if isinstance(entry, dict) else None
        ours = parse_command(command, runtime) if isinstance(command, str) else None
        if ours is None or ours.name != event:
            continue
        if kept:
            entries.remove(entry)
            changed = True
            continue
        kept = True
        for name, value in wanted.items():
            if entry.get(name) != value:
                entry[name] = value
                changed = True
    if not kept:
        entries.append(dict(wanted))
        changed = True
    return changed
