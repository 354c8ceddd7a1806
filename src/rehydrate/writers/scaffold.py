"""``rehydrate init``: scaffold the ledgers and the AGENTS.md section; never overwrite."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config import DEFAULT_PATHS, Config, safe_relpath
from ..errors import ConfigError
from ..git import Repo
from ..ledgers import KINDS
from ..ledgers.atomicfile import resolves_inside, write_in_repo
from ..readlimit import read_text
from .templates import LEDGER_TEMPLATES, read_template

AGENTS_BEGIN = "<!-- rehydrate:begin -->"
AGENTS_END = "<!-- rehydrate:end -->"


@dataclass(frozen=True)
class Action:
    path: str
    what: str  # "created" | "kept" | "appended"


def plan_paths(config: Config, ledger_dir: str | None) -> dict[str, str]:
    """Ledger paths for init: the configured ones, or DIR/<default name> with --dir."""
    if ledger_dir is None:
        return dict(config.paths)
    folder = safe_relpath(ledger_dir, "--dir")
    paths = {k: f"{folder}/{LEDGER_TEMPLATES[k]}" for k in KINDS}
    if config.origin and dict(config.paths) != paths:
        raise ConfigError(
            f"--dir {ledger_dir} disagrees with the ledger paths in {config.origin}",
            file=config.origin,
            code="config_conflict",
            fix="drop --dir, or change [ledgers] in the configuration",
        )
    return paths


def _new_in_repo(repo: Repo, relpath: str, text: str) -> bool:
    """Create ``relpath`` atomically unless it exists, never through a symlink."""
    return write_in_repo(repo.root, relpath, text.encode("utf-8"), create_dirs=True, exclusive=True)


def _refuse_escape(repo: Repo, relpath: str) -> Path:
    if not resolves_inside(repo.root, relpath):
        raise ConfigError(
            f"{relpath} resolves outside the repository",
            file=relpath,
            code="path_outside_repo",
            fix="remove the symlink",
        )
    return repo.root / relpath


def init_repo(
    repo: Repo, config: Config, ledger_dir: str | None = None, write_config: bool = False
) -> list[Action]:
    """Create what is missing; report what was kept. Idempotent."""
    paths = plan_paths(config, ledger_dir)
    actions: list[Action] = []
    for kind in KINDS:
        target = _refuse_escape(repo, paths[kind])
        made = (
            not target.exists()
            and not target.is_symlink()
            and _new_in_repo(repo, paths[kind], read_template(LEDGER_TEMPLATES[kind]))
        )
        actions.append(Action(paths[kind], "created" if made else "kept"))
    if (write_config or paths != dict(DEFAULT_PATHS)) and config.origin is None:
        lines = ["# rehydrate settings (see docs/configuration.md)", "[ledgers]"]
        lines += [f'{k} = "{paths[k]}"' for k in KINDS]
        _refuse_escape(repo, ".rehydrate.toml")
        made = _new_in_repo(repo, ".rehydrate.toml", "\n".join(lines) + "\n")
        actions.append(Action(".rehydrate.toml", "created" if made else "kept"))
    actions.append(_agents_section(repo, paths))
    return actions


def claude_section(repo: Repo, config: Config, ledger_dir: str | None = None) -> Action:
    """The same working-protocol section, between the same markers, in CLAUDE.md."""
    return _agents_section(repo, plan_paths(config, ledger_dir), "CLAUDE.md", "Claude")


def _agents_section(
    repo: Repo, paths: dict[str, str], name: str = "AGENTS.md", title: str = "Agents"
) -> Action:
    body = read_template("AGENTS.md")
    for kind in KINDS:
        body = body.replace("{" + kind + "}", paths[kind])
    block = f"{AGENTS_BEGIN}\n{body.rstrip()}\n{AGENTS_END}\n"
    target = _refuse_escape(repo, name)
    if _new_in_repo(repo, name, f"# {title}\n\n" + block):
        return Action(name, "created")
    current = read_text(target)
    if AGENTS_BEGIN in current:
        return Action(name, "kept")
    sep = "" if current.endswith("\n\n") else ("\n" if current.endswith("\n") else "\n\n")
    write_in_repo(repo.root, name, (current + sep + block).encode("utf-8"))
    return Action(name, "appended")
