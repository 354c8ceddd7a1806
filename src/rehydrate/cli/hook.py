"""``rehydrate hook``: a lazy group of hook subcommands (``install``, ``uninstall``, ...).

Subcommands live in ``SUBCOMMANDS`` (name -> "module:attribute" under
``rehydrate.cli``), like the top-level ``COMMANDS``, imported only when used. Every
runtime with hook events in ``RUNTIMES`` (agents/runtimes.py) gets its group from
``cli/_hook_adapter.py``; a runtime with a command of its own names its module here
(``"codex": "hook_codex:group"``).
"""

from __future__ import annotations

import click

from ..agents.runtimes import RUNTIMES
from ..errors import EXIT_OK
from . import LazyGroup

SUBCOMMANDS: dict[str, str] = {
    "install": "hook:install",
    "uninstall": "hook:uninstall",
    # one group per runtime with hook events, built from its RUNTIMES row
    **{name: "_hook_adapter:runtime_group" for name, info in RUNTIMES.items() if info.hooks},
    "codex": "hook_codex:group",  # its events, and its own `trust`
}


@click.group("hook", cls=LazyGroup, lazy_commands=SUBCOMMANDS)
def group() -> None:
    """Install or remove git hooks (and agent-runtime hook adapters)."""


@click.command("install", short_help="Install the guard as git hooks (chains existing ones).")
@click.option(
    "--force",
    is_flag=True,
    help="Replace an existing hook instead of chaining it (kept as a backup).",
)
def install(force: bool) -> int:
    """Install the guard hooks (native, or into husky, lefthook or pre-commit's config).

    Also rewrites every launch line of an agent runtime already wired here to the current
    form (isolated, no machine path in a committed file), and records this interpreter.
    """
    from ..git import find_repo
    from ..guard.managers import install_guard
    from ._common import action_line, note

    wiring = install_guard(find_repo(), force=force)
    for action in wiring.actions:
        note(action_line(action.what, action.path))
    for line in wiring.notes:
        note(line)
    from ..merge.driver import register_merge_driver
    from ._common import open_repo

    repo, config = open_repo()
    for line in register_merge_driver(repo, config):  # the ledger merge driver, docs/merging.md
        note(line)
    from ..agents.runtimes import installer, wired_runtimes
    from ..launchline import interpreter

    for name in wired_runtimes(repo.root):  # their launch lines, rewritten to the current form
        for item in installer(name)(repo.root, interpreter()):
            note(action_line(item.what, item.path) + f" ({RUNTIMES[name].title})")
    return EXIT_OK


@click.command("uninstall", short_help="Remove the guard hooks; restore what they chained.")
def uninstall() -> int:
    """Remove the guard hooks and restore any hook they chained or replaced."""
    from ..git import find_repo
    from ..guard.install import uninstall as do_uninstall
    from ..guard.managers import uninstall as unwire
    from ._common import action_line, note

    repo = find_repo()
    for action in [*do_uninstall(repo), *unwire(repo)]:
        note(action_line(action.what, action.path))
    return EXIT_OK
