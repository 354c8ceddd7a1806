"""The shared event-to-action core of the agent adapters: the types every action uses.

An adapter (``agents/claude.py``, one per runtime) reads its runtime's event, calls one
action of the core with plain arguments, and renders the ``Outcome`` in its runtime's
convention (JSON fields, exit codes, stdout or stderr). The core never sees a runtime's
JSON. The actions:

* *inject* the capped core at session start, resume, clear and after compaction, and
  into a subagent (``context``);
* *refuse* a shell command that repeats a failed attempt, *refuse everything* shell
  while a ledger cannot be read, and *hold* the first tool call after a compaction
  until its verdict is shown (``tools``);
* *capture* a failed command (``captured``);
* *hold the stop* once while ledger changes or captured failures are unrecorded
  (``stop``);
* *shape and verify* compaction (``compaction``).

State kept between events lives under ``.rehydrate/`` (``store``); sizes are measured in
the runtime's own unit (``units``).
"""

from __future__ import annotations

import os

from .. import git
from ..config import Config
from ..errors import GitError
from ..records import NamedTuple
from .judging import KINDS, Standing, judge
from .units import Cap

# What an outcome asks the adapter to do.
ALLOW = "allow"  # nothing for the model (``note``, if any, is for the person)
INJECT = "inject"  # add ``text`` to the model's context
REFUSE = "refuse"  # refuse the tool call or compaction, with ``text`` as the reason
BLOCK = "block"  # do not stop yet: go on once, told ``text``
INSTRUCT = "instruct"  # instructions for the compaction summariser
SHOW = "show"  # show ``text`` to the person (and to the model where the runtime does)
ACTIONS = (ALLOW, INJECT, REFUSE, BLOCK, INSTRUCT, SHOW)


class Outcome(NamedTuple):
    """What the core decided for one event; the adapter renders it for its runtime."""

    action: str = ALLOW
    text: str = ""
    note: str | None = None  # for the person running the session (stderr, a log)


class Runtime(NamedTuple):
    """What the core needs to know of a runtime: a name for its files, its context cap."""

    name: str  # "claude": its files under .rehydrate/ start with "claude-"
    cap: Cap  # the limit on one context or instruction text it is given

    def file(self, what: str) -> str:
        """The repository-relative path of this runtime's state file ``what``."""
        return f"{STATE_DIR}/{self.name}-{what}"


STATE_DIR = ".rehydrate"


class Project(NamedTuple):
    repo: git.Repo
    config: Config  # the settings in force: as committed (agents/judging.py)
    standing: Standing | None = None  # the ledgers in HEAD, the index and the work tree


def find_repo(where: str) -> git.Repo:
    """The repository around ``where`` (an event's directory: input, never trusted)."""
    if "\x00" in where or not os.path.isdir(where):
        raise GitError(
            f"the event's directory {where[:200]!r} is not a directory",
            code="not_a_repo",
            fix="run the hook inside a git repository",
        )
    return git.find_repo(where)


def open_project(where: str) -> Project:
    """The repository around ``where``, judged (``agents/judging.py``): raises
    ``NotOptedIn`` where there is nothing to judge, ``GitError`` where git fails in a
    guarded repository, ``ConfigError`` where the committed settings cannot be read."""
    standing = judge(where)
    return Project(standing.repo, standing.config, standing)


def uncommitted_ledgers(project: Project) -> list[str]:
    """Ledger paths whose work tree or index differs from HEAD (untracked included), by
    content: a change staged and then undone in the work tree still counts, and so does
    one that an index flag (skip-worktree, assume-unchanged) hides from ``git status``."""
    if project.standing is not None:
        return project.standing.differing()
    paths = [project.config.path_of(k) for k in KINDS]
    out = git.status_porcelain(project.repo, paths)
    dirty = [r[3:].decode("utf-8", "surrogateescape") for r in out.split(b"\0") if len(r) > 3]
    return sorted(set(dirty) & set(paths))


def flagged_hint(project: Project, paths: list[str]) -> str | None:
    """The command that clears the index flags hiding ``paths`` from ``git status`` (and
    from ``git add``: skip-worktree, assume-unchanged), or None when none is set."""
    if not paths:
        return None
    out = git.ls_files_tagged(project.repo, paths)
    flagged = []
    for record in out.split(b"\0"):
        tag, _, name = record.partition(b" ")
        if tag == b"S" or (len(tag) == 1 and tag.islower()):
            flagged.append(name.decode("utf-8", "surrogateescape"))
    if not flagged:
        return None
    return (
        f"git update-index --no-skip-worktree --no-assume-unchanged {' '.join(flagged)} "
        "(an index flag hides the change from git status and git add)"
    )


def settings_hint(project: Project) -> str | None:
    """What a hook says of settings that differ from the committed ones, or None."""
    changes = project.standing.settings_changes if project.standing is not None else ()
    if not changes:
        return None
    return (
        f"Settings changed but not committed: {'; '.join(changes)}. The hooks follow the "
        "committed settings (and check the ledgers the change names as well) until the "
        "change is committed: commit it, or undo it."
    )


def commit_hint(paths: list[str]) -> str:
    return f"git add {' '.join(paths)} && git commit -m 'rehydrate: update ledgers'"
