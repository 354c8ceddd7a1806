"""check-command: a long option abbreviated to a unique prefix, and subcommand aliases
(issue 28 item 1; docs/check-command.md, *The invocation model*).

A prefix is the option only for a program whose parser takes one (GNU getopt_long,
optparse, git's parse-options) and whose complete list of long options the table holds
(``Tool.longs``), and only when no other option of that list starts with it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rehydrate.agents.commands import attempts_in_cell, commands_in, match
from rehydrate.agents.tooltable import TOOLS


def _verdict(tried: str, command: str) -> str | None:
    found = None
    for attempt in attempts_in_cell(f"`{tried}`"):
        for candidate in commands_in(command):
            kind = match(candidate, attempt)
            if kind == "exact" or (kind and found is None):
                found = kind
    return found


REFUSED = [
    # GNU getopt_long (coreutils 9.1, GNU Make 4.3): each checked with the real tool
    ("rm -rf build", "rm --rec --for build"),
    ("rm -rf build", "rm --recursive --forc build"),
    ("rm -rf build", "rm --re --f build"),
    ("cp -r assets build", "cp --rec assets build"),
    ("make --silent deploy", "make --sil deploy"),
    ("make deploy", "make --sil deploy"),  # --silent: cosmetic
    ("make -n deploy", "make --dry deploy"),
    ("make -n deploy", "make --just deploy"),
    ("make -C web deploy", "make --dir=web deploy"),
    # optparse (pip 23.2.1): install's options and the general ones
    ("pip install -e .", "pip install --edit ."),
    ("pip install -e .", "pip install --ed=."),
    ("pip install -e .", "pip install --edit . --disable"),
    # git's parse-options (2.39.5), --no- forms too
    ("git commit --amend --no-edit", "git commit --amen --no-ed"),
    ("git push --set-upstream origin main", "git push --set-up origin main"),
    ("git push --dry-run origin main", "git push --dry origin main"),
    ("git push --no-verify origin main", "git push --no-veri origin main"),
    # aliases from the tools' own sources
    ("npm install --legacy-peer-deps", "npm ins --legacy-peer-deps"),
    ("npm install --legacy-peer-deps", "npm instal --legacy-peer-deps"),
    ("npm ci", "npm clean-install"),
    ("npm run build", "npm rum build"),
    ("npm update", "npm udpate"),
    ("cargo remove serde", "cargo rm serde"),
    ("pnpm remove lodash", "pnpm uni lodash"),
]

NOT_REFUSED = [
    # ambiguous: the program stops with an error
    ("git push --force origin main", "git push --forc origin main"),
    ("git push --force origin main", "git push --fo origin main"),
    ("git commit --no-verify -m x", "git commit --no-ver -m x"),
    ("pip install -e .", "pip install --e ."),
    ("pip install -e .", "pip install --upg -e ."),
    ("make --silent deploy", "make --s deploy"),
    ("make deploy", "make --no deploy"),
    ("rm -rf build", "rm --v --rec --for build"),
    ("cp -r assets build", "cp --r assets build"),
    # a prefix of another option
    ("git push --force origin main", "git push --force-w origin main"),
    ("make deploy", "make --dry deploy"),
    ("make deploy", "make --just deploy"),
    ("rm -rf build", "rm --d --for build"),
    ("git commit --no-verify -m x", "git commit --veri -m x"),
    # tools that take no abbreviation
    ("go test -tags=musl ./...", "go test -tag=musl ./..."),
    ("cargo build --release", "cargo build --rel"),
    ("pytest -x tests", "pytest --exitf tests"),
    ("terraform apply -auto-approve", "terraform apply -auto"),
    ("docker build -t app .", "docker build --ta app ."),
    # a subcommand whose list the table does not hold
    ("git log --oneline", "git log --onel"),
    # pip has no `i`: "unknown command"
    ("pip install -e .", "pip i -e ."),
    # npm: another command
    ("npm ci", "npm cit"),
    ("npm test", "npm it"),
]


@pytest.mark.parametrize(("tried", "command"), REFUSED)
def test_a_unique_prefix_or_an_alias_is_the_same_invocation(tried: str, command: str) -> None:
    assert _verdict(tried, command) == "exact"


@pytest.mark.parametrize(("tried", "command"), NOT_REFUSED)
def test_an_ambiguous_or_foreign_prefix_is_not_refused(tried: str, command: str) -> None:
    assert _verdict(tried, command) != "exact"


def test_rm_rec_for_is_rm_rf() -> None:
    """The defect as found: on main `rm --rec --for build` was only close to `rm -rf build`,
    and `pip i -e .` was refused by `pip install -e .`."""
    assert _verdict("rm -rf build", "rm --rec --for build") == "exact"
    assert _verdict("pip install -e .", "pip i -e .") != "exact"


def test_whole_exact_first_then_unique_prefix() -> None:
    from rehydrate.agents.invocation import _whole

    pip, git = TOOLS["pip"], TOOLS["git"]
    assert _whole("--edit", pip, "install") == "--editable"
    assert _whole("--e", pip, "install") == "--e"
    assert _whole("--user", pip, "install") == "--user"  # exact, though --user-* could be
    assert _whole("--isol", pip, "") == "--isolated"  # general options, before `install`
    assert _whole("--edit", pip, "uninstall") == "--edit"  # no list: as written
    assert _whole("--force", git, "push") == "--force"  # exact, a prefix of two others
    assert _whole("--forc", git, "push") == "--forc"
    assert _whole("--amen", git, "") == "--amen"  # before the subcommand: no list


def test_rows_name_their_own_long_options_in_the_list() -> None:
    """Every long spelling a row of rm, cp or make knows is in its list (a list missing one
    is not the program's)."""
    for program in ("rm", "cp", "make"):
        row = TOOLS[program]
        known = row.longs[""]
        spelled = set(row.names) | row.valued | row.cosmetic
        assert {s for s in spelled if s.startswith("--")} <= known, program


def _help_longs(argv: list[str]) -> set[str]:
    out = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    return {"--" + name for name in re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", out.stdout)}


@pytest.mark.parametrize(
    ("program", "sub", "argv"),
    [
        ("rm", "", ["rm", "--help"]),
        ("cp", "", ["cp", "--help"]),
        ("make", "", ["make", "--help"]),
        ("git", "push", ["git", "push", "--git-completion-helper-all"]),
        ("git", "commit", ["git", "commit", "--git-completion-helper-all"]),
    ],
)
def test_the_installed_tool_has_no_long_option_the_list_lacks(
    program: str, sub: str, argv: list[str]
) -> None:
    """A prefix unique in the table's list must be unique for the program too: the list
    holds every long option of the installed version (a superset is safe)."""
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} not installed")
    found = _help_longs(argv)
    assert found, argv
    assert found <= TOOLS[program].longs[sub], sorted(found - TOOLS[program].longs[sub])


def test_pip_lists_hold_every_option_of_the_installed_pip() -> None:
    pip_internal = pytest.importorskip("pip._internal.commands")
    from pip._internal.cli.main_parser import create_main_parser

    general = {o for opt in create_main_parser()._get_all_options() for o in opt._long_opts}
    parser = pip_internal.create_command("install").parser
    install = {o for opt in parser._get_all_options() for o in opt._long_opts}
    import pip

    fix = f"pip {pip.__version__} has long options tooltable.py's pip lists lack: add them"
    assert general <= TOOLS["pip"].longs[""], (fix, sys.version)
    assert install <= TOOLS["pip"].longs["install"], fix


def _npm(*args: str, cwd: Path) -> str:
    if shutil.which("npm") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("npm is not installed (CI installs its real clients with it)")
        pytest.skip("npm not installed")
    argv = ["npm", *args]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60, cwd=cwd)
    return out.stdout


def test_npm_s_list_holds_every_config_key_of_the_installed_npm(tmp_path: Path) -> None:
    keys = json.loads(_npm("config", "ls", "-l", "--json", cwd=tmp_path))
    found = {"--" + k for k in keys if not k.startswith(("//", "@"))}
    assert found <= TOOLS["npm"].longs["*"], sorted(found - TOOLS["npm"].longs["*"])


@pytest.mark.parametrize(
    ("spelled", "read_as"),
    [
        ("--legacy-peer", "legacy-peer-deps"),  # unique: expanded by nopt
        ("--legacy-peer-d", "legacy-peer-deps"),
        ("--legacy", "legacy"),  # legacy-bundling too: an unknown config of its own
        ("--save", "save"),  # exact, though save-dev, save-exact ... start with it
        ("--local", "global"),  # a shorthand: --no-global (npm lists `global = false`)
    ],
)
def test_npm_reads_a_prefix_as_the_table_does(tmp_path: Path, spelled: str, read_as: str) -> None:
    """What the real npm sets for the spelling (``npm config list``, its command-line
    section) is what ``_whole`` writes out."""
    from rehydrate.agents.invocation import _whole

    listed = _npm("config", "list", spelled, cwd=tmp_path)
    section = listed.split('; "cli" config from command line options', 1)[1].split("\n; ")[0]
    if read_as == "global":  # a shorthand spelled whole: as written, never a prefix
        assert "\nglobal = false\n" in section, section
        assert _whole(spelled, TOOLS["npm"], "install") == spelled
        return
    assert f"\n{read_as} = true\n" in section, section
    assert _whole(spelled, TOOLS["npm"], "install") == "--" + read_as
    assert _whole(spelled, TOOLS["npm"], "") == "--" + read_as  # before the subcommand


# A switch given `=true`: the switch where the parser takes that, the program's error
# (a near miss, never refused) where it refuses a switch's value. Each checked with the
# real tool: git 2.39.5, coreutils 9.1, GNU Make 4.3, cargo 1.95.0.
SWITCH_VALUES = [
    ("npm install --legacy-peer-deps", "npm install --legacy-peer-deps=true", "exact"),
    ("terraform apply -auto-approve", "terraform apply -auto-approve=true", "exact"),
    ("docker run --rm app:dev", "docker run --rm=true app:dev", "exact"),
    ("kubectl delete pod web-0 --force", "kubectl delete pod web-0 --force=true", "exact"),
    ("git push --force origin main", "git push --force=true origin main", "close"),
    ("rm -rf build", "rm --recursive --force=true build", "close"),
    ("make --silent deploy", "make --silent=true deploy", "close"),
    ("cargo build --release", "cargo build --release=true", "close"),
    ("pytest -x tests", "pytest --exitfirst=true tests", "close"),
    ("pip install --no-deps -e .", "pip install --no-deps=true -e .", "close"),
]


@pytest.mark.parametrize(("tried", "command", "verdict"), SWITCH_VALUES)
def test_a_switch_given_true_is_the_switch_only_where_the_parser_takes_it(
    tried: str, command: str, verdict: str
) -> None:
    assert _verdict(tried, command) == verdict
