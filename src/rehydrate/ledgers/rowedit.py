"""Byte-exact line and row edits, shared by the writers and the merge.

A file is a ``Text``: its lines, and their endings kept apart, so BOM, CRLF and a
missing final newline survive every edit. A table row is edited by cell position
(``rewrite_cells``): cells that do not change keep their exact bytes, padding and
escapes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ._table import escape_cell

PIPE = re.compile(r"(?<!\\)\|")  # a cell separator: a pipe not escaped as \|


def split_cells(line: str) -> list[str]:
    """The raw (untrimmed, unescaped) cells of a row that starts and ends with a pipe."""
    body = line.strip(" \t")[1:-1]
    return [p.replace("\\|", "|") for p in PIPE.split(body)]


def rewrite_cells(line: str, updates: Mapping[int, str]) -> str:
    """Replace cells by position; a shorter value is padded to keep the column width,
    other cells keep their exact bytes."""
    if not updates:
        return line
    pipes = [m.start() for m in PIPE.finditer(line)]
    out = [line[: pipes[0] + 1]]
    for position in range(len(pipes) - 1):
        segment = line[pipes[position] + 1 : pipes[position + 1]]
        if position in updates:
            new = " " + escape_cell(updates[position]) + " "
            segment = new.ljust(len(segment)) if len(new) < len(segment) else new
        out.append(segment + "|")
    out.append(line[pipes[-1] + 1 :])
    return "".join(out)


@dataclass(frozen=True)
class Text:
    """A file as lines without their endings, endings kept apart so they survive untouched."""

    bom: bool
    lines: tuple[str, ...]
    eols: tuple[str, ...]  # "\n", "\r\n", or "" for a last line without one

    @property
    def newline(self) -> str:
        """The file's own line ending, for lines a writer adds."""
        crlf = sum(1 for e in self.eols if e == "\r\n")
        return "\r\n" if crlf * 2 > len([e for e in self.eols if e]) else "\n"


def split_text(data: bytes) -> Text:
    """``data`` (UTF-8, optional BOM) as a Text; ``join_text`` gives the same bytes back."""
    bom = data.startswith(b"\xef\xbb\xbf")
    text = data[3 if bom else 0 :].decode("utf-8")
    parts = text.split("\n")
    lines: list[str] = []
    eols: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if last and part == "":
            break
        eol = "" if last else "\n"
        if not last and part.endswith("\r"):
            part, eol = part[:-1], "\r\n"
        lines.append(part)
        eols.append(eol)
    return Text(bom, tuple(lines), tuple(eols))


def join_text(text: Text) -> bytes:
    """The bytes of ``text``: BOM, lines and their own endings."""
    body = "".join(line + eol for line, eol in zip(text.lines, text.eols, strict=True))
    return (b"\xef\xbb\xbf" if text.bom else b"") + body.encode("utf-8")


def insert_lines(text: Text, index: int, new: Sequence[str]) -> Text:
    """Insert ``new`` before line ``index`` (0-based); a last line gains its missing EOL."""
    lines, eols = list(text.lines), list(text.eols)
    newline = text.newline
    added = [newline] * len(new)
    if index == len(lines) and lines and eols[-1] == "":
        eols[-1] = newline
        added[-1] = ""  # the file had no final newline: it still has none
    return Text(
        text.bom,
        tuple(lines[:index] + list(new) + lines[index:]),
        tuple(eols[:index] + added + eols[index:]),
    )


def replace_line(text: Text, index: int, line: str) -> Text:
    """``text`` with line ``index`` (0-based) replaced; its ending is kept."""
    lines = list(text.lines)
    lines[index] = line
    return Text(text.bom, tuple(lines), text.eols)
