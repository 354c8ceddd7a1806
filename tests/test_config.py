"""Configuration: defaults, both file forms, aliases, and clear errors."""

from __future__ import annotations

import pytest

from conftest import run, scaffold, write
from rehydrate.config import DEFAULT_PATHS, load_config
from rehydrate.errors import ConfigError


def test_defaults_without_any_file(tmp_path):
    config = load_config(tmp_path)
    assert dict(config.paths) == dict(DEFAULT_PATHS) and config.origin is None


def test_dotfile_and_pyproject_forms(tmp_path):
    write(
        tmp_path,
        ".rehydrate.toml",
        '[ledgers]\ntask = "state/Task.md"\n[aliases.columns]\n"番号" = "ID"\n',
    )
    config = load_config(tmp_path)
    assert config.paths["task"] == "state/Task.md" and config.column_aliases == {"番号": "id"}
    other = tmp_path / "p"
    write(other, "pyproject.toml", '[project]\nname="x"\n[tool.rehydrate]\ndiff_lines = 50\n')
    assert load_config(other).diff_lines == 50 and load_config(other).origin == "pyproject.toml"


@pytest.mark.parametrize(
    "text,code",
    [
        pytest.param('[ledgers]\nspec = "../outside.md"\n', "path_outside_repo", id="dotdot"),
        pytest.param('[ledgers]\nspec = "/etc/passwd"\n', "path_outside_repo", id="absolute"),
        pytest.param('[ledgers]\nspec = ".git/x.md"\n', "path_outside_repo", id="git-dir"),
        pytest.param(
            '[ledgers]\nspec = "a.md"\ntask = "a.md"\n', "config_invalid", id="shared-path"
        ),
        pytest.param('[ledgers]\nnotes = "a.md"\n', "config_invalid", id="unknown-ledger"),
        pytest.param('diff_lines = "many"\n', "config_invalid", id="wrong-type"),
        pytest.param("diff_lines = true\n", "config_invalid", id="bool-for-int"),
        pytest.param("dif_lines = 3\n", "config_invalid", id="typo"),
        pytest.param('[aliases.columns]\n"x" = "nonsense"\n', "config_invalid", id="alias-target"),
        pytest.param("diff_lines = [\n", "config_invalid", id="bad-toml"),
    ],
)
def test_invalid_settings_are_errors(tmp_path, text, code):
    write(tmp_path, ".rehydrate.toml", text)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert info.value.code == code and info.value.file


def test_both_files_is_ambiguous(tmp_path):
    write(tmp_path, ".rehydrate.toml", "diff_lines = 3\n")
    write(tmp_path, "pyproject.toml", "[tool.rehydrate]\ndiff_lines = 4\n")
    with pytest.raises(ConfigError, match="both"):
        load_config(tmp_path)


def test_aliases_let_a_team_write_ledgers_in_japanese(repo):
    write(
        repo,
        ".rehydrate.toml",
        """\
        [ledgers]
        spec = "docs/仕様.md"
        [aliases.sections]
        "制約" = "constraints"
        [aliases.columns]
        "番号" = "id"
        "ルール" = "rule"
        "強さ" = "level"
        """,
    )
    write(
        repo,
        "docs/仕様.md",
        """\
        # 仕様
        ## 制約
        | 番号 | ルール | 強さ | 出典 |
        |---|---|---|---|
        | C-1 | 本番 DB に直接書き込まない | MUST NOT | ユーザー |
        """,
    )
    scaffold(repo)
    result = run(repo, "state", "--json")
    assert result.code == 0, result.err
    assert '"rule": "本番 DB に直接書き込まない"' in result.out
    assert '"出典": "ユーザー"' in result.out


def test_every_scalar_setting_reaches_its_config_field():
    """A key of the scalar table that Config does not read would be accepted and then
    dropped: each one, set to a value other than the default, must come out as set."""
    from rehydrate.config import _SCALARS, Config, config_from_files

    assert set(_SCALARS) <= set(Config._fields)
    chosen = {
        "prompt_template": ('"docs/prompt.md"', "docs/prompt.md"),
        "diff_lines": ("7", 7),
        "max_tokens": ("9000", 9000),
        "max_ledger_bytes": ("4096", 4096),
        "record_events": ("true", True),
        "id_scheme": ('"branch-safe"', "branch-safe"),
    }
    assert set(chosen) == set(_SCALARS)
    text = "".join(f"{key} = {toml}\n" for key, (toml, _) in chosen.items())
    config = config_from_files({".rehydrate.toml": text.encode()})
    for key, (_, value) in chosen.items():
        assert getattr(config, key) == value != getattr(Config(), key), key
