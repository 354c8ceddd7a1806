"""Shared machinery for the adversarial suite (issue 12, "the guard cannot be fooled").

Everything here is written against CONTRACT §2/§3, not against today's code: a base
repository is built once per module and copied per case (copying keeps the installed
hooks and the merge-driver config), and each attack is tried three ways where the
invariant allows it: the pure rules, a real ``git commit`` through the installed hook,
and ``guard --range`` / ``guard --pre-receive`` behind a real ``git push``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conftest import run
from test_guard import BASE, PATHS, apply

ZERO = "0" * 40
REFUSED, BAD_INPUT = 1, 2


def git(
    repo: Path,
    *args: str,
    input: str | None = None,
    check: bool = True,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Real git in ``repo`` (text mode)."""
    proc = subprocess.run(
        ["git", *args],
        cwd=repo,
        input=input,
        text=True,
        capture_output=True,
        env={**os.environ, **(env or {})},
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stdout}{proc.stderr}")
    return proc


def rev(repo: Path, what: str = "HEAD") -> str:
    return git(repo, "rev-parse", "--verify", "--quiet", what, check=False).stdout.strip()


def write_bytes(repo: Path, relpath: str, data: bytes | str) -> None:
    target = repo / relpath
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink():
        target.unlink()
    target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def write_ledgers(repo: Path, texts: Mapping[str, str | bytes]) -> None:
    for kind, text in texts.items():
        write_bytes(repo, PATHS[kind], text)


def commit_all(
    repo: Path, message: str = "edit", *extra: str, verify: bool = False
) -> subprocess.CompletedProcess[str]:
    """Stage everything and commit; ``verify=False`` means ``--no-verify`` (no local hook)."""
    git(repo, "add", "-A")
    args = ["commit", "-q", "--allow-empty", "-m", message, *extra]
    if not verify:
        args.append("--no-verify")
    return git(repo, *args, check=False)


def make_base_repo(
    path: Path, texts: Mapping[str, str] | None = None, *, files: Mapping[str, str] | None = None
) -> Path:
    """A repository holding ``texts`` (default: test_guard.BASE), the guard hooks and the
    merge driver installed by ``rehydrate hook install``, committed on ``main``."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    write_ledgers(path, texts or BASE)
    write_bytes(path, "README.md", "hello\n")
    for rel, text in (files or {}).items():
        write_bytes(path, rel, text)
    result = run(path, "hook", "install")
    assert result.code == 0, result.err
    assert commit_all(path, "base").returncode == 0
    return path


def clone(base: Path, dest: Path) -> Path:
    """A private copy of ``base`` (hooks, config and objects included)."""
    shutil.copytree(base, dest, symlinks=True)
    return dest


def make_server(path: Path, *, config: str | None = None, hook: bool = True) -> Path:
    """A bare repository whose ``hooks/pre-receive`` runs this Python's guard."""
    git(path.parent, "init", "-q", "--bare", "-b", "main", str(path))
    if hook:
        install_pre_receive(path)
    if config is not None:
        (path / ".rehydrate.toml").write_text(config)
    return path


def install_pre_receive(server: Path) -> None:
    """The guard as the server's pre-receive hook (after a hookless setup push: the state
    a server already holds was judged when it was pushed)."""
    hook = server / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m rehydrate guard --pre-receive\n")
    hook.chmod(0o755)


def server_ref(server: Path, ref: str = "refs/heads/main") -> str:
    return rev(server, ref)


def push(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return git(repo, "push", "-q", "--porcelain", "origin", *args, check=False)


@dataclass
class Verdict:
    code: int
    out: str
    err: str

    @property
    def report(self) -> dict[str, object]:
        return json.loads(self.out)


def guard_range(repo: Path, spec: str) -> Verdict:
    """``rehydrate guard --range SPEC --json`` in-process."""
    result = run(repo, "guard", "--range", spec, "--json")
    return Verdict(result.code, result.out, result.err)


def guard_range_subprocess(repo: Path, spec: str) -> Verdict:
    proc = subprocess.run(
        [sys.executable, "-m", "rehydrate", "guard", "--range", spec, "--json"],
        cwd=repo,
        text=True,
        capture_output=True,
    )
    return Verdict(proc.returncode, proc.stdout, proc.stderr)


# docs/guard.md: every refusal line is `path[:line]: CODE [ID] — what; fix`
STABLE_CODE = re.compile(r"[\w-]*[./][\w./-]*(?::\d+)?: [a-z]+(?:_[a-z]+)*\b")


def assert_refusal_names(text: str, path: str | None, ident: str | None = None) -> None:
    """A refusal names the ledger file, a stable code (``path[:line]: code``) and, where
    there is one, the item ID."""
    assert STABLE_CODE.search(text), f"the refusal carries no stable code:\n{text}"
    if path is not None:
        assert path in text, f"the refusal does not name {path}:\n{text}"
    if ident is not None:
        assert ident in text, f"the refusal does not name {ident}:\n{text}"


def assert_violations_well_formed(report: Mapping[str, object]) -> None:
    """Every reported violation carries a stable code, a path and the commit."""
    for v in report["violations"]:  # type: ignore[union-attr]
        assert v["code"] and isinstance(v["code"], str) and v["code"].isascii()
        assert v["path"]


def ledger_texts(edit: list[tuple[str, str, str]]) -> dict[str, str]:
    return apply(edit)


__all__ = [
    "BASE",
    "PATHS",
    "ZERO",
    "REFUSED",
    "BAD_INPUT",
    "STABLE_CODE",
    "git",
    "rev",
    "write_bytes",
    "write_ledgers",
    "commit_all",
    "make_base_repo",
    "clone",
    "make_server",
    "install_pre_receive",
    "server_ref",
    "push",
    "guard_range",
    "guard_range_subprocess",
    "commit_tree",
    "assert_refusal_names",
    "assert_violations_well_formed",
    "ledger_texts",
    "run",
]


def commit_tree(
    repo: Path,
    files: Mapping[str, str | bytes | None],
    parents: list[str],
    message: str,
    *,
    base: str | None = None,
) -> str:
    """A commit made with plumbing: ``base`` (default: the first parent) with ``files``
    replaced (None deletes), the given parents; neither the index nor the work tree is
    touched and no hook runs."""
    index = repo / ".git" / f"adv-index-{os.getpid()}"
    env = {"GIT_INDEX_FILE": str(index)}
    start = base or (parents[0] if parents else None)
    try:
        if start:
            git(repo, "read-tree", start, env=env)
        else:
            git(repo, "read-tree", "--empty", env=env)
        for path, data in files.items():
            if data is None:
                git(repo, "update-index", "--force-remove", "--", path, env=env)
                continue
            raw = data.encode("utf-8") if isinstance(data, str) else data
            blob = (
                subprocess.run(
                    ["git", "hash-object", "-w", "--stdin"],
                    cwd=repo,
                    input=raw,
                    capture_output=True,
                    check=True,
                )
                .stdout.decode()
                .strip()
            )
            git(repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
        tree = git(repo, "write-tree", env=env).stdout.strip()
    finally:
        index.unlink(missing_ok=True)
    args = ["commit-tree", tree, "-m", message]
    for parent in parents:
        args += ["-p", parent]
    return git(repo, *args).stdout.strip()
