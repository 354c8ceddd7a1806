"""``rehydrate hook RUNTIME EVENT`` without click: the agent hooks' start-up.

Every installed agent hook runs ``<python> -I -m rehydrate hook RUNTIME EVENT`` with the
event on stdin, before or after every tool call; importing click costs about three
interpreter start-ups, more than the hook's own work. ``route`` recognises exactly that
argv and ``run`` does what the click command does (``cli/_hook_adapter.py``): read stdin,
call ``rehydrate.agents.RUNTIME.run_hook``, print its answer, map every outcome to the
same exit code and message as ``cli.main``. Anything else (``--help``, an extra
argument, an unknown event) goes to the click CLI, which says what is wrong.

The events are each adapter's own ``HANDLERS`` (what its ``run_hook`` dispatches on),
the adapter of a runtime the module of ``agents/`` named after it (an
``agents.runtimes.RUNTIMES`` key; that table is not imported, ~1.6 ms a call): no second
list. A test walks the click groups and compares, and requires every module of
``agents/`` with a ``run_hook`` to be a runtime's; another runs both paths on every
runtime × event and compares the bytes (tests/test_hookfast.py).
"""

from __future__ import annotations

import codecs
import importlib
import sys
from collections.abc import Sequence

from .typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO

    from .agents.events import HookResult


def events(runtime: str) -> frozenset[str]:
    """The events ``rehydrate hook RUNTIME`` answers: its adapter's ``HANDLERS`` (none for
    a name that is no module of ``agents/``, or one without a ``run_hook``)."""
    if not (runtime.isidentifier() and runtime.islower()) or runtime.startswith("_"):
        return frozenset()
    try:
        module = importlib.import_module(f"rehydrate.agents.{runtime}")
    except ImportError:  # no such module: a runtime with no hooks (aider), or none at all
        return frozenset()
    if not callable(getattr(module, "run_hook", None)):
        return frozenset()
    return frozenset(getattr(module, "HANDLERS", ()))


def route(argv: Sequence[str]) -> tuple[str, str] | None:
    """``(runtime, event)`` when ``argv`` is exactly ``hook RUNTIME EVENT``, else None."""
    if len(argv) != 3 or argv[0] != "hook":
        return None
    if not (_plain(sys.stdout) and _plain(sys.stderr)):
        return None  # click re-wraps an ASCII stream as UTF-8: leave that to it
    runtime, event = argv[1], argv[2]
    return (runtime, event) if event in events(runtime) else None


def _plain(stream: TextIO | None) -> bool:
    encoding = getattr(stream, "encoding", None) if stream is not None else "utf-8"
    try:
        return codecs.lookup(encoding or "ascii").name != "ascii"
    except LookupError:
        return True


def run(runtime: str, event: str) -> int:
    """The hook's exit code, its answer and note written as the click command writes them;
    errors become exit codes and messages as in ``cli.main`` (``exits.fatal``)."""
    try:
        return _answer(runtime, event)
    except (KeyboardInterrupt, EOFError):
        from .errors import EXIT_INTERRUPTED
        from .exits import INTERRUPTED

        _echo("", err=True)  # click's blank line after ^C
        _echo(INTERRUPTED, err=True)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - every outcome gets its exit code and message
        import errno

        from .exits import fatal

        if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
            return 0  # the reader went away: no verdict recorded, 0
        return fatal(exc, _stderr)


def _answer(runtime: str, event: str) -> int:
    import json

    from .quote import outgoing, outgoing_json
    from .readlimit import InputTooLarge, read_text_stream

    try:
        raw = read_text_stream(sys.stdin, "stdin")
    except InputTooLarge:
        raw = ""  # an event no runtime sends: unparseable, let through with a message
    module = importlib.import_module(f"rehydrate.agents.{runtime}")
    result: HookResult = module.run_hook(event, raw)
    if result.output is not None:
        _echo(json.dumps(outgoing_json(result.output), ensure_ascii=False))
    elif result.text:
        text = outgoing(result.text)
        _echo(text, nl=not text.endswith("\n"))
    if result.message:
        _echo(outgoing(result.message), err=True)
    code: int = result.exit_code
    return code


def _stderr(text: str) -> None:
    _echo(text, err=True)


def _echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` for what a hook prints: every string has been through ``quote``, so
    no escape sequence is left for click to strip; a closed stream takes nothing."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    stream.write(text + "\n" if nl else text)
    stream.flush()
