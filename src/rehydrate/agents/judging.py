"""What an agent hook judges: the repository around the event (or none), whether it has
opted in, the settings in force, and each ledger as it stands in HEAD, in the index and in
the work tree (docs/agent-hooks.md, "What the agent hooks judge").

* **Opted in** (``opted_in``, the one definition): a rehydrate settings file
  (``.rehydrate.toml``, or ``[tool.rehydrate]`` in ``pyproject.toml``) or a ledger at a
  configured path exists in HEAD, in the index or in the work tree. A repository that
  has not opted in, a folder outside any git repository and a nested repository that has
  not opted in inside one that has not either, are not judged at all: the hooks allow and
  print nothing (a user-scope plugin must not get in the way of other work). A nested
  repository that has not opted in inside one that has is judged by the outer one.
* **Settings** come from what is committed (HEAD; the index, then the work tree, only in
  a repository without commits). A settings file whose index or work-tree bytes differ is
  named (``Standing.settings_changes``) and never obeyed on its own: the ledger paths it
  names are judged *as well as* the committed ones, which can only make a check stricter.
* **Ledgers** are read as git holds them: the index through ``:path`` (whatever the
  index flags say), HEAD through ``HEAD:path``, the work tree from disk; a difference is
  a difference of content (blob ids), never of ``git status``.
* **git errors** in a folder that holds a ``.git`` are judged (``GitError`` with the
  reason and the fix), unless nothing there says rehydrate is in use (``_marks_of_use``,
  read without git): then the repository has not opted in, as far as anyone can tell.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .. import git
from ..config import CONFIG_FILES, DEFAULT_PATHS, Config, config_from_files
from ..errors import ConfigError, GitError, LedgerParseError
from ..records import NamedTuple

KINDS = tuple(DEFAULT_PATHS)  # the ledger kinds (``ledgers.KINDS``; the parser not imported)
WORK_TREE = "work tree"
INDEX = "index"
HEAD = "HEAD"
WHERES = (WORK_TREE, INDEX, HEAD)  # the order versions are read and named in
_SPEC = {INDEX: ":", HEAD: "HEAD:"}
_EMPTY_BLOB = {  # what an intent-to-add entry (git add -N) stages: no content yet
    "sha1": "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
    "sha256": "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
}
MAX_INDEX_SCAN = 64 << 20  # bytes of .git/index searched for ledger names when git fails


class NotOptedIn(Exception):
    """The event's folder is outside any git repository, or its repository has not opted
    in: the hook does nothing."""


Ids = Mapping[str, Mapping[str, tuple[str, str] | None]]  # where -> path -> (id, type)


class Standing(NamedTuple):
    """The settings in force and every ledger and settings file in each of the three
    places; blobs other than the work tree's are read from git only when asked for."""

    repo: git.Repo
    head: str | None
    config: Config  # in force: as committed
    others: tuple[Config, ...]  # valid settings of the index and the work tree, if other
    ids: Ids
    worktree: Mapping[str, git.Blob]
    settings_changes: tuple[str, ...]  # settings files that differ from HEAD, named
    opted_in: bool
    read: dict[str, bytes]  # blob id -> bytes: what was read from git so far

    @property
    def configs(self) -> tuple[Config, ...]:
        return (self.config, *self.others)

    def paths(self, kind: str) -> list[str]:
        """Where ``kind`` is, under the settings in force first, then the others."""
        return list(dict.fromkeys(c.path_of(kind) for c in self.configs))

    def blob(self, where: str, path: str) -> git.Blob:
        """``path`` in ``where`` (absent: data and mode None); read from git on demand."""
        if where == WORK_TREE:
            return self.worktree.get(path) or git.Blob(path, None, None, None)
        found = self._id(where, path)
        if found is None:
            return git.Blob(path, None, None, None)
        oid, kind = found
        if kind != "blob":
            return git.Blob(path, None, None, "040000" if kind == "tree" else kind)
        here = self.worktree.get(path)
        if here is not None and here.blob == oid and here.data is not None:
            return git.Blob(path, here.data, oid, "100644")
        if oid not in self.read:
            self.read.update(git.cat_blobs(self.repo, [oid]))
        return git.Blob(path, self.read[oid], oid, "100644")

    def _id(self, where: str, path: str) -> tuple[str, str] | None:
        """(id, type) of ``path`` in the index or HEAD; None where absent (an entry added
        with intent to add, ``git add -N``, holds no content yet: absent too)."""
        found = self.ids[where].get(path)
        if found is None or (where == INDEX and found[0] == _EMPTY_BLOB[self.repo.object_format]):
            return None
        return found

    def holds(self, path: str) -> bool:
        """Whether any of the three places holds ``path`` (a file or not), read or not."""
        here = self.worktree.get(path)
        if here is not None and (here.data is not None or here.mode is not None):
            return True
        return any(self._id(where, path) is not None for where in (INDEX, HEAD))

    def versions(self, path: str) -> list[tuple[tuple[str, ...], git.Blob]]:
        """(the places that hold it, blob) of each present content of ``path``; the blobs
        the work tree does not hold are read together, with one git process."""
        self.read.update(
            git.cat_blobs(self.repo, _unread(self.ids, self.worktree, self.read, [path]))
        )
        found: dict[str | None, tuple[list[str], git.Blob]] = {}
        for where in WHERES:
            blob = self.blob(where, path)
            if blob.data is None and blob.mode is None:
                continue
            found.setdefault(blob.blob, ([], blob))[0].append(where)
        return [(tuple(wheres), blob) for wheres, blob in found.values()]

    def differing(self) -> list[str]:
        """Ledger paths whose work tree, index and HEAD do not hold the same content."""
        paths = dict.fromkeys(p for k in KINDS for p in self.paths(k))
        return sorted(p for p in paths if len(set(self._ids_of(p))) > 1)

    def _ids_of(self, path: str) -> list[str | None]:
        here = self.worktree.get(path)
        ids = [here.blob if here is not None else None]
        for where in (INDEX, HEAD):
            found = self.ids[where].get(path)
            ids.append(found[0] if found is not None else None)
        if self.head is None:  # nothing is committed: only the index can differ
            ids.pop()
        return ids


def judge(where: str) -> Standing:
    """The standing of the repository around ``where``; raises ``NotOptedIn`` where
    there is nothing to judge, ``GitError`` (reason and fix) where git fails in a
    repository rehydrate guards, ``ConfigError`` where the committed settings are bad."""
    if "\x00" in where or not os.path.isdir(where):
        raise NotOptedIn(where)
    top = work_tree_root(where)
    if top is None:
        raise NotOptedIn(where)
    try:
        repo, head = git.find_repo_and_head(where)
        standing = read_standing(repo, head)
    except GitError as exc:
        if _marks_of_use(top):
            raise broken_git(top, exc) from None
        raise NotOptedIn(where) from None
    if standing.opted_in:
        return standing
    outer = work_tree_root(str(standing.repo.root.parent))
    if outer is not None and outer != standing.repo.root:
        return judge(str(outer))  # a nested repository: judged by the one around it
    raise NotOptedIn(where)


def work_tree_root(where: str) -> Path | None:
    """The nearest folder at or above ``where`` holding a ``.git`` (a directory, or the
    file of a linked work tree or submodule), found with a few stat calls; None when
    there is none: then ``where`` is outside any git repository."""
    if "\x00" in where:
        return None
    start = Path(os.path.abspath(where))
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def read_standing(repo: git.Repo, head: str | None) -> Standing:
    """Settings and ledgers in the three places (one or two ``cat-file --batch-check``, and
    one ``cat-file --batch`` for settings files whose copies the work tree does not hold)."""
    names = list(CONFIG_FILES)
    ledger_paths = list(DEFAULT_PATHS.values())
    worktree = _read_worktree(repo, [*names, *ledger_paths])
    ids = _ids(repo, head, [*names, *ledger_paths])
    read = dict.fromkeys(_EMPTY_BLOB.values(), b"")  # the empty blob's bytes need no git
    read.update(git.cat_blobs(repo, _unread(ids, worktree, read, names)))
    texts = {w: {n: _settings_bytes(w, n, ids, worktree, read) for n in names} for w in WHERES}
    in_force_at = HEAD if head is not None else (INDEX if _any(texts[INDEX]) else WORK_TREE)
    config = _settings(texts[in_force_at]) or Config()  # ConfigError: the ones in force
    others: list[Config] = []
    changes: list[str] = []
    has_settings = config.origin is not None
    for where in WHERES:
        if where == in_force_at or (where == HEAD and head is None):
            continue
        try:
            other = _settings(texts[where])
        except ConfigError as exc:
            changes.append(f"{exc.file} in the {where} cannot be read ({exc.message})")
            has_settings = True
            continue
        if other is None:
            continue
        has_settings = has_settings or other.origin is not None
        if head is not None and other != config:
            changes.extend(
                _change(n, where, texts[where][n], texts[in_force_at][n])
                for n in names
                if texts[where][n] != texts[in_force_at][n]
            )
        if other not in (config, *others) and other.origin is not None:
            others.append(other)
    wanted = dict.fromkeys(c.path_of(k) for c in (config, *others) for k in KINDS)
    extra = [p for p in wanted if p not in ledger_paths and p not in names]
    if extra:
        worktree = {**worktree, **_read_worktree(repo, extra)}
        more = _ids(repo, head, extra)
        ids = {w: {**ids[w], **more[w]} for w in ids}
    standing = Standing(
        repo, head, config, tuple(others), ids, worktree, tuple(dict.fromkeys(changes)), False, read
    )
    opted_in = has_settings or any(standing.holds(p) for k in KINDS for p in standing.paths(k))
    return standing._replace(opted_in=opted_in)


def _settings(texts: Mapping[str, bytes | None]) -> Config | None:
    """The settings these files hold; None where a ``pyproject.toml`` that is not valid
    TOML names rehydrate without a ``[tool.rehydrate]`` table (a dependency: not ours to
    judge). Raises ``ConfigError`` for settings of ours that cannot be read."""
    try:
        return config_from_files(texts)
    except ConfigError as exc:
        pyproject = texts.get("pyproject.toml") or b""
        import re

        if exc.file == "pyproject.toml" and not re.search(_TABLE, pyproject, re.M):
            if texts.get(".rehydrate.toml") is None:
                return None
        raise


# A [tool.rehydrate] table header, or an inline `rehydrate = {…}` (linear: no run of one
# class is followed by the same class); compiled only when a pyproject.toml fails to parse.
_TABLE = rb"^[ \t]*\[+[ \t]*tool[ \t]*\.[ \t]*rehydrate\b|\brehydrate[ \t]*=[ \t]*\{"


def _any(texts: Mapping[str, bytes | None]) -> bool:
    return any(t is not None for t in texts.values())


def _change(name: str, where: str, now: bytes | None, committed: bytes | None) -> str:
    if committed is None:
        return f"{name} is in the {where} but not committed"
    if now is None:
        return f"{name} is deleted in the {where}"
    return f"{name} differs in the {where} from what is committed"


def _read_worktree(repo: git.Repo, paths: Sequence[str]) -> dict[str, git.Blob]:
    """The work-tree files; one that cannot be read is present and unreadable."""
    out: dict[str, git.Blob] = {}
    for path in paths:
        try:
            out.update(git.read_worktree(repo, [path]))
        except LedgerParseError:
            out[path] = git.Blob(path, None, None, "other")
    return out


def _ids(
    repo: git.Repo, head: str | None, paths: Sequence[str]
) -> dict[str, dict[str, tuple[str, str] | None]]:
    wheres = [INDEX, HEAD] if head is not None else [INDEX]
    specs = [f"{_SPEC[w]}{p}" for w in wheres for p in paths]
    found = git.object_ids(repo, specs)
    ids: dict[str, dict[str, tuple[str, str] | None]] = {INDEX: {}, HEAD: {}}
    for where in wheres:
        for path in paths:
            ids[where][path] = found[f"{_SPEC[where]}{path}"]
    return ids


def _unread(
    ids: Ids, worktree: Mapping[str, git.Blob], read: Mapping[str, bytes], paths: Iterable[str]
) -> list[str]:
    """The ids of the index's and HEAD's blobs of ``paths`` that git must be asked for:
    not the work tree's bytes, not ``read`` before."""
    wanted: list[str] = []
    for path in paths:
        here = worktree.get(path)
        for where in (INDEX, HEAD):
            found = ids[where].get(path)
            if found is None or found[1] != "blob" or found[0] in read:
                continue
            if here is None or here.blob != found[0]:
                wanted.append(found[0])
    return list(dict.fromkeys(wanted))


def _settings_bytes(
    where: str, name: str, ids: Ids, worktree: Mapping[str, git.Blob], read: Mapping[str, bytes]
) -> bytes | None:
    """The settings file ``name`` in ``where`` (absent: None): the work tree's bytes, or
    the blob ``read`` from git."""
    here = worktree.get(name)
    if where == WORK_TREE:
        return here.data if here is not None else None
    found = ids[where].get(name)
    if found is None or found[1] != "blob":
        return None
    if here is not None and here.blob == found[0] and here.data is not None:
        return here.data
    return read[found[0]]


def _marks_of_use(top: Path) -> bool:
    """Whether anything at ``top`` says rehydrate is in use, read without git (which
    fails there): a settings file or a default ledger in the work tree, rehydrate's state
    folders, or a ledger's or settings file's name in the index file."""
    names = [*CONFIG_FILES[:1], *DEFAULT_PATHS.values(), ".rehydrate"]
    if any(os.path.lexists(top / n) for n in names):
        return True
    from ..readlimit import read_head

    try:  # through the bounded reader: a FIFO there is no file, never a wait
        if b"tool.rehydrate" in read_head(top / "pyproject.toml", 1 << 20):
            return True
    except OSError:
        pass
    git_dir = _git_dir(top)
    if git_dir is None:
        return False
    if os.path.lexists(git_dir / "rehydrate"):
        return True
    try:
        data = read_head(git_dir / "index", MAX_INDEX_SCAN)
    except OSError:
        return False
    wanted = [n.encode() for n in (*CONFIG_FILES[:1], *DEFAULT_PATHS.values())]
    return any(n in data for n in wanted)


def _git_dir(top: Path) -> Path | None:
    """The git directory of the work tree at ``top``: ``.git``, or where its file points."""
    dot = top / ".git"
    if dot.is_dir():
        return dot
    from ..readlimit import read_head

    try:
        text = read_head(dot, 4096).decode("utf-8", "replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            path = Path(line[len("gitdir:") :].strip())
            return path if path.is_absolute() else top / path
    return None


def broken_git(top: Path, exc: GitError) -> GitError:
    """The error that refuses to judge: what git said in ``top``, and how to fix it."""
    said = git.why_not_repo(top) if exc.code == "not_a_repo" else exc.message
    return GitError(
        f"git fails in {top}, so rehydrate cannot judge this repository: {said}",
        code="git_failed",
        fix=_git_fix(said, top),
    )


def _git_fix(said: str, top: Path) -> str:
    lowered = said.lower()
    if "dubious ownership" in lowered:
        return (
            f"run the session as the owner of {top}, or if you trust it: "
            f"git config --global --add safe.directory {top}"
        )
    if "work tree" in lowered or "bare" in lowered:
        return f"git -C {top} config core.bare false (and check core.worktree)"
    if "index" in lowered:
        return f"rebuild the index: rm {top}/.git/index && git -C {top} reset"
    return f"run `git -C {top} status` and fix what git says"
