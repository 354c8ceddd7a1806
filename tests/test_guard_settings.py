"""The guard judges the settings too: a ledger moved or re-aliased by configuration."""

from __future__ import annotations

from conftest import commit, git, run, write, write_examples

MOVE_SPEC = '[ledgers]\nspec = "docs/Spec2.md"\n'


def _install(repo):
    assert run(repo, "init").code == 0
    write_examples(repo)  # C-001 is MUST NOT, source "example"
    commit(repo, "init")


def test_pointing_a_ledger_at_a_fresh_file_is_refused_by_hook_and_range(repo):
    _install(repo)
    text = (
        (repo / "docs/Spec.md").read_text().replace("| MUST NOT | example |", "| MAY | example |")
    )
    write(repo, "docs/Spec2.md", text, dedent=False)
    write(repo, ".rehydrate.toml", MOVE_SPEC)
    git(repo, "add", "-A")
    refused = git(repo, "commit", "-q", "-m", "evade", check=False)
    assert refused.returncode != 0 and "config_changed" in refused.stderr
    git(repo, "commit", "-q", "--no-verify", "-m", "evade")
    result = run(repo, "guard", "--range", "HEAD~1..HEAD")
    assert result.code == 1 and "config_changed spec" in result.err


def test_unstaged_settings_cannot_redirect_the_hook(repo):
    _install(repo)
    write(repo, ".rehydrate.toml", MOVE_SPEC)  # in the work tree only, never staged
    spec = (repo / "docs/Spec.md").read_text()
    write(
        repo,
        "docs/Spec.md",
        spec.replace("| MUST NOT | example |", "| SHOULD NOT | example |"),
        dedent=False,
    )
    git(repo, "add", "docs/Spec.md")
    refused = git(repo, "commit", "-q", "-m", "weaken", check=False)
    assert refused.returncode != 0 and "level_weakened" in refused.stderr


def test_settings_written_with_the_first_ledgers_are_free(repo):
    write(
        repo,
        ".rehydrate.toml",
        '[ledgers]\nspec = "agent/Spec.md"\ntask = "agent/Task.md"\n'
        'failures = "agent/Failed_Attempts.md"\n',
    )
    assert run(repo, "init").code == 0
    git(repo, "add", "-A")
    assert git(repo, "commit", "-q", "-m", "first", check=False).returncode == 0


def test_unrelated_settings_change_is_fine_and_a_waiver_is_reported(repo):
    _install(repo)
    write(repo, ".rehydrate.toml", "diff_lines = 50\n")
    git(repo, "add", "-A")
    assert git(repo, "commit", "-q", "-m", "tune", check=False).returncode == 0
    write(repo, ".rehydrate.toml", 'diff_lines = 50\n[aliases.columns]\n"番号" = "ID"\n')
    git(repo, "add", "-A")
    assert git(repo, "commit", "-q", "-m", "alias", check=False).returncode != 0
    git(repo, "commit", "-q", "--no-verify", "-m", "alias\n\nRehydrate-Waiver: team alias")
    result = run(repo, "guard", "--range", "HEAD~2..HEAD")
    assert result.code == 0 and "waived" in result.err and "config_changed" in result.err
