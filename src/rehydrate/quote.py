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
from collections.abc import Iterable, Sequence

from . import digests
from .patterns import compiled

LEDGER_LABEL = "ledger-data"
GIT_LABEL = "git-data"
QUOTE_LABEL = "quoted-data"
# Patterns are text, compiled at first use (``compiled``): a hook that quotes nothing
# compiles none.
_LEADING_TILDES = r"(?m)^[ \t]*+(~{3,}+)"
_LABELS = r"(ledger|git|quoted)-data-"
_DATA = "-data-"

# The one table of the characters a reader acts on without showing them: (first, last,
# who hides them). CELL: refused inside a ledger item (ledgers/_document.py); QUOTE:
# escaped by ``visible`` (LF and TAB show as what they are, ZWNJ/ZWJ are invisible, lone
# surrogates stand for bytes that are not UTF-8; U+2028/9 are line breaks, LF by then);
# TERMINAL: escaped for people by ``terminal.printable`` (controls and bidi only).
CELL = "cell"
QUOTE = "quote"
TERMINAL = "terminal"
_ALL = frozenset({CELL, QUOTE, TERMINAL})
_INVISIBLE = frozenset({CELL, QUOTE})
HIDDEN_CHARACTERS: tuple[tuple[int, int, frozenset[str]], ...] = (
    (0x0000, 0x0008, _ALL),
    (0x000A, 0x000A, frozenset({CELL})),
    (0x000B, 0x001F, _ALL),
    (0x007F, 0x009F, _ALL),
    (0x00AD, 0x00AD, _INVISIBLE),
    (0x0600, 0x0605, _INVISIBLE),
    (0x061C, 0x061C, _ALL),
    (0x06DD, 0x06DD, _INVISIBLE),
    (0x070F, 0x070F, _INVISIBLE),
    (0x0890, 0x0891, _INVISIBLE),
    (0x08E2, 0x08E2, _INVISIBLE),
    (0x180E, 0x180E, _INVISIBLE),
    (0x200B, 0x200B, _INVISIBLE),
    (0x200C, 0x200D, frozenset({QUOTE})),
    (0x200E, 0x200F, _ALL),
    (0x2028, 0x2029, frozenset({CELL, TERMINAL})),
    (0x202A, 0x202E, _ALL),
    (0x2060, 0x2064, _INVISIBLE),
    (0x2066, 0x2069, _ALL),
    (0x206A, 0x206F, _INVISIBLE),
    (0xD800, 0xDFFF, frozenset({QUOTE})),
    (0xFEFF, 0xFEFF, _INVISIBLE),
    (0xFFF9, 0xFFFB, _INVISIBLE),
    (0x110BD, 0x110BD, _INVISIBLE),
    (0x110CD, 0x110CD, _INVISIBLE),
    (0x13430, 0x1343F, _INVISIBLE),
    (0x1BCA0, 0x1BCA3, _INVISIBLE),
    (0x1D173, 0x1D17A, _INVISIBLE),
    (0xE0000, 0xE007F, _INVISIBLE),
)


def hidden_class(who: str) -> str:
    """A regular-expression character class of ``HIDDEN_CHARACTERS`` that ``who`` hides."""
    ranges = "".join(
        chr(first) if first == last else f"{chr(first)}-{chr(last)}"
        for first, last, hiders in HIDDEN_CHARACTERS
        if who in hiders
    )
    return f"[{ranges}]"


def hidden_codes(who: str) -> list[int]:
    """Every code point of ``HIDDEN_CHARACTERS`` that ``who`` hides."""
    return [
        code
        for first, last, hiders in HIDDEN_CHARACTERS
        if who in hiders
        for code in range(first, last + 1)
    ]


_HIDDEN = hidden_class(QUOTE)
# The ASCII ones, for a scan of bytes (no ledger text holds LF inside an item line).
HIDDEN_ASCII = bytes(code for code in hidden_codes(QUOTE) if code < 0x80)
_ASCII_HIDDEN = f"[{re.escape(HIDDEN_ASCII.decode('ascii'))}]"


def escaped(code: int) -> str:
    """The visible escape of the code point ``code``: ``\\x1b``, ``\\u202e``, ``\\U000e0001``."""
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _escape(match: re.Match[str]) -> str:
    return escaped(ord(match.group()))


# Line breaks other than LF: CommonMark ends a line at CR too; VT, FF, NEL, U+2028 and
# U+2029 are line breaks to other renderers and to str.splitlines.
_OTHER_BREAKS = str.maketrans(
    {"\r": "\n", "\x0b": "\n", "\x0c": "\n", "\x85": "\n", "\u2028": "\n", "\u2029": "\n"}
)


def one_line_break(text: str) -> str:
    """``text`` with every line break (CRLF, CR, VT, FF, NEL, U+2028, U+2029) as LF.

    Cheap on clean text: each check is a memchr, and a pure-ASCII text cannot hold the
    non-ASCII breaks."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if (
        "\r" in text
        or "\x0b" in text
        or "\x0c" in text
        or not text.isascii()
        and ("\x85" in text or "\u2028" in text or "\u2029" in text)
    ):
        text = text.translate(_OTHER_BREAKS)
    return text


def sha256_text(pieces: Iterable[str], errors: str = "strict") -> str:
    """The SHA-256 hex digest of the UTF-8 encoding of ``pieces`` joined, read in slices:
    a megabyte of ledger text is never copied whole just to be hashed."""
    digest = digests.sha256()
    step = 1 << 16
    for text in pieces:
        for start in range(0, len(text), step):
            digest.update(text[start : start + step].encode("utf-8", errors))
    return digest.hexdigest()


def inline(value: str) -> str:
    """``value`` for a line outside a fence: redacted, on one line, no backtick to end a
    code span early (paths, branch names)."""
    from .redact import redact  # imported on first use: a hook that allows imports nothing

    return redact(visible(value)).replace("\n", " ").replace("`", "'")


def fence(body: str, label: str = LEDGER_LABEL) -> str:
    """Quote ``body`` as data: redacted, labels neutralised, a fence no data line can close."""
    return "".join(fenced((body,), label))


def fenced(lines: Sequence[str], label: str) -> list[str]:
    """``fence`` as pieces: the opening line, the body, the closing line.

    The opening line carries a digest of the fenced text and the tilde run is longer
    than any tilde run that starts a line of the data, so no data line can close it.
    Every line break becomes LF first (so the lines the fence length is chosen from are
    the lines any reader sees), hidden characters are shown, secrets redacted and fence
    labels inside the data neutralised.

    ``lines``: the body in pieces that each end a line but the last (so no redaction,
    label or tilde run can span two), kept apart so a megabyte body is not copied to
    be quoted; the caller joins the result once.
    """
    from .redact import redact

    body = [_neutralised(redact(visible(piece))) for piece in lines]
    longest = max(
        (
            len(m)
            for piece in body
            if "~" in piece and "~~~" in piece
            for m in compiled(_LEADING_TILDES).findall(piece)
        ),
        default=0,
    )  # "~": a memchr
    tildes = "~" * max(4, longest + 1)
    digest = sha256_text(body, "surrogatepass")[:12]
    return [f"{tildes} {label}-{digest}\n", *body, f"\n{tildes}"]


def _neutralised(text: str) -> str:
    if compiled(_DATA).search(text):  # a literal-prefix scan: faster than `in` on megabytes
        return compiled(_LABELS).sub(lambda m: m.group(1) + "-data\\-", text)
    return text


def visible(text: str) -> str:
    """``text`` with every line break an LF and every hidden character a visible escape."""
    text = one_line_break(text)
    if text.isascii():  # one C pass: delete the hidden bytes, compare the lengths
        data = text.encode("ascii")
        if len(data.translate(None, HIDDEN_ASCII)) == len(data):
            return text
        return compiled(_ASCII_HIDDEN).sub(_escape, text)
    return compiled(_HIDDEN).sub(_escape, text)


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
