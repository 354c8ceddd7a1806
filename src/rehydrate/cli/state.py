"""``rehydrate state``."""

from __future__ import annotations

import click

from ..errors import EXIT_OK
from ..typecheck import TYPE_CHECKING
from ._common import emit_json, note, open_repo, pick_source, source_options

if TYPE_CHECKING:
    from ..state import State


@click.command("state")
@source_options(staged=True, default="worktree")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def command(rev: str | None, staged: bool, worktree: bool, as_json: bool) -> int:
    """Parsed ledgers, each pinned (path, blob, last commit), and the semantic checksum."""
    from ..state import commit_differs, load_state, state_to_json

    repo, config = open_repo()
    source = pick_source(rev, worktree, staged, default="worktree")
    state = load_state(repo, config, source)
    differs = commit_differs(repo, state.head, state.pins) if source.kind != "rev" else []
    if as_json:
        emit_json(state_to_json(state, differs))
    else:
        click.echo(render(state))
    if differs:
        note("note: differs from HEAD (uncommitted): " + ", ".join(differs))
    return EXIT_OK


def render(state: State) -> str:
    lines = [
        f"source    {state.source.label}" + (f" ({state.commit[:12]})" if state.commit else ""),
        f"head      {state.head or '(no commits yet)'}"
        + (f" on {state.branch}" if state.branch else " (detached)" if state.head else ""),
    ]
    for kind, pin in state.pins.items():
        ledger = state.ledgers[kind]
        counts = ", ".join(f"{len(v)} {k}" for k, v in ledger.items.items() if v) or "no items"
        lines.append(
            f"{kind:<9} {pin.path}  blob {(pin.blob or '-')[:12]}  "
            f"last commit {(pin.last_commit or '-')[:12]}"
        )
        lines.append(f"          {counts}; {len(ledger.retired)} retired")
    task = state.ledgers["task"]
    lines.append(f"task      {task.task_id} revision {task.revision}: {task.objective}")
    lines.append(f"next      {task.next_action.text if task.next_action else '(none recorded)'}")
    lines.append(f"checksum  {state.checksum}")
    return "\n".join(lines)
