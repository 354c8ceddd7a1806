"""Commit metadata read in the background: the last commit touching each ledger, and one
commit's subject, date, stat and diff for the prompt (each one git process, started early)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from . import SECRET_FILE_PATTERNS, Repo, _failed, _start

if TYPE_CHECKING:
    from io import BufferedReader


def start_last_commits(
    repo: Repo, commit: str | None, paths: Sequence[str]
) -> Callable[..., dict[str, str | None]]:
    """For each path, the last commit at or before ``commit`` that touched it (one process).

    The git process starts now; the returned function collects the answer, so a caller can
    parse while git walks the history. Call it with ``cancel=True`` to stop
    the process without reading (for example when parsing failed).
    """
    found: dict[str, str | None] = {p: None for p in paths}
    if commit is None:
        return lambda cancel=False: found
    proc = _start(
        repo.root,
        "log",
        "-z",
        "--format=%x01%H",
        "--name-only",
        "--no-renames",
        "--end-of-options",
        commit,
        "--",
        *paths,
    )
    assert proc.stdout is not None and proc.stderr is not None
    # a PIPE with default buffering is a BufferedReader (typeshed types it IO[bytes])
    stdout, stderr = cast("BufferedReader", proc.stdout), proc.stderr

    def collect(cancel: bool = False) -> dict[str, str | None]:
        buffer = b""
        missing = set() if cancel else set(paths)
        ended = False
        try:
            while missing:
                chunk = stdout.read1(65536)
                if not chunk:
                    ended = True
                    break
                buffer += chunk
                *records, buffer = buffer.split(b"\x01")
                for record in records:
                    _scan_log_record(record, found, missing)
            if missing and buffer:
                _scan_log_record(buffer, found, missing)
        finally:
            if proc.poll() is None and not ended:
                proc.kill()
            stdout.close()
            err = stderr.read()
            stderr.close()
            code = proc.wait()
        if ended and code != 0:  # a failing log is an error, never "no commit touched it"
            raise _failed(err, "log", f"check the repository (git log {commit} -- PATH)")
        return found

    return collect


def _scan_log_record(record: bytes, found: dict[str, str | None], missing: set[str]) -> None:
    if not record:
        return
    sha, _, names = record.partition(b"\0")
    for name in names.strip(b"\n").split(b"\0"):
        path = name.strip(b"\n").decode("utf-8", "surrogateescape")
        if path in missing:
            found[path] = sha.decode()
            missing.discard(path)


# Settings that would make `git show` output depend on the user's configuration.
_SHOW_CONFIG = (
    "-c",
    "log.showSignature=false",
    "-c",
    "diff.noprefix=false",
    "-c",
    "diff.mnemonicPrefix=false",
    "-c",
    "core.quotePath=true",
    "-c",
    "diff.relative=false",
    "-c",
    "diff.orderFile=",
    "-c",
    "color.ui=never",
)


class CommitInfo(NamedTuple):
    """The latest commit as the prompt shows it: header, stat, and a bounded patch."""

    sha: str
    subject: str
    author_date: str  # strict ISO 8601, as recorded
    stat: str
    diff: str  # at most ``diff_lines`` lines
    diff_lines: int  # lines kept
    diff_cut: bool  # True when the patch had more lines than were kept
    excluded: tuple[str, ...] = SECRET_FILE_PATTERNS  # file-name globs left out, any depth


def start_show_commit(
    repo: Repo, commit: str, diff_lines: int, exclude: Sequence[str] = SECRET_FILE_PATTERNS
) -> Callable[..., CommitInfo | None]:
    """Start reading ``commit`` for the prompt: SHA, subject, author date, ``--stat`` and
    the first ``diff_lines`` patch lines. The returned function collects them
    (``cancel=True``: stop git and return None, for example when parsing failed).

    One ``git diff-tree --always`` process (``git show`` prints nothing at all when the
    pathspec excludes every change), read as a stream and stopped once the bound is reached,
    so a huge commit costs no more than a small one. It starts now, so git computes the
    ``--stat`` while the caller parses the ledgers. External diff drivers and
    textconv filters are off (they run arbitrary programs); secret-looking files are
    left out by pathspec.
    """
    args = [
        *_SHOW_CONFIG,
        "diff-tree",
        "--always",
        "--root",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--diff-merges=first-parent",
        "-M",
        "--stat=100,70",
        "--stat-graph-width=20",
        "-p",
        "--format=%H%x00%s%x00%aI%x00",
        "--end-of-options",
        commit,
        "--",
        *(":(exclude,glob)**/" + pattern for pattern in exclude),
    ]
    proc = _start(repo.root, *args)
    assert proc.stdout is not None and proc.stderr is not None
    stdout, stderr = proc.stdout, proc.stderr

    def collect(cancel: bool = False) -> CommitInfo | None:
        lines: list[bytes] = []
        cut = False
        header = b""
        try:
            if cancel:
                return None
            header = stdout.readline()
            stat: list[bytes] = []
            line = stdout.readline()
            if line == b"---\n":
                line = stdout.readline()
                while line and line != b"\n":
                    stat.append(line)
                    line = stdout.readline()
                line = stdout.readline()
            while line:
                if len(lines) >= diff_lines:
                    cut = True
                    break
                lines.append(line)
                line = stdout.readline()
        finally:
            if proc.poll() is None:
                proc.kill()
            stdout.close()
            err = stderr.read()
            stderr.close()
            code = proc.wait()
        if not cut and code != 0 or header.count(b"\0") < 3:
            raise _failed(err, "diff-tree", f"check that {commit} is a commit (git show {commit})")
        sha, subject, date, _ = header.decode("utf-8", "replace").split("\0", 3)
        return CommitInfo(
            sha=sha,
            subject=subject,
            author_date=date,
            stat=b"".join(stat).decode("utf-8", "replace").rstrip("\n"),
            diff=b"".join(lines).decode("utf-8", "replace").rstrip("\n"),
            diff_lines=len(lines),
            diff_cut=cut,
            excluded=tuple(exclude),
        )

    return collect
