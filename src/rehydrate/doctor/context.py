"""What every check reads: the repository, its configuration, the environment hooks run
with, and whether an interpreter can run rehydrate (asked once per interpreter)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import git
from ..config import Config
from ..errors import ConfigError

PYTHON_TIMEOUT = 30.0  # seconds for `python -I -c "import rehydrate.cli"`


@dataclass
class Context:
    """One doctor run. ``environ`` stands for the environment the hooks run with: this
    process's, unless a test passes another (PATH, HOME, CLAUDE_CONFIG_DIR)."""

    repo: git.Repo
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    _pythons: dict[str, str | None] = field(default_factory=dict)
    _config: Config | ConfigError | None = None
    _recorded: list[str | None] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.repo.root

    def config(self) -> Config | ConfigError:
        """The configuration, or why it cannot be read (the ledgers check reports that)."""
        if self._config is None:
            from ..config import load_config

            try:
                self._config = load_config(self.root)
            except ConfigError as exc:
                self._config = exc
        return self._config

    def claude_home(self) -> Path:
        """Claude Code's user folder: $CLAUDE_CONFIG_DIR, else ~/.claude."""
        chosen = self.environ.get("CLAUDE_CONFIG_DIR")
        if chosen:
            return Path(chosen)
        home = self.environ.get("HOME")
        return (Path(home) if home else Path.home()) / ".claude"

    def which(self, name: str) -> str | None:
        """``name`` looked up on this environment's PATH."""
        return shutil.which(name, path=self.environ.get("PATH", os.defpath))

    def shown(self, path: Path) -> str:
        """``path`` relative to the repository when it is inside it."""
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def recorded_python(self) -> str | None:
        """This clone's git config ``rehydrate.python`` (the portable lines run it)."""
        if not self._recorded:
            from ..launchline import recorded

            self._recorded.append(recorded(self.repo))
        return self._recorded[0]

    def shared(self, relpath: str) -> bool:
        """Whether every clone gets ``relpath``: in the work tree, and not ignored."""
        if relpath.startswith(".git/") or os.path.isabs(relpath):
            return False
        return not git.is_ignored(self.repo, relpath)

    def python_problem(self, python: str) -> str | None:
        """Why ``python -I -m rehydrate`` cannot run (None: it can)."""
        if python not in self._pythons:
            self._pythons[python] = self._probe(python)
        return self._pythons[python]

    def _probe(self, python: str) -> str | None:
        found = python if os.sep in python else self.which(python)
        if found is None or not os.path.exists(found):
            return f"{python} does not exist"
        if not os.path.isfile(found) or not os.access(found, os.X_OK):
            return f"{python} is not an executable file"
        return self.import_problem(found, "rehydrate.cli", "rehydrate")

    def import_problem(self, python: str, module: str, what: str) -> str | None:
        """Why ``python`` cannot import ``module`` (None: it can), asked isolated (``-I``):
        asked with ``-c`` alone, the repository's own rehydrate.py would answer."""
        try:
            done = subprocess.run(
                [python, "-I", "-c", f"import {module}"],
                capture_output=True,
                timeout=PYTHON_TIMEOUT,
                stdin=subprocess.DEVNULL,
                env=dict(self.environ),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{python} cannot be run ({exc})"
        if done.returncode == 0:
            return None
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{python} cannot import {what} ({said[-1] if said else f'exit {done.returncode}'})"
