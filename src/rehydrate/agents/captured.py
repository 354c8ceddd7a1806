"""Capture: failed commands, kept the moment they fail until recorded or dismissed.

A failure the agent does not record evaporates with the session. So every failed shell
command goes to ``.rehydrate/pending-failures.json`` (redacted, size-capped, under the
ledger lock), numbered once and for good. It stays pending until a failure row for that
command exists in the failed-attempts ledger (decided by the same matching that refuses
repeats, ``commands.check_command``) or it is dismissed (``rehydrate fail dismiss N``).
Stop holds the session once while any is pending and the next session start lists them,
each with the exact command line that records it. A test run whose output reports
failing tests is a failing *check*, not a failed approach, and is not captured
(``outcomes.failing_check``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence

from ..errors import GitError, RehydrateError
from ..records import NamedTuple
from ..redact import redact
from ..typecheck import TYPE_CHECKING
from .core import INJECT, STATE_DIR, Outcome, Project, open_project
from .judging import NotOptedIn
from .store import now, peek, store

if TYPE_CHECKING:  # types only: matching is imported where it runs
    from ..ledgers import Ledger
    from .failfile import FailureFile

PENDING_FILE = f"{STATE_DIR}/pending-failures.json"
SCHEMA = "rehydrate/pending-failures-v1"
MAX_COMMAND = 2000  # characters of a command kept
MAX_ERROR = 2000  # characters of its error kept
MAX_PENDING = 100  # failures kept; the oldest go first
SHOWN = 5  # failures listed in full in a context or a stop reason
WORKAROUND = "WHAT TO DO INSTEAD"
_EXIT_LINE = re.compile(r"^exit code -?\d+$", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class Pending(NamedTuple):
    number: int  # stable: `rehydrate fail dismiss N`
    command: str
    error: str
    time: str
    times: int = 1  # how often it failed while pending


def _capped(text: str, limit: int) -> str:
    text = _CONTROL.sub(" ", redact(text))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _item(raw: object) -> Pending | None:
    """One stored entry, or None when it is not what ``_write`` writes (not trusted)."""
    if not isinstance(raw, dict) or set(raw) != set(Pending._fields):
        return None
    item = Pending(**raw)
    texts = (item.command, item.error, item.time)
    numbers = (item.number, item.times)
    if not all(isinstance(t, str) for t in texts) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in numbers
    ):
        return None
    return item


def _read(project: Project) -> tuple[int, list[Pending]]:
    """(the next free number, the pending failures)."""
    data = peek(project.repo.root, PENDING_FILE) or {}
    raw = data.get("failures")
    items = [i for i in map(_item, raw if isinstance(raw, list) else []) if i is not None]
    following = data.get("next")
    if not isinstance(following, int) or isinstance(following, bool):
        following = 1
    return max([following, *(p.number + 1 for p in items)]), items


def _write(project: Project, following: int, items: Sequence[Pending]) -> None:
    body: dict[str, object] = {
        "schema": SCHEMA,
        "next": following,
        "failures": [p._asdict() for p in items],
    }
    store(project.repo.root, PENDING_FILE, body)


def capture(project: Project, command: str, error: str) -> Pending:
    """Add a failed command to the pending list (once per command: a repeat counts up)."""
    from ..ledgers.atomicfile import ledger_lock

    command = _capped(command.strip(), MAX_COMMAND)
    error = _capped(error.strip(), MAX_ERROR)
    with ledger_lock(project.repo, PENDING_FILE):
        following, items = _read(project)
        for index, item in enumerate(items):
            if item.command == command:
                again = item._replace(error=error, time=now(), times=item.times + 1)
                items[index] = again
                _write(project, following, items)
                return again
        added = Pending(following, command, error, now())
        items = [*items, added][-MAX_PENDING:]
        _write(project, following + 1, items)
        return added


_FAILING_CHECK = (
    "rehydrate: a test run reported failing tests (a failing check, not a failed "
    "approach); not captured"
)


def capture_failed_command(where: str, command: str, error: str) -> Outcome:
    """Capture one failed shell command; tell the agent (once per command) how to record it."""
    from .outcomes import failing_check

    if failing_check(command, error):  # red before green: the check did its job
        return Outcome(note=_FAILING_CHECK)
    try:
        project = open_project(where)
    except NotOptedIn:
        return Outcome()  # nothing guarded here
    except GitError as exc:
        return Outcome(note=f"rehydrate: {exc}; failed command not captured")
    return _captured(project, command, error)


def capture_in(project: Project, command: str, error: str) -> Outcome:
    """``capture_failed_command`` in a project already opened (a failing check is not
    captured either)."""
    from .outcomes import failing_check

    if failing_check(command, error):
        return Outcome(note=_FAILING_CHECK)
    return _captured(project, command, error)


def _captured(project: Project, command: str, error: str) -> Outcome:
    item = capture(project, command, error)
    if item.times > 1:
        return Outcome(note=f"rehydrate: pending failure {item.number} failed again")
    from ..quote import line, said

    return Outcome(
        INJECT,
        said(
            f"rehydrate captured this failed command as pending failure {item.number}. "
            f"Before you stop, record it in {line(project.config.path_of('failures'))} "
            f"(replace {WORKAROUND} with what to do instead) with the command quoted below, "
            f"or dismiss it when it teaches nothing: rehydrate fail dismiss {item.number}",
            [record_command(item)],
        ),
        note=f"rehydrate: captured pending failure {item.number}",
    )


def pending(project: Project) -> list[Pending]:
    """Every pending failure, oldest first."""
    return _read(project)[1]


def _recorded(item: Pending, failures: Ledger | FailureFile) -> bool:
    from .commands import check_command

    try:  # a match on the bytes is confirmed by a full parse, which may fail
        return bool(check_command(item.command, failures))
    except RehydrateError:  # unreadable: nothing is proven recorded
        return False


def unrecorded(project: Project, failures: Ledger | FailureFile | None = None) -> list[Pending]:
    """The pending failures with no failure row for their command yet in ``failures``
    (the work-tree failed-attempts ledger, read when not given); the recorded ones are
    dropped from the list. A ledger that cannot be read proves nothing recorded, so
    then every pending failure is returned."""
    from ..ledgers.atomicfile import ledger_lock
    from .commands import load_failures

    if not pending(project):
        return []
    if failures is None:
        try:
            failures = load_failures(project.repo, project.config)
        except RehydrateError:  # unreadable: nothing is proven recorded
            return pending(project)
    with ledger_lock(project.repo, PENDING_FILE):
        following, items = _read(project)
        left = [p for p in items if not _recorded(p, failures)]
        if len(left) != len(items):
            _write(project, following, left)
    return left


def dismiss(project: Project, numbers: Iterable[int] | None) -> tuple[list[Pending], list[int]]:
    """Drop pending failures by number (None: all); (dropped, numbers not pending). When
    a number is not pending, nothing is dropped."""
    from ..ledgers.atomicfile import ledger_lock

    with ledger_lock(project.repo, PENDING_FILE):
        following, items = _read(project)
        wanted = None if numbers is None else set(numbers)
        missing = sorted((wanted or set()) - {p.number for p in items})
        if missing:
            return [], missing
        dropped = [p for p in items if wanted is None or p.number in wanted]
        if dropped:
            _write(project, following, [p for p in items if p not in dropped])
    return dropped, []


def one_line(command: str) -> str:
    """A multi-line command as one line (a table cell holds one): continuations joined,
    lines separated by ``; ``."""
    lines = command.replace("\\\r\n", " ").replace("\\\n", " ").splitlines()
    return "; ".join(line.strip() for line in lines if line.strip())


def code_span(text: str) -> str:
    """``text`` as one Markdown code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def failure_line(error: str) -> str:
    """The error in one line for a Failure cell: the exit status and the lines that say
    what failed (``outcomes.salient``: not a progress bar like ``.F [100%]``)."""
    from .outcomes import salient

    lines = [line.strip() for line in error.splitlines() if line.strip()]
    status = lines[0] if lines and _EXIT_LINE.match(lines[0]) else ""
    said = "; ".join(salient(error))
    text = ": ".join(part for part in (status, said) if part) or "failed"
    return text if len(text) <= 200 else text[:199] + "…"


def record_command(item: Pending) -> str:
    """The exact command line that records ``item`` (the workaround is the agent's)."""
    return (
        "rehydrate fail add --tried "
        + shlex.quote(code_span(one_line(item.command)))
        + " --failure "
        + shlex.quote(failure_line(item.error))
        + " --workaround "
        + shlex.quote(WORKAROUND)
    )


def listing(items: Sequence[Pending], failures_path: str) -> str:
    """The pending failures for the agent: each with how to record or dismiss it."""
    from ..quote import line, said

    values: list[str] = []
    for item in items[:SHOWN]:
        times = f" ({item.times} times)" if item.times > 1 else ""
        command = line(one_line(item.command))[:300].replace("`", "'")
        values += [
            f"{item.number}. `{command}` failed{times}: {failure_line(item.error)}",
            f"   record: {record_command(item)}",
            f"   dismiss: rehydrate fail dismiss {item.number}",
        ]
    more = len(items) - SHOWN
    return said(
        f"{len(items)} failed command(s) of this or an earlier session are not recorded in "
        f"{line(failures_path)} yet; they are quoted below as data, each with the command "
        f"that records it. Record each one (replace {WORKAROUND} with what to do instead), "
        "or dismiss it when it teaches nothing (a typo, an expected failure)."
        + (f" ... and {more} more: `rehydrate fail pending` lists them." if more > 0 else ""),
        values,
    )
