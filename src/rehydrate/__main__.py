"""``python -m rehydrate`` and the ``rehydrate`` console script."""

from __future__ import annotations

import os
import sys

# What `python -I` ignores that changes what gets imported or run (docs/integrations/
# native-hook.md): with one of them set, a console-script run starts again isolated.
_IMPORT_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONUSERBASE")


def _isolate() -> None:
    """Run again as ``python -I -m rehydrate`` when this process would import from the
    current directory or from PYTHON* variables (a ``rehydrate`` console script, or
    ``python -m`` without ``-I``): an untracked ``click.py`` or ``yaml.py`` in the
    repository is then never imported. A launch line of ours is isolated already."""
    if sys.flags.isolated:
        return
    here = os.getcwd()
    reached = any(p in ("", ".", here) for p in sys.path)
    if reached or any(os.environ.get(name) for name in _IMPORT_VARIABLES):
        python = os.path.abspath(sys.executable)
        os.execv(python, [python, "-I", "-m", "rehydrate", *sys.argv[1:]])


def entry() -> None:
    """One short-lived process: tune the garbage collector, then run the CLI.

    The process builds many small immutable records (no reference cycles among them),
    so it collects rarely, starting before any import (click's included), and never
    re-scans import-time objects: parsing a 10,000-row ledger gets ~20% faster and
    start-up ~10%. Not done in ``rehydrate.cli.main``: tests call that in-process.
    """
    _isolate()
    import gc

    gc.set_threshold(50_000, 20, 100)
    from .cli import main

    gc.freeze()
    code = main()
    # Leave without tearing the interpreter down: freeing every parsed row one by one
    # costs ~5 ms on a 10,000-row ledger, and nothing needs it. Whatever was written is
    # flushed first; files are closed and child processes waited for by then.
    for stream in (sys.stdout, sys.stderr):  # None when the descriptor was closed (>&-)
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # the reader went away; nothing left to say
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
