"""``init --claude``'s settings hooks (absolute interpreter, merged, idempotent, stale
commands rewritten) and the plugin's hooks/hooks.json, kept in step with them."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import make_venv, run, write
from rehydrate.agents.claude import SETTINGS_HOOKS
from rehydrate.agents.claude_install import (
    PLUGIN_PREFIX,
    hook_command,
    install_settings,
    merge_settings,
    parse_command,
    plugin_hooks,
    wired_hooks,
)

ROOT = Path(__file__).resolve().parents[1]
PYTHON = os.path.abspath(sys.executable)


def ours(settings: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    """(event, matcher, command) of every rehydrate hook in ``settings``."""
    return [(w.event, w.matcher, w.command) for w in wired_hooks(settings, "s")]


def expected(prefix: list[str] | None = None) -> list[tuple[str, str | None, str]]:
    return [(e, m, hook_command(n, prefix)) for e, (m, n) in SETTINGS_HOOKS.items()]


def test_init_claude_writes_no_machine_path_and_records_the_interpreter(repo: Path) -> None:
    """The committed settings hold the portable line; the interpreter is this clone's git
    config (docs/integrations/claude-code.md)."""
    assert run(repo, "init", "--claude", "--no-hook").code == 0
    text = (repo / ".claude/settings.json").read_text()
    settings = json.loads(text)
    assert ours(settings) == expected()
    command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert shlex.split(command)[:2] == ["sh", "-c"]
    assert shlex.split(command)[-4:] == ["rehydrate", "hook", "claude", "stop"]
    assert PYTHON not in text
    config = subprocess.run(
        ["git", "config", "--local", "--get", "rehydrate.python"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    assert config.stdout.strip() == PYTHON


@pytest.mark.parametrize(
    "stale",
    [
        pytest.param("rehydrate hook claude {name}", id="bare-name"),
        pytest.param("/old/venv/bin/rehydrate hook claude {name}", id="old-entry-point"),
        pytest.param("/old/venv/bin/python3 -m rehydrate hook claude {name}", id="moved-venv"),
        pytest.param("'/old dir/python' -m rehydrate hook claude {name}", id="quoted-old"),
    ],
)
def test_a_stale_command_is_rewritten_in_place(stale: str) -> None:
    """Re-running init updates an old command where it is: same group, same extra keys,
    no second entry."""
    current: dict[str, Any] = {"hooks": {}}
    for event, (matcher, name) in SETTINGS_HOOKS.items():
        entry = {"type": "command", "command": stale.format(name=name), "timeout": 30}
        group: dict[str, Any] = {"hooks": [entry]}
        current["hooks"][event] = [{"matcher": matcher, **group} if matcher else group]
    merged, changed = merge_settings(current)
    assert changed and ours(merged) == expected()
    stop = merged["hooks"]["Stop"]
    assert len(stop) == 1 and stop[0]["hooks"][0]["timeout"] == 30
    again, changed_again = merge_settings(merged)
    assert not changed_again and again == merged


def test_duplicates_are_folded_and_the_users_hooks_kept() -> None:
    wanted = hook_command("stop")
    user_hook = {"type": "command", "command": "notify-send done"}
    current = {
        "model": "opus",
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        user_hook,
                        {"type": "command", "command": "rehydrate hook claude stop"},
                    ]
                },
                {"hooks": [{"type": "command", "command": wanted}]},
            ],
            "Notification": [{"hooks": [user_hook]}],
        },
    }
    merged, changed = merge_settings(current)
    assert changed
    assert merged["model"] == "opus" and merged["hooks"]["Notification"] == [{"hooks": [user_hook]}]
    assert merged["hooks"]["Stop"] == [
        {"hooks": [user_hook, {"type": "command", "command": wanted}]}
    ]
    assert sorted(ours(merged)) == sorted(expected())


def test_a_hook_under_another_matcher_is_moved_not_copied() -> None:
    user_hook = {"type": "command", "command": "fmt"}
    stale = {"type": "command", "command": "rehydrate hook claude pre-tool-use"}
    current = {"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [user_hook, stale]}]}}
    merged, _ = merge_settings(current)
    assert merged["hooks"]["PreToolUse"] == [
        {"matcher": "Write", "hooks": [user_hook]},
        {
            "matcher": "*",
            "hooks": [{"type": "command", "command": hook_command("pre-tool-use")}],
        },
    ]


def test_someone_elses_command_is_not_taken_for_ours() -> None:
    for command in (
        "echo rehydrate hook claude stop",
        "my-rehydrate hook claude stop",
        "python -m other hook claude stop",
        "'unbalanced",
    ):
        assert parse_command(command) is None, command
    assert parse_command(hook_command("stop")) is not None


def test_a_path_with_spaces_and_quotes_runs_through_a_shell(tmp_path: Path) -> None:
    """Claude Code runs the command with a shell: the quoted path must survive it."""
    python = make_venv(tmp_path / "my venv's env")
    command = hook_command("session-start", [str(python), "-I", "-m", "rehydrate"])
    hook = parse_command(command)
    assert hook is not None and hook.program == str(python) and hook.kind == "isolated"
    done = subprocess.run(
        ["/bin/sh", "-c", command.replace(" hook claude session-start", " --version")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("rehydrate "), done.stderr


def test_install_settings_reports_created_updated_kept(repo: Path) -> None:
    old = [str(repo / "old" / "python"), "-m", "rehydrate"]
    assert install_settings(repo, old) == "created"
    assert install_settings(repo, old) == "kept"
    assert install_settings(repo) == "updated"
    assert ours(json.loads((repo / ".claude/settings.json").read_text())) == expected()


def test_invalid_hooks_shape_is_refused_and_left_alone(repo: Path) -> None:
    write(repo, ".claude/settings.json", json.dumps({"hooks": {"Stop": {"not": "a list"}}}))
    result = run(repo, "init", "--claude", "--no-hook")
    assert result.code == 2 and "settings_invalid" in result.err and "hooks.Stop" in result.err
    assert json.loads((repo / ".claude/settings.json").read_text()) == {
        "hooks": {"Stop": {"not": "a list"}}
    }


# The plugin: hooks/hooks.json is what init writes, run through the launcher.


def _plugin_file() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "hooks" / "hooks.json").read_text())
    return data


def test_plugin_hooks_file_is_the_generated_one() -> None:
    assert _plugin_file() == plugin_hooks(), "run `python scripts/gen_docs.py`"


def test_plugin_hooks_match_the_settings_hooks(repo: Path) -> None:
    """Same events, same matchers, same rehydrate subcommands as ``init --claude``."""
    assert run(repo, "init", "--claude", "--no-hook").code == 0
    settings = json.loads((repo / ".claude/settings.json").read_text())
    mine = [(w.event, w.matcher, w.hook.name) for w in wired_hooks(settings, "s")]
    plugin = wired_hooks(_plugin_file(), "hooks/hooks.json")
    assert [(w.event, w.matcher, w.hook.name) for w in plugin] == mine
    assert {w.hook.kind for w in plugin} == {"plugin"}
    assert {w.hook.program for w in plugin} == {PLUGIN_PREFIX[1]}


def test_plugin_and_marketplace_versions_are_the_package_version() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    plugin = json.loads((ROOT / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    assert plugin["name"] == entry["name"] == "rehydrate" and entry["source"] == "./"
    assert plugin["version"] == entry["version"] == version
