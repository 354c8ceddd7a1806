"""Regenerate the generated parts of the docs: the command reference and the sample outputs
(and the Claude Code plugin's hooks/hooks.json, built from the table ``init --claude`` uses).

    python scripts/gen_docs.py           # rewrite docs/commands.md, docs/samples/*.txt,
                                         # every <!-- sample: NAME --> block (docs/, examples/,
                                         # README.md) and hooks/hooks.json
    python scripts/gen_docs.py --check   # exit 1 if any of them is out of date (what CI runs,
                                         # through tests/test_docs.py)

The command reference comes from the click definitions (help text at a fixed width);
the samples are the program's real output on the worked example (``rehydrate.cli.example``,
built with pinned dates), with ``REHYDRATE_TODAY`` pinned for ``status``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
COMMANDS_MD = DOCS / "commands.md"
SAMPLES_DIR = DOCS / "samples"
PLUGIN_HOOKS = ROOT / "hooks" / "hooks.json"
RUNTIMES_MD = DOCS / "integrations" / "runtimes.md"
RUNTIMES_BLOCK = re.compile(
    r"(<!-- runtimes-table -->\n)(?P<body>.*?)(<!-- /runtimes-table -->)", re.DOTALL
)
WIDTH = 88
TODAY = "2026-03-05"  # the day after the worked example's last session

# name -> the command line run in the worked example (after `rehydrate`).
SAMPLES: Mapping[str, Sequence[str]] = {
    "status": ("status",),
    "status-blocked": ("status", "--rev", "HEAD~1"),
    "log": ("log",),
    "log-last": ("log", "HEAD~1..HEAD"),
    "prompt": ("prompt",),
    "check": ("check",),
    "check-blocked": ("check", "--rev", "HEAD~1"),
    "check-command": ("check-command", "--", "pytest", "-k", "duplicate"),
    "diff": ("diff", "HEAD~2", "HEAD~1"),
    "guard-range": ("guard", "--range", "HEAD~6..HEAD", "--json"),
    "state": ("state",),
}
SAMPLE_BLOCK = re.compile(
    r"(<!-- sample: (?P<name>[a-z0-9-]+) -->\n```text\n)(?P<body>.*?)(```\n<!-- /sample -->)",
    re.DOTALL,
)


def walk(
    command: click.Command, path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command and subcommand, depth first, sorted by name."""
    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=path[-1])
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                yield from walk(sub, (*path, name))


def help_text(path: tuple[str, ...], command: click.Command) -> str:
    """``rehydrate … --help`` as printed, at a fixed width (so it does not depend on the tty)."""
    from rehydrate.cli import cli

    # The root context carries the CLI's own settings (``-h``/``--help``), as a real run
    # does; child contexts inherit them. Without this the output depended on whether an
    # earlier in-process run had already cached a command's help option.
    parent = None
    for name in path[:-1]:
        settings = cli.context_settings if parent is None else {}
        parent = click.Context(click.Command(name), info_name=name, parent=parent, **settings)
    settings = cli.context_settings if parent is None else {}
    ctx = click.Context(
        command,
        info_name=path[-1],
        parent=parent,
        terminal_width=WIDTH,
        max_content_width=WIDTH,
        **settings,
    )
    return command.get_help(ctx)


def commands_markdown() -> str:
    """docs/commands.md: one section per command and subcommand, from the click definitions."""
    from rehydrate.cli import cli

    out = [
        "# Command reference",
        "",
        "Generated from the click definitions by `scripts/gen_docs.py`; "
        "`tests/test_docs.py` fails when it is out of date. Exit codes: "
        "[exit-codes.md](exit-codes.md).",
        "",
    ]
    entries = list(walk(cli, ("rehydrate",)))
    for path, _command in entries[1:]:
        name = " ".join(path)
        anchor = "-".join(path[1:])
        out.append(f"- [`{name}`](#{anchor})")
    for path, command in entries:
        title = " ".join(path)
        out += [
            "",
            f"## {title}" if len(path) <= 2 else f"### {title}",
            "",
            f'<a id="{"-".join(path[1:]) or "rehydrate"}"></a>',
            "",
            "```text",
            help_text(path, command).rstrip(),
            "```",
        ]
    return "\n".join(out) + "\n"


@contextlib.contextmanager
def _in(cwd: Path, env: Mapping[str, str]) -> Iterator[None]:
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    try:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        yield
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)


def run_sample(root: Path, args: Sequence[str]) -> str:
    """``$ rehydrate ARGS``, then what it printed (stdout, then stderr), then a non-zero exit."""
    from rehydrate.cli import main
    from rehydrate.cli.example import git_env

    out, err = io.StringIO(), io.StringIO()
    with (
        _in(root, {**git_env(), "REHYDRATE_TODAY": TODAY}),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = main(list(args))
    text = f"$ rehydrate {' '.join(args)}\n{out.getvalue()}{err.getvalue()}"
    if not text.endswith("\n"):
        text += "\n"
    return text + (f"[exit {code}]\n" if code else "")


def samples() -> dict[str, str]:
    """Every sample, run on a freshly built worked example."""
    from rehydrate.cli.example import build_example

    with tempfile.TemporaryDirectory(prefix="rehydrate-docs-") as tmp:
        example = build_example(Path(tmp) / "invoices")
        return {name: run_sample(example.root, args) for name, args in SAMPLES.items()}


def markdown_files() -> list[Path]:
    """Pages that may embed samples: docs/**, examples/README.md and README.md."""
    files = sorted(DOCS.rglob("*.md"))
    return [*files, *(p for p in (ROOT / "examples/README.md", ROOT / "README.md") if p.exists())]


def fill_samples(text: str, found: Mapping[str, str]) -> str:
    """``text`` with every ``<!-- sample: NAME -->`` block replaced by the current sample."""

    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in found:
            raise KeyError(f"unknown sample {name!r} (known: {', '.join(found)})")
        return match.group(1) + found[name] + match.group(4)

    return SAMPLE_BLOCK.sub(replace, text)


def plugin_hooks_json() -> str:
    """The plugin's hooks/hooks.json: the settings hooks, run through its launcher."""
    import json

    from rehydrate.agents.claude_install import plugin_hooks

    return json.dumps(plugin_hooks(), ensure_ascii=False, indent=2) + "\n"


def runtimes_table() -> str:
    """The runtime × action table of docs/integrations/runtimes.md, from ``RUNTIMES``:
    ✓ / ✗ per core action, and below it the reason for every ✗."""
    from rehydrate.agents.runtimes import ACTIONS, RUNTIMES

    head = ["Runtime", "Tested against", *(a.replace("_", " ") for a in ACTIONS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    reasons = []
    for info in RUNTIMES.values():
        cells = [f"[{info.title}]({Path(info.doc).name})", f"{info.tested}, {info.version}"]
        for action in ACTIONS:
            support = info.support[action]
            cells.append("✓" if support.ok else "✗")
            if not support.ok:
                reasons.append(f"- {info.title}, {action.replace('_', ' ')}: {support.why}.")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join([*lines, "", "Why each ✗:", "", *reasons]) + "\n"


def fill_runtimes(text: str) -> str:
    table = runtimes_table()
    return RUNTIMES_BLOCK.sub(lambda m: m.group(1) + table + m.group(3), text)


def expected_files() -> dict[Path, str]:
    """Every generated file (or file with generated blocks) -> its current expected text."""
    found = samples()
    out: dict[Path, str] = {COMMANDS_MD: commands_markdown(), PLUGIN_HOOKS: plugin_hooks_json()}
    out.update({SAMPLES_DIR / f"{name}.txt": text for name, text in found.items()})
    out[RUNTIMES_MD] = fill_runtimes(RUNTIMES_MD.read_text(encoding="utf-8"))
    for path in markdown_files():
        if path == COMMANDS_MD:
            continue
        text = path.read_text(encoding="utf-8")
        if SAMPLE_BLOCK.search(text):
            out[path] = fill_samples(text, found)
    return out


def main(argv: Sequence[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, text in expected_files().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path)
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
    for path in stale:
        verb = "out of date" if check else "rewrote"
        print(f"{verb}: {path.relative_to(ROOT)}", file=sys.stderr)
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
