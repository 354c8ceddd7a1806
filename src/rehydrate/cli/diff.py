"""``rehydrate diff``: what changed in the ledgers between two states, item by item."""

from __future__ import annotations

import click

from ..errors import EXIT_OK
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from ..diff import LedgerDiff


@click.command("diff")
@click.argument("revs", nargs=-1, metavar="[A [B]]")
@click.option("--staged", is_flag=True, help="Use the index as one side.")
@click.option("--worktree", is_flag=True, help="Use the work tree as one side.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def command(revs: tuple[str, ...], staged: bool, worktree: bool, as_json: bool) -> int:
    """Item-by-item ledger changes: `diff A B`, `diff A` (A to work tree), `diff --staged`
    (HEAD to index), `diff --staged --worktree` (index to work tree)."""
    from ..diff import diff_sources
    from ..errors import RehydrateError
    from ..state import Source
    from ._common import emit_json, open_repo

    sides = [Source("rev", r) for r in revs]
    if staged:
        sides.append(Source("staged"))
    if worktree:
        sides.append(Source("worktree"))
    if len(sides) == 1 and not revs:
        sides.insert(0, Source("rev", "HEAD"))
    elif len(sides) == 1:
        sides.append(Source("worktree"))
    elif not sides:
        sides = [Source("rev", "HEAD"), Source("worktree")]
    if len(sides) != 2:
        raise RehydrateError(
            "name at most two sides",
            code="usage",
            fix="rehydrate diff A B | A --staged | --staged --worktree",
        )
    for side in sides:
        if side.rev is not None and side.rev.startswith("-"):
            raise RehydrateError(f"invalid revision {side.rev!r}", code="usage")
    repo, config = open_repo()
    diffs = diff_sources(repo, config, sides[0], sides[1])
    if as_json:
        emit_json(
            {
                "schema": "rehydrate/diff-v1",
                "from": sides[0].label,
                "to": sides[1].label,
                "ledgers": [d.to_json() for d in diffs],
            }
        )
    else:
        click.echo(render(diffs, sides[0].label, sides[1].label))
    return EXIT_OK


def render(diffs: list[LedgerDiff], old: str, new: str) -> str:
    """Human view: one block per ledger that changed."""
    from ..views.log import event_line, item_events

    lines = [f"ledgers: {old} -> {new}"]
    for d in diffs:
        if d.empty:
            continue
        lines.append(f"\n{d.path} ({d.kind})")
        for event in d.files:
            detail = f": {event.detail}" if event.detail else ""
            code = f" [{event.code}]" if event.code else ""
            lines.append(f"  file {event.kind}{code}{detail}")
        for c in d.items:  # as `log` shows them (same marks, the row's headline) ...
            events = item_events(c, d.kind, d.path)
            lines += [f"  {event_line(event)}" for event in events]
            moves = {e.old for e in events if e.old}  # a status or level the line shows
            for cell in c.cells:  # ... and every other changed cell, exactly
                if not (cell.column in ("status", "level") and cell.old in moves):
                    lines.append(f"      {cell.column}: {cell.old!r} -> {cell.new!r}")
        for name in d.reordered:
            lines.append(f"  ! {name} reordered")
        for meta in d.meta:
            lines.append(f"  front matter {meta.column}: {meta.old!r} -> {meta.new!r}")
        if d.next_action:
            lines.append(f"  next action: {d.next_action[0]!r} -> {d.next_action[1]!r}")
        for title in d.prose:
            lines.append(f"  prose changed: {title or '(preamble)'}")
    if len(lines) == 1:
        lines.append("no ledger changes")
    return "\n".join(lines)
