"""Configuration: ``.rehydrate.toml`` or ``[tool.rehydrate]`` in ``pyproject.toml``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from .errors import ConfigError
from .records import NamedTuple
from .typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from .git import Repo

DEFAULT_PATHS: Mapping[str, str] = MappingProxyType(
    {
        "spec": "docs/Spec.md",
        "task": "docs/Task.md",
        "failures": "docs/Failed_Attempts.md",
    }
)
_NO_ALIASES: Mapping[str, str] = MappingProxyType({})
KNOWN_SECTIONS = frozenset(
    {
        "constraints",
        "contracts",
        "decisions",
        "phases",
        "next action",
        "obligations",
        "external writes",
        "approvals",
        "verified",
        "completion checks",
        "rollback",
        "retired",
        "failures",
    }
)
# key -> (type, upper bound for ints); the defaults are Config's. Tables (ledgers, aliases)
# are handled apart, and a key here must be a field of Config (tests/test_config.py).
_SCALARS: Mapping[str, tuple[type[int | str | bool], int | None]] = {
    "prompt_template": (str, None),
    "diff_lines": (int, 1_000_000),
    "max_tokens": (int, 100_000_000),
    "max_ledger_bytes": (int, 1024 * 1024 * 1024),
    "record_events": (bool, None),
    "id_scheme": (str, None),
}
ID_SCHEMES = ("sequential", "branch-safe")
MAX_PATH_CHARS = 1024
MAX_CONFIG_BYTES = 1024 * 1024
MAX_ALIASES = 256
MAX_ALIAS_CHARS = 100


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
    """Read settings from the work tree at ``root``; invalid settings are errors.

    Beyond ``config_from_files``' checks, every configured path must stay inside the
    repository once symlinks are followed (``path_outside_repo``).
    """
    texts: dict[str, bytes | None] = {}
    from .readlimit import read_file

    for name in CONFIG_FILES:
        path = root / name
        try:  # type and size checked before reading (a FIFO, /dev/zero, 10 GB: refused)
            texts[name] = read_file(
                path,
                MAX_CONFIG_BYTES,
                name,
                too_large=ConfigError,
                code="config_invalid",
                fix="keep the settings file small",
            )
        except FileNotFoundError:
            texts[name] = None
        except OSError as exc:
            raise ConfigError(
                f"cannot read: {exc.strerror}",
                file=name,
                code="config_unreadable",
                fix="check the file's permissions",
            ) from None
    config = config_from_files(texts)
    if config.origin is not None:
        _check_resolved(root, config)
    return config


def _check_resolved(root: Path, config: Config) -> None:
    import os

    real_root = os.path.realpath(root)
    settings = [
        (f"ledgers.{kind}", path)
        for kind, path in config.paths.items()
        if path != DEFAULT_PATHS[kind]
    ]
    if config.prompt_template is not None:
        settings.append(("prompt_template", config.prompt_template))
    for key, relpath in settings:
        real = os.path.realpath(os.path.join(real_root, relpath))
        if os.path.commonpath([real, real_root]) != real_root:
            raise ConfigError(
                f"{key} = {relpath!r} resolves outside the repository through a symlink",
                file=config.origin,
                code="path_outside_repo",
                fix=f"point {key} at a file inside the repository, or replace the symlink "
                "with a real directory",
            )


def config_from_files(texts: Mapping[str, bytes | None]) -> Config:
    """Settings from the bytes of ``.rehydrate.toml`` and ``pyproject.toml`` (None: absent).

    The guard uses this on the files as committed and as staged, so that a change of
    settings (a ledger moved by configuration) is judged like any other change.
    """
    found: list[tuple[str, dict[str, object]]] = []
    dotfile = texts.get(".rehydrate.toml")
    if dotfile is not None:
        data = _load_toml(dotfile, ".rehydrate.toml")
        tool = _subtable(data, "tool", ".rehydrate.toml")
        table = _subtable(tool, "rehydrate", ".rehydrate.toml", "tool.") if tool else None
        found.append((".rehydrate.toml", data if table is None else table))
    pyproject = texts.get("pyproject.toml")
    if pyproject is not None and b"rehydrate" in pyproject:  # skip TOML when it cannot apply
        data = _load_toml(pyproject, "pyproject.toml")
        tool = _subtable(data, "tool", "pyproject.toml")
        table = _subtable(tool, "rehydrate", "pyproject.toml", "tool.") if tool else None
        if table is not None:
            found.append(("pyproject.toml", table))
    if not found:
        return Config()
    if len(found) > 1:
        raise ConfigError(
            "settings in both .rehydrate.toml and pyproject.toml [tool.rehydrate]",
            file=".rehydrate.toml",
            code="config_ambiguous",
            fix="keep one of the two",
        )
    origin, table = found[0]
    return _validate(table, origin)


def staged_settings(repo: Repo) -> tuple[Config, Config]:
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
    """Whether the ledger paths, the aliases (what decides what a ledger is) or the prompt
    template (the instructions every fresh session gets) differ."""
    return (
        dict(old.paths),
        dict(old.section_aliases),
        dict(old.column_aliases),
        old.prompt_template,
    ) != (dict(new.paths), dict(new.section_aliases), dict(new.column_aliases), new.prompt_template)


def _invalid(message: str, origin: str, fix: str) -> ConfigError:
    """The error for a setting that cannot be used (``config_invalid``), to be raised."""
    return ConfigError(message, file=origin, code="config_invalid", fix=fix)


def _load_toml(data: bytes, name: str) -> dict[str, object]:
    import tomllib

    if len(data) > MAX_CONFIG_BYTES:
        raise _invalid(
            f"larger than {MAX_CONFIG_BYTES // 1024} KiB", name, "keep the settings file small"
        )
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError, ValueError) as exc:
        # RecursionError: deeply nested arrays; ValueError: an integer of thousands of digits.
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise _invalid(f"not valid TOML: {detail[:200]}", name, "fix the TOML syntax") from None


def _subtable(
    data: Mapping[str, object], key: str, origin: str, prefix: str = ""
) -> dict[str, object] | None:
    """``data[key]`` when it is a table, None when absent; anything else is an error."""
    value = data.get(key)
    if value is None or isinstance(value, dict):
        return value
    raise _invalid(
        f"{prefix}{key} must be a table, not {type(value).__name__}",
        origin,
        f"write it as a [{prefix}{key}] table",
    )


def _validate(table: object, origin: str) -> Config:
    if not isinstance(table, dict):
        raise _invalid(
            "[tool.rehydrate] must be a table",
            origin,
            "write the settings under a [tool.rehydrate] table",
        )
    paths: Mapping[str, str] = DEFAULT_PATHS
    sections: Mapping[str, str] = _NO_ALIASES
    columns: Mapping[str, str] = _NO_ALIASES
    ints: dict[str, int] = {}
    strs: dict[str, str] = {}
    flags: dict[str, bool] = {}
    for key, raw in table.items():
        if key == "ledgers":
            paths = _paths(raw, origin)
        elif key == "aliases":
            sections, columns = _aliases(raw, origin)
        elif key in _SCALARS:
            value = _scalar(key, raw, origin)
            if isinstance(value, bool):
                flags[key] = value
            elif isinstance(value, int):
                ints[key] = value
            else:
                strs[key] = value
        else:
            raise _invalid(
                f"unknown setting {_shown(key)}",
                origin,
                "known settings: ledgers, aliases, " + ", ".join(sorted(_SCALARS)),
            )
    base = Config()
    return Config(
        paths=paths,
        section_aliases=sections,
        column_aliases=columns,
        prompt_template=strs.get("prompt_template", base.prompt_template),
        diff_lines=ints.get("diff_lines", base.diff_lines),
        max_tokens=ints.get("max_tokens", base.max_tokens),
        max_ledger_bytes=ints.get("max_ledger_bytes", base.max_ledger_bytes),
        record_events=flags.get("record_events", base.record_events),
        id_scheme=strs.get("id_scheme", base.id_scheme),
        origin=origin,
    )


def _scalar(key: str, raw: object, origin: str) -> int | str | bool:
    kind, bound = _SCALARS[key]
    if not isinstance(raw, kind) or (kind is int and isinstance(raw, bool)):
        wanted = _TYPE_NAMES[kind]
        raise _invalid(
            f"{key} must be {wanted}, not {_TOML_NAMES.get(type(raw), type(raw).__name__)}",
            origin,
            f"set {key} to {wanted}",
        )
    if isinstance(raw, int) and bound is not None and not 0 < raw <= bound:
        raise _invalid(
            f"{key} = {raw} is out of range", origin, f"set {key} between 1 and {bound:,}"
        )
    if key == "prompt_template":
        return safe_relpath(raw, origin, key)
    if key == "id_scheme" and isinstance(raw, str) and raw not in ID_SCHEMES:
        raise _invalid(
            f"id_scheme {_shown(raw)} is unknown", origin, "use 'sequential' or 'branch-safe'"
        )
    return raw


_TYPE_NAMES: Mapping[type, str] = {int: "an integer", str: "a string", bool: "true or false"}
_TOML_NAMES: Mapping[type, str] = {
    int: "an integer",
    str: "a string",
    bool: "a boolean",
    float: "a float",
    list: "an array",
    dict: "a table",
}


def _shown(value: str) -> str:
    """A user-supplied name for a message: quoted, bounded."""
    return repr(value if len(value) <= 60 else value[:60] + "…")


def _paths(raw: object, origin: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise _invalid(
            "ledgers must be a table",
            origin,
            "write it as a [ledgers] table of spec/task/failures paths",
        )
    paths = dict(DEFAULT_PATHS)
    for kind, value in raw.items():
        if kind not in DEFAULT_PATHS:
            raise _invalid(
                f"unknown ledger {_shown(kind)}",
                origin,
                "ledgers are: spec, task, failures",
            )
        paths[kind] = safe_relpath(value, origin, f"ledgers.{kind}")
    if len(set(paths.values())) != len(paths):
        raise _invalid(
            "two ledgers share one path",
            origin,
            "give each ledger its own file",
        )
    return paths


def safe_relpath(value: object, origin: str, key: str = "path") -> str:
    """A repository-relative POSIX path that cannot leave the repository (lexically)."""
    if not isinstance(value, str) or not value.strip():
        raise _invalid(
            f"{key} must be a non-empty string",
            origin,
            f"set {key} to a repository-relative path",
        )
    if len(value) > MAX_PATH_CHARS or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise _invalid(
            f"{key} is too long or holds control characters",
            origin,
            f"set {key} to a plain relative path",
        )
    path = PurePosixPath(value.replace("\\", "/"))
    parts = [p for p in path.parts if p not in ("", ".")]
    if (
        path.is_absolute()
        or ".." in parts
        or not parts
        or parts[0].lower() == ".git"
        or (len(parts[0]) >= 2 and parts[0][1] == ":")
    ):
        raise ConfigError(
            f"{key} = {_shown(value)} leaves the repository",
            file=origin,
            code="path_outside_repo",
            fix=f"set {key} to a path relative to the repository root, without '..'",
        )
    return "/".join(parts)


def _known_columns() -> frozenset[str]:
    # Imported here: the ledger parser is not needed to read settings, and the
    # pre-commit hook's no-ledger-staged path should not pay for importing it.
    from .ledgers.model import KNOWN_COLUMNS

    return KNOWN_COLUMNS


def _aliases(raw: object, origin: str) -> tuple[dict[str, str], dict[str, str]]:
    if not isinstance(raw, dict):
        raise _invalid(
            "aliases must be a table",
            origin,
            "use [aliases.sections] and [aliases.columns] tables",
        )
    unknown = set(raw) - {"sections", "columns"}
    if unknown:
        raise _invalid(
            f"unknown alias group(s) {sorted(unknown)}",
            origin,
            "use aliases.sections and aliases.columns",
        )
    sections: dict[str, str] = {}
    columns: dict[str, str] = {}
    for group, target, known in (
        ("sections", sections, KNOWN_SECTIONS),
        ("columns", columns, _known_columns()),
    ):
        entries = raw.get(group, {})
        if not isinstance(entries, dict):
            raise _invalid(
                f"aliases.{group} must be a table",
                origin,
                f"write it as [aliases.{group}]",
            )
        if len(entries) > MAX_ALIASES:
            raise _invalid(
                f"aliases.{group} has more than {MAX_ALIASES} entries",
                origin,
                "keep the ones you use",
            )
        for alias, canonical in entries.items():
            where = f"aliases.{group}.{_shown(alias)}"
            if not isinstance(canonical, str):
                raise _invalid(
                    f"{where} must be a string, not {type(canonical).__name__}",
                    origin,
                    f"name one {group[:-1]}: " + ", ".join(sorted(known)),
                )
            name = " ".join(canonical.split()).lower()
            key = " ".join(alias.split()).lower()
            if name not in known:
                raise _invalid(
                    f"{where} points at unknown {group[:-1]} {_shown(canonical)}",
                    origin,
                    "known: " + ", ".join(sorted(known)),
                )
            if (
                not key
                or len(key) > MAX_ALIAS_CHARS
                or "|" in key
                or any(ord(c) < 32 or ord(c) == 127 for c in key)
            ):
                raise _invalid(
                    f"{where}: an alias must be 1-{MAX_ALIAS_CHARS} visible characters without '|'",
                    origin,
                    "rename the alias",
                )
            if (key in known and key != name) or target.get(key, name) != name:
                raise _invalid(
                    f"{where} would make {_shown(key)} mean two things",
                    origin,
                    "an alias may not redefine a canonical name or another alias",
                )
            target[key] = name
    return sections, columns
