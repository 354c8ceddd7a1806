"""What stalled sessions attempted: their commits, the end of their output, and the
failures they ran into but did not record (captured by the agent hooks)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import git
from ..config import Config
from ..continuity.sessions import SessionRecord
from ..errors import RehydrateError
from ..redact import redact

TAIL_LINES = 3  # lines of each session's output shown
TAIL_BYTES = 1 << 18  # a runtime event can be long (a hook response: tens of KiB)
LINE_CHARS = 200


def log_tail(repo: git.Repo, log: str) -> list[str]:
    """The last non-empty lines of a session's log, as people read it (the runtimes' JSON
    events rendered, ``stream``), made visible, redacted and cut to size."""
    from ..errors import RehydrateError
    from ..quote import line
    from ..readlimit import read_tail
    from .stream import render_all

    try:  # the agent can swap its log for a FIFO or a device: a regular file or nothing
        data = read_tail(repo.root / log, TAIL_BYTES + 1)
    except (OSError, RehydrateError):
        return []
    if len(data) > TAIL_BYTES:  # the first line is cut: not a whole line, nor a whole event
        data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""
    lines = [ln.strip() for ln in render_all(data) if ln.strip()]
    return [line(ln)[:LINE_CHARS] for ln in lines[-TAIL_LINES:]]


def attempted(repo: git.Repo, entry: SessionRecord) -> list[str]:
    from ..git.sessions import commits_between

    lines = [f"  session #{entry.number} ({entry.ended_by}, exit {entry.exit}):"]
    commits = []
    if entry.head_before and entry.head_after:
        try:
            commits = commits_between(repo, entry.head_before, entry.head_after, limit=5)
        except RehydrateError:
            commits = []
    lines += [f"    commit {c.sha[:12]} {redact(c.subject)[:LINE_CHARS]}" for c in commits]
    if not commits:
        lines.append("    no commits")
    if entry.uncommitted:
        lines.append(f"    left uncommitted: {', '.join(entry.uncommitted)}")
    lines += [f"    output: {line}" for line in log_tail(repo, entry.log)]
    return lines


def unrecorded_failures(repo: git.Repo, config: Config) -> list[str]:
    """Captured failed commands with no failure row yet (agent hooks capture them)."""
    from ..agents.captured import one_line, unrecorded
    from ..agents.core import Project

    try:
        left = unrecorded(Project(repo, config))
    except RehydrateError:
        return []
    return [
        f"  pending failure {p.number}: `{one_line(p.command)[:LINE_CHARS]}` failed "
        f"{p.times}x; record it: rehydrate fail add ... (or rehydrate fail dismiss {p.number})"
        for p in left
    ]


def stall_report(repo: git.Repo, config: Config, sessions: Sequence[SessionRecord]) -> str:
    lines = ["What the last sessions attempted:"]
    for entry in sessions:
        lines += attempted(repo, entry)
    failures = unrecorded_failures(repo, config)
    if failures:
        lines.append("Failures they ran into but did not record:")
        lines += failures
    else:
        lines.append("Failures they ran into but did not record: none captured")
    return "\n".join(lines)
