"""Bounded reads of what a user, an agent or a runtime hands rehydrate (ledgers, settings,
state and index files, transcripts, templates, files named on the command line, stdin).

Every read of a file rehydrate did not write goes through ``read_file``: it opens without
blocking (``O_NONBLOCK``: a FIFO never waits for a writer) and checks the *type* (a
regular file: not a FIFO, a device such as ``/dev/zero``, a directory) and the *size*
against ``limit`` with ``fstat`` **before** reading, so ``truncate -s 10G docs/Spec.md``
is an error in microseconds, not a 10 GB read; then it reads at most ``limit`` bytes (a
file that grows meanwhile is cut off). Streams (stdin) are read up to ``limit`` + 1 bytes.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path

from .errors import RehydrateError
from .typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import BinaryIO, TextIO

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


class NotAFile(RehydrateError):
    """A path rehydrate reads is a FIFO, a device, a socket or a directory (exit 2)."""


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words ("a FIFO", …; "a regular file")."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_upto(fd: int, size: int) -> bytes:
    """At most ``size`` bytes from the open descriptor ``fd`` (fewer at its end), read in
    chunks of at most 1 MiB: the one read loop of every bounded read."""
    chunks, left = [], size
    while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _open_regular(path: Path | str, shown: str, dir_fd: int | None = None) -> tuple[int, int]:
    """(descriptor, size) of the regular file at ``path``, opened without blocking;
    anything else is ``NotAFile`` (``not_a_regular_file``), its descriptor closed."""
    fd = os.open(path, _FLAGS, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotAFile(
            f"is {kind_of(info.st_mode)}, not a regular file; refusing to read it",
            file=shown,
            code="not_a_regular_file",
            fix="replace it with a regular file",
        )
    return fd, info.st_size


def read_file(
    path: Path | str,
    limit: int,
    name: str | None = None,
    *,
    too_large: type[RehydrateError] = InputTooLarge,
    code: str = "input_too_large",
    fix: str = "pass a regular file of a sensible size",
    dir_fd: int | None = None,
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Type and size are checked on the open descriptor before anything is read: not a
    regular file is ``NotAFile`` (``not_a_regular_file``), larger than ``limit`` is
    ``too_large`` with ``code``. ``name``: how messages name the file (default ``path``).
    OSError (missing, permissions) reaches the caller as it is.
    """
    shown = str(path) if name is None else name
    fd, size = _open_regular(path, shown, dir_fd)
    try:
        if size > limit:
            raise too_large(
                f"is {size} bytes, over the {limit}-byte limit; refusing to read it",
                file=shown,
                code=code,
                fix=fix,
            )
        data = read_upto(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while being read
        raise too_large(
            f"grew past the {limit}-byte limit while being read", file=shown, code=code, fix=fix
        )
    return data


def read_text_file(path: Path | str, limit: int, name: str | None = None) -> str:
    """``read_file`` decoded as UTF-8 (invalid bytes kept as surrogates)."""
    return read_file(path, limit, name).decode("utf-8", "surrogateescape")


def read_path(path: Path | str, limit: int) -> bytes:
    """At most ``limit`` bytes of the file at ``path``; more is ``input_too_large``. A path
    that is not a regular file (``-`` aside, which callers map to stdin) is refused:
    ``/dev/stdin`` or a FIFO named on the command line is read as a stream."""
    try:
        return read_file(path, limit)
    except NotAFile:
        if not os.path.exists(path) or os.path.isdir(path):
            raise
        with open(path, "rb") as handle:  # a FIFO or /dev/stdin the user named: a stream
            return read_stream(handle, str(path), limit)


def read_head(path: Path | str, head: int) -> bytes:
    """The first ``head`` bytes of the regular file at ``path`` (a scan for a name: only
    its start matters); a FIFO, device or directory is ``OSError(EINVAL)``, never a wait."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, f"is {kind_of(info.st_mode)}, not a regular file", path)
        return read_upto(fd, head)
    finally:
        os.close(fd)


def read_tail(path: Path | str, tail: int) -> bytes:
    """The last ``tail`` bytes of the regular file at ``path`` (a transcript: only its end
    matters, however large or sparse it is); a FIFO or device is ``NotAFile``, never a
    wait."""
    fd, size = _open_regular(path, str(path))
    try:
        os.lseek(fd, max(0, size - tail), os.SEEK_SET)
        return read_upto(fd, tail)
    finally:
        os.close(fd)


MAX_JSON_DEPTH = 100  # nesting deeper than any file or event rehydrate reads needs
_JSON_STRING = rb'(?s)"(?:[^"\\]|\\.)*+"'
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


class JSONUnreadable(ValueError):
    """JSON nested deeper than ``MAX_JSON_DEPTH``: unreadable input, like invalid JSON."""


def load_json(data: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> object:
    """``json.loads`` of input rehydrate did not write, nesting bounded: deeper than
    ``max_depth`` raises ``JSONUnreadable`` (a ``ValueError``, as invalid JSON does)
    before the parser recurses; so does anything the parser cannot take (recursion)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if b"[" in raw or b"{" in raw:
        brackets = re.sub(_JSON_STRING, b"", raw).translate(None, _NOT_BRACKETS)
        if len(brackets) > 2 * max_depth:  # else it cannot be deeper than max_depth
            for _ in range(max_depth):  # each pass drops the innermost pairs
                shorter = brackets.replace(b"[]", b"").replace(b"{}", b"")
                if shorter == brackets:
                    break
                brackets = shorter
            else:
                if brackets:
                    raise JSONUnreadable(f"JSON nested deeper than {max_depth} levels")
    try:
        return json.loads(data)
    except RecursionError:
        raise JSONUnreadable(f"JSON nested deeper than {max_depth} levels") from None


SETTINGS_LIMIT = 8 * 1024 * 1024  # a settings, hook, plugin, instructions or log file


def read_bytes(path: Path | str, limit: int = SETTINGS_LIMIT) -> bytes:
    """``Path.read_bytes`` through ``read_file``, for callers that handle ``OSError``: a
    FIFO, device or directory is ``OSError(EINVAL)``, a file over ``limit`` bytes
    ``OSError(EFBIG)`` (checked before reading, like every read here)."""
    try:
        return read_file(path, limit)
    except NotAFile as exc:
        raise OSError(errno.EINVAL, exc.message, str(path)) from None
    except InputTooLarge as exc:
        raise OSError(errno.EFBIG, exc.message, str(path)) from None


def read_text(path: Path | str, limit: int = SETTINGS_LIMIT, errors: str = "strict") -> str:
    """``Path.read_text(encoding="utf-8", errors=errors)`` through ``read_bytes``."""
    return read_bytes(path, limit).decode("utf-8", errors)
