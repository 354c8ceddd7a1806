"""Every git read and write goes through here (one ``_git()`` choke point).

The hot path uses plain ``git`` processes: one ``rev-parse``, one ``ls-tree`` or
``ls-files``, one ``cat-file --batch`` for all blobs. Nothing uses GitPython
(``import git`` alone costs about what the whole pre-commit hook does; see
docs/design.md, "Dependencies"), so it is not a dependency. What changed between
revisions (diffs, logs, merges, commits) is in ``git_changes``, which runs git through
the same ``_git()``. Every call ignores ``refs/replace/*`` and grafts: an object
substituted behind the guard's back must not change what it reads.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from .. import digests
from ..errors import GitError, LedgerParseError
from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING
from . import spawn
from .queries import (  # the named questions the rest of the package asks
    check_attr as check_attr,
)
from .queries import (
    check_ignore as check_ignore,
)
from .queries import (
    commit_exists as commit_exists,
)
from .queries import (
    config_get as config_get,
)
from .queries import (
    config_get_all as config_get_all,
)
from .queries import (
    config_set as config_set,
)
from .queries import (
    git_path as git_path,
)
from .queries import (
    head_and_parents as head_and_parents,
)
from .queries import (
    is_ancestor as is_ancestor,
)
from .queries import (
    is_ignored as is_ignored,
)
from .queries import (
    ls_files_tagged as ls_files_tagged,
)
from .queries import (
    merge_base as merge_base,
)
from .queries import (
    on_remotes as on_remotes,
)
from .queries import (
    ref_names as ref_names,
)
from .queries import (
    stage_path as stage_path,
)
from .queries import (
    status_porcelain as status_porcelain,
)
from .queries import (
    symbolic_head as symbolic_head,
)
from .queries import (
    verify_commit as verify_commit,
)
from .queries import (
    write_ref_unquarantined as write_ref_unquarantined,
)

if TYPE_CHECKING:
    import subprocess

REGULAR_MODES = ("100644", "100755")


class Repo(NamedTuple):
    root: Path
    git_dir: Path
    common_dir: Path
    object_format: str  # "sha1" | "sha256"


class Blob(NamedTuple):
    """One ledger file as found at a source; ``data`` is None when absent."""

    path: str
    data: bytes | None
    blob: str | None
    mode: str | None  # "100644", "120000" (symlink), ... ; None when absent


# Settings under which merely reading the index runs a program the repository's config
# names (that config is the agent's to write): overridden on every call's command line.
NO_REPO_PROGRAMS = ("-c", "core.fsmonitor=false")

# What every git call runs with: no replacement objects (``git replace``) and no graft
# file, so history and blobs are the ones the commits really hold.
_NO_SUBSTITUTION = {"GIT_NO_REPLACE_OBJECTS": "1", "GIT_GRAFT_FILE": os.devnull}


def _git(
    cwd: Path | str,
    *args: str,
    input: bytes | None = None,
    check: bool = True,
    env: Mapping[str, str] | None = None,
) -> spawn.Done:
    """git run in ``cwd`` (``git -C``, after checking that it is a directory), with the
    settings every call carries, to its end (``spawn.run``)."""
    where = os.fspath(cwd)
    if not where or not os.path.isdir(where):
        raise _missing(cwd)
    try:
        proc = spawn.run(
            ["git", "-C", where, *NO_REPO_PROGRAMS, *args], _environment(env), input=input
        )
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        raise _missing(cwd) from None
    if check and proc.returncode != 0:
        words = list(args)
        while len(words) > 2 and words[0] == "-c":  # skip '-c key=value' settings
            words = words[2:]
        raise _failed(
            proc.stderr,
            words[0],
            f"check the repository and any revision given (`git {words[0]}` failed)",
        )
    return proc


def _start(cwd: Path | str, *args: str) -> subprocess.Popen[bytes]:
    """Start git with its output as a stream (the same environment as ``_git``); the
    caller reads stdout and must turn a non-zero exit into a ``GitError`` (``_failed``).
    ``subprocess`` is imported here: no hook streams git's output."""
    import subprocess

    env = _environment(None)
    try:
        return subprocess.Popen(
            [spawn.found("git", env), *NO_REPO_PROGRAMS, *args],  # as `_git` finds it
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        raise _missing(cwd) from None


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    return {**(os.environ if env is None else env), **_NO_SUBSTITUTION}


def _missing(cwd: Path | str) -> GitError:
    """git could not be started: its directory is gone, or git is not installed."""
    if not os.path.isdir(cwd):
        return GitError(
            "this directory does not exist (any more)",
            file=os.fsdecode(cwd),
            code="not_a_repo",
            fix="run rehydrate inside an existing git work tree",
        )
    return GitError("git is not installed or not on PATH", code="git_missing", fix="install git")


def _failed(err: bytes, what: str, fix: str) -> GitError:
    message = err.decode("utf-8", "replace").strip() or f"git {what} failed"
    return GitError(message.splitlines()[-1], code="git_failed", fix=fix)


def short_answer(message: str) -> GitError:
    """git answered fewer questions than it was asked (a corrupt repository)."""
    return GitError(message, code="git_failed", fix="check the repository (git fsck)")


def run(
    repo: Repo,
    *args: str,
    input: bytes | None = None,
    check: bool = True,
    env: Mapping[str, str] | None = None,
) -> spawn.Done:
    """Run git at the repository root (public door for other modules)."""
    return _git(repo.root, *args, input=input, check=check, env=env)


def find_repo(cwd: str | Path | None = None) -> Repo:
    """The repository containing ``cwd`` (works from subdirectories and linked worktrees)."""
    return find_repo_and_head(cwd)[0]


def find_repo_and_head(cwd: str | Path | None = None) -> tuple[Repo, str | None]:
    """``find_repo`` and ``head`` in one ``git rev-parse`` (HEAD None: no commits yet)."""
    proc = _git(
        cwd or os.getcwd(),
        "rev-parse",
        "--show-toplevel",
        "--absolute-git-dir",
        "--git-common-dir",
        "--show-object-format",
        "--verify",
        "-q",
        "HEAD^{commit}",
        check=False,
    )
    where = cwd or os.getcwd()
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n")[:-1]
    # exit 1 with the four answers: HEAD did not verify (an unborn branch)
    if proc.returncode not in (0, 1) or len(lines) < 4:
        raise GitError(
            "not inside a git work tree",
            code="not_a_repo",
            fix="run this inside a git repository (git init)",
        )
    answers = 5 if proc.returncode == 0 else 4
    if len(lines) != answers:  # a path holds a line break: ask for each path on its own
        top, git_dir, common = (_one_path(where, flag) for flag in _PATH_FLAGS)
        fmt = lines[-2] if proc.returncode == 0 else lines[-1]  # after the paths
    else:
        top, git_dir, common, fmt = lines[:4]
    git_path = Path(git_dir)
    common_path = Path(common) if os.path.isabs(common) else (Path(where) / common)
    head = lines[-1].strip() if proc.returncode == 0 else None
    return Repo(Path(top), git_path, common_path.resolve(), fmt.strip() or "sha1"), head or None


def why_not_repo(cwd: str | Path) -> str:
    """git's own words for why ``cwd`` is not a usable work tree (its last stderr line)."""
    proc = _git(cwd, "rev-parse", "--show-toplevel", check=False)
    text = proc.stderr.decode("utf-8", "replace").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or [f"git rev-parse exited {proc.returncode}"])[0][:300]


_PATH_FLAGS = ("--show-toplevel", "--absolute-git-dir", "--git-common-dir")


def _one_path(cwd: str | Path, flag: str) -> str:
    """One path ``git rev-parse`` prints: its whole output but the final LF, so a path
    holding line breaks is read whole (rev-parse has no -z)."""
    out = _git(cwd, "rev-parse", flag).stdout.decode("utf-8", "surrogateescape")
    return out[:-1] if out.endswith("\n") else out


def find_bare_repo(cwd: str | Path | None = None) -> Repo:
    """A bare repository at ``cwd`` (a server's pre-receive hook); its root is the git dir."""
    proc = _git(
        cwd or os.getcwd(),
        "rev-parse",
        "--is-bare-repository",
        "--absolute-git-dir",
        "--show-object-format",
        check=False,
    )
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n")[:-1]
    if proc.returncode != 0 or len(lines) < 3 or lines[0].strip() != "true":
        raise GitError(
            "not inside a git repository", code="not_a_repo", fix="run this inside a git repository"
        )
    git_dir = Path("\n".join(lines[1:-1]))  # the path may hold line breaks
    return Repo(git_dir, git_dir, git_dir, lines[-1].strip() or "sha1")


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
        return text[len("ref: refs/heads/") :]
    return None


def resolve_commit(repo: Repo, rev: str) -> str:
    if rev.startswith("-"):
        raise GitError(
            f"invalid revision {rev!r}", code="bad_revision", fix="name a commit, branch or tag"
        )
    proc = _git(
        repo.root, "rev-parse", "-q", "--verify", "--end-of-options", rev + "^{commit}", check=False
    )
    if proc.returncode != 0:
        raise GitError(
            f"unknown revision {rev!r}",
            code="bad_revision",
            fix="name an existing commit, branch or tag (git log --oneline)",
        )
    return proc.stdout.decode().strip()


def hash_blob(data: bytes, object_format: str = "sha1") -> str:
    """The git blob id of ``data`` (what ``git hash-object`` prints, without filters)."""
    digest = digests.sha256() if object_format == "sha256" else digests.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)  # no header + data copy: a megabyte ledger is never duplicated
    return digest.hexdigest()


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
            raise GitError(
                f"object {oid} is missing",
                code="git_failed",
                fix="the repository may be corrupt (git fsck)",
            )
        size = int(header[2])
        result[oid] = data[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return result


def read_specs(repo: Repo, specs: Sequence[str]) -> dict[str, bytes | None]:
    """Objects named like ``HEAD:path`` or ``:path`` (the index); None when absent.

    One ``git cat-file --batch`` process.
    """
    if not specs:
        return {}
    out = _git(repo.root, "cat-file", "--batch", input="".join(s + "\n" for s in specs).encode())
    data = out.stdout
    result: dict[str, bytes | None] = {}
    pos = 0
    for spec in specs:
        end = data.index(b"\n", pos)
        header = data[pos:end]
        if header.endswith(b" missing") or header.endswith(b" ambiguous"):
            result[spec] = None
            pos = end + 1
            continue
        size = int(header.split()[2])
        result[spec] = data[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return result


def object_ids(repo: Repo, specs: Sequence[str]) -> dict[str, tuple[str, str] | None]:
    """(object id, type) of objects named like ``HEAD:path`` or ``:path`` (the index, as
    staged whatever its flags say: skip-worktree, assume-unchanged); None when absent.
    One ``git cat-file --batch-check`` process, no object read."""
    if not specs:
        return {}
    out = _git(
        repo.root, "cat-file", "--batch-check", input="".join(s + "\n" for s in specs).encode()
    ).stdout
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    result: dict[str, tuple[str, str] | None] = {}
    for spec, line in zip(specs, lines, strict=False):
        words = line.split()
        known = len(words) == 3 and words[1] in ("blob", "tree", "commit", "tag")
        result[spec] = (words[0], words[1]) if known else None
    if len(result) != len(specs):
        raise short_answer("git cat-file answered fewer objects than asked")
    return result


def tree_entries(repo: Repo, commit: str, paths: Iterable[str]) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) at ``commit`` for the given paths (absent ones left out)."""
    paths = list(paths)
    out = _git(repo.root, "ls-tree", "-z", "--full-tree", commit, "--", *paths).stdout
    return {
        path: (mode, oid if kind == "blob" else "")
        for (mode, kind, oid), path in _records(out)
        if path in paths
    }


def _records(out: bytes) -> Iterator[tuple[list[str], str]]:
    """``ls-tree -z`` / ``ls-files -s -z`` records: (the words before the tab, the path)."""
    for record in out.split(b"\0"):
        if record:
            meta, _, name = record.partition(b"\t")
            yield meta.decode().split(), name.decode("utf-8", "surrogateescape")


def index_entries(repo: Repo, paths: Iterable[str]) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) in the index (the inherited GIT_INDEX_FILE is honoured)."""
    paths = list(paths)
    out = _git(repo.root, "ls-files", "-s", "-z", "--full-name", "--", *paths).stdout
    entries: dict[str, tuple[str, str]] = {}
    for (mode, oid, stage), path in _records(out):
        if path not in paths:
            continue
        if stage != "0":
            entries[path] = ("conflict", "")
        else:
            entries[path] = (mode, oid)
    return entries


def read_blobs(
    repo: Repo,
    entries: dict[str, tuple[str, str]],
    paths: Iterable[str],
    known: Mapping[str, Blob] | None = None,
) -> dict[str, Blob]:
    """The blobs ``entries`` name; ``known``: files already read (the work tree), whose
    bytes are used for any regular entry with the same blob id instead of asking git."""
    data: dict[str, bytes] = {}
    for path, (mode, oid) in entries.items():
        have = known.get(path) if known else None
        if (
            have is not None
            and have.blob == oid
            and have.data is not None
            and mode in REGULAR_MODES
            and have.mode in REGULAR_MODES
        ):
            data[oid] = have.data  # same blob id: the same bytes (git's own identity)
    data.update(
        cat_blobs(
            repo,
            [
                oid
                for mode, oid in entries.values()
                if oid not in data and (mode in REGULAR_MODES or mode == "120000")
            ],
        )
    )
    out: dict[str, Blob] = {}
    for path in paths:
        if path not in entries:
            out[path] = Blob(path, None, None, None)
            continue
        mode, oid = entries[path]
        out[path] = Blob(path, data.get(oid), oid or None, mode)
    return out


def read_at(
    repo: Repo, commit: str | None, paths: Sequence[str], worktree: Mapping[str, Blob] | None = None
) -> dict[str, Blob]:
    """Ledger files as committed in ``commit`` (None: a repository with no commits).

    ``worktree``: the same paths as ``read_worktree`` found them; a file there whose blob
    id equals the committed one is not read from git again (one process and the
    decompression saved when the ledgers are committed and unchanged).
    """
    if commit is None:
        return {p: Blob(p, None, None, None) for p in paths}
    return read_blobs(repo, tree_entries(repo, commit, paths), paths, worktree)


def read_index(repo: Repo, paths: Sequence[str]) -> dict[str, Blob]:
    """Ledger files as staged in the index."""
    return read_blobs(repo, index_entries(repo, paths), paths)


WORKTREE_LIMIT = 1024 * 1024 * 1024  # the highest max_ledger_bytes a configuration may set


def read_worktree(repo: Repo, paths: Sequence[str], limit: int = WORKTREE_LIMIT) -> dict[str, Blob]:
    """Ledger files in the work tree; a symlink is reported by its mode, never followed.

    A file larger than ``limit`` bytes (the configuration's ``max_ledger_bytes``) is
    ``too_large`` before a byte of it is read; a FIFO or device is reported as "other"
    and never opened for longer than an ``fstat``."""
    out: dict[str, Blob] = {}
    for path in paths:
        full = repo.root / path
        try:
            info = full.lstat()
        except FileNotFoundError:
            out[path] = Blob(path, None, None, None)
            continue
        except OSError as exc:
            raise LedgerParseError(
                f"cannot read: {exc.strerror}",
                file=path,
                code="unreadable",
                fix="check permissions",
            ) from None
        if os.path.islink(full):
            target = os.readlink(full).encode("utf-8", "surrogateescape")
            out[path] = Blob(path, target, hash_blob(target, repo.object_format), "120000")
            continue
        real = os.path.realpath(full)
        if os.path.commonpath([real, os.path.realpath(repo.root)]) != os.path.realpath(repo.root):
            raise LedgerParseError(
                "path leaves the repository through a symlinked directory",
                file=path,
                code="path_outside_repo",
                fix="keep ledgers inside the repository",
            )
        if not stat.S_ISREG(info.st_mode):
            out[path] = Blob(path, None, None, "040000" if stat.S_ISDIR(info.st_mode) else "other")
            continue
        data = _read_ledger(full, path, limit)
        mode = "100755" if info.st_mode & 0o111 else "100644"
        out[path] = Blob(path, data, hash_blob(data, repo.object_format), mode)
    return out


def _read_ledger(full: Path, path: str, limit: int) -> bytes:
    from ..readlimit import NotAFile, read_file

    fix = "retire and archive old rows, or raise max_ledger_bytes in the configuration"
    try:
        return read_file(full, limit, path, too_large=LedgerParseError, code="too_large", fix=fix)
    except NotAFile as exc:  # swapped for a FIFO or a device since the lstat
        raise LedgerParseError(exc.message, file=path, code=exc.code, fix=exc.fix) from None
    except OSError as exc:
        raise LedgerParseError(
            f"cannot read: {exc.strerror}", file=path, code="unreadable", fix="check permissions"
        ) from None


# Files whose names say they hold secrets: left out of the prompt's stat and diff.
SECRET_FILE_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.keystore",
    "*.jks",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    "credentials",
    "credentials.json",
    "secrets.*",
    "*.tfstate",
)


# Refs and objects for two-phase summary promotion (refs under refs/rehydrate/).


def zero_oid(repo: Repo) -> str:
    """The all-zero object id ('must not exist' for update-ref)."""
    return "0" * (64 if repo.object_format == "sha256" else 40)


def write_blob(repo: Repo, data: bytes) -> str:
    """Store ``data`` as a blob (``git hash-object -w --stdin``, no filters) and return its id."""
    return _git(repo.root, "hash-object", "-w", "--stdin", input=data).stdout.decode().strip()


def read_ref(repo: Repo, ref: str) -> str | None:
    """The object id a ref points at, or None when the ref does not exist."""
    proc = _git(repo.root, "rev-parse", "-q", "--verify", "--end-of-options", ref, check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def for_each_ref(repo: Repo, prefix: str) -> list[tuple[str, str]]:
    """(ref, object id) for every ref under ``prefix``, sorted by ref name."""
    out = _git(repo.root, "for-each-ref", "--format=%(refname)%00%(objectname)", prefix).stdout
    pairs = [line.split("\0", 1) for line in out.decode("utf-8", "surrogateescape").splitlines()]
    return sorted((ref, oid) for ref, oid in pairs)


def update_ref(repo: Repo, ref: str, new: str, old: str, message: str) -> str | None:
    """Compare-and-swap ``ref`` from ``old`` (zero id: must not exist) to ``new``.

    Returns None on success, else git's reason (the ref moved, or another writer holds
    its lock); nothing is changed then. ``new`` = zero id deletes the ref.
    """
    if new == zero_oid(repo):
        args = ["update-ref", "--create-reflog", "-m", message, "-d", ref, old]
    else:
        args = ["update-ref", "--create-reflog", "-m", message, ref, new, old]
    proc = _git(repo.root, *args, check=False)
    if proc.returncode == 0:
        return None
    text = proc.stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[-1] if text else "git update-ref failed"


def object_type(repo: Repo, oid: str) -> str | None:
    """``git cat-file -t``: 'blob', 'commit', ... or None when the object is missing."""
    proc = _git(repo.root, "cat-file", "-t", oid, check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None
