"""``rehydrate status``: where the task stands, on one screen, for people."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

import click

from ..errors import EXIT_OK
from ..typecheck import TYPE_CHECKING
from ._common import emit_json, open_repo, pick_source, source_options

if TYPE_CHECKING:
    from ..prompt.claims import ClaimRow
    from ..views.status import OpenDecision, StatusView

Style = Callable[..., str]
LIST_LIMIT = 5  # rows per listing; the rest is counted, `rehydrate state` shows all
LABEL_WIDTH = len("Continuity ")  # where a labelled line's value starts


def use_color(isatty: bool, environ: Mapping[str, str]) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to a non-empty value
    (no-color.org: an empty NO_COLOR is as if unset)."""
    return isatty and not environ.get("NO_COLOR") and environ.get("TERM") != "dumb"


def screen_width(isatty: bool) -> int | None:
    """The width to fit lines to on a terminal: its own, or COLUMNS when set. None when
    piped, whatever COLUMNS says, so that piped output keeps one line per item."""
    if not isatty:
        return None
    import shutil

    return shutil.get_terminal_size().columns


def fit(text: str, width: int | None) -> str:
    """Wrap each line longer than ``width`` at spaces, never inside a word, indenting the
    rest under its value: 11 columns after a label (``Next       ...``), 4 in a list."""
    if width is None:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if len(click.unstyle(line)) <= width:
            out.append(line)
            continue
        indent = " " * (4 if line.startswith("  ") else LABEL_WIDTH)
        current = ""
        for word in line.split(" "):
            candidate = f"{current} {word}" if current else word
            if current.strip() and len(click.unstyle(candidate)) > width:
                out.append(current.rstrip())
                candidate = indent + word
            current = candidate
        out.append(current)
    return "\n".join(out)


def plain(text: str, **_: object) -> str:
    """click.style's signature, no styling (piped output, NO_COLOR)."""
    return text


@click.command("status")
@source_options(staged=True, default="worktree")
@click.option("--json", "as_json", is_flag=True, help="Print one rehydrate/status-v1 object.")
def command(rev: str | None, staged: bool, worktree: bool, as_json: bool) -> int:
    """Where the task stands: phases, next action, blocked writes, decisions, staleness.

    Reads the work tree by default and says when it differs from HEAD. A view, not a
    gate: it exits 0 even while blocked (`rehydrate check` exits 3), and 2 when a
    ledger cannot be read. Overdue decisions are judged against today's date
    (REHYDRATE_TODAY=YYYY-MM-DD overrides it).
    """
    from ..views.status import gather, today_from_env

    repo, config = open_repo()
    source = pick_source(rev, worktree, staged, default="worktree")
    from ..prompt.known_claims import known_rows

    view = gather(repo, config, source, today_from_env(os.environ))
    claims = known_rows(repo)
    if as_json:
        out = view.to_json()
        if claims:  # only when some lease is in force: the object is unchanged otherwise
            out["claims"] = [row._asdict() for row in claims]
        emit_json(out)
        return EXIT_OK
    isatty = sys.stdout.isatty()
    style: Style = click.style if use_color(isatty, os.environ) else plain
    click.echo(fit(render(view, style) + _claims(claims), screen_width(isatty)))
    return EXIT_OK


def _claims(rows: tuple[ClaimRow, ...]) -> str:
    """Who holds which item until when (the leases this clone knows; `rehydrate claims`
    asks the remote)."""
    if not rows:
        return ""
    lines = ["", "", "Claims (rehydrate claims asks the remote)"]
    lines += [f"  {r.id}  {r.holder}  until {r.expires}  ({r.where})" for r in rows]
    return "\n".join(lines)


def _more(shown: int, total: int, what: str) -> list[str]:
    return [f"  ... and {total - shown} more {what} (rehydrate state)"] if total > shown else []


def _due_text(decision: OpenDecision, style: Style) -> str:
    if not decision.due:
        return "no due date"
    days = decision.overdue_days
    if days is None:
        return f"due {decision.due}"
    if days > 0:
        return style(
            f"due {decision.due}, OVERDUE by {days} day{'s' * (days != 1)}", fg="red", bold=True
        )
    if days == 0:
        return style(f"due {decision.due}, due today", fg="yellow", bold=True)
    return f"due {decision.due} (in {-days} day{'s' * (days != -1)})"


def render(view: StatusView, style: Style = plain) -> str:
    """The screen as text; ``style`` is click.style on a colour terminal, identity otherwise."""

    revision = f" (revision {view.revision})" if view.revision is not None else ""
    lines = [
        style(f"Task {view.task or '(no id)'}{revision}", bold=True)
        + f": {view.objective or '(no objective)'}"
    ]
    head = view.head[:12] if view.head else "no commits yet"
    where = {"worktree": "work tree", "staged": "index"}.get(
        view.source.kind, f"rev {view.source.rev}"
    )
    on = f" on {view.branch}" if view.branch else ""
    lines.append(f"Source     {where}; HEAD {head}{on}")
    lines += _blocked(view, style)
    lines += _progress(view, style)
    lines += _counts(view, style)
    lines += _lists(view, style)
    if view.sessions:
        from ..continuity.sessions import summary_line

        lines += ["", "Last sessions (rehydrate run --status shows more)"]
        lines += [f"  {summary_line(entry)}" for entry in view.sessions]
    lines.append("")
    if view.uncommitted:
        lines.append(
            style("Uncommitted ledger changes", fg="yellow", bold=True)
            + " (work tree differs from HEAD; commit them before you stop):"
        )
        lines += [f"  {path}" for path in view.uncommitted]
    else:
        lines.append("Uncommitted ledger changes: none")
    return "\n".join(lines)


def _blocked(view: StatusView, style: Style) -> list[str]:
    """The reconciliation block, when an external write's outcome is unknown."""
    from ..continuity.decision import BLOCKED_ON_RECONCILIATION

    lines: list[str] = []
    if view.decision.decision == BLOCKED_ON_RECONCILIATION:
        count = len(view.blocked_writes)
        lines += [
            "",
            style(
                f"BLOCKED ON RECONCILIATION: the outcome of {count} external "
                f"write{'s' * (count != 1)} is unknown",
                fg="red",
                bold=True,
            ),
        ]
        for write in view.blocked_writes:
            key = f" (key {write.idempotency_key})" if write.idempotency_key else ""
            lines.append(style(f"  {write.id}  {write.operation}{key}", fg="red"))
        lines.append(
            "  Reconcile by reading (the remote system, logs, the key), never by "
            "retrying; then `rehydrate task write settle`."
        )
    return lines


def _progress(view: StatusView, style: Style) -> list[str]:
    """Phases, the next action, the continuity decision and pending writes."""
    from ..continuity.decision import BLOCKED_ON_RECONCILIATION
    from ..views.status import progress_bar

    lines: list[str] = []
    lines.append("")
    done, total = view.done, len(view.phases)
    now = ", ".join(f"{p.id} {p.phase}" for p in view.current_phases)
    if total:
        lines.append(
            f"Phases     {progress_bar(view.phases)} {done}/{total} done"
            + (f"; now {now}" if now else "")
        )
    else:
        lines.append('Phases     none yet (rehydrate task phase add --phase "...")')
    lines.append(f"Next       {view.next_action or '(none recorded)'}")
    if view.decision.decision == BLOCKED_ON_RECONCILIATION:
        decision = (
            style(view.decision.decision, fg="red", bold=True) + " (`rehydrate check` exits 3)"
        )
    else:
        decision = (
            style(view.decision.decision, fg="green")
            + ": continuity holds; the next action still needs authorization"
        )
    lines.append(f"Continuity {decision}")
    if view.pending_writes:
        ids = ", ".join(w.id for w in view.pending_writes)
        lines.append(
            f"Pending    external write{'s' * (len(view.pending_writes) != 1)} {ids} "
            "(record the outcome once known)"
        )
    return lines


def _counts(view: StatusView, style: Style) -> list[str]:
    """Active, retired and open items per ledger."""

    lines: list[str] = []
    lines.append("")
    c = view.counts
    lines.append(
        f"Ledgers    constraints {c['constraints']['active']} active, "
        f"{c['constraints']['retired']} retired; contracts {c['contracts']['active']} active; "
        f"failures {c['failures']['active']} active, {c['failures']['retired']} retired"
    )
    lines.append(
        f"Open       decisions {c['decisions']['open']}/{c['decisions']['total']}; "
        f"obligations {c['obligations']['open']}/{c['obligations']['total']}; "
        f"completion checks {c['completion checks']['open']}/"
        f"{c['completion checks']['total']}; approvals granted "
        f"{c['approvals']['granted']}/{c['approvals']['total']}"
    )
    return lines


def _lists(view: StatusView, style: Style) -> list[str]:
    """Open decisions and stale verifications, each cut at LIST_LIMIT."""

    lines: list[str] = []
    if view.open_decisions:
        overdue = len(view.overdue)
        title = "Open decisions" + (
            style(f" ({overdue} overdue)", fg="red", bold=True) if overdue else ""
        )
        lines += ["", title]
        for d in view.open_decisions[:LIST_LIMIT]:
            owner = f"  owner {d.owner}" if d.owner else ""
            lines.append(f"  {d.id}  {d.question}{owner}  {_due_text(d, style)}")
        lines += _more(LIST_LIMIT, len(view.open_decisions), "decisions")
    if view.stale:
        lines += [
            "",
            style("Stale verifications", fg="yellow", bold=True)
            + " (the artifact changed since it was checked: re-check)",
        ]
        for checked in view.stale[:LIST_LIMIT]:
            v = checked.verification
            now_ = f"now {checked.current[:12]}" if checked.current else "now missing"
            lines.append(f"  {v.id}  {v.check}  {v.artifact}: checked at {v.blob[:12]}, {now_}")
        lines += _more(LIST_LIMIT, len(view.stale), "stale verifications")
    return lines
