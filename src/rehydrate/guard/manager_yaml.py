"""Text edits of a hook manager's configuration that keep the user's comments and layout.

PyYAML cannot write a document back with its comments, so the guard is added as text:
a block between ``BEGIN`` and ``END`` comment lines, under the right key, at the
indentation the file already uses. Each edit is then checked by loading the file before
and after through the one YAML door (``ledgers.yamlsafe``): the result must be the old
document plus exactly rehydrate's entry. Anything else (flow style, anchors, a quoted
key) is refused with the entry to add by hand, never written.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence

from ..errors import RehydrateError

BEGIN = "# >>> rehydrate guard (rehydrate hook install; remove this block to unhook) >>>"
END = "# <<< rehydrate guard <<<"
GUIDE = "docs/integrations/hook-managers.md"
STAGES = ("pre-commit", "pre-merge-commit")
_OLD_STAGES = {"commit": "pre-commit", "merge-commit": "pre-merge-commit"}


def _refuse(shown: str, why: str, entry: Sequence[str]) -> RehydrateError:
    return RehydrateError(
        f"cannot add the guard safely: {why}",
        file=shown,
        code="hook_manager_config",
        fix=f"add this by hand ({GUIDE}), then run again:\n" + "".join(entry),
    )


def _load(text: str, shown: str) -> dict[str, object]:
    from ..ledgers.yamlsafe import YAMLInputError, load

    try:
        data = load(text)
    except YAMLInputError as exc:
        raise RehydrateError(
            f"not YAML rehydrate reads: {exc.message}",
            file=shown,
            line=exc.line,
            code="hook_manager_config",
            fix=f"fix the file, or add the guard by hand ({GUIDE})",
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _refuse(shown, "the document is not a mapping", [])
    return data


def _names(text: str) -> object:
    from ..ledgers.yamlsafe import YAMLInputError, load

    try:
        return load(text)
    except YAMLInputError:
        return None


def _is_content(line: str) -> bool:
    body = line.strip()
    return bool(body) and not body.startswith("#")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _key_line(lines: Sequence[str], key: str, indent: int, start: int, stop: int) -> int | None:
    pattern = re.compile(rf"^ {{{indent}}}{re.escape(key)}:[ \t]*(#.*)?$")
    return next((i for i in range(start, stop) if pattern.match(lines[i].rstrip("\n"))), None)


def _section_end(lines: Sequence[str], start: int, *, items_at_zero: bool = False) -> int:
    """The first line after ``start`` that opens another top-level key."""
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if _is_content(line) and _indent(line) == 0:
            if not (items_at_zero and line.startswith("-")):
                return i
    return len(lines)


def _child_indent(lines: Sequence[str], start: int, stop: int, parent: int) -> int | None:
    for i in range(start + 1, stop):
        if _is_content(lines[i]):
            indent = _indent(lines[i])
            return indent if indent > parent else None
    return None


def _marked(indent: int, body: Sequence[str]) -> list[str]:
    pad = " " * indent
    return [pad + BEGIN + "\n", *(pad + line + "\n" for line in body), pad + END + "\n"]


def _append(text: str, block: Sequence[str]) -> str:
    base = text.rstrip("\n") + "\n" if text.strip() else ""
    return base + ("\n" if base else "") + "".join(block)


def put_block(text: str, block: Sequence[str]) -> str:
    """``text`` with ``block`` (its first line BEGIN, its last END) replacing the marked
    block, or appended at the end; a shell file's own lines are left as they are."""
    if BEGIN in text:
        text = remove_block(text)
    return _append(text, [line + "\n" for line in block])


def remove_block(text: str) -> str:
    """``text`` without every ``BEGIN``...``END`` block (and the blank lines left at its end)."""
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.strip() == BEGIN:
            inside = True
        elif inside and line.strip() == END:
            inside = False
        elif not inside:
            kept.append(line)
    out = "".join(kept)
    return out.rstrip("\n") + "\n" if out.strip() else ""


def exits_early(text: str) -> bool:
    """A top-level ``exit``/``exec`` before the guard's block: the block may never run."""
    before = text.split(BEGIN, 1)[0]
    return any(re.match(r"(exit|exec)\b", line) for line in before.splitlines())


def _script(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _literal(indent: int, lines: Sequence[str]) -> list[str]:
    return [" " * indent + line if line else "" for line in lines]


def add_lefthook(
    text: str, shown: str, hooks: Sequence[str], guard_id: str, lines: Sequence[str]
) -> str:
    """``lefthook.yml`` text with a ``guard_id`` command under each of ``hooks``."""
    text = remove_block(text) if BEGIN in text else text
    for hook in hooks:
        data = _load(text, shown)
        section = data.get(hook)
        if isinstance(section, dict) and guard_id in (section.get("commands") or {}):
            continue  # added by hand: left as it is
        entry = [f"{guard_id}:", "  run: |", *_literal(4, lines)]
        new = _lefthook_insert(text, hook, section, entry, shown)
        expected = copy.deepcopy(data)
        found = expected.get(hook)
        target: dict[str, object] = found if isinstance(found, dict) else {}
        expected[hook] = target
        commands = target.get("commands") or {}
        target["commands"] = commands
        if not isinstance(commands, dict):
            raise _refuse(shown, f"{hook}.commands is not a mapping", _marked(0, entry))
        commands[guard_id] = {"run": _script(lines)}
        if _names(new) != expected:
            raise _refuse(shown, f"{hook} has a layout rehydrate does not edit", _marked(0, entry))
        text = new
    return text


def _lefthook_insert(
    text: str, hook: str, section: object, entry: Sequence[str], shown: str
) -> str:
    if section is None and not re.search(rf"^{re.escape(hook)}:", text, re.MULTILINE):
        return _append(text, _marked(0, [f"{hook}:", "  commands:", *("    " + e for e in entry)]))
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    start = _key_line(lines, hook, 0, 0, len(lines))
    if start is None:
        raise _refuse(shown, f"no plain `{hook}:` line", _marked(0, entry))
    stop = _section_end(lines, start)
    child = _child_indent(lines, start, stop, 0) or 2
    at = _key_line(lines, "commands", child, start + 1, stop)
    if at is None:
        block = _marked(child, ["commands:", *("  " + e for e in entry)])
        return "".join([*lines[: start + 1], *block, *lines[start + 1 :]])
    inner = _child_indent(lines, at, stop, child) or child + 2
    return "".join([*lines[: at + 1], *_marked(inner, entry), *lines[at + 1 :]])


def pre_commit_item(guard_id: str, lines: Sequence[str]) -> tuple[list[str], dict[str, object]]:
    """The ``repo: local`` item as text lines, and as the document holds it once loaded."""
    text = [
        "- repo: local",
        "  hooks:",
        f"    - id: {guard_id}",
        "      name: rehydrate guard (ledgers)",
        "      language: system",
        "      entry: sh",
        "      args:",
        "        - -c",
        "        - |",
        *_literal(10, lines),
        "      pass_filenames: false",
        "      always_run: true",
        "      require_serial: true",
        f"      stages: [{', '.join(STAGES)}]",
    ]
    hook = {
        "id": guard_id,
        "name": "rehydrate guard (ledgers)",
        "language": "system",
        "entry": "sh",
        "args": ["-c", _script(lines)],
        "pass_filenames": "false",
        "always_run": "true",
        "require_serial": "true",
        "stages": list(STAGES),
    }
    return text, {"repo": "local", "hooks": [hook]}


def _pre_commit_hooks(data: object) -> list[dict[str, object]]:
    repos = data.get("repos") if isinstance(data, dict) else None
    found = []
    for repo in repos if isinstance(repos, list) else []:
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        found += [h for h in (hooks if isinstance(hooks, list) else []) if isinstance(h, dict)]
    return found


def add_pre_commit(text: str, shown: str, guard_id: str, lines: Sequence[str]) -> str:
    """``.pre-commit-config.yaml`` text with rehydrate's ``repo: local`` hook appended to
    ``repos`` (kept as it is when a ``rehydrate-guard`` hook is there already)."""
    text = remove_block(text) if BEGIN in text else text
    data = _load(text, shown)
    if any(h.get("id") == guard_id for h in _pre_commit_hooks(data)):
        return text
    entry, item = pre_commit_item(guard_id, lines)
    expected = copy.deepcopy(data)
    repos = expected.get("repos") or []
    if not isinstance(repos, list):
        raise _refuse(shown, "repos is not a list", _marked(0, entry))
    expected["repos"] = [*repos, item]
    if "repos" not in data:
        new = _append(text, _marked(0, ["repos:", *entry]))
    else:
        new = _pre_commit_insert(text, entry, shown)
    if _names(new) != expected:
        raise _refuse(shown, "repos has a layout rehydrate does not edit", _marked(0, entry))
    return new


def _pre_commit_insert(text: str, entry: Sequence[str], shown: str) -> str:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    start = _key_line(lines, "repos", 0, 0, len(lines))
    if start is None:
        raise _refuse(shown, "no plain `repos:` line", _marked(0, entry))
    stop = _section_end(lines, start, items_at_zero=True)
    items = [i for i in range(start + 1, stop) if re.match(r"^ *-( |$)", lines[i])]
    indent = _indent(lines[items[0]]) if items else 2
    last = max((i for i in range(start, stop) if _is_content(lines[i])), default=start)
    return "".join([*lines[: last + 1], *_marked(indent, entry), *lines[last + 1 :]])


def names_guard(manager: str, text: str, hook: str, guard_id: str) -> bool:
    """Whether the configuration runs the guard for git's ``hook``."""
    data = _names(text)
    if not isinstance(data, dict):
        return False
    if manager == "pre-commit":
        default = data.get("default_stages")
        for found in _pre_commit_hooks(data):
            stages = found.get("stages", default)
            named = [_OLD_STAGES.get(s, s) for s in stages] if isinstance(stages, list) else None
            if found.get("id") == guard_id and (named is None or hook in named):
                return True
        return False
    section = data.get(hook)
    if not isinstance(section, dict):
        return False
    commands = section.get("commands")
    runs = list(commands.values()) if isinstance(commands, dict) else []
    jobs = section.get("jobs")
    runs += jobs if isinstance(jobs, list) else []
    return any(isinstance(r, dict) and "rehydrate guard" in str(r.get("run", "")) for r in runs)
