"""What a range or server check could not judge: a tip with no ledger at the default
paths (the ledgers live elsewhere and no settings file says where), or a configured path
that matches nothing. Said on stderr, never passed in silence."""

from __future__ import annotations

from ..config import Config
from ..git import Repo, tree_entries


def unjudged(repo: Repo, ref: str, tip: str, config: Config) -> list[str]:
    """Warnings for ``tip`` (of ``ref``) under the settings in force there, ``config``."""
    found = tree_entries(repo, tip, list(config.paths.values()))
    missing = sorted(p for p in config.paths.values() if p not in found)
    if not missing:
        return []
    where = f"warning: {ref} at {tip[:12]}"
    if config.paths == Config().paths:
        if len(missing) < len(config.paths):
            return []
        bare = (
            f" or put one in the bare repository ({repo.git_dir})"
            if repo.root == repo.git_dir
            else ""
        )
        return [
            f"{where}: no ledger at the default paths ({', '.join(missing)}): nothing was "
            f"judged; if the ledgers live elsewhere, commit a .rehydrate.toml naming them{bare}"
        ]
    return [
        f"{where}: the configured ledger path {path} matches nothing: that ledger was not "
        "judged; fix the path in the settings"
        for path in missing
    ]
