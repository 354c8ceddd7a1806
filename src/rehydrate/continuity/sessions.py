"""The record of ``rehydrate run``: ``.rehydrate/sessions/index.jsonl``, one line per session.

Each line is one ``SessionRecord`` (schema ``rehydrate/run-session-v1``), written with a
single ``O_APPEND`` write, keys sorted: the same sessions give the same lines but for the
``start`` and ``end`` timestamps. A line that cannot be read (a crash mid-write, a hand
edit) is skipped and counted, never trusted. The logs of the sessions sit beside it
(``<n>.log``, ``<n>.prompt.md``). ``rehydrate run --status`` and ``rehydrate status`` read it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import overload

SCHEMA = "rehydrate/run-session-v1"
STATE_DIR = ".rehydrate"
SESSIONS_DIR = f"{STATE_DIR}/sessions"
INDEX = f"{SESSIONS_DIR}/index.jsonl"
MAX_INDEX = 16 << 20  # bytes of the index read; a larger one is read from its tail

# How a session ended (``ended_by``).
EXITED = "exited"  # the agent exited by itself
SESSION_TIME = "max_minutes"  # --max-minutes for one session
TOTAL_TIME = "max_total_minutes"
CONTEXT = "context_limit"  # --context-limit: told to record its state, then ended
PHASE = "phase_done"  # --end-at-phase: a phase was done and committed
INTERRUPTED = "interrupted"  # Ctrl-C (SIGINT) or SIGTERM to rehydrate run

# What the loop made of it (``verdict``).
CONTINUE = "continue"
DONE = "done"
BLOCKED = "blocked"
VIOLATION = "violation"
REVERTED = "reverted"
STALLED = "stalled"
LIMIT = "limit"
STOPPED = "interrupted"


@dataclass(frozen=True)
class SessionRecord:
    """One session of ``rehydrate run``, as the index keeps it."""

    number: int
    start: str  # UTC, ISO 8601
    end: str
    agent: str  # the command's program name
    exit: int | None  # the agent's exit code; negative: killed by that signal
    ended_by: str
    head_before: str | None
    head_after: str | None
    commits: int  # commits the session added (HEAD_before..HEAD_after)
    progress: tuple[str, ...]  # the ledger items that moved, e.g. "X-001 open->passed"
    guard: str  # "pass" | "refused"
    violations: tuple[str, ...]  # "code ID path" of each refusal
    uncommitted: tuple[str, ...]  # ledger paths left uncommitted at the end
    committed_ledgers: str | None  # the commit --commit-ledgers made
    cost_usd: float | None  # as the agent reported it (claude: total_cost_usd)
    context_peak: int | None  # tokens, where the runtime reports them
    verdict: str
    log: str  # the session's log, relative to the repository

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = asdict(self)
        for key in ("progress", "violations", "uncommitted"):
            out[key] = list(getattr(self, key))
        return {"schema": SCHEMA, **out}


def _record(raw: object) -> SessionRecord | None:
    """A line's record, or None when it is not what ``append`` writes."""
    if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
        return None
    names = [f.name for f in fields(SessionRecord)]
    if set(raw) != {"schema", *names}:
        return None
    values = dict(raw)
    values.pop("schema")
    for key in ("progress", "violations", "uncommitted"):
        items = values[key]
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            return None
        values[key] = tuple(items)
    for key, kinds in _TYPES.items():  # a wrong type is an unreadable line, not a crash
        value = values[key]
        if isinstance(value, bool) or not isinstance(value, kinds):
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return None
    if values["number"] < 1 or not _encodable(values):
        return None
    return SessionRecord(**values)


def _encodable(values: Mapping[str, object]) -> bool:
    """No lone surrogate in the record's text (JSON's ``\\ud800`` escapes parse into one;
    nothing can print it as UTF-8): such a line is unreadable, like a mistyped one."""
    texts = [v for v in values.values() if isinstance(v, str)]
    texts += [i for v in values.values() if isinstance(v, tuple) for i in v]
    try:
        "\x00".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_OPT_INT, _OPT_STR = (int, type(None)), (str, type(None))
# every scalar field of SessionRecord and the JSON types a line may give it
_TYPES: dict[str, type | tuple[type, ...]] = {
    "number": int,
    "start": str,
    "end": str,
    "agent": str,
    "exit": _OPT_INT,
    "ended_by": str,
    "head_before": _OPT_STR,
    "head_after": _OPT_STR,
    "commits": int,
    "guard": str,
    "committed_ledgers": _OPT_STR,
    "cost_usd": (float, int, type(None)),
    "context_peak": _OPT_INT,
    "verdict": str,
    "log": str,
}


def index_path(root: Path) -> Path:
    return root / INDEX


def sessions_dir(root: Path) -> Path:
    """``.rehydrate/sessions/`` (made, with ``.rehydrate/.gitignore``); never a symlink."""
    state = root / STATE_DIR
    folder = root / SESSIONS_DIR
    for path in (state, folder):
        if path.is_symlink():
            raise OSError(f"{path} is a symlink; refusing to write the run record through it")
    folder.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(state / ".gitignore"):
        from ..ledgers.atomicfile import write_in_repo

        write_in_repo(root, f"{STATE_DIR}/.gitignore", b"*\n", exclusive=True)
    return folder


def append(root: Path, record: SessionRecord) -> None:
    """Add one line with a single ``O_APPEND`` write: a reader never sees half a line."""
    sessions_dir(root)
    line = json.dumps(record.to_json(), ensure_ascii=False, sort_keys=True) + "\n"
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(index_path(root), flags, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


class Index(Sequence[SessionRecord]):
    """The records read from the index, oldest first, and how many lines were skipped."""

    def __init__(self, records: Sequence[SessionRecord], skipped: int) -> None:
        self.records = tuple(records)
        self.skipped = skipped

    def __len__(self) -> int:
        return len(self.records)

    @overload
    def __getitem__(self, index: int) -> SessionRecord: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[SessionRecord, ...]: ...

    def __getitem__(self, index: int | slice) -> SessionRecord | tuple[SessionRecord, ...]:
        return self.records[index]

    @property
    def next_number(self) -> int:
        """The number of the next session: one past the highest recorded."""
        return max((r.number for r in self.records), default=0) + 1


def read_index(root: Path) -> Index:
    """Every readable record, oldest first (a missing index: none)."""
    from ..readlimit import load_json, read_tail

    path = index_path(root)
    try:  # only its end, and never a FIFO or a device
        data = read_tail(path, MAX_INDEX + 1)
    except FileNotFoundError:
        return Index((), 0)
    if len(data) > MAX_INDEX:
        data = data.partition(b"\n")[2]  # a partial first line
    records: list[SessionRecord] = []
    skipped = 0
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            record = _record(load_json(line))
        except (ValueError, TypeError, RecursionError):
            record = None
        if record is None:
            skipped += 1
        else:
            records.append(record)
    return Index(records, skipped)


def summary_line(record: SessionRecord) -> str:
    """One line for people: number, verdict, how it ended, what moved."""
    moved = ", ".join(record.progress[:4]) + (
        f" (+{len(record.progress) - 4})" if len(record.progress) > 4 else ""
    )
    cost = f" ${record.cost_usd:.2f}" if record.cost_usd is not None else ""
    context = f" ctx {record.context_peak}" if record.context_peak is not None else ""
    exit_ = "-" if record.exit is None else str(record.exit)
    from ..terminal import one_line

    return one_line(
        f"#{record.number} {record.start} {record.verdict} ({record.ended_by}, exit {exit_}, "
        f"{record.commits} commit{'s' * (record.commits != 1)}, guard {record.guard}{cost}"
        f"{context}): {moved or 'no ledger progress'}"
    )


def to_json_list(records: Sequence[SessionRecord]) -> list[Mapping[str, object]]:
    return [r.to_json() for r in records]
