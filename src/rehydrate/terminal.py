"""Text for people, made safe for a terminal: the one neutraliser of control characters.

Commit subjects, authors, session records and an agent's streamed text are written by
others; an ESC in one of them could move the cursor, retitle the window, hide a line or
forge a verdict on the reader's terminal. ``printable`` replaces every C0 and C1 control
character but newline and tab, DEL, the line/paragraph separators and the bidirectional
overrides with a visible escape (``\\x1b``, ``\\u202e``), in one pass (linear time). Every
view for people (``log``, ``status``, ``run --status``, the run's live output) passes its
untrusted text through it; JSON output needs nothing (``json.dumps`` escapes controls).
"""

from __future__ import annotations

from .quote import TERMINAL, escaped, hidden_codes

_TABLE = {code: escaped(code) for code in hidden_codes(TERMINAL)}


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape (newline and tab kept),
    and secret-looking values redacted, as everything shown to people is (``quote``)."""
    from .redact import redact

    return redact(text.translate(_TABLE))


def one_line(text: str) -> str:
    """``printable`` for a value that must stay on one line (newlines escaped too)."""
    return printable(text).replace("\n", "\\n")


def cells(char: str) -> int:
    """The columns one character takes on a terminal: 2 for wide East Asian characters,
    0 for combining marks, else 1."""
    import unicodedata

    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def fit_width(text: str, columns: int) -> str:
    """``text`` (one printable line) cut to fit ``columns - 1`` cells, with an ellipsis
    when cut: never the last column, where a terminal wraps and a redraw leaves a copy."""
    room = max(columns - 1, 1)
    if len(text) <= room and text.isascii():
        return text
    used = 0
    for index, char in enumerate(text):
        width = cells(char)
        if used + width > room:
            out, used = text[:index], used
            while out and used + 1 > room:  # room for the ellipsis
                used -= cells(out[-1])
                out = out[:-1]
            return out + "\u2026"
        used += width
    return text
