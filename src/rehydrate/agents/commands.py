"""Check a shell command against the active failed attempts (see docs/check-command.md).

Both sides, the command and each recorded attempt, are read by ``commandline.read``
(every simple command a shell would run, however it is wrapped) and compared by
``matching.match`` (exact: refused; close: allowed with a note; precision beats
recall). ``failfile`` reads the
work-tree ledger for the check without a full parse where it can.
"""

from __future__ import annotations

from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from .commandline import read
from .failfile import FailureFile
from .matching import Hit, attempts_in_cell, commands_in, hits_in, match

if TYPE_CHECKING:
    from ..config import Config
    from ..git import Repo
    from ..ledgers import Ledger

ADVISED = 3  # close rows named in one verdict: the first in ledger order

__all__ = ["Checked", "Hit", "attempts_in_cell", "check", "check_command", "commands_in", "match"]


class Checked(NamedTuple):
    hits: list[Hit]  # the rows the command repeats exactly (refused), in ledger order
    problems: tuple[str, ...]  # parts of the command read word by word, and why
    advice: tuple[Hit, ...] = ()  # rows the command comes close to (allowed, with a note)

    @property
    def note(self) -> str:
        """What a verdict says about the parts that were not parsed as shell."""
        if not self.problems:
            return ""
        return (
            "Part of this command could not be parsed as shell ("
            + "; ".join(self.problems)
            + "): it was checked word by word, every word run a possible command."
        )


def check(text: str, failures: Ledger | FailureFile) -> Checked:
    """Active failed attempts that cover ``text``."""
    reading = read(text)
    if isinstance(failures, FailureFile):  # the work-tree file: rows found on its bytes
        found = failures.scan(reading)
    else:
        found = hits_in(reading, failures.active("failures"), failures.path)
    refused = [h for h in found if h.kind == "exact"]
    close = tuple(h for h in found if h.kind != "exact")[:ADVISED]
    return Checked(refused, reading.problems, close)


def check_command(text: str, failures: Ledger | FailureFile) -> list[Hit]:
    """Active failed attempts that ``text`` repeats (the refusals)."""
    return check(text, failures).hits


def load_failures(repo: Repo, config: Config) -> FailureFile:
    """The failed-attempts ledger as it is in the work tree (fails closed when unreadable):
    its bytes, checked for a match without a full parse when they parsed before."""
    from .failfile import load

    return load(repo, config)


def command_from_hook(event: object) -> str | None:
    """``tool_input.command`` of a Claude Code PreToolUse event, or None."""
    from .events import Event

    return Event(event).command() if isinstance(event, dict) else None


def check_json(command: str, checked: Checked) -> dict[str, object]:
    """The ``rehydrate/check-command-v1`` object (``check-command --json`` and the MCP
    ``check_command`` tool print this one), every string quoted as the deny reason is."""
    from ..quote import outgoing_json

    value = outgoing_json(
        {
            "schema": "rehydrate/check-command-v1",
            "command": command,
            "verdict": "refused" if checked.hits else "allowed",
            "matches": [h.to_json() for h in checked.hits],
            "close": [h.to_json() for h in checked.advice],
            "unparsed": list(checked.problems),
        }
    )
    assert isinstance(value, dict)
    return value
