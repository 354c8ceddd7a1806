"""Bounded reads of what a user or a runtime hands rehydrate (files named on the command
line, stdin): ``/dev/zero``, a FIFO fed by ``yes`` or a multi-gigabyte file is an input
error after ``limit`` bytes, never a hang or an out-of-memory kill."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO, TextIO

from .errors import RehydrateError

SUMMARY_LIMIT = 8 * 1024 * 1024  # summaries, envelopes, hook events, pushed ref lists
TEMPLATE_LIMIT = 1024 * 1024  # the prompt's working-protocol template


class InputTooLarge(RehydrateError):
    """An input is larger than rehydrate reads (exit 2)."""


def _too_large(name: str, limit: int) -> InputTooLarge:
    return InputTooLarge(
        f"larger than {limit // (1024 * 1024)} MiB; refusing to read further",
        file=name,
        code="input_too_large",
        fix="pass a regular file of a sensible size",
    )


def read_stream(stream: BinaryIO, name: str, limit: int = SUMMARY_LIMIT) -> bytes:
    """At most ``limit`` bytes of ``stream``; more is ``input_too_large``."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise _too_large(name, limit)
    return data


def read_text_stream(stream: TextIO, name: str, limit: int = SUMMARY_LIMIT) -> str:
    """``read_stream`` for a text stream (``sys.stdin``): its bytes when it has a buffer."""
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return read_stream(buffer, name, limit).decode("utf-8", "surrogateescape")
    text = stream.read(limit + 1)
    if len(text) > limit:
        raise _too_large(name, limit)
    return text


def read_path(path: Path | str, limit: int) -> bytes:
    """At most ``limit`` bytes of the file at ``path``; more is ``input_too_large``."""
    with open(path, "rb") as handle:
        return read_stream(handle, str(path), limit)
