"""Every git read and write goes through here (one ``_git()`` choke point).

The hot path uses plain ``git`` processes: one ``rev-parse``, one ``ls-tree`` or
``ls-files``, one ``cat-file --batch`` for all blobs. GitPython (``import git``
costs ~100 ms) is kept for colder paths that other modules may need.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import GitError, LedgerParseError

REGULAR_MODES = ("100644", "100755")


@dataclass(frozen=True)
class Repo:
    root: Path
    git_dir: Path
    common_dir: Path
    object_format: str  # "sha1" | "sha256"


@dataclass(frozen=True)
class Blob:
    """One ledger file as found at a source; ``data`` is None when absent."""

    path: str
    data: bytes | None
    blob: str | None
    mode: str | None  # "100644", "120000" (symlink), ... ; None when absent


def _git(
    cwd: Path | str, *args: str, input: bytes | None = None, check: bool = True,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, input=input, capture_output=True, check=False, env=env,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH", code="git_missing",
                       fix="install git") from None
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed"
        raise GitError(message.splitlines()[-1], code="git_failed",
                       fix=f"check the repository (git {' '.join(args[:2])})")
    return proc


def run(repo: Repo, *args: str, input: bytes | None = None, check: bool = True,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run git at the repository root (public door for other modules)."""
    return _git(repo.root, *args, input=input, check=check, env=env)


def find_repo(cwd: str | Path | None = None) -> Repo:
    """The repository containing ``cwd`` (works from subdirectories and linked worktrees)."""
    proc = _git(
        cwd or os.getcwd(), "rev-parse", "--show-toplevel", "--absolute-git-dir",
        "--git-common-dir", "--show-object-format", check=False,
    )
    if proc.returncode != 0:
        raise GitError(
            "not inside a git work tree", code="not_a_repo",
            fix="run this inside a git repository (git init)",
        )
    top, git_dir, common, fmt = proc.stdout.decode("utf-8", "surrogateescape").splitlines()[:4]
    git_path = Path(git_dir)
    common_path = Path(common) if os.path.isabs(common) else (Path(cwd or os.getcwd()) / common)
    return Repo(Path(top), git_path, common_path.resolve(), fmt.strip() or "sha1")


def head(repo: Repo) -> str | None:
    """HEAD's commit id, or None in a repository with no commits yet."""
    proc = _git(repo.root, "rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def branch(repo: Repo) -> str | None:
    """The checked-out branch name, or None on a detached HEAD."""
    try:
        text = (repo.git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if text.startswith("ref: refs/heads/"):
        return text[len("ref: refs/heads/"):]
    return None


def resolve_commit(repo: Repo, rev: str) -> str:
    if rev.startswith("-"):
        raise GitError(f"invalid revision {rev!r}", code="bad_revision",
                       fix="name a commit, branch or tag")
    proc = _git(repo.root, "rev-parse", "-q", "--verify", "--end-of-options", rev + "^{commit}",
                check=False)
    if proc.returncode != 0:
        raise GitError(f"unknown revision {rev!r}", code="bad_revision",
                       fix="name an existing commit, branch or tag (git log --oneline)")
    return proc.stdout.decode().strip()


def hash_blob(data: bytes, object_format: str = "sha1") -> str:
    """The git blob id of ``data`` (what ``git hash-object`` prints, without filters)."""
    algo = hashlib.sha256 if object_format == "sha256" else hashlib.sha1
    return algo(b"blob %d\0" % len(data) + data).hexdigest()


def cat_blobs(repo: Repo, ids: Sequence[str]) -> dict[str, bytes]:
    """Read many objects with one ``git cat-file --batch`` process."""
    wanted = list(dict.fromkeys(i for i in ids if i))
    if not wanted:
        return {}
    out = _git(repo.root, "cat-file", "--batch", input="".join(i + "\n" for i in wanted).encode())
    data = out.stdout
    result: dict[str, bytes] = {}
    pos = 0
    for oid in wanted:
        end = data.index(b"\n", pos)
        header = data[pos:end].split()
        if len(header) < 3 or header[1] == b"missing":
            raise GitError(f"object {oid} is missing", code="git_failed",
                           fix="the repository may be corrupt (git fsck)")
        size = int(header[2])
        result[oid] = data[end + 1:end + 1 + size]
        pos = end + 1 + size + 1
    return result


def tree_entries(repo: Repo, commit: str, paths: Iterable[str]) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) at ``commit`` for the given paths (absent ones left out)."""
    paths = list(paths)
    out = _git(repo.root, "ls-tree", "-z", "--full-tree", commit, "--", *paths).stdout
    entries: dict[str, tuple[str, str]] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, oid = meta.decode().split()
        path = name.decode("utf-8", "surrogateescape")
        if path in paths:
            entries[path] = (mode, oid if kind == "blob" else "")
    return entries


def index_entries(repo: Repo, paths: Iterable[str]) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) in the index (the inherited GIT_INDEX_FILE is honoured)."""
    paths = list(paths)
    out = _git(repo.root, "ls-files", "-s", "-z", "--full-name", "--", *paths).stdout
    entries: dict[str, tuple[str, str]] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, oid, stage = meta.decode().split()
        path = name.decode("utf-8", "surrogateescape")
        if path not in paths:
            continue
        if stage != "0":
            entries[path] = ("conflict", "")
        else:
            entries[path] = (mode, oid)
    return entries


def read_blobs(repo: Repo, entries: dict[str, tuple[str, str]], paths: Iterable[str]
               ) -> dict[str, Blob]:
    data = cat_blobs(repo, [oid for mode, oid in entries.values() if mode in REGULAR_MODES
                            or mode == "120000"])
    out: dict[str, Blob] = {}
    for path in paths:
        if path not in entries:
            out[path] = Blob(path, None, None, None)
            continue
        mode, oid = entries[path]
        out[path] = Blob(path, data.get(oid), oid or None, mode)
    return out


def read_at(repo: Repo, commit: str | None, paths: Sequence[str]) -> dict[str, Blob]:
    """Ledger files as committed in ``commit`` (None: a repository with no commits)."""
    if commit is None:
        return {p: Blob(p, None, None, None) for p in paths}
    return read_blobs(repo, tree_entries(repo, commit, paths), paths)


def read_index(repo: Repo, paths: Sequence[str]) -> dict[str, Blob]:
    """Ledger files as staged in the index."""
    return read_blobs(repo, index_entries(repo, paths), paths)


def read_worktree(repo: Repo, paths: Sequence[str]) -> dict[str, Blob]:
    """Ledger files in the work tree; a symlink is reported by its mode, never followed."""
    out: dict[str, Blob] = {}
    for path in paths:
        full = repo.root / path
        try:
            info = full.lstat()
        except FileNotFoundError:
            out[path] = Blob(path, None, None, None)
            continue
        except OSError as exc:
            raise LedgerParseError(f"cannot read: {exc.strerror}", file=path,
                                   code="unreadable", fix="check permissions") from None
        if os.path.islink(full):
            target = os.readlink(full).encode("utf-8", "surrogateescape")
            out[path] = Blob(path, target, hash_blob(target, repo.object_format), "120000")
            continue
        real = os.path.realpath(full)
        if os.path.commonpath([real, os.path.realpath(repo.root)]) != os.path.realpath(repo.root):
            raise LedgerParseError("path leaves the repository through a symlinked directory",
                                   file=path, code="path_outside_repo",
                                   fix="keep ledgers inside the repository")
        if not full.is_file():
            out[path] = Blob(path, None, None, "040000" if full.is_dir() else "other")
            continue
        data = full.read_bytes()
        mode = "100755" if info.st_mode & 0o111 else "100644"
        out[path] = Blob(path, data, hash_blob(data, repo.object_format), mode)
    return out


def last_commits(repo: Repo, commit: str | None, paths: Sequence[str]) -> dict[str, str | None]:
    """For each path, the last commit at or before ``commit`` that touched it (one process)."""
    found: dict[str, str | None] = {p: None for p in paths}
    if commit is None:
        return found
    proc = subprocess.Popen(
        ["git", "log", "-z", "--format=%x01%H", "--name-only", "--no-renames", commit, "--",
         *paths],
        cwd=repo.root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    buffer = b""
    missing = set(paths)
    try:
        while missing:
            chunk = proc.stdout.read1(65536) if hasattr(proc.stdout, "read1") else b""
            if not chunk:
                break
            buffer += chunk
            *records, buffer = buffer.split(b"\x01")
            for record in records:
                _scan_log_record(record, found, missing)
        if missing and buffer:
            _scan_log_record(buffer, found, missing)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.wait()
    return found


def _scan_log_record(record: bytes, found: dict[str, str | None], missing: set[str]) -> None:
    if not record:
        return
    sha, _, names = record.partition(b"\0")
    for name in names.strip(b"\n").split(b"\0"):
        path = name.strip(b"\n").decode("utf-8", "surrogateescape")
        if path in missing:
            found[path] = sha.decode()
            missing.discard(path)
