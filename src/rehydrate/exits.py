"""How a command that ends in an exception ends: the message on stderr and the exit code
(docs/exit-codes.md). One mapping, without click, for both ways rehydrate starts: the click
CLI (``cli.main``, which handles click's own exceptions first) and the agent hooks'
click-free path (``hookfast.run``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from .errors import EXIT_INTERNAL, EXIT_USAGE, RehydrateError

INTERRUPTED = "rehydrate: interrupted"


def fatal(exc: Exception, say: Callable[[str], None]) -> int:
    """The exit code of a command that raised ``exc``, after ``say`` (a line on stderr) has
    said why: a ``RehydrateError`` its own message and code; an ``OSError`` (a file we were
    told to read or write) ``io_error``, a usage error; anything else is a bug, said as one
    (``REHYDRATE_DEBUG=1`` adds the traceback), never a traceback passed off as an answer."""
    if isinstance(exc, RehydrateError):
        say(f"rehydrate: {exc}")
        return exc.exit_code
    from .quote import line

    if isinstance(exc, OSError):
        where = f" {line(exc.filename)}:" if exc.filename else ""
        say(
            f"rehydrate: io_error:{where} {line(exc.strerror or exc)}; check the path and "
            "its permissions"
        )
        return EXIT_USAGE
    import traceback

    from .environment import DEBUG, flag

    say(
        f"rehydrate: internal error ({type(exc).__name__}: {line(exc)}). This is a bug; please "
        "report it with the command you ran. Set REHYDRATE_DEBUG=1 for the traceback."
    )
    if flag(DEBUG):
        traceback.print_exc(file=sys.stderr)
    return EXIT_INTERNAL
