"""What a failed command's output says: a failing *check* or a failed *approach*, and
the lines that say what failed (issue 26 item 3; docs/check-command.md, *Capture*).

* ``is_check(command)``: the command is a test run (``pytest``, ``go test``, ``cargo
  test``, ``npm test``, ``jest``, ``make test``, ...; the tool table's ``checks``).
* ``reports_failures(output)``: its output reports failing tests (``3 failed``,
  ``--- FAIL``, ``test result: FAILED``, ``Tests: 1 failed``, ``2 failing``).
* ``failing_check``: both: the check did its job (red before green), nothing to record
  as a failed attempt. A test command that fails otherwise (``No module named pytest``,
  an unknown flag) is a failed approach and is captured.
* ``salient``: the lines of an output that say what failed, not its progress bars
  (``.F [100%]``), separators or blank lines.

All scans are linear: the patterns have no nested quantifiers, and a line is cut to a
bounded length before it is matched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .commandline import Command, read
from .invocation import model
from .tooltable import GENERIC, tool

MAX_LINE = 400  # characters of one output line looked at
MAX_LINES = 4000  # lines of one output looked at (the last ones: where a summary is)

_FAILURES = re.compile(
    r"\b[1-9][0-9]{0,6} (?:failed|failures?|failing)\b|^--- FAIL\b|^FAIL\b"
    r"|test result: FAILED|^Tests?:[^\n]{0,80}\bfailed\b|^=+ FAILURES =+$|^FAILED \S",
    re.IGNORECASE | re.MULTILINE,
)
# A line that only shows progress: `.F..s [ 40%]`, `[####----] 60%`, `....`, `===`.
_PROGRESS = re.compile(
    r"^[.FEsxXpP*]++\s*+(?:\[\s*+\d{1,3}%\])?$|^[\[\]#=\-\s|>]*+\d{0,3}%?[\[\]#=\-\s|>]*+$"
    r"|^[=\-_~*#]{3,}[^=\-_~*#]{0,60}[=\-_~*#]{3,}$"
)
_SAYS_ERROR = re.compile(
    r"\b(?:error|fatal|failed|failure|cannot|can't|could not|not found|no such|denied"
    r"|refused|exception|panic|undefined|unknown|invalid|missing|timed? ?out|no module"
    r"|not installed|unrecognized|unexpected|usage)\b",
    re.IGNORECASE,
)
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]{0,80}(?:Error|Exception|Exit|Interrupt)\b:?")
_EXIT_LINE = re.compile(r"^exit code:? -?\d+$|^<shellId: \S+ completed", re.IGNORECASE)


def is_check(command: Command) -> bool:
    """Whether ``command`` is a test run, as the tool table's ``checks`` say."""
    row = tool(command.program)
    if row is GENERIC or not row.checks:
        return False
    found = model(command)
    if " ".join(found.path) in row.checks:
        return True
    return row.depth == 0 and bool(found.positional) and found.positional[0] in row.checks


def runs_a_check(text: str) -> bool:
    """Whether a command line runs a test run (any of its simple commands)."""
    return any(is_check(c) for c in read(text).commands)


def reports_failures(output: str) -> bool:
    """Whether ``output`` reports failing tests (its last ``MAX_LINES`` lines)."""
    lines = output.splitlines()[-MAX_LINES:]
    return any(_FAILURES.search(line[:MAX_LINE]) for line in lines)


def failing_check(command: str, output: str) -> bool:
    """A test run whose output reports failing tests: a check doing its job."""
    return reports_failures(output) and runs_a_check(command)


def _lines(output: str) -> list[str]:
    return [
        line.strip()[:MAX_LINE]
        for line in output.splitlines()[-MAX_LINES:]
        if line.strip() and not _PROGRESS.match(line.strip()[:MAX_LINE])
    ]


def salient(output: str, limit: int = 2) -> list[str]:
    """The lines of ``output`` that say what failed: an exception line (the last one, as
    a traceback ends), else the lines that name an error, else the last line said."""
    lines = [line for line in _lines(output) if not _EXIT_LINE.match(line)]
    if not lines:
        return []
    exceptions = [line for line in lines if _EXCEPTION.match(line)]
    if exceptions:
        return exceptions[-1:]
    said = _first(line for line in lines if _SAYS_ERROR.search(line))
    return said[:limit] if said else lines[-1:]


def _first(lines: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(lines))


def check_warning(tried: str) -> str | None:
    """A warning for ``fail add`` when the attempt it records is a test run: once
    recorded, ``check-command`` refuses the project's own test command."""
    from .matching import attempts_in_cell

    checks = [a.text for a in attempts_in_cell(tried) if is_check(a)]
    if not checks:
        return None
    return (
        f"warning: `{checks[0]}` runs the tests. Recorded as a failed attempt, it is refused "
        "from now on, also when the tests are run to see them pass; record the approach "
        "that failed (what was changed, installed or configured), not the check that "
        "reported it, or retire the row when the tests pass (rehydrate fail retire ID "
        "--reason ...)."
    )
