"""The docs are tested: docstrings, the generated command reference, sample outputs, the
getting-started guide (run step by step), and the Japanese aliases example.

``REHYDRATE_UPDATE_DOCS=1 pytest tests/test_docs.py`` rewrites the generated files
instead of failing (same as ``python scripts/gen_docs.py``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import click
import pytest

from conftest import git, run

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
UPDATE = os.environ.get("REHYDRATE_UPDATE_DOCS") == "1"


def _gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts/gen_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_docs = _gen_docs()


def _commands() -> list[tuple[tuple[str, ...], click.Command]]:
    from rehydrate.cli import COMMANDS, cli

    found = list(gen_docs.walk(cli, ("rehydrate",)))
    assert {path[1] for path, _ in found[1:]} == set(COMMANDS)  # every registered command
    return found


@pytest.mark.parametrize(
    "path, command", [pytest.param(p, c, id=" ".join(p)) for p, c in _commands()]
)
def test_every_command_has_a_docstring(path: tuple[str, ...], command: click.Command) -> None:
    assert (command.help or "").strip(), f"`{' '.join(path)}` has no docstring"


def test_every_command_is_in_the_command_reference() -> None:
    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    missing = [
        " ".join(p)
        for p, _ in _commands()
        if not re.search(rf"^#+ {re.escape(' '.join(p))}$", text, re.MULTILINE)
    ]
    assert not missing, f"missing from docs/commands.md: {missing}"


def test_generated_docs_are_current() -> None:
    """docs/commands.md, docs/samples/*.txt and every embedded sample block."""
    expected = gen_docs.expected_files()
    stale = []
    for path, text in expected.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(str(path.relative_to(ROOT)))
            if UPDATE:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8", newline="\n")
    known = {p.name for p in expected if p.parent == gen_docs.SAMPLES_DIR}
    extra = [p.name for p in gen_docs.SAMPLES_DIR.glob("*.txt") if p.name not in known]
    assert not extra, f"docs/samples has files no sample produces: {extra}"
    assert UPDATE or not stale, (
        f"out of date: {stale}; run `python scripts/gen_docs.py` (or "
        "REHYDRATE_UPDATE_DOCS=1 pytest tests/test_docs.py) and review the diff"
    )


def test_sample_blocks_name_known_samples() -> None:
    for path in gen_docs.markdown_files():
        for match in gen_docs.SAMPLE_BLOCK.finditer(path.read_text(encoding="utf-8")):
            assert match["name"] in gen_docs.SAMPLES, f"{path}: unknown sample {match['name']}"


def test_relative_links_in_the_docs_resolve() -> None:
    broken = []
    for path in [*DOCS.rglob("*.md"), ROOT / "examples/README.md"]:
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            if not (path.parent / target).exists():
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
    assert not broken, broken


# The getting-started guide, run as a user would: every `console` block, in order,
# in one shell, each command's output compared with what the page shows.

Step = tuple[str, list[str]]


def console_steps(text: str) -> list[Step]:
    """(command, expected output lines) for every ``$ `` line of every console block."""
    steps: list[Step] = []
    for block in re.findall(r"^```console\n(.*?)^```", text, re.DOTALL | re.MULTILINE):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            assert line.startswith("$ "), f"output before any command: {line!r}"
            command = line[2:]
            i += 1
            heredoc = re.search(r"<<'(\w+)'", command)
            if heredoc:
                end = lines.index(heredoc[1], i)
                command = "\n".join([command, *lines[i : end + 1]])
                i = end + 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            steps.append((command, output))
    return steps


def matches(expected: list[str], actual: str) -> bool:
    """Exact, except that a line `...` stands for any lines and `[...]` for any text."""
    pattern = "".join(
        r"(?:[^\n]*\n)*?"
        if line == "..."
        else re.escape(line).replace(re.escape("[...]"), r"[^\n]*?") + r"\n"
        for line in expected
    )
    return re.fullmatch(pattern, actual) is not None


def run_in_one_shell(steps: list[Step], cwd: Path, env: dict[str, str]) -> list[tuple[str, int]]:
    """Run every command in one bash (so `cd` carries over); (output, exit code) each."""
    marker = "@@rehydrate-docs-step@@"
    script = ["exec 2>&1"]
    for command, _ in steps:
        # Keep $? for the next command (the page may show `echo $?`).
        script += [command, f'__rc=$?; printf "\\n{marker} %d\\n" "$__rc"; (exit $__rc)']
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", "\n".join(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    parts = re.split(rf"\n?{marker} (\d+)\n", proc.stdout)
    results = [(parts[i], int(parts[i + 1])) for i in range(0, len(parts) - 1, 2)]
    assert len(results) == len(steps), proc.stdout[-2000:]
    return results


def test_getting_started_works_step_by_step(tmp_path: Path) -> None:
    steps = console_steps((DOCS / "getting-started.md").read_text(encoding="utf-8"))
    assert len(steps) >= 15
    bindir = str(Path(sys.executable).parent)  # where `rehydrate` is installed
    env = {
        **os.environ,
        "PATH": bindir + os.pathsep + os.environ["PATH"],
        "REHYDRATE_TODAY": "2026-03-05",
        "LC_ALL": "C.UTF-8",
    }
    env.pop("NO_COLOR", None)
    results = run_in_one_shell(steps, tmp_path, env)
    for index, ((command, expected), (actual, code)) in enumerate(zip(steps, results, strict=True)):
        checks_exit = index + 1 < len(steps) and steps[index + 1][0] == "echo $?"
        shown = command.splitlines()[0]
        assert code == 0 or checks_exit, f"`{shown}` exited {code}:\n{actual}"
        assert matches(
            expected, actual if actual.endswith("\n") or not actual else actual + "\n"
        ), f"`{shown}` printed:\n{actual}\nthe page shows:\n" + "\n".join(expected)
    assert (tmp_path / "shop/.git/hooks/pre-commit").exists()


@pytest.mark.parametrize(
    "expected, actual, ok",
    [
        pytest.param(["a", "b"], "a\nb\n", True, id="exact"),
        pytest.param(["a"], "a\nb\n", False, id="extra-line"),
        pytest.param(["a", "...", "d"], "a\nb\nc\nd\n", True, id="ellipsis"),
        pytest.param(["x [...] z"], "x yyy z\n", True, id="inline"),
        pytest.param(["x [...] z"], "x yyy\nz\n", False, id="inline-one-line-only"),
        pytest.param([], "", True, id="silent"),
        pytest.param([], "noise\n", False, id="unexpected-output"),
    ],
)
def test_output_matching_rules(expected: list[str], actual: str, ok: bool) -> None:
    assert matches(expected, actual) is ok


# Header aliases: the Japanese example in docs/languages.md really parses.


def test_the_japanese_aliases_example_parses(repo: Path) -> None:
    text = (DOCS / "languages.md").read_text(encoding="utf-8")
    files = dict(
        re.findall(r"^<!-- file: (\S+) -->\n```\w*\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    )
    assert set(files) == {
        ".rehydrate.toml",
        "docs/Spec.md",
        "docs/Task.md",
        "docs/Failed_Attempts.md",
    }
    for relpath, body in files.items():
        target = repo / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    result = run(repo, "state", "--json")
    assert result.code == 0, result.err
    ledgers = json.loads(result.out)["ledgers"]
    [constraint, *_] = ledgers["spec"]["items"]["constraints"]
    assert constraint["id"] == "C-001" and constraint["level"] == "MUST NOT"
    assert constraint["rule"] == "本番データベースに直接書き込まない"
    assert ledgers["spec"]["items"]["decisions"][0]["status"] == "open"
    assert [p["status"] for p in ledgers["task"]["items"]["phases"]] == ["done", "doing"]
    assert ledgers["task"]["next_action"] == "請求書エクスポートのテストを書く"
    assert ledgers["failures"]["items"]["failures"][0]["workaround"].startswith("ローカルの")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "最初のコミット")
    assert run(repo, "guard", "--range", "HEAD").code == 0
    status = run(repo, "status")
    assert "Task T-12 (revision 3)" in status.out and "[#>] 1/2 done" in status.out
