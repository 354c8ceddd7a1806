"""init: scaffolds, is idempotent, never overwrites, keeps AGENTS.md single."""

from __future__ import annotations

import json

from conftest import commit, run, write
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
        assert list(ledger.all_items()) == [], f"{name} has a row nobody recorded"
    assert (repo / "AGENTS.md").read_text().count(AGENTS_BEGIN) == 1


def test_init_then_commit_everything_makes_no_example_permanent(repo):
    """The natural habit, `init` then `git add -A && git commit`, records nothing: no
    failure refuses a command, the prompt shows no pending write or granted approval."""
    assert run(repo, "init").code == 0
    commit(repo, "init")
    refused = run(repo, "check-command", "--", "go", "test", "-tags=musl", "./...")
    assert refused.code == 0, refused.err
    prompt = run(repo, "prompt")
    assert prompt.code == 0, prompt.err
    ledgers = prompt.out.split("## 4. Latest commit")[0]
    for leftover in ("Example", "example", "F-001", "E-001", "A-001", "D-001", "C-001"):
        assert leftover not in ledgers, leftover
    state = json.loads(run(repo, "state", "--json").out)
    assert state["ledgers"]["task"]["revision"] == 1
    assert run(repo, "guard", "--range", "HEAD").code == 0


def test_init_templates_name_a_writer_for_every_section(repo):
    """Each section's note names the one-line command that records its rows (and the
    retire command); the writers then fill the empty tables the guard accepts."""
    init_repo(find_repo(repo), Config())
    spec = (repo / "docs/Spec.md").read_text()
    task = (repo / "docs/Task.md").read_text()
    failures = (repo / "docs/Failed_Attempts.md").read_text()
    for text, command in (
        (spec, "rehydrate spec constraint add"),
        (spec, "rehydrate spec constraint strengthen"),
        (spec, "rehydrate spec contract add"),
        (spec, "rehydrate spec decision add"),
        (spec, "rehydrate spec decision assign"),
        (spec, "rehydrate spec decision decide"),
        (spec, "rehydrate retire"),
        (task, "rehydrate task objective"),
        (task, "rehydrate task next"),
        (task, "rehydrate task phase add"),
        (task, "rehydrate task obligation add"),
        (task, "rehydrate task write add"),
        (task, "rehydrate task write settle"),
        (task, "rehydrate task approval add"),
        (task, "rehydrate task verified add"),
        (task, "rehydrate task check add"),
        (failures, "rehydrate fail add"),
        (failures, "rehydrate fail retire"),
    ):
        assert command in text, command


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


# What an agent records, and the command that records it: the working protocol, the
# AGENTS.md and the CLAUDE.md sections must each name every one of them.
TAUGHT = (
    "rehydrate fail add --tried",
    "rehydrate spec decision add --question",
    "rehydrate spec decision assign",
    "rehydrate spec decision decide",
    "rehydrate spec constraint add --level",
    "rehydrate spec constraint strengthen",
    "rehydrate spec contract add --subject",
    "rehydrate task objective",
    "rehydrate task next",
    "rehydrate task phase add --phase",
    "rehydrate task phase start",
    "rehydrate task phase done",
    "rehydrate task obligation add",
    "rehydrate task write add --operation",
    "rehydrate task write unknown",
    "rehydrate task write settle",
    "rehydrate task approval add --scope",
    "rehydrate task approval consume",
    "rehydrate task verified add --check",
    "rehydrate task check add",
    "rehydrate retire ID --reason",
)


def _taught_commands_exist(text: str) -> None:
    """Every `rehydrate …` span in ``text`` names a real command and only its options."""
    import re

    import click

    from rehydrate.cli import cli

    spans = re.findall(r"`(rehydrate [^`]+)`", text)
    assert spans
    for span in spans:
        command: click.Command = cli
        words = span.split()[1:]
        while isinstance(command, click.Group) and words:
            sub = command.get_command(click.Context(command), words[0])
            if sub is None:
                break
            command, words = sub, words[1:]
        assert not isinstance(command, click.Group), span
        known = {o for p in command.params for o in getattr(p, "opts", ())}
        for word in words:
            option = word.strip("[]()").split("=")[0]
            if option.startswith("--") and option != "--":
                assert option in known, f"{span}: {option}"


def test_agents_claude_and_the_protocol_name_the_command_for_each_record(repo):
    assert run(repo, "init", "--claude", "--no-hook").code == 0
    commit(repo, "init")
    prompt = run(repo, "prompt")
    assert prompt.code == 0, prompt.err
    protocol = prompt.out.split("## 5. Working protocol")[1]
    for name, text in (
        ("AGENTS.md", (repo / "AGENTS.md").read_text()),
        ("CLAUDE.md", (repo / "CLAUDE.md").read_text()),
        ("the prompt's protocol", protocol),
    ):
        flat = text.replace("\n", " ")
        missing = [c for c in TAUGHT if c not in flat]
        assert not missing, f"{name} does not teach {missing}"
        _taught_commands_exist(text)


def test_init_and_hook_install_print_one_alignment(tmp_path):
    """Every action line has its word in the same 9 columns, the path after (issue 17)."""
    import re

    from conftest import git, run

    git(tmp_path, "init", "-q")
    lines = run(tmp_path, "init", "--agent", "claude").err.splitlines()
    lines += run(tmp_path, "hook", "install").err.splitlines()
    actions = [line for line in lines if not line.startswith(("next:", " " * 10))]
    assert len(actions) >= 14, lines
    bad = [line for line in actions if not re.fullmatch(r"[a-z]{3,9} {1,7}\S.*", line)]
    bad += [line for line in actions if line[10 - 1] != " " or line[10] == " "]
    assert not bad, bad
