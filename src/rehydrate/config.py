"""Configuration: ``.rehydrate.toml`` or ``[tool.rehydrate]`` in ``pyproject.toml``."""

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any, NamedTuple

from .errors import ConfigError

DEFAULT_PATHS: Mapping[str, str] = MappingProxyType({
    "spec": "docs/Spec.md",
    "task": "docs/Task.md",
    "failures": "docs/Failed_Attempts.md",
})
_NO_ALIASES: Mapping[str, str] = MappingProxyType({})
KNOWN_SECTIONS = frozenset({
    "constraints", "contracts", "decisions", "phases", "next action", "obligations",
    "external writes", "approvals", "verified", "completion checks", "rollback", "retired",
    "failures",
})
# key -> (type, default). Tables (ledgers, aliases) are handled apart.
_SCALARS: Mapping[str, tuple[type, Any]] = {
    "prompt_template": (str, None),
    "diff_lines": (int, 200),
    "max_tokens": (int, None),
    "max_ledger_bytes": (int, 32 * 1024 * 1024),
    "record_events": (bool, False),
    "id_scheme": (str, "sequential"),
}


class Config(NamedTuple):
    """Settings in force for one repository. Defaults need no file at all."""

    paths: Mapping[str, str] = DEFAULT_PATHS
    section_aliases: Mapping[str, str] = _NO_ALIASES
    column_aliases: Mapping[str, str] = _NO_ALIASES
    prompt_template: str | None = None
    diff_lines: int = 200
    max_tokens: int | None = None
    max_ledger_bytes: int = 32 * 1024 * 1024
    record_events: bool = False
    id_scheme: str = "sequential"
    origin: str | None = None  # file the settings came from

    def path_of(self, kind: str) -> str:
        return self.paths[kind]


CONFIG_FILES = (".rehydrate.toml", "pyproject.toml")


def load_config(root: Path) -> Config:
    """Read settings from the work tree at ``root``; invalid settings are errors."""
    texts: dict[str, bytes | None] = {}
    for name in CONFIG_FILES:
        path = root / name
        texts[name] = path.read_bytes() if path.is_file() else None
    return config_from_files(texts)


def config_from_files(texts: Mapping[str, bytes | None]) -> Config:
    """Settings from the bytes of ``.rehydrate.toml`` and ``pyproject.toml`` (None: absent).

    The guard uses this on the files as committed and as staged, so that a change of
    settings (a ledger moved by configuration) is judged like any other change.
    """
    found: list[tuple[str, dict[str, Any]]] = []
    dotfile = texts.get(".rehydrate.toml")
    if dotfile is not None:
        data = _load_toml(dotfile, ".rehydrate.toml")
        found.append((".rehydrate.toml", data.get("tool", {}).get("rehydrate", data)))
    pyproject = texts.get("pyproject.toml")
    if pyproject is not None and b"rehydrate" in pyproject:  # skip TOML when it cannot apply
        table = _load_toml(pyproject, "pyproject.toml").get("tool", {}).get("rehydrate")
        if table is not None:
            found.append(("pyproject.toml", table))
    if not found:
        return Config()
    if len(found) > 1:
        raise ConfigError(
            "settings in both .rehydrate.toml and pyproject.toml [tool.rehydrate]",
            file=".rehydrate.toml", code="config_ambiguous", fix="keep one of the two",
        )
    origin, table = found[0]
    return _validate(table, origin)


def staged_settings(repo: Any) -> tuple[Config, Config]:
    """(settings as committed in HEAD, settings as staged in the index): one ``git cat-file``.

    The guard decides which files are ledgers from these, never from the work tree, whose
    settings file could point it elsewhere.
    """
    from .git import read_specs

    specs = [f"HEAD:{name}" for name in CONFIG_FILES] + [f":{name}" for name in CONFIG_FILES]
    got = read_specs(repo, specs)
    old = config_from_files({name: got[f"HEAD:{name}"] for name in CONFIG_FILES})
    new = config_from_files({name: got[f":{name}"] for name in CONFIG_FILES})
    return old, new


def settings_changed(old: Config, new: Config) -> bool:
    """Whether the ledger paths or the aliases differ (what decides what a ledger is)."""
    return (dict(old.paths), dict(old.section_aliases), dict(old.column_aliases)) != (
        dict(new.paths), dict(new.section_aliases), dict(new.column_aliases))


def _load_toml(data: bytes, name: str) -> dict[str, Any]:
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"not valid TOML: {exc}", file=name, code="config_invalid",
            fix="fix the TOML syntax",
        ) from None


def _validate(table: Mapping[str, Any], origin: str) -> Config:
    if not isinstance(table, dict):
        raise ConfigError("[tool.rehydrate] must be a table", file=origin, code="config_invalid")
    values: dict[str, Any] = {"origin": origin}
    for key, raw in table.items():
        if key == "ledgers":
            values["paths"] = _paths(raw, origin)
        elif key == "aliases":
            values["section_aliases"], values["column_aliases"] = _aliases(raw, origin)
        elif key in _SCALARS:
            kind = _SCALARS[key][0]
            if not isinstance(raw, kind) or (kind is int and isinstance(raw, bool)):
                raise ConfigError(
                    f"{key} must be a {kind.__name__}, not {raw!r}", file=origin,
                    code="config_invalid", fix=f"set {key} to a {kind.__name__}",
                )
            if kind is int and raw <= 0:
                raise ConfigError(f"{key} must be positive", file=origin, code="config_invalid")
            values[key] = raw
        else:
            raise ConfigError(
                f"unknown setting {key!r}", file=origin, code="config_invalid",
                fix="known settings: ledgers, aliases, " + ", ".join(sorted(_SCALARS)),
            )
    if values.get("id_scheme", "sequential") not in ("sequential", "branch-safe"):
        raise ConfigError(
            "id_scheme must be 'sequential' or 'branch-safe'", file=origin, code="config_invalid"
        )
    return Config(**values)


def _paths(raw: Any, origin: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise ConfigError("ledgers must be a table", file=origin, code="config_invalid")
    paths = dict(DEFAULT_PATHS)
    for kind, value in raw.items():
        if kind not in DEFAULT_PATHS:
            raise ConfigError(
                f"unknown ledger {kind!r}", file=origin, code="config_invalid",
                fix="ledgers are: spec, task, failures",
            )
        paths[kind] = safe_relpath(value, origin)
    if len(set(paths.values())) != len(paths):
        raise ConfigError("two ledgers share one path", file=origin, code="config_invalid")
    return paths


def safe_relpath(value: Any, origin: str) -> str:
    """A repository-relative POSIX path that cannot leave the repository."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"path {value!r} must be a non-empty string", file=origin,
                          code="config_invalid")
    path = PurePosixPath(value.replace("\\", "/"))
    parts = [p for p in path.parts if p not in ("", ".")]
    if path.is_absolute() or ".." in parts or not parts or parts[0] == ".git":
        raise ConfigError(
            f"path {value!r} leaves the repository", file=origin, code="path_outside_repo",
            fix="use a path relative to the repository root, without '..'",
        )
    return "/".join(parts)


def _known_columns() -> frozenset[str]:
    # Imported here: the ledger parser is not needed to read settings, and the
    # pre-commit hook's no-ledger-staged path should not pay for importing it.
    from .ledgers.model import KNOWN_COLUMNS

    return KNOWN_COLUMNS


def _aliases(raw: Any, origin: str) -> tuple[dict[str, str], dict[str, str]]:
    if not isinstance(raw, dict):
        raise ConfigError("aliases must be a table", file=origin, code="config_invalid")
    sections: dict[str, str] = {}
    columns: dict[str, str] = {}
    for group, target, known in (("sections", sections, KNOWN_SECTIONS),
                                 ("columns", columns, _known_columns())):
        entries = raw.get(group, {})
        if not isinstance(entries, dict):
            raise ConfigError(f"aliases.{group} must be a table", file=origin,
                              code="config_invalid")
        for alias, canonical in entries.items():
            name = str(canonical).strip().lower()
            if name not in known:
                raise ConfigError(
                    f"aliases.{group}: {alias!r} points at unknown {group[:-1]} {canonical!r}",
                    file=origin, code="config_invalid",
                    fix="known: " + ", ".join(sorted(known)),
                )
            target[" ".join(alias.split()).lower()] = name
    unknown = set(raw) - {"sections", "columns"}
    if unknown:
        raise ConfigError(f"unknown alias group(s) {sorted(unknown)}", file=origin,
                          code="config_invalid", fix="use aliases.sections and aliases.columns")
    return sections, columns
