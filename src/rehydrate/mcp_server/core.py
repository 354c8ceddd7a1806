"""What each MCP tool, resource and prompt answers, from the functions the CLI calls.

Every function takes the repository root the server was started for, opens the
repository and its configuration afresh (a ledger or ``.rehydrate.toml`` edited between
two calls is read as it is now) and returns text: the prompt, or one JSON object as the
matching ``--json`` command prints it. A refusal is the core's ``RehydrateError``, the
same one the CLI turns into its stderr line and exit code; ``server`` turns it into a
tool error. No SDK import here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from .. import git
from ..config import Config, load_config
from ..state import Source
from ..writers.operations import Operation

Builder = Operation | Callable[[git.Repo, Config], Operation]


def open_project(root: Path) -> tuple[git.Repo, Config]:
    """The repository at ``root`` and its configuration, read now."""
    repo = git.find_repo(root)
    return repo, load_config(repo.root)


def dumps(obj: object) -> str:
    """One JSON object exactly as the CLI's ``--json`` prints it (``emit_json``)."""
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def prompt_text(root: Path, worktree: bool = False) -> str:
    """The rehydration prompt, byte for byte what ``rehydrate prompt [--worktree]`` prints.

    Built with the configuration's defaults (``max_tokens``, ``diff_lines``, the protocol
    template), as the command is without options; a ledger that cannot be read raises.
    """
    from ..prompt.build import load_prompt, read_protocol
    from ..prompt.sections import PromptOptions

    repo, head = git.find_repo_and_head(root)
    config = load_config(repo.root)
    options = PromptOptions(
        max_tokens=config.max_tokens,
        diff_lines=config.diff_lines,
        protocol=read_protocol(repo, config, None),
    )
    source = Source("worktree") if worktree else Source("rev", "HEAD")
    return load_prompt(repo, config, source, options, head, head_known=True).text


def state_json(root: Path) -> str:
    """``rehydrate state --json``: the parsed work-tree ledgers, pinned."""
    from ..state import commit_differs, load_state, state_to_json

    repo, config = open_project(root)
    state = load_state(repo, config, Source("worktree"))
    return dumps(state_to_json(state, commit_differs(repo, state.head, state.pins)))


def status_json(root: Path) -> str:
    """``rehydrate status --json``: task, phases, next action and open items."""
    from ..views.status import gather, today_from_env

    repo, config = open_project(root)
    return dumps(gather(repo, config, Source("worktree"), today_from_env(os.environ)).to_json())


def check_command_json(root: Path, command: str) -> str:
    """``rehydrate check-command --json -- COMMAND``: allowed, or the F- rows it repeats,
    and the close ones (the CLI's own object, ``agents.commands.check_json``)."""
    from ..agents.commands import check, check_json, load_failures

    repo, config = open_project(root)
    return dumps(check_json(command, check(command, load_failures(repo, config))))


def write_json(
    root: Path,
    build: Callable[[], Builder],
    *,
    commit: bool = False,
    expect_blob: str | None = None,
    expect_revision: int | None = None,
) -> str:
    """Run one writer as ``rehydrate <verb> --json`` does: validated, locked, CAS-checked,
    guarded, atomic; the ``rehydrate/write-v1`` object (``id`` is the new or changed item).

    ``build`` makes the operation (validating the values) only once the repository is
    known to be there, as the command's own order is.
    """
    from ..writers.ledger import write

    repo, config = open_project(root)
    op = build()
    if callable(op):
        op = op(repo, config)
    result = write(
        repo, config, op, expect_revision=expect_revision, expect_blob=expect_blob, commit=commit
    )
    return dumps(result.to_json())
