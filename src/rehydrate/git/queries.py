"""Small named git questions and writes for the rest of the package (re-exported as
``git.<name>``): settings, ignore rules and attributes, paths inside ``.git``, commits
and refs. Each runs one git process through ``_git`` (so with ``NO_REPO_PROGRAMS`` and
no replacement objects), with the arguments its callers always used; nothing outside
``git/`` runs git itself (``tests/test_import_graph.py`` checks)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from . import Repo, spawn


def _git(
    cwd: Path | str, *args: str, check: bool = True, env: Mapping[str, str] | None = None
) -> spawn.Done:
    """The package's one door (``git._git``), looked up at call time: this module is
    imported by the package's own ``__init__``."""
    from . import _git as door

    return door(cwd, *args, check=check, env=env)


def config_get(repo: Repo, key: str, *, local: bool = False) -> str | None:
    """``git config [--local] --get key``: the value (its final line breaks removed), or
    None when it is unset or git could not read it."""
    args = ("config", "--local", "--get", key) if local else ("config", "--get", key)
    proc = _git(repo.root, *args, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n")


def config_get_all(repo: Repo, key: str) -> list[str]:
    """``git config --get-all key``: every value's words (none when unset)."""
    proc = _git(repo.root, "config", "--get-all", key, check=False)
    return proc.stdout.decode().split()


def config_set(repo: Repo, key: str, value: str) -> None:
    """``git config --local key value`` (a GitError when git refuses)."""
    _git(repo.root, "config", "--local", key, value)


def is_ignored(repo: Repo, relpath: str) -> bool:
    """Whether git's ignore rules exclude ``relpath`` (``git check-ignore -q``)."""
    return _git(repo.root, "check-ignore", "-q", "--", relpath, check=False).returncode == 0


def check_ignore(repo: Repo, paths: Sequence[str]) -> bytes:
    """``git check-ignore -- paths``: the ignored ones, a line each, as git prints them."""
    return _git(repo.root, "check-ignore", "--", *paths, check=False).stdout


def check_attr(repo: Repo, attribute: str, paths: Sequence[str]) -> bytes:
    """``git check-attr -z attribute -- paths``: NUL-separated (path, attribute, value)."""
    return _git(repo.root, "check-attr", "-z", attribute, "--", *paths).stdout


def git_path(repo: Repo, name: str) -> str:
    """``git rev-parse --git-path name``: whole (line breaks in it too) but the final LF;
    relative to the work tree's root unless absolute."""
    out = _git(repo.root, "rev-parse", "--git-path", name).stdout
    return os.fsdecode(out[:-1] if out.endswith(b"\n") else out)


def status_porcelain(repo: Repo, paths: Sequence[str]) -> bytes:
    """``git status --porcelain=v1 -z --untracked-files=all -- paths``."""
    return _git(
        repo.root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths
    ).stdout


def ls_files_tagged(repo: Repo, paths: Sequence[str]) -> bytes:
    """``git ls-files -v -z -- paths``: each index entry with its tag (S: skip-worktree,
    lower case: assume-unchanged)."""
    return _git(repo.root, "ls-files", "-v", "-z", "--", *paths).stdout


def stage_path(repo: Repo, path: str) -> None:
    """``git add`` one path, taken literally (no pathspec magic)."""
    _git(repo.root, "add", "--", f":(literal){path}")


def commit_exists(repo: Repo, rev: str) -> bool:
    """Whether ``rev`` names a commit this repository holds (``git cat-file -e``)."""
    return _git(repo.root, "cat-file", "-e", f"{rev}^{{commit}}", check=False).returncode == 0


def verify_commit(repo: Repo, rev: str, *, end_of_options: bool = False) -> str | None:
    """The commit ``rev`` names (``git rev-parse -q --verify rev^{commit}``), or None."""
    marker = ("--end-of-options",) if end_of_options else ()
    proc = _git(repo.root, "rev-parse", "-q", "--verify", *marker, rev + "^{commit}", check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def symbolic_head(repo: Repo) -> str | None:
    """The ref HEAD points at (``refs/heads/main``), or None when it is detached."""
    proc = _git(repo.root, "symbolic-ref", "-q", "HEAD", check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def ref_names(repo: Repo, prefix: str) -> list[str]:
    """The names of the refs under ``prefix`` (``git for-each-ref``)."""
    return _git(repo.root, "for-each-ref", "--format=%(refname)", prefix).stdout.decode().split()


def on_remotes(repo: Repo, commit: str) -> bool:
    """Whether a remote-tracking ref contains ``commit``; True also when git cannot tell."""
    proc = _git(
        repo.root,
        "for-each-ref",
        "--count=1",
        "--contains",
        commit,
        "--format=%(refname)",
        "refs/remotes/",
        check=False,
    )
    return proc.returncode != 0 or bool(proc.stdout.strip())


def head_and_parents(repo: Repo) -> list[str]:
    """HEAD's commit id and its parents' (``git rev-list --parents -n 1``); empty when git
    cannot tell (no commits yet)."""
    proc = _git(repo.root, "rev-list", "--parents", "-n", "1", "HEAD", "--", check=False)
    return proc.stdout.decode().split() if proc.returncode == 0 else []


def is_ancestor(repo: Repo, old: str, new: str) -> bool | None:
    """Whether ``old`` is an ancestor of ``new``; None when git cannot tell (missing
    history)."""
    proc = _git(repo.root, "merge-base", "--is-ancestor", old, new, check=False)
    return None if proc.returncode not in (0, 1) else proc.returncode == 0


def merge_base(repo: Repo, one: str, other: str) -> str | None:
    """One merge base of two commits (``git merge-base``), or None when they share none."""
    found = _git(repo.root, "merge-base", one, other, check=False).stdout.decode().split()
    return found[0] if found else None


def write_ref_unquarantined(repo: Repo, ref: str, oid: str) -> None:
    """Point ``ref`` at ``oid`` from inside a pre-receive hook: git forbids ref updates in
    the push's object quarantine, so the repository's own object store is named (the
    object must already be there)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY")
        and k != "GIT_ALTERNATE_OBJECT_DIRECTORIES"
    }
    _git(repo.root, "update-ref", ref, oid, env=env)
