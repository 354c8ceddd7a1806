"""``rehydrate init``."""

from __future__ import annotations

from pathlib import Path

import click

from ..agents.runtimes import RUNTIMES
from ..errors import EXIT_OK
from ._common import action_line, note, open_repo


@click.command("init")
@click.option(
    "--dir",
    "ledger_dir",
    metavar="DIR",
    default=None,
    help="Folder for the three ledgers (default: docs).",
)
@click.option(
    "--config",
    "write_config",
    is_flag=True,
    help="Also write a .rehydrate.toml with the ledger paths.",
)
@click.option(
    "--no-hook",
    "no_hook",
    is_flag=True,
    help="Do not install the guard as pre-commit / pre-merge-commit hook.",
)
@click.option(
    "--claude",
    is_flag=True,
    help="Also wire the Claude Code hooks (.claude/settings.json) and CLAUDE.md "
    "(same as --agent claude).",
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    type=click.Choice(sorted(RUNTIMES)),
    metavar="NAME",
    help="Also wire agent runtime NAME (repeatable): " + ", ".join(sorted(RUNTIMES)) + ".",
)
def command(
    ledger_dir: str | None,
    write_config: bool,
    no_hook: bool,
    claude: bool,
    agents: tuple[str, ...],
) -> int:
    """Scaffold the three ledgers and an AGENTS.md section; never overwrites."""
    from ..writers.scaffold import init_repo

    repo, config = open_repo()
    for action in init_repo(repo, config, ledger_dir, write_config):
        note(action_line(action.what, action.path))
    if not no_hook:
        from ..guard.managers import install_guard

        wiring = install_guard(repo)
        for hook in wiring.actions:
            note(action_line(hook.what, hook.path))
        for line in wiring.notes:
            note(line)
    from ..config import load_config
    from ..merge.driver import register_merge_driver

    for line in register_merge_driver(repo, load_config(repo.root)):  # docs/merging.md
        note(line)
    wanted = sorted({*agents, *(["claude"] if claude else [])})
    for name in wanted:
        _install_agent(name, repo.root)
        if name == "claude":
            from ..writers.scaffold import claude_section

            section = claude_section(repo, config, ledger_dir)
            note(action_line(section.what, section.path))
    note(
        "next: commit the empty ledgers, then record the task with the writers "
        '(`rehydrate task objective "..."`, `rehydrate task phase add --phase "..."`, '
        "`rehydrate spec constraint add ...`; AGENTS.md lists them all, and `rehydrate demo` "
        "shows filled-in ledgers); `rehydrate prompt` builds a session's context."
    )
    return EXIT_OK


def _install_agent(name: str, root: Path) -> None:
    """Wire runtime ``name`` with this interpreter, by absolute path; say what it needs."""
    import os
    import sys

    from ..agents.mcp_config import register
    from ..agents.runtimes import installer

    items = installer(name)(root, os.path.abspath(sys.executable))
    for item in [*items, *filter(None, [register(root, name)])]:  # docs/mcp.md
        note(action_line(item.what, item.path))
        if item.note:
            note(f"{'':<9} {RUNTIMES[name].title}: {item.note}")
