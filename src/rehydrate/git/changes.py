"""What changed between revisions: raw diffs, logs, merge parents, renames, commits and
git's three-way text merge. The guard, ``log``, the writers and the merge driver read
them; the prompt's path never imports this module. git runs through ``git._git``.
"""

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..errors import GitError
from ..records import NamedTuple
from . import Repo, _git, head, short_answer

# The empty tree, to diff against in a repository with no commits yet.
EMPTY_TREE = {
    "sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}


class RawChange(NamedTuple):
    """One line of ``git diff --raw``: modes and blob ids on both sides (zeros: absent)."""

    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str
    status: str  # A, D, M, T, U, ...
    path: str


def _literal(paths: Iterable[str]) -> list[str]:
    return [":(literal)" + p for p in paths]


def _parse_raw(tokens: list[bytes], start: int) -> tuple[list[RawChange], int]:
    """Raw records (``:modes ids status`` then path) from ``tokens[start:]``, up to a header."""
    out: list[RawChange] = []
    pos = start
    while pos < len(tokens) and tokens[pos].startswith(b":"):
        old_mode, new_mode, old_blob, new_blob, status = tokens[pos][1:].decode().split()
        path = tokens[pos + 1].decode("utf-8", "surrogateescape")
        out.append(RawChange(old_mode, new_mode, old_blob, new_blob, status[:1], path))
        pos += 2
    return out, pos


# The index against a tree: blob ids and modes only, every path on its own.
_DIFF_INDEX = ("diff-index", "--cached", "--raw", "-z", "--no-renames", "--ignore-submodules=none")


def diff_cached(repo: Repo, tree: str, paths: Sequence[str]) -> list[RawChange]:
    """Index (the inherited GIT_INDEX_FILE) against ``tree`` for ``paths``, in one process.

    Compares blob ids only (no blob is read, no textconv, no diff driver).
    """
    out = _git(repo.root, *_DIFF_INDEX, tree, "--", *_literal(paths)).stdout
    return _parse_raw(out.split(b"\0"), 0)[0]


def diff_cached_head(repo: Repo, paths: Sequence[str]) -> tuple[str, list[RawChange]]:
    """(base, changes): the index against HEAD, or against the empty tree before the first
    commit. One process in a repository with commits."""
    proc = _git(
        repo.root,
        *_DIFF_INDEX,
        "HEAD",
        "--",
        *_literal(paths),
        check=False,
    )
    if proc.returncode == 0:
        return "HEAD", _parse_raw(proc.stdout.split(b"\0"), 0)[0]
    if head(repo) is not None:
        message = proc.stderr.decode("utf-8", "replace").strip() or "git diff-index failed"
        raise GitError(
            message.splitlines()[-1], code="git_failed", fix="check the repository (git status)"
        )
    base = EMPTY_TREE[repo.object_format]
    return base, diff_cached(repo, base, paths)


def diff_pairs(
    repo: Repo, pairs: Sequence[tuple[str, str | None]], paths: Sequence[str]
) -> list[list[RawChange]]:
    """For each (commit, parent or None for a root), the raw changes to ``paths``.

    One ``git diff-tree --stdin`` process for all pairs; ``--always`` prints a header
    for every pair, so the answer lines up with the question.
    """
    if not pairs:
        return []
    text = "".join(f"{c} {p}\n" if p else f"{c}\n" for c, p in pairs).encode()
    out = _git(
        repo.root,
        "diff-tree",
        "--stdin",
        "--always",
        "--root",
        "-r",
        "--raw",
        "-z",
        "--no-renames",
        "--ignore-submodules=none",
        "--",
        *_literal(paths),
        input=text,
    ).stdout
    tokens = out.split(b"\0")
    result: list[list[RawChange]] = []
    pos = 0
    while pos < len(tokens) and len(result) < len(pairs):
        if not tokens[pos]:
            pos += 1
            continue
        changes, pos = _parse_raw(tokens, pos + 1)  # tokens[pos] is the commit header
        result.append(changes)
    if len(result) != len(pairs):
        raise short_answer("git diff-tree gave fewer answers than commits asked")
    return result


class LogEntry(NamedTuple):
    commit: str
    parents: tuple[str, ...]
    trailers: tuple[str, ...]  # its Rehydrate-Waiver trailers as git matched them (any case)


def log_entries(repo: Repo, revs: Sequence[str]) -> list[LogEntry]:
    """Commits of ``revs`` (rev-list arguments, ``--not`` allowed: callers refuse
    user-given revisions that start with '-'), parents first, with their waiver trailers."""
    fmt = "%x01%H %P%x00%(trailers:key=Rehydrate-Waiver,separator=%x1f)"
    out = _git(
        repo.root,
        "-c",
        "log.showSignature=false",
        "log",
        "--reverse",
        "--topo-order",
        "--no-color",
        f"--format={fmt}",
        *revs,
        "--",
    ).stdout
    entries: list[LogEntry] = []
    for record in out.split(b"\x01")[1:]:
        head_, _, trailer = record.partition(b"\0")
        ids = head_.decode().split()
        entries.append(LogEntry(ids[0], tuple(ids[1:]), _trailer_items(trailer)))
    return entries


def _trailer_items(trailers: bytes) -> tuple[str, ...]:
    """The ``%(trailers:...,separator=%x1f)`` items, each stripped (whether one counts as a
    waiver is the guard's to say: ``guard.report.waiver``)."""
    text = trailers.decode("utf-8", "replace").strip()
    return tuple(item.strip() for item in text.split("\x1f"))


def path_history(repo: Repo, commit: str, path: str, limit: int) -> list[str]:
    """The last ``limit`` commits at or before ``commit`` that touched ``path``, newest
    first."""
    out = _git(
        repo.root,
        "log",
        "--format=%H",
        "-n",
        str(limit),
        "--end-of-options",
        commit,
        "--",
        f":(literal){path}",
    ).stdout
    return out.decode().split()


def merge_heads(repo: Repo) -> list[str]:
    """The other parents of the merge being concluded, else empty.

    ``MERGE_HEAD`` exists when ``git commit`` concludes a merge; during the
    ``pre-merge-commit`` hook git has not written it yet, but it exports one
    ``GITHEAD_<commit id>`` variable per merged head.
    """
    heads: list[str] = []
    try:
        text = (repo.git_dir / "MERGE_HEAD").read_text(encoding="ascii")
        heads = [line.strip() for line in text.splitlines() if line.strip()]
    except OSError:
        pass
    for key in sorted(os.environ):
        oid = key[len("GITHEAD_") :]
        if (
            key.startswith("GITHEAD_")
            and len(oid) in (40, 64)
            and all(c in "0123456789abcdef" for c in oid)
            and oid not in heads
        ):
            heads.append(oid)
    return heads


def merge_bases(repo: Repo, commits: Sequence[str]) -> list[str]:
    """The merge bases of ``commits`` (all of them for two, the octopus base for more);
    empty when they share no history."""
    if len(commits) < 2:
        return []
    mode = "--all" if len(commits) == 2 else "--octopus"
    proc = _git(repo.root, "merge-base", mode, "--end-of-options", *commits, check=False)
    if proc.returncode not in (0, 1):
        message = proc.stderr.decode("utf-8", "replace").strip() or "git merge-base failed"
        raise GitError(
            message.splitlines()[-1],
            code="git_failed",
            fix="fetch the full history (git fetch --unshallow) and run it again",
        )
    return proc.stdout.decode().split()


def unmerged(repo: Repo, paths: Sequence[str]) -> dict[str, dict[int, str]]:
    """path -> {stage: blob id} for the paths a merge left unmerged in the index (stage 1
    the base, 2 ours, 3 theirs; a stage is missing when that side has no such file)."""
    out = _git(repo.root, "ls-files", "-u", "-z", "--full-name", "--", *_literal(paths)).stdout
    found: dict[str, dict[int, str]] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        _mode, oid, stage = meta.decode().split()
        found.setdefault(name.decode("utf-8", "surrogateescape"), {})[int(stage)] = oid
    return found


def find_rename(repo: Repo, old: str, new: str | None, path: str) -> str | None:
    """Where ``path`` went between ``old`` (a tree-ish) and ``new`` (None: the index)."""
    args = ["diff-index", "--cached", old] if new is None else ["diff-tree", "-r", old, new]
    proc = _git(repo.root, *args[:1], "-M", "--raw", "-z", *args[1:], check=False)
    if proc.returncode != 0:
        return None
    tokens = proc.stdout.split(b"\0")
    pos = 0
    while pos < len(tokens):
        token = tokens[pos]
        if token.startswith(b":") and token.split()[-1][:1] in (b"R", b"C"):
            source = tokens[pos + 1].decode("utf-8", "surrogateescape")
            target = tokens[pos + 2].decode("utf-8", "surrogateescape")
            if source == path and token.split()[-1][:1] == b"R":
                return target
            pos += 3
        else:
            pos += 1
    return None


def commit_paths(repo: Repo, paths: Sequence[str], message: str) -> str:
    """Commit exactly ``paths`` as they are in the work tree; other staged changes stay staged.

    ``git commit --only`` builds the commit from HEAD plus these paths, so the
    user's unrelated staged work is neither committed nor lost. Hooks run.
    """
    _git(repo.root, "add", "--", *paths)
    proc = _git(repo.root, "commit", "--only", "-q", "-m", message, "--", *paths, check=False)
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip()
        last = detail.splitlines()[-1] if detail else "git commit failed"
        raise GitError(
            f"the ledger was written but the commit failed: {last}",
            file=paths[0],
            code="commit_failed",
            fix="fix what the message says (a pre-commit hook may have refused), then commit "
            "the ledger yourself",
        )
    return _git(repo.root, "rev-parse", "HEAD").stdout.decode().strip()


class PathChange(NamedTuple):
    """One ledger path changed by one commit: (mode, blob) on each parent's side, and now.

    A merge lists a path only when it differs from every parent (git's combined diff),
    so ``old`` then has one entry per parent. Zero ids / mode 000000 mean absent.
    """

    path: str
    old: tuple[tuple[str, str], ...]
    new_mode: str
    new_blob: str


class PathCommit(NamedTuple):
    """A commit that touched some of the given paths, as ``git log`` reports it."""

    commit: str
    parents: tuple[str, ...]
    author: str
    date: str  # author date, strict ISO 8601
    subject: str
    changes: tuple[PathChange, ...]


def path_log(repo: Repo, revs: Sequence[str], paths: Sequence[str]) -> list[PathCommit]:
    """Every commit of ``revs`` that touched ``paths``, oldest first, with blob ids: one process.

    ``git log --raw -c --no-abbrev`` gives each commit's old and new blob ids per path
    (no blob is read here; ``cat_blobs`` reads them all in one more process). History is
    simplified the way ``git log -- PATHS`` does by default.
    """
    fmt = "%x01%H%x00%P%x00%an%x00%aI%x00%s%x00"
    out = _git(
        repo.root,
        "-c",
        "log.showSignature=false",
        "-c",
        "core.quotePath=false",
        "log",
        "--reverse",
        "--topo-order",
        "--no-color",
        "-z",
        "--raw",
        "-c",
        "--no-abbrev",
        "--no-renames",
        "--no-ext-diff",
        f"--format={fmt}",
        "--end-of-options",
        *revs,
        "--",
        *_literal(paths),
    ).stdout
    result: list[PathCommit] = []
    for record in out.split(b"\x01")[1:]:
        tokens = record.split(b"\0")
        sha, parents, author, date, subject = (t.decode("utf-8", "replace") for t in tokens[:5])
        changes: list[PathChange] = []
        pos = 5
        while pos + 1 < len(tokens):
            token = tokens[pos].lstrip(b"\n")
            if not token.startswith(b":"):
                pos += 1
                continue
            colons = len(token) - len(token.lstrip(b":"))
            fields = token[colons:].decode().split()
            modes, ids = fields[: colons + 1], fields[colons + 1 : 2 * colons + 2]
            path = tokens[pos + 1].decode("utf-8", "surrogateescape")
            changes.append(
                PathChange(path, tuple(zip(modes[:-1], ids[:-1], strict=True)), modes[-1], ids[-1])
            )
            pos += 2
        result.append(
            PathCommit(sha, tuple(parents.split()), author, date, subject, tuple(changes))
        )
    return result


def merge_file(
    ours: bytes,
    base: bytes,
    theirs: bytes,
    *,
    labels: tuple[str, str, str] = ("ours", "base", "theirs"),
    marker_size: int = 7,
) -> tuple[bytes, bool]:
    """git's own three-way text merge (``git merge-file -p``): (merged bytes, clean?).

    Needs no repository: the three versions go through temporary files. Conflicting
    hunks come back between conflict markers.
    """
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rehydrate-merge-") as tmp:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(tmp) / name
            path.write_bytes(data)
            names.append(str(path))
        proc = _git(
            tmp,
            "merge-file",
            "-p",
            f"--marker-size={marker_size}",
            "-L",
            labels[0],
            "-L",
            labels[1],
            "-L",
            labels[2],
            *names,
            check=False,
        )
    if proc.returncode < 0 or proc.returncode > 127:
        message = proc.stderr.decode("utf-8", "replace").strip() or "git merge-file failed"
        raise GitError(
            message.splitlines()[-1],
            code="git_failed",
            fix="check that git is installed and the files are text",
        )
    return proc.stdout, proc.returncode == 0
