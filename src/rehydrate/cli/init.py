"""``rehydrate init``."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import click

from ..agents.runtimes import RUNTIMES
from ..errors import EXIT_OK
from ..typecheck import TYPE_CHECKING
from ._common import action_line, note, open_repo

if TYPE_CHECKING:
    from .. import git


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
    touched: list[str] = []  # repository files this run created or changed

    def said(what: str, path: str) -> None:
        note(action_line(what, path))
        if what in CHANGED:
            touched.append(path)

    scaffold = init_repo(repo, config, ledger_dir, write_config)
    for action in scaffold:
        said(action.what, action.path)
    if not no_hook:
        from ..guard.managers import install_guard

        wiring = install_guard(repo)
        for hook in wiring.actions:
            said(hook.what, hook.path)
        for line in wiring.notes:
            note(line)
    from ..config import load_config
    from ..merge.driver import ATTRIBUTES, register_merge_driver

    for line in register_merge_driver(repo, load_config(repo.root)):  # docs/merging.md
        note(line)
        if line.split(" ", 1)[0] in CHANGED and line.split()[1].rstrip(":") == ATTRIBUTES:
            touched.append(ATTRIBUTES)
    wanted = sorted({*agents, *(["claude"] if claude else [])})
    if wanted:
        from ..launchline import record

        note(record(repo))  # the interpreter the committed launch lines run in this clone
    for name in wanted:
        _install_agent(name, repo.root, said)
        if name == "claude":
            from ..writers.scaffold import claude_section

            section = claude_section(repo, config, ledger_dir)
            said(section.what, section.path)
    note(next_step(repo, [a.path for a in scaffold[:3] if a.what == "created"], touched))
    return EXIT_OK


CHANGED = ("created", "updated", "appended")
WRITERS = (
    '(`rehydrate task objective "..."`, `rehydrate task phase add --phase "..."`, '
    "`rehydrate spec constraint add ...`; AGENTS.md lists them all, and `rehydrate demo` "
    "shows filled-in ledgers); `rehydrate prompt` builds a session's context."
)


def next_step(repo: git.Repo, ledgers: list[str], touched: list[str]) -> str:
    """What to commit now: the files this run created or changed that git would track (not
    .git/ hooks, not ignored files), and the empty ledgers only when it created them."""
    from .. import git

    paths = list(dict.fromkeys(p for p in touched if not p.startswith(".git/")))
    if paths:
        ignored = git.check_ignore(repo, paths)
        skip = set(ignored.decode("utf-8", "surrogateescape").splitlines())
        paths = [p for p in paths if p not in skip]
    add = f" (git add {' '.join(shlex.quote(p) for p in paths)})" if paths else ""
    if ledgers:
        return f"next: commit the empty ledgers and what changed{add}, then record the task " + (
            f"with the writers {WRITERS}"
        )
    if paths:
        return (
            f"next: commit what changed{add}; the ledgers were already there, so nothing "
            "else needs doing"
        )
    return "nothing changed: the ledgers and the wiring were already in place"


def _install_agent(name: str, root: Path, said: Callable[[str, str], None]) -> None:
    """Wire runtime ``name`` with this interpreter, by absolute path; say what it needs."""
    from ..agents.mcp_config import register
    from ..agents.runtimes import installer
    from ..launchline import interpreter

    items = installer(name)(root, interpreter())
    for item in [*items, *filter(None, [register(root, name)])]:  # docs/mcp.md
        said(item.what, item.path)
        if item.note:
            note(f"{'':<9} {RUNTIMES[name].title}: {item.note}")
