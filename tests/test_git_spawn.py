"""git's one runner (``rehydrate.git.spawn``): what ``subprocess.run`` gave the choke point,
checked against real git processes, and the errors a caller sees when git cannot start."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import commit, write
from rehydrate.errors import GitError
from rehydrate.git import _git, find_repo, run, spawn


def test_a_big_input_and_a_big_answer_pass_without_a_deadlock(repo: Path) -> None:
    """Both directions at once, each far past a pipe's buffer: ``cat-file --batch`` answers
    while it is still being fed (a runner that wrote all first would hang here)."""
    data = os.urandom(3 << 20)
    blob = run(find_repo(repo), "hash-object", "-w", "--stdin", input=data).stdout.strip()
    asked = (blob + b"\n") * 4
    proc = run(find_repo(repo), "cat-file", "--batch", input=asked)
    assert proc.returncode == 0
    header = blob + b" blob " + str(len(data)).encode() + b"\n"
    assert proc.stdout == (header + data + b"\n") * 4
    assert proc.stderr == b""


def test_exit_status_stderr_and_argv_are_git_s(repo: Path) -> None:
    proc = _git(repo, "rev-parse", "--verify", "--quiet", "no-such-ref", check=False)
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.args[:3] == ["git", "-C", str(repo)]
    proc = _git(repo, "cat-file", "-t", "1" * 40, check=False)
    assert proc.returncode == 128 and proc.stderr.startswith(b"fatal: ")
    with pytest.raises(GitError) as info:
        _git(repo, "cat-file", "-t", "1" * 40)
    assert info.value.code == "git_failed"


def test_git_runs_in_the_directory_it_is_given(repo: Path) -> None:
    (repo / "sub").mkdir()
    write(repo, "sub/a.txt", "a\n")
    commit(repo, "a")
    assert _git(repo / "sub", "rev-parse", "--show-prefix").stdout == b"sub/\n"
    assert _git(repo / "sub", "ls-files").stdout == b"a.txt\n"  # relative to sub


def test_the_child_gets_sigpipe_back() -> None:
    """Python ignores SIGPIPE and an ignored signal survives exec: a pipeline into ``head``
    would see EPIPE errors (git resets it for itself; what git runs through the runner, and
    any other program, would not). The runner resets it, as subprocess does."""
    done = spawn.run(["sh", "-c", "yes | head -n 1"], dict(os.environ))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"y\n", b"")
    twin = subprocess.run(  # the twin: SIGPIPE left ignored does show the error
        ["sh", "-c", "yes | head -n 1"], capture_output=True, restore_signals=False
    )
    assert b"Broken pipe" in twin.stderr


def test_a_child_that_stops_reading_is_no_error(repo: Path) -> None:
    """Input the child never reads (it exits first): what it answered counts."""
    proc = _git(repo, "rev-parse", "HEAD", input=b"x" * (4 << 20), check=False)
    assert proc.returncode in (0, 128)


def test_a_missing_directory_is_not_a_repo_and_missing_git_is_git_missing(
    repo: Path, tmp_path: Path
) -> None:
    with pytest.raises(GitError) as info:
        _git(tmp_path / "gone", "status")
    assert info.value.code == "not_a_repo"
    with pytest.raises(GitError) as info:
        _git(repo / ".git" / "HEAD", "status")  # a file, not a directory
    assert info.value.code == "not_a_repo"
    with pytest.raises(GitError) as info:
        _git(repo, "status", env={"PATH": str(tmp_path)})
    assert info.value.code == "git_missing"
    assert _git(repo, "status", env={"PATH": os.environ["PATH"]}).returncode == 0  # the twin


def test_the_program_is_looked_up_on_the_path_it_is_given(tmp_path: Path) -> None:
    """The environment's PATH, not the caller's (as subprocess), skipping a directory whose
    entry cannot run."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "tool").write_text("#!/bin/sh\necho not runnable\n")  # no execute bit
    (second / "tool").write_text('#!/bin/sh\necho "$1 from b" >&2\nexit 3\n')
    (second / "tool").chmod(0o755)
    done = spawn.run(["tool", "hi"], {"PATH": f"{first}:{second}"})
    assert done == spawn.Done(["tool", "hi"], 3, b"", b"hi from b\n")
    with pytest.raises(PermissionError):
        spawn.run(["tool"], {"PATH": str(first)})
    with pytest.raises(FileNotFoundError):
        spawn.run(["tool"], {"PATH": str(tmp_path)})


def test_an_interrupted_read_kills_and_reaps_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception while reading (here: the read itself fails) leaves no process behind."""
    marker = tmp_path / "pid"
    script = f"echo $$ > {marker}; echo started; exec sleep 30"
    real = os.read

    def failing(fd: int, n: int) -> bytes:
        if marker.exists():
            raise KeyboardInterrupt
        return real(fd, n)

    monkeypatch.setattr(spawn.os, "read", failing)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        spawn.run(["sh", "-c", script], dict(os.environ))
    monkeypatch.undo()
    assert time.monotonic() - started < 10  # killed, not waited for
    pid = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped: no such process, not even a zombie


def test_a_relative_path_entry_is_never_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PATH=.:/usr/bin`` (or ``bin:``, or an empty entry) would run a ``git`` the agent
    wrote in the work tree; the twin, the same program in an absolute directory, runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bin").mkdir()
    planted = tmp_path / "bin" / "tool"
    planted.write_text("#!/bin/sh\necho planted\n")
    planted.chmod(0o755)
    (tmp_path / "tool").write_bytes(planted.read_bytes())  # for an empty entry: `.`
    (tmp_path / "tool").chmod(0o755)
    for path in ("bin", "./bin", f":{tmp_path}/none", "bin:"):
        with pytest.raises(FileNotFoundError):
            spawn.run(["tool"], {"PATH": path})
    done = spawn.run(["tool"], {"PATH": f"bin:{tmp_path / 'bin'}"})
    assert done.stdout == b"planted\n"  # the absolute entry: found


def test_the_streamed_git_is_looked_up_the_same_way(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git._start`` (a streamed ``git log``) finds git as ``spawn.run`` does: a ``git``
    the agent wrote in the work tree, on a relative PATH entry, never runs; the real one
    on the absolute entries after it does."""
    from rehydrate.git import _start

    planted = repo / "git"
    planted.write_text('#!/bin/sh\necho planted > "$0.ran"\n')
    planted.chmod(0o755)
    monkeypatch.setenv("PATH", "." + os.pathsep + os.environ["PATH"])
    proc = _start(repo, "version")
    out, _ = proc.communicate()
    assert proc.returncode == 0 and out.startswith(b"git version")
    assert not (repo / "git.ran").exists()
