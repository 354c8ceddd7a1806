"""``rehydrate hook codex``: the Codex CLI events (from its ``RUNTIMES`` row), and
``rehydrate hook codex trust``, which trusts them in $CODEX_HOME/config.toml."""

from __future__ import annotations

import click

from ..errors import EXIT_OK
from ._hook_adapter import runtime_group


@click.command("trust", short_help="Trust this project and its hooks in $CODEX_HOME/config.toml.")
def trust() -> int:
    """Trust this project and its rehydrate hooks in $CODEX_HOME/config.toml (Codex runs
    untrusted project hooks silently never)."""
    from ..agents.codex_install import codex_home
    from ..agents.codex_install import trust as do_trust
    from ._common import action_line, note, open_repo

    repo, _ = open_repo()
    home = codex_home()
    changed, written = do_trust(repo.root, home)
    for entry in written:
        note(action_line("trusted", f"{entry.event}: {entry.command}"))
    if changed:
        note(action_line("trusted", f"project {repo.root}"))
    note(action_line("updated" if changed else "unchanged", str(home / "config.toml")))
    return EXIT_OK


group = runtime_group("codex", [trust])
