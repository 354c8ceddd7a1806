"""``python -m rehydrate`` and the ``rehydrate`` console script."""

from __future__ import annotations

import os
import sys


def _confine() -> None:
    """Take the current directory off ``sys.path`` before anything else is imported.

    ``python -m rehydrate`` (without ``-I``) and ``PYTHONPATH=.`` put it there, so an
    untracked ``click.py`` or ``yaml.py`` in the repository would be imported in place of
    the real one; every launch line of ours says ``-I`` (launchline.py), this covers
    rehydrate started by hand. The folder rehydrate itself came from stays (a source
    checkout run from its ``src``). In place, not by starting again with ``-I``: that
    would cost a second start-up and drop a ``PYTHONPATH`` the user chose.
    """
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:  # the current directory was removed: nothing there to import
        return
    own = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != here or here == own]


def entry() -> None:
    """One short-lived process: tune the garbage collector, then run the CLI.

    ``hook RUNTIME EVENT`` exactly (what every agent hook runs) takes ``hookfast``'s path,
    which never imports click; anything else goes to the click CLI.

    The process builds many small immutable records (no reference cycles among them),
    so it collects rarely, starting before any import (click's included), and never
    re-scans import-time objects: parsing a 10,000-row ledger gets ~20% faster and
    start-up ~10%. Not done in ``rehydrate.cli.main``: tests call that in-process.
    """
    _confine()
    import gc

    gc.set_threshold(50_000, 20, 100)
    from .hookfast import route

    hook = route(sys.argv[1:])
    if hook is not None:
        from .hookfast import run

        gc.freeze()
        code = run(*hook)
    else:
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
