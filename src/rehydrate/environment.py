"""Every environment variable rehydrate reads, validated in one place.

A value is input like any other: ``REHYDRATE_LOCK_TIMEOUT=nan`` (or ``inf``, ``-1``,
``1e308``, ``soon``) is a usage error naming the variable, the value and the range, never
a wait forever or a silent default. ``VARIABLES`` lists them; ``tests/test_environment.py``
fails when a module reads a ``REHYDRATE_*`` variable some other way.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from .errors import RehydrateError
from .records import NamedTuple


class Variable(NamedTuple):
    name: str
    kind: str  # "seconds", "count", "flag", "choice", "text"
    low: float = 0
    high: float = 0
    choices: tuple[str, ...] = ()
    meaning: str = ""


LOCK_TIMEOUT = "REHYDRATE_LOCK_TIMEOUT"
CONTEXT_LIMIT = "REHYDRATE_RUN_CONTEXT_LIMIT"
RUN_SESSION = "REHYDRATE_RUN_SESSION"
DEBUG = "REHYDRATE_DEBUG"
TOKENIZER = "REHYDRATE_TOKENIZER"
TODAY = "REHYDRATE_TODAY"
PYTHON = "REHYDRATE_PYTHON"
NOW = "REHYDRATE_NOW"

VARIABLES: dict[str, Variable] = {
    v.name: v
    for v in (
        Variable(LOCK_TIMEOUT, "seconds", 0, 3600, meaning="how long a writer waits for a lock"),
        Variable(CONTEXT_LIMIT, "count", 1, 100_000_000, meaning="set by rehydrate run"),
        Variable(RUN_SESSION, "count", 1, 1_000_000_000, meaning="set by rehydrate run"),
        Variable(DEBUG, "flag", meaning="print tracebacks of internal errors"),
        Variable(TOKENIZER, "choice", choices=("", "heuristic", "tiktoken")),
        Variable(TODAY, "text", meaning="YYYY-MM-DD, for reproducible status output"),
        Variable(PYTHON, "text", meaning="the interpreter the hooks run"),
        Variable(
            NOW, "text", meaning="YYYY-MM-DDTHH:MM:SSZ: the clock claims' leases are judged by"
        ),
    )
}


def _bad(var: Variable, value: str, wanted: str) -> RehydrateError:
    from .quote import line

    return RehydrateError(
        f"{var.name}={line(value)[:100]!r} is not {wanted}",
        code="bad_environment",
        fix=f"set {var.name} to {wanted}, or unset it",
    )


def raw(name: str, environ: Mapping[str, str] | None = None) -> str:
    """The variable's text ("" when unset), for the ``text`` and ``flag`` kinds."""
    if name not in VARIABLES:
        raise KeyError(f"{name} is not a variable rehydrate reads (add it to VARIABLES)")
    return (os.environ if environ is None else environ).get(name, "").strip()


def number(name: str, default: float, environ: Mapping[str, str] | None = None) -> float:
    """A ``seconds`` or ``count`` variable: finite, within its range; ``default`` when unset."""
    var = VARIABLES[name]
    value = raw(name, environ)
    if not value:
        return default
    wanted = f"a number from {var.low:g} to {var.high:g}"
    try:
        parsed = float(value) if var.kind == "seconds" else int(value, 10)
    except ValueError:
        raise _bad(var, value, wanted) from None
    if not math.isfinite(parsed) or not var.low <= parsed <= var.high:
        raise _bad(var, value, wanted)
    return parsed


def count(name: str, environ: Mapping[str, str] | None = None) -> int | None:
    """A ``count`` variable, or None when unset."""
    value = number(name, 0, environ)
    return int(value) if value else None


def flag(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """A ``flag`` variable: set to anything but "", "0", "false", "no"."""
    return raw(name, environ).lower() not in ("", "0", "false", "no")


def choice(name: str, environ: Mapping[str, str] | None = None) -> str:
    var = VARIABLES[name]
    value = raw(name, environ)
    if value not in var.choices:
        raise _bad(var, value, "one of " + ", ".join(repr(c) for c in var.choices if c))
    return value
