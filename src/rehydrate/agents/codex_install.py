"""Wiring rehydrate into Codex CLI: ``.codex/hooks.json``, and the trust Codex needs first.

``init --agent codex`` merges one hook per event of ``HOOKS`` into ``.codex/hooks.json``
(Claude Code's shape), each the portable launch line of ``rehydrate hook codex <event>``
(launchline.py: the same on every clone, so the trust hashes are too).

Codex (0.171.0) runs project hooks only when both are trusted in the user's
``$CODEX_HOME/config.toml`` (default ``~/.codex``); otherwise they silently do not run:

* the project: ``[projects."<root>"] trust_level = "trusted"``;
* each hook: ``[hooks.state."<hooks.json path>:<event_label>:<group>:<handler>"]
  trusted_hash = "sha256:<hex>"``, the SHA-256 of the handler's normalised definition
  (``event_name``, the group's ``matcher`` if any, and the handler with its defaults:
  ``type``, ``command``, ``timeout`` 600, ``async`` false), as compact JSON with sorted
  keys. A changed command (a moved virtualenv) changes the hash: trust it again.

``codex --dangerously-bypass-hook-trust`` runs untrusted hooks for one invocation.
``rehydrate hook codex trust`` writes both entries (``trust``); ``doctor`` reads them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from .. import digests
from ..errors import RehydrateError
from ..readlimit import read_text
from ..records import NamedTuple
from .config_merge import install_json, read_json, wired
from .runtimes import Installed, hook_file

HOOK_FILE = hook_file("codex")
HOOKS_FILE = HOOK_FILE.path
LAYOUT = HOOK_FILE.layout
HOOKS = HOOK_FILE.wires  # event -> (matcher, subcommand, extra fields of the handler)
LABELS = {
    "SessionStart": "session_start",
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "Stop": "stop",
    "UserPromptSubmit": "user_prompt_submit",
    "PermissionRequest": "permission_request",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "SessionEnd": "session_end",
}
DEFAULT_TIMEOUT = 600
CONTEXT_LIMIT_DEFAULT = 2500
_CONTEXT_EVENTS = {"pre_tool_use", "post_tool_use", "session_start", "user_prompt_submit"}
TRUST_COMMAND = "rehydrate hook codex trust"


def install_agent(root: Path, python: str) -> list[Installed]:
    """Merge our hooks into ``.codex/hooks.json``; say what trusting them takes."""
    what = install_json(root, HOOK_FILE, python)
    note = (
        "Codex runs these hooks only once the project and each hook are trusted in "
        f"$CODEX_HOME/config.toml: run `{TRUST_COMMAND}` (or trust them in Codex's /hooks, "
        "or run codex with --dangerously-bypass-hook-trust)"
    )
    return [Installed(what, HOOKS_FILE, note)]


def codex_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    home = env.get("CODEX_HOME")
    return Path(home) if home else Path(env.get("HOME") or Path.home()) / ".codex"


class Trust(NamedTuple):
    """One handler of ours and the hash Codex wants trusted for it."""

    key: str
    hash: str
    event: str
    command: str


def handler_hash(event: str, matcher: str | None, handler: Mapping[str, object]) -> str:
    """The ``trusted_hash`` Codex 0.171 computes for one handler."""
    label = LABELS.get(event, event.lower())
    timeout = handler.get("timeout")
    normal: dict[str, object] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(1, timeout) if isinstance(timeout, int) else DEFAULT_TIMEOUT,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage"):
        normal["statusMessage"] = handler["statusMessage"]
    limit = handler.get("additionalContextLimit")
    if label in _CONTEXT_EVENTS and isinstance(limit, int) and limit != CONTEXT_LIMIT_DEFAULT:
        normal["additionalContextLimit"] = limit
    identity: dict[str, object] = {"event_name": label, "hooks": [normal]}
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + digests.sha256(text.encode("utf-8")).hexdigest()


def trust_entries(root: Path) -> list[Trust]:
    """The trust entries our hooks in ``.codex/hooks.json`` need, by their positions."""
    data = read_json(root, HOOKS_FILE)
    if data is None:
        return []
    hooks = data.get("hooks")
    path = str(root / HOOKS_FILE)
    found = []
    for event, groups in hooks.items() if isinstance(hooks, dict) else []:
        for g, group in enumerate(groups if isinstance(groups, list) else []):
            entries = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(entries if isinstance(entries, list) else []):
                ours = wired({"hooks": {event: [{"hooks": [handler]}]}}, LAYOUT)
                if not ours:
                    continue
                matcher = group.get("matcher")
                label = LABELS.get(event, event.lower())
                found.append(
                    Trust(
                        f"{path}:{label}:{g}:{h}",
                        handler_hash(event, matcher if isinstance(matcher, str) else None, handler),
                        event,
                        ours[0].command,
                    )
                )
    return found


def read_user_config(home: Path) -> tuple[str, dict[str, object]]:
    """$CODEX_HOME/config.toml: (its text, parsed); empty when it does not exist."""
    import tomllib

    path = home / "config.toml"
    try:
        text = read_text(path)
    except FileNotFoundError:
        return "", {}
    except (OSError, ValueError) as exc:
        raise _config_error(path, f"cannot be read ({exc})") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _config_error(path, f"is not valid TOML ({exc})") from None


def _config_error(path: Path, what: str) -> RehydrateError:
    return RehydrateError(
        f"{path}: {what}", file=str(path), code="codex_config_invalid", fix="fix that file"
    )


def project_trusted(config: Mapping[str, object], root: Path) -> bool:
    projects = config.get("projects")
    entry = projects.get(str(root)) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"


def trusted_hashes(config: Mapping[str, object]) -> dict[str, str]:
    hooks = config.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    found = {}
    for key, entry in state.items() if isinstance(state, dict) else []:
        value = entry.get("trusted_hash") if isinstance(entry, dict) else None
        if isinstance(value, str):
            found[key] = value
    return found


def untrusted(root: Path, config: Mapping[str, object]) -> list[Trust]:
    """Our hooks whose trusted hash is missing or stale."""
    have = trusted_hashes(config)
    return [t for t in trust_entries(root) if have.get(t.key) != t.hash]


def _header(table: str, key: str) -> re.Pattern[str]:
    return re.compile(
        r"^\s*\[\s*" + re.escape(table) + r"\s*\.\s*" + re.escape(json.dumps(key)) + r"\s*\]\s*$"
    )


def _set_in_table(lines: list[str], header: re.Pattern[str], field: str, value: str) -> bool:
    """Set ``field = value`` in the table ``header`` opens; False when no such table."""
    for start, line in enumerate(lines):
        if not header.match(line):
            continue
        end = start + 1
        while end < len(lines) and not lines[end].lstrip().startswith("["):
            if re.match(r"^\s*" + re.escape(field) + r"\s*=", lines[end]):
                lines[end] = f"{field} = {value}"
                return True
            end += 1
        lines.insert(start + 1, f"{field} = {value}")
        return True
    return False


def trusted_config(text: str, root: Path, entries: list[Trust]) -> str:
    """``text`` (a config.toml) with the project and ``entries`` trusted."""
    import tomllib

    lines = text.splitlines()
    wanted = [("projects", str(root), "trust_level", json.dumps("trusted"))]
    wanted += [("hooks.state", t.key, "trusted_hash", json.dumps(t.hash)) for t in entries]
    added = []
    for table, key, field, value in wanted:
        if not _set_in_table(lines, _header(table, key), field, value):
            added += ["", f"[{table}.{json.dumps(key)}]", f"{field} = {value}"]
    result = "\n".join(lines + added).strip("\n") + "\n"
    try:
        parsed = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise RehydrateError(
            f"config.toml would not parse after trusting the hooks ({exc})",
            code="codex_config_invalid",
            fix="add the entries `rehydrate doctor` lists by hand",
        ) from None
    if not project_trusted(parsed, root) or untrusted(root, parsed):
        raise RehydrateError(
            "config.toml defines these tables in a form rehydrate does not edit "
            "(inline tables or dotted keys)",
            code="codex_config_invalid",
            fix="add the entries `rehydrate doctor` lists by hand",
        )
    return result


def trust(root: Path, home: Path) -> tuple[bool, list[Trust]]:
    """Trust the project and our hooks in ``home``/config.toml: (whether the file changed,
    the hook entries written)."""
    from ..ledgers.atomicfile import atomic_write

    if not trust_entries(root):
        raise RehydrateError(
            f"{HOOKS_FILE} has no rehydrate hooks to trust",
            file=HOOKS_FILE,
            code="codex_hooks_missing",
            fix="rehydrate init --agent codex",
        )
    text, config = read_user_config(home)
    needed = untrusted(root, config)
    if not needed and project_trusted(config, root):
        return False, []
    home.mkdir(parents=True, exist_ok=True)
    atomic_write(home / "config.toml", trusted_config(text, root, needed).encode("utf-8"))
    return True, needed
