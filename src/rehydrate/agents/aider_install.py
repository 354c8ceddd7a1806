"""Wiring rehydrate into Aider (no hooks): ``.aider.conf.yml`` reads the three ledgers
into every chat and makes Aider's own commits run the git hooks.

Aider (0.86, its configuration reference) has no hook around a shell command, a stop
or a summarisation. What it offers: ``read:`` files added read-only to every chat (the
ledgers, re-read each turn), and ``git-commit-verify: true`` (off by default: Aider
commits with ``--no-verify``), so the pre-commit guard runs on the commits it makes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..errors import RehydrateError
from .runtimes import Installed

CONFIG_FILE = ".aider.conf.yml"


def wanted(root: Path) -> list[str]:
    from ..config import load_config

    config = load_config(root)
    return [config.path_of(k) for k in ("spec", "task", "failures")]


def read_config(root: Path) -> dict[str, object] | None:
    """``.aider.conf.yml`` as a mapping; None when it does not exist."""
    from ..ledgers import yamlsafe
    from ..ledgers.atomicfile import read_at, repo_dir

    with repo_dir(root, CONFIG_FILE) as (fd, name):
        raw = read_at(fd, name)
    if raw is None:
        return None
    try:
        data = yamlsafe.load(raw.decode("utf-8"), typed=True) if raw.strip() else {}
    except (yamlsafe.YAMLInputError, UnicodeDecodeError) as exc:
        raise RehydrateError(
            f"{CONFIG_FILE} cannot be read ({exc})",
            file=CONFIG_FILE,
            code="settings_invalid",
            fix="fix it; rehydrate never overwrites it",
        ) from None
    if not isinstance(data, dict):
        raise RehydrateError(
            f"{CONFIG_FILE} is not a mapping",
            file=CONFIG_FILE,
            code="settings_invalid",
            fix="fix it; rehydrate never overwrites it",
        )
    return data


def missing(data: Mapping[str, object], ledgers: list[str]) -> tuple[list[str], bool]:
    """(ledgers not in ``read:``, whether ``git-commit-verify`` is not true)."""
    read = data.get("read")
    listed = [read] if isinstance(read, str) else read if isinstance(read, list) else []
    return [p for p in ledgers if p not in listed], data.get("git-commit-verify") is not True


def install_agent(root: Path, python: str) -> list[Installed]:
    """Add the ledgers to ``read:`` and set ``git-commit-verify: true``, keeping every
    other setting (``python`` is unused: Aider runs no rehydrate command)."""
    from ..ledgers import yamlsafe
    from .config_merge import write_text

    ledgers = wanted(root)
    current = read_config(root)
    data = dict(current or {})
    absent, verify_off = missing(data, ledgers)
    if current is not None and not absent and not verify_off:
        return [Installed("unchanged", CONFIG_FILE)]
    read = data.get("read")
    listed = [read] if isinstance(read, str) else list(read) if isinstance(read, list) else []
    data["read"] = listed + absent
    data["git-commit-verify"] = True
    note = "comments in it are not kept" if current else ""
    what = write_text(root, CONFIG_FILE, yamlsafe.dump(data), current is not None)
    return [Installed(what, CONFIG_FILE, note)]
