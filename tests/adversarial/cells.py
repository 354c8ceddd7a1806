"""One table of values a writer is handed for one ledger cell (docs/mcp.md, "Limits"):
each either refused with its code, nothing written, or written and read back as given.

Shared by the pure writer check, the CLI writers (``test_writer_cells.py``) and the MCP
tools (``tests/test_mcp_server.py``): one line per case, a legitimate twin for each
refusal.
"""

from __future__ import annotations

from typing import NamedTuple

from rehydrate.writers.operations import MAX_CELL_BYTES


class Cell(NamedTuple):
    name: str
    value: str
    refused: str | None  # the code; None: written, and read back as ``expect``
    expect: str | None = None  # what the ledger holds (default: the value itself)


CELLS = (
    # structure: a line end of any reader's, or a pipe the renderer would split on
    Cell("lf-forged-row", "x |\n| F-999 | forged | row | here", "bad_value"),
    Cell("cr", "a\rb", "bad_value"),
    Cell("crlf", "a\r\nb", "bad_value"),
    Cell("trailing-lf", "abc\n", "bad_value"),
    Cell("vertical-tab", "a\vb", "bad_value"),
    Cell("form-feed", "a\fb", "bad_value"),
    Cell("file-separator", "a\x1cb", "bad_value"),
    Cell("record-separator", "a\x1eb", "bad_value"),
    Cell("next-line-u0085", "a\x85| F-999 | forged |", "bad_value"),
    Cell("line-separator-u2028", "a\u2028| F-999 | x | y | z |", "bad_value"),
    Cell("paragraph-separator-u2029", "a\u2029b", "bad_value"),
    Cell("backslash-pipe", "grep 'a\\|b' src", "bad_value"),
    Cell("backslash-pipe-alone", "\\|", "bad_value"),
    Cell("backslash-pipe-in-code", "`x \\| y`", "bad_value"),
    Cell("double-backslash-pipe", "a\\\\|b", "bad_value"),
    Cell("nul", "a\x00b", "bad_value"),
    # size: bytes, not characters
    Cell("one-byte-over", "x" * (MAX_CELL_BYTES + 1), "value_too_long"),
    Cell("multibyte-over", "é" * (MAX_CELL_BYTES // 2 + 1), "value_too_long"),
    Cell("five-megabytes", "y" * (5 * 1024 * 1024), "value_too_long"),
    Cell("five-megabytes-of-newlines", "\n" * (5 * 1024 * 1024), "value_too_long"),
    # the legitimate twins
    Cell("plain-pipe", "a|b", None),
    Cell("pipe-in-code", "`grep -E 'a|b' src`", None),
    Cell("leading-and-trailing-pipe", "| x |", None),
    Cell("exactly-the-limit", "x" * MAX_CELL_BYTES, None),
    Cell("multibyte-at-the-limit", "é" * (MAX_CELL_BYTES // 2), None),
    Cell("windows-path", "C:\\tools\\bin", None),
    Cell("trailing-backslash", "ends with a backslash \\", None),
    Cell("backslash-then-space-pipe", "a\\ |b", None),
    Cell("tab-collapses", "tab\there", None, "tab here"),
    Cell("emoji", "deploy 🚀 failed", None),
)
