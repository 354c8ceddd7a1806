"""init: scaffolds, is idempotent, never overwrites, keeps AGENTS.md single."""

from __future__ import annotations

from conftest import run, write
from rehydrate.config import Config
from rehydrate.git import find_repo
from rehydrate.ledgers import parse_ledger
from rehydrate.writers.scaffold import AGENTS_BEGIN, init_repo


def test_init_creates_parseable_ledgers_and_agents_section(repo):
    actions = init_repo(find_repo(repo), Config())
    assert [a.what for a in actions] == ["created"] * 4
    for kind, name in (
        ("spec", "Spec.md"),
        ("task", "Task.md"),
        ("failures", "Failed_Attempts.md"),
    ):
        ledger = parse_ledger(kind, name, (repo / "docs" / name).read_bytes())
        assert any(True for _ in ledger.all_items()), f"{name} shows an example row"
    assert (repo / "AGENTS.md").read_text().count(AGENTS_BEGIN) == 1


def test_init_is_idempotent_and_never_overwrites(repo):
    write(repo, "docs/Spec.md", "# mine\n")
    write(repo, "AGENTS.md", "# Agents\n\nHouse rules.\n")
    init_repo(find_repo(repo), Config())
    again = init_repo(find_repo(repo), Config())
    assert (repo / "docs/Spec.md").read_text() == "# mine\n"
    agents = (repo / "AGENTS.md").read_text()
    assert agents.startswith("# Agents\n\nHouse rules.\n") and agents.count(AGENTS_BEGIN) == 1
    assert {a.what for a in again} == {"kept"}


def test_init_dir_writes_config_so_other_commands_find_the_ledgers(repo):
    init_repo(find_repo(repo), Config(), ledger_dir="agent")
    assert (repo / "agent/Task.md").exists()
    assert 'task = "agent/Task.md"' in (repo / ".rehydrate.toml").read_text()
    result = run(repo, "state", "--json")
    assert result.code == 0, result.err
    assert '"path": "agent/Task.md"' in result.out


def test_init_refuses_a_dir_outside_the_repo(repo):
    result = run(repo, "init", "--dir", "../elsewhere")
    assert result.code == 2 and "path_outside_repo" in result.err
    assert not (repo.parent / "elsewhere").exists()


def test_init_refuses_symlinked_folder_leaving_the_repo(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "docs").symlink_to(outside)
    result = run(repo, "init")
    assert result.code == 2 and "outside the repository" in result.err
    assert list(outside.iterdir()) == []
