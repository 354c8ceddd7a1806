"""``rehydrate init``."""

from __future__ import annotations

import click

from ._common import note, open_repo


@click.command("init")
@click.option("--dir", "ledger_dir", metavar="DIR", default=None,
              help="Folder for the three ledgers (default: docs).")
@click.option("--config", "write_config", is_flag=True,
              help="Also write a .rehydrate.toml with the ledger paths.")
def command(ledger_dir: str | None, write_config: bool) -> int:
    """Scaffold the three ledgers and an AGENTS.md section; never overwrites."""
    from ..scaffold import init_repo

    repo, config = open_repo()
    for action in init_repo(repo, config, ledger_dir, write_config):
        note(f"{action.what:>8}  {action.path}")
    note("next: fill in the ledgers (edit or drop the example rows before the first commit), "
         "then `git add` them and commit; `rehydrate prompt` builds a session's context.")
    return 0
