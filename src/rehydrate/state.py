"""Pinned state: the three parsed ledgers at one source, their pins, the semantic checksum."""

from collections.abc import Mapping, Sequence

from . import git
from .config import Config
from .errors import LedgerParseError
from .git import commits as git_commits
from .ledgers import KINDS, Ledger, normalize, parse_ledger
from .ledgers.model import Item
from .quote import sha256_text
from .records import NamedTuple

CHECKSUM_PREFIX = "rehydrate-checksum/v1:sha256:"
SOURCES = ("rev", "staged", "worktree")


class Source(NamedTuple):
    """Where ledgers are read from: a commit, the index, or the work tree."""

    kind: str  # "rev" | "staged" | "worktree"
    rev: str | None = None  # as given by the user, for kind "rev"

    @property
    def label(self) -> str:
        return f"rev {self.rev}" if self.kind == "rev" else self.kind


class Pin(NamedTuple):
    kind: str
    path: str
    blob: str | None
    last_commit: str | None
    source: str


class State(NamedTuple):
    repo: git.Repo
    head: str | None
    branch: str | None
    source: Source
    commit: str | None  # the commit read for kind "rev"
    ledgers: Mapping[str, Ledger]
    pins: Mapping[str, Pin]
    checksum: str


def resolve(
    repo: git.Repo, source: Source, head: str | None = None, head_known: bool = False
) -> tuple[str | None, str | None]:
    """(HEAD, the commit ``source`` reads: None for the index and the work tree).

    ``head``: HEAD's commit id when the caller already has it (``head_known``; None then
    means no commits yet).
    """
    if not head_known:
        head = git.head(repo)
    return head, commit_of(repo, source, head)


def commit_of(repo: git.Repo, source: Source, head: str | None) -> str | None:
    """The commit ``source`` reads (None for the index and the work tree)."""
    if source.kind != "rev":
        return None
    rev = source.rev or "HEAD"
    return head if rev == "HEAD" and head else git.resolve_commit(repo, rev)


def read_files(
    repo: git.Repo,
    config: Config,
    source: Source,
    commit: str | None,
    worktree: Mapping[str, git.Blob] | None = None,
) -> dict[str, git.Blob]:
    """The raw ledger files at ``source`` (``commit``: the one ``resolve`` gave;
    ``worktree``: the ledger files as ``read_worktree`` found them, if the caller has them)."""
    paths = [config.path_of(k) for k in KINDS]
    if source.kind == "worktree":
        return (
            dict(worktree)
            if worktree is not None
            else git.read_worktree(repo, paths, config.max_ledger_bytes)
        )
    if source.kind == "staged":
        return git.read_index(repo, paths)
    return git.read_at(repo, commit, paths, worktree)


def parse_file(kind: str, blob: git.Blob, config: Config, where: str) -> Ledger:
    """Parse one ledger file; absence, symlinks and odd modes are errors, never 'empty'."""
    if blob.data is None and blob.mode is None:
        raise LedgerParseError(
            f"ledger not found ({where})",
            file=blob.path,
            code="ledger_missing",
            fix="run `rehydrate init` (or fix the path in the configuration)",
        )
    if blob.mode == "120000":
        raise LedgerParseError(
            "ledger is a symlink",
            file=blob.path,
            code="ledger_symlink",
            fix="commit the ledger as a regular file",
        )
    if blob.mode not in git.REGULAR_MODES or blob.data is None:
        raise LedgerParseError(
            f"ledger is not a regular file (mode {blob.mode})",
            file=blob.path,
            code="ledger_not_regular",
            fix="make it a regular file",
        )
    return parse_ledger(
        kind,
        blob.path,
        blob.data,
        section_aliases=config.section_aliases,
        column_aliases=config.column_aliases,
        max_bytes=config.max_ledger_bytes,
    )


def load_state(
    repo: git.Repo,
    config: Config,
    source: Source,
    resolved: tuple[str | None, str | None] | None = None,
    worktree: Mapping[str, git.Blob] | None = None,
) -> State:
    """Read, parse and pin the three ledgers at ``source`` (``resolved``: what
    ``resolve(repo, source)`` returned, when the caller needed it first; ``worktree``:
    the ledger files as ``read_worktree`` found them, reused where the bytes match)."""
    head, commit = resolved if resolved is not None else resolve(repo, source)
    files = read_files(repo, config, source, commit, worktree)
    paths = [config.path_of(k) for k in KINDS]
    # git walks the history for the pins while the ledgers are parsed.
    collect = git_commits.start_last_commits(repo, commit if source.kind == "rev" else head, paths)
    try:
        ledgers = {k: parse_file(k, files[config.path_of(k)], config, source.label) for k in KINDS}
    except BaseException:
        collect(cancel=True)
        raise
    last = collect()
    pins = {
        k: Pin(
            k,
            config.path_of(k),
            files[config.path_of(k)].blob,
            last[config.path_of(k)],
            source.label,
        )
        for k in KINDS
    }
    return State(repo, head, git.branch(repo), source, commit, ledgers, pins, checksum(ledgers))


def checksum_payload(ledgers: Mapping[str, Ledger]) -> dict[str, dict[str, object]]:
    """The resume-critical content: item cells, retired IDs, next action, task, objective.

    Each section is ``{"columns": [...], "rows": TEXT}``: every row is its ID, its cells
    in column order and then its extra columns as ``name U+001D value`` sorted by name,
    joined by U+001F; rows are joined by U+001E, sorted (that is, by ID) except phases,
    which keep their order. Those separators are control characters, which the parser
    refuses inside items and headers, so the text is unambiguous. Prose, revision and
    the order of rows in unordered sections are left out; cells are already normalised.
    """
    payload: dict[str, dict[str, object]] = {}
    for kind in KINDS:
        ledger = ledgers[kind]
        sections: dict[str, dict[str, object]] = {}
        for name, records in ledger.items.items():
            columns = list(records[0]._fields) if records else []
            if not any(r[-1] for r in records):  # no extra column: the fast way
                sections[name] = {
                    "columns": columns,
                    "rows": _plain_rows_text(records, name != "phases"),
                }
                continue
            rows = [
                _UNIT.join(r[:1] + r[2:-1]) if not r[-1] else _row_with_extra(r) for r in records
            ]
            if name != "phases":
                rows.sort()
            sections[name] = {"columns": columns, "rows": _RECORD.join(rows)}
        payload[kind] = {"items": sections, "retired": sorted(ledger.retired_ids)}
    task = ledgers["task"]
    payload["task"].update(
        {
            "task": normalize(task.task_id),
            "objective": normalize(task.objective),
            "next_action": normalize(task.next_action.text) if task.next_action else None,
        }
    )
    return payload


_UNIT, _RECORD, _GROUP = "\x1f", "\x1e", "\x1d"


class _Quoted(str):
    """A string already written as its JSON literal (canonical_json emits it as it is)."""


def _plain_rows_text(records: Sequence[Item], sort: bool) -> str:
    """The rows' text for records without extra columns, joined at C speed (10,000 rows).

    Sorting the rows' text is sorting by ID: IDs are unique, and one ends at U+001F,
    which sorts before any character an ID may hold. The text is joined with the
    separators' JSON escapes in place; cells hold no control character (the parser
    refuses them and turns tabs into spaces), so a text with no '"', backslash or tab
    needs no escaping pass and is returned as its own JSON literal.
    """
    if not records:
        return ""
    fields = list(zip(*records, strict=True))
    rows = list(zip(fields[0], *fields[2:-1], strict=True))
    if sort:
        rows.sort()  # by ID: unique, so no comparison reaches a second cell
    text = _ESCAPED_RECORD.join(map(_ESCAPED_UNIT.join, rows))
    separators = len(rows) * len(rows[0]) - 1  # each escape holds one backslash
    if '"' not in text and "\t" not in text and text.count("\\") == separators:
        return _Quoted('"' + text + '"')
    return _RECORD.join(map(_UNIT.join, rows))


_ESCAPED_UNIT, _ESCAPED_RECORD = "\\u001f", "\\u001e"


def _row_with_extra(record: Item) -> str:
    extra = [name + _GROUP + value for name, value in sorted(record[-1])]
    return _UNIT.join((*record[:1], *record[2:-1], *extra))


def checksum(ledgers: Mapping[str, Ledger]) -> str:
    return CHECKSUM_PREFIX + sha256_text(canonical_json(checksum_payload(ledgers)))


try:  # the json package's own string encoder, without importing the package (~1.5 ms)
    from _json import encode_basestring as _quote
except ImportError:  # pragma: no cover - Pythons without the C accelerator
    from json.encoder import py_encode_basestring as _quote


def canonical_json(value: object) -> list[str]:
    """``json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))``, in
    pieces to be hashed (never joined into one megabyte string), for dicts with string
    keys, lists, strings, ints, booleans and None (the checksum payload)."""
    out: list[str] = []
    _encode(value, out)
    return out


def _encode(value: object, out: list[str]) -> None:
    if isinstance(value, _Quoted):
        out.append(value)
    elif isinstance(value, str):
        out.append(_quote(value))
    elif value is None or value is True or value is False:
        out.append("null" if value is None else "true" if value else "false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, dict):
        out.append("{")
        for position, (key, item) in enumerate(sorted(value.items())):
            if not isinstance(key, str):
                raise TypeError(f"checksum keys are strings, not {type(key).__name__}")
            out.append(_quote(key) + ":" if not position else "," + _quote(key) + ":")
            _encode(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for position, item in enumerate(value):
            if position:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:
        raise TypeError(f"not part of a checksum payload: {type(value).__name__}")


def worktree_differs(
    repo: git.Repo, pins: Mapping[str, Pin], current: Mapping[str, git.Blob] | None = None
) -> list[str]:
    """Ledger paths whose work-tree bytes differ from the pinned blob (``current``: the
    work tree as already read)."""
    if current is None:
        current = git.read_worktree(repo, [p.path for p in pins.values()])
    return [p.path for p in pins.values() if current[p.path].blob != p.blob]


def uncommitted_ledgers(repo: git.Repo, config: Config) -> list[str]:
    """Ledger paths whose work-tree bytes differ from HEAD (all of them before a first
    commit); ``status`` and ``check`` use it to say the work tree holds something newer.
    The Claude Code adapter asks ``git status`` instead, so a change staged and then undone
    in the work tree still counts as uncommitted there."""
    paths = [config.path_of(k) for k in KINDS]
    head = git.head(repo)
    committed = git.tree_entries(repo, head, paths) if head else {}
    current = git.read_worktree(repo, paths, config.max_ledger_bytes)
    return [p for p in paths if current[p].blob != committed.get(p, ("", None))[1]]


def commit_differs(repo: git.Repo, commit: str | None, pins: Mapping[str, Pin]) -> list[str]:
    """Ledger paths whose pinned blob differs from what ``commit`` holds (no blob reads)."""
    paths = [p.path for p in pins.values()]
    entries = git.tree_entries(repo, commit, paths) if commit else {}
    return [p.path for p in pins.values() if entries.get(p.path, ("", None))[1] != p.blob]


def ledger_to_json(ledger: Ledger) -> dict[str, object]:
    retired = ledger.retired_ids
    out: dict[str, object] = {
        "items": {
            name: [dict(r.cells(), line=r.line, active=r.id not in retired) for r in records]
            for name, records in ledger.items.items()
        },
        "retired": [dict(r.cells(), line=r.line) for r in ledger.retired],
    }
    if ledger.kind == "task":
        out["task"] = ledger.task_id
        out["revision"] = ledger.revision
        out["objective"] = ledger.objective
        out["next_action"] = ledger.next_action.text if ledger.next_action else None
    return out


def state_to_json(state: State, differs: list[str] | None = None) -> dict[str, object]:
    return {
        "schema": "rehydrate/state-v1",
        "head": state.head,
        "branch": state.branch,
        "source": state.source.kind,
        "rev": state.commit,
        "checksum": state.checksum,
        "ledgers": {
            kind: {
                "path": pin.path,
                "blob": pin.blob,
                "last_commit": pin.last_commit,
                "source": pin.source,
                **ledger_to_json(state.ledgers[kind]),
            }
            for kind, pin in state.pins.items()
        },
        "differs_from_head": differs or [],
    }
