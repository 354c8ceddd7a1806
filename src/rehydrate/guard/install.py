"""Native git hooks that run ``rehydrate guard --staged``: install, chain, uninstall.

The hook directory is whatever git uses (``git rev-parse --git-path hooks``, so
``core.hooksPath`` is respected, relative to the repository root). An existing
hook that is not ours is kept running: it is renamed to ``<hook>.rehydrate-chained``
and called first, and its failure stops the commit. ``--force`` replaces it instead
(kept as ``<hook>.rehydrate-replaced``). Uninstalling puts either back.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from .. import git
from ..errors import EXIT_USAGE, RehydrateError
from ..readlimit import read_text

HOOKS = ("pre-commit", "pre-merge-commit")
MARKER = "# rehydrate-guard-hook v1"
CHAINED = ".rehydrate-chained"
REPLACED = ".rehydrate-replaced"


@dataclass(frozen=True)
class HookAction:
    path: str
    what: str  # installed | updated | kept | chained | replaced | removed | restored | absent


def hooks_dir(repo: git.Repo) -> Path:
    """Where git looks for hooks in this repository (core.hooksPath included)."""
    out = git.git_path(repo, "hooks").strip()
    path = Path(out)
    return path if path.is_absolute() else repo.root / path


def guard_command() -> list[str]:
    """The rehydrate that installs the hook, by absolute path and isolated (``-I``: nothing
    in the repository or in PYTHON* variables is imported; launchline.py)."""
    from ..launchline import argv

    return argv()


def missing_lines(unhook: str) -> list[str]:
    """Shell lines that refuse the commit when no rehydrate can be run, saying why and how
    to reinstall or unhook. ``$rehydrate_py`` holds the interpreter looked for (or empty)."""
    say = [
        "rehydrate guard: commit refused: rehydrate cannot be run. The interpreter that",
        "  'rehydrate hook install' recorded ($rehydrate_py) is not there (a deleted or moved",
        "  virtualenv?, or not recorded in this clone).",
        "  reinstall it from where it came from (pip install 'rehydrate @ git+https://...@SHA',",
        "  docs/integrations/ci.md), then run: rehydrate hook install",
        f"  unhook: {unhook}; skip it once: git commit --no-verify",
    ]
    return [f'echo "{line}" >&2' for line in say] + [f"exit {EXIT_USAGE}"]


def script(hook: str, command: list[str]) -> str:
    """The hook's text: run a chained hook first, then exec the guard (no ledger text in it)."""
    python = shlex.quote(command[0])
    full = " ".join(shlex.quote(c) for c in command)
    chained = shlex.quote(hook + CHAINED)
    missing = "\n".join(missing_lines(f"rehydrate hook uninstall (or delete {hook})"))
    return f"""#!/bin/sh
{MARKER}
# Installed by `rehydrate hook install`; `rehydrate hook uninstall` removes it and puts
# back any hook it chained. Refuses ledger changes that delete, weaken or rewrite.
here=$(dirname -- "$0")
if [ -x "$here"/{chained} ]; then
    "$here"/{chained} "$@" || exit $?
fi
if [ -x {python} ]; then
    exec {full} guard --staged
fi
rehydrate_py={python}
{missing}
"""


def _ours(path: Path) -> bool:
    try:
        return path.is_file() and MARKER in read_text(path, errors="replace")
    except OSError:
        return False


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _write(path: Path, text: str) -> None:
    from ..ledgers.atomicfile import atomic_write

    atomic_write(path, text.encode("utf-8"), mode=0o755)


def install(
    repo: git.Repo, *, force: bool = False, command: list[str] | None = None
) -> list[HookAction]:
    """Install the guard as pre-commit and pre-merge-commit hooks. Idempotent."""
    folder = hooks_dir(repo)
    folder.mkdir(parents=True, exist_ok=True)
    actions = []
    for hook in HOOKS:
        path = folder / hook
        text = script(hook, command or guard_command())
        shown = os.path.relpath(path, repo.root)
        if _ours(path):
            same = read_text(path, errors="replace") == text
            same = same and os.access(path, os.X_OK)  # git skips a hook it cannot execute
            if not same:
                _write(path, text)
            actions.append(HookAction(shown, "kept" if same else "updated"))
            continue
        what = "installed"
        if _exists(path):
            target = folder / (hook + (REPLACED if force else CHAINED))
            if _exists(target):
                raise RehydrateError(
                    f"{hook} exists and so does {target.name}",
                    file=shown,
                    code="hook_conflict",
                    fix=f"merge or remove {target.name} by hand, then run again",
                )
            os.replace(path, target)
            what = "replaced" if force else "chained"
        _write(path, text)
        actions.append(HookAction(shown, what))
    return actions


def uninstall(repo: git.Repo) -> list[HookAction]:
    """Remove our hooks and put back what they chained or replaced."""
    folder = hooks_dir(repo)
    actions = []
    for hook in HOOKS:
        path = folder / hook
        shown = os.path.relpath(path, repo.root)
        if not _ours(path):
            actions.append(HookAction(shown, "absent" if not _exists(path) else "kept"))
            continue
        path.unlink()
        for suffix in (CHAINED, REPLACED):
            saved = folder / (hook + suffix)
            if _exists(saved):
                shutil.move(str(saved), str(path))
                actions.append(HookAction(shown, "restored"))
                break
        else:
            actions.append(HookAction(shown, "removed"))
    return actions
