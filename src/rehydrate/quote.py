"""The one path for untrusted text shown to an agent or a person.

Text rehydrate did not write (a ledger cell, a captured command's output, a path, an
event field, the message of an error that quotes any of those) reaches a reader only
through this module:

* ``visible``: every character a terminal or a renderer acts on without showing it
  (C0/C1 controls and ESC, so no ANSI or OSC sequence; bidirectional overrides and
  isolates; zero-width characters; Unicode tag characters; the lone surrogates that
  stand for bytes that are not UTF-8, as in a path) becomes a visible escape
  (``\\x1b``, ``\\u202e``), and every line break an LF;
* ``line``: one value for a sentence: visible, redacted, on one line;
* ``said``: rehydrate's own sentence, then the values it is about, one line each,
  inside a fence no value can close, so no value can speak in rehydrate's voice;
* ``outgoing``: the last step at every exit (the agent hooks' stdout and stderr, the
  CLI's messages): visible and redacted, line breaks kept.

Errors carry the raw values (``RehydrateError.message`` …) and are rendered through
``line`` (``RehydrateError.__str__``); ``tests/test_quote.py`` fails when a module
renders an error, a hook result or a message some other way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

QUOTE_LABEL = "quoted-data"

# What a reader acts on without showing it. LF and TAB are shown as what they are.
_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
_ASCII_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else (f"\\U{code:08x}")
    )


def visible(text: str) -> str:
    """``text`` with every line break an LF and every hidden character a visible escape."""
    from .prompt.fences import one_line_break

    text = one_line_break(text)
    if text.isascii():
        return _ASCII_HIDDEN.sub(_escape, text) if _ASCII_HIDDEN.search(text) else text
    return _HIDDEN.sub(_escape, text)


def line(value: object) -> str:
    """``value`` for one line of a message: visible, redacted, line breaks as spaces."""
    from .redact import redact

    return redact(visible(str(value))).replace("\n", " ")


def outgoing(text: str) -> str:
    """``text`` as it may leave the process: visible and redacted (line breaks kept)."""
    if len(text) < 8 and text.isascii() and text.isprintable():
        return text  # too short for any secret: spares the hooks' allow answers an import
    from .redact import redact

    return redact(visible(text))


def said(own: str, values: Iterable[object], label: str = QUOTE_LABEL) -> str:
    """rehydrate's sentence ``own``, then ``values`` quoted as data: one line each (``line``)
    inside a fence that no value can close or imitate."""
    from .prompt.fences import fence

    body = "\n".join(line(value) for value in values)
    return f"{own}\n{fence(body, label)}" if body else own


def error(own: str, exc: BaseException) -> str:
    """rehydrate's sentence about an error, then the error quoted as data (``said``)."""
    return said(own, [exc])


def outgoing_json(value: object) -> object:
    """``value`` (a JSON value rehydrate built) with ``outgoing`` applied to every string."""
    if isinstance(value, str):
        return outgoing(value)
    if isinstance(value, dict):
        return {key: outgoing_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [outgoing_json(item) for item in value]
    return value
