"""``rehydrate demo``: build the worked example and show what a fresh session would see."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..errors import EXIT_OK

PROMPT_LINES = 40  # the prompt's "first screen"


@click.command("demo")
@click.argument(
    "directory", metavar="[DIR]", required=False, type=click.Path(file_okay=False, path_type=Path)
)
@click.option(
    "--prompt-lines",
    type=click.IntRange(min=0),
    default=PROMPT_LINES,
    show_default=True,
    metavar="N",
    help="How many lines of the prompt to show.",
)
def command(directory: Path | None, prompt_lines: int) -> int:
    """Build the worked example repository in DIR (default: a new temporary directory).

    Seven real commits in which an agent works on a task over three sessions, every
    one passed by the guard hook; then shows the example's `status` and the first
    screen of its rehydration prompt, and what to try next. Needs only git.
    """
    import tempfile

    from ..config import load_config
    from ..git import find_repo
    from ..prompt.build import load_prompt
    from ..prompt.sections import PromptOptions
    from ..state import Source
    from ..views.status import gather, today_from_env
    from .example import build_example, describe, prepare_target
    from .status import fit, plain, render, screen_width, use_color

    target = (
        prepare_target(directory)
        if directory is not None
        else Path(tempfile.mkdtemp(prefix="rehydrate-demo-")) / "invoices"
    )
    click.echo(
        "Building the worked example (real commits, each one checked by the guard hook)...",
        err=True,
    )
    today = today_from_env(os.environ)
    example = build_example(target, today)
    root = example.root
    repo = find_repo(root)
    config = load_config(root)
    click.echo(f"Built {root}\n")
    click.echo(describe() + "\n")
    style = click.style if use_color(sys.stdout.isatty(), os.environ) else plain
    click.echo(style("$ rehydrate status", bold=True))
    view = gather(repo, config, Source("worktree"), today)
    click.echo(fit(render(view, style), screen_width(sys.stdout.isatty())))
    prompt = load_prompt(
        repo, config, Source("rev", "HEAD"), PromptOptions(diff_lines=config.diff_lines)
    )
    lines = prompt.text.splitlines()
    click.echo("\n" + style(f"$ rehydrate prompt | head -{prompt_lines}", bold=True))
    click.echo("\n".join(lines[:prompt_lines]))
    if len(lines) > prompt_lines:
        click.echo(f"[... {len(lines) - prompt_lines} more lines: run `rehydrate prompt`]")
    quoted = _quote(root)
    click.echo(f"""
Try next:
  cd {quoted}
  rehydrate log                   what each commit taught the ledgers, item by item
  rehydrate status --rev HEAD~1   the moment an upload's outcome was unknown (blocked)
  rehydrate check --rev HEAD~1    the same, as the gate agents use (exits 3)
  rehydrate prompt                the whole prompt a fresh session starts from
  rehydrate check-command -- pytest -k duplicate   refused: failed attempt F-001 covers it
  rehydrate guard --range HEAD~6..HEAD              every commit checked, as CI does""")
    return EXIT_OK


def _quote(path: Path) -> str:
    import shlex

    return shlex.quote(str(path))
