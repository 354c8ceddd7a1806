"""Invariants 1-4 (history shape, per-commit settings, waivers, object substitution),
each scenario tried three ways: ``guard --range OLD..NEW``, a real ``git push`` into a
bare repository whose pre-receive hook runs the guard (the ref must not move on a
refusal), and the local hook where the attack can be tried locally (else the
scenario's ``hook_na`` says why, and that way is not generated)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial.helpers import (
    REFUSED,
    STABLE_CODE,
    assert_violations_well_formed,
    clone,
    git,
    guard_range,
    install_pre_receive,
    make_base_repo,
    make_server,
    push,
    rev,
)
from adversarial.histories import HISTORIES, Scenario


def _params() -> list[object]:
    out = []
    for family, table in HISTORIES.items():
        for name, build in table.items():
            ways = ["server"]
            if not getattr(build, "server_only", False):
                ways.insert(0, "range")
            if not getattr(build, "not_local", False):
                ways.append("hook")
            for way in ways:
                out.append(pytest.param(build, way, id=f"{family}-{name}-{way}"))
    return out


@pytest.fixture(scope="module")
def base_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base_repo(tmp_path_factory.mktemp("history") / "base")


def _names(text: str, scenario: Scenario) -> None:
    assert STABLE_CODE.search(text), f"the refusal carries no stable code:\n{text}"
    paths = scenario.path if isinstance(scenario.path, tuple) else (scenario.path,)
    if scenario.path is not None:
        assert any(p in text for p in paths), f"the refusal names none of {paths}:\n{text}"
    if scenario.ident is not None:
        assert scenario.ident in text, f"the refusal does not name {scenario.ident}:\n{text}"


def _range(repo: Path, s: Scenario) -> None:
    verdict = guard_range(repo, f"{s.old}..{s.new}")
    if s.refused:
        assert verdict.code == REFUSED, f"exit {verdict.code}, expected 1:\n{verdict.err}"
        assert_violations_well_formed(verdict.report)
        _names(verdict.err, s)
    else:
        assert verdict.code == 0, f"a legitimate history was refused:\n{verdict.err}"


def _server(repo: Path, tmp_path: Path, s: Scenario) -> None:
    server = make_server(tmp_path / "server.git", hook=False)
    git(repo, "remote", "add", "origin", str(server))
    for refspecs in s.setup:
        proc = push(repo, *refspecs)
        assert proc.returncode == 0, f"could not establish the old state:\n{proc.stderr}"
    install_pre_receive(server)
    before = rev(server, s.ref)
    proc = push(repo, *s.attack)
    after = rev(server, s.ref)
    if s.refused:
        assert proc.returncode != 0, f"the server accepted the push:\n{proc.stdout}{proc.stderr}"
        assert after == before, f"{s.ref} moved from {before} to {after}"
        _names(proc.stderr, s)
    else:
        assert proc.returncode == 0, f"the server refused a legitimate push:\n{proc.stderr}"
        assert after == s.new


def _hook(s: Scenario) -> None:
    assert s.hook is not None
    before, after, stderr = s.hook()
    if s.refused:
        assert after == before, f"the local hook let it through:\n{stderr}"
        _names(stderr, s)
    else:
        assert after != before, f"the local hook refused a legitimate commit:\n{stderr}"


ALL = _params()


@pytest.mark.parametrize(("build", "way"), ALL)
def test_history(base_repo: Path, tmp_path: Path, build, way: str) -> None:
    repo = clone(base_repo, tmp_path / "repo")
    scenario = build(repo)
    assert (scenario.hook is None) == bool(getattr(build, "not_local", False))
    if way == "range":
        _range(repo, scenario)
    elif way == "server":
        _server(repo, tmp_path, scenario)
    else:
        _hook(scenario)
