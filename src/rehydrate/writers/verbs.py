"""Every writer command as one function: the command's raw input -> a checked ``Operation``.

``rehydrate <ledger> <item> <verb>``: each function here validates the values the command
was given (``operations.cell``, ``level``, ``status``) and says which ledger, section and
cells the edit touches; ``writers.ledger.write`` runs it under the lock and the guard.
Status moves that take only an ID are rows of ``STATUS_MOVES``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .. import git
from ..config import Config
from ..errors import Refused, RehydrateError
from ..ledgers import Context, Ledger, normalize
from ..mdblocks import fence_open
from .edits import set_prose
from .frontmatter import set_meta
from .operations import (
    Change,
    Operation,
    add_row,
    artifact_blob,
    cell,
    check_id,
    level,
    retire,
    status,
    update_row,
    utf8_text,
)

# action -> (section, new status): the moves that take nothing but the row's ID.
STATUS_MOVES: Mapping[str, tuple[str, str]] = {
    "task phase start": ("phases", "doing"),
    "task phase done": ("phases", "done"),
    "task obligation done": ("obligations", "done"),
    "task check pass": ("completion checks", "passed"),
    "task approval consume": ("approvals", "consumed"),
    "task approval expire": ("approvals", "expired"),
    "task approval revoke": ("approvals", "revoked"),
    "task write unknown": ("external writes", "unknown"),
}


def _optional(values: dict[str, str], column: str, option: str, value: str | None) -> None:
    """Fill ``column`` when the option was given a value."""
    text = cell(option, value, required=False)
    if text:
        values[column] = text


def move(action: str, item_id: str) -> Operation:
    """One of ``STATUS_MOVES`` on row ``item_id``."""
    section, new = STATUS_MOVES[action]
    return update_row("task", action, section, cell("ID", item_id), {"status": new})


# A cell that only holds one of these (case, spaces, brackets and punctuation aside) says
# nothing yet: a row recorded with it would teach the next session nothing.
# ("none" or "n/a" say something: that there is no workaround; they stay allowed.)
PLACEHOLDERS = frozenset(
    {"what to do instead", "todo", "tbd", "tbc", "fixme", "xxx", "placeholder"}
    | {"workaround", "fill in", "fill me in", "to do", "?", ""}
)
_MARKS = re.compile(r"^[\s<>\[\](){}*_`'\".:;,!?/\\|#~=+\-…—–]*+$")
_EDGES = "<>[](){}*_`'\" .:;,!?\t…"


def not_placeholder(option: str, value: str) -> str:
    """``value``, unless it is a placeholder (``WHAT TO DO INSTEAD``, ``TODO``, ``...``,
    marks only): then a named error (``placeholder_value``)."""
    bare = value.strip(_EDGES).lower()
    head = bare.split(":", 1)[0].split(" ", 1)[0] if bare else ""
    if (
        bare in PLACEHOLDERS
        or _MARKS.match(value) is not None
        or "what to do instead" in bare
        or (head in ("todo", "tbd", "fixme", "xxx") and len(bare.split()) <= 3)
    ):
        raise RehydrateError(
            f"{option} is a placeholder ({value.strip()[:40]!r}), not what happened",
            code="placeholder_value",
            fix=f"write in {option} what the next session should know (for --workaround: "
            "what to do instead, e.g. the command that worked)",
        )
    return value


def fail_add(tried: str, failure: str, workaround: str) -> Operation:
    """A new failed attempt (put the command in backticks in ``tried``)."""
    values = {
        "tried": not_placeholder("--tried", cell("--tried", tried)),
        "failure": not_placeholder("--failure", cell("--failure", failure)),
        "workaround": not_placeholder("--workaround", cell("--workaround", workaround)),
    }
    op = add_row("failures", "fail add", "failures", values)

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        for row in ledger.active("failures"):  # recorded already (a retry): added once
            cells = row.cells()
            if all(normalize(cells.get(c, "")) == v for c, v in values.items()) and row.id:
                return Change(data, row.id)
        return op.edit(data, ledger, ctx)

    return Operation(op.kind, op.action, edit)


def constraint_add(level_: str, rule: str, source: str | None) -> Operation:
    """A new constraint."""
    values = {"rule": cell("--rule", rule), "level": level(level_)}
    _optional(values, "source", "--source", source)
    return add_row("spec", "spec constraint add", "constraints", values)


def constraint_strengthen(item_id: str, level_: str) -> Operation:
    """Constraint ``item_id`` at a stricter level (the guard refuses a weaker one)."""
    values = {"level": level(level_)}
    return update_row(
        "spec", "spec constraint strengthen", "constraints", cell("ID", item_id), values
    )


def contract_add(subject: str, contract: str, source: str | None) -> Operation:
    """A new contract (immutable once written)."""
    values = {"subject": cell("--subject", subject), "contract": cell("--contract", contract)}
    _optional(values, "source", "--source", source)
    return add_row("spec", "spec contract add", "contracts", values)


def decision_add(
    question: str, owner: str | None, due: str | None, source: str | None
) -> Operation:
    """A new open decision: a question nobody has answered yet."""
    values = {"question": cell("--question", question), "status": "open"}
    _optional(values, "owner", "--owner", owner)
    _optional(values, "due", "--due", due)
    _optional(values, "source", "--source", source)
    return add_row("spec", "spec decision add", "decisions", values)


def decision_assign(item_id: str, owner: str | None, due: str | None) -> Operation:
    """A new Owner and/or Due for an open decision (the guard refuses it once decided)."""
    values: dict[str, str] = {}
    _optional(values, "owner", "--owner", owner)
    _optional(values, "due", "--due", due)
    if not values:
        raise RehydrateError(
            "nothing to assign",
            item_id=item_id,
            code="usage",
            fix="pass --owner NAME, --due DATE or both",
        )
    return update_row("spec", "spec decision assign", "decisions", cell("ID", item_id), values)


def decision_decide(
    item_id: str, decision: str, source: str, action: str = "spec decision decide"
) -> Operation:
    """Open decision ``item_id`` decided, with the answer and who gave it."""
    values = {
        "status": "decided",
        "decision": cell("--decision", decision),
        "source": cell("--source", source),
    }
    return update_row("spec", action, "decisions", cell("ID", item_id), values)


def phase_move(item_id: str, new_status: str) -> Operation:
    """Phase ``item_id`` to ``new_status`` (forward only; the guard refuses going back)."""
    values = {"status": status("phases", new_status)}
    return update_row("task", "task phase", "phases", cell("ID", item_id), values)


def phase_add(phase: str, before: str | None) -> Operation:
    """A new ``todo`` phase: last, or directly above the ``todo`` phase ``before``.

    Inserting keeps every other row's order (the guard's ``phase_reordered`` rule); a new
    phase is never placed above one already started or done, which would rewrite history.
    """
    values = {"phase": cell("--phase", phase), "status": "todo"}
    if not before:
        return add_row("task", "task phase add", "phases", values)
    target = check_id(cell("--before", before), "--before")
    insert = add_row("task", "task phase add", "phases", values, before=target)

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        row = next((r for r in ledger.section("phases") if r.id == target), None)
        if row is None or target in ledger.retired_ids:
            raise RehydrateError(
                f"--before {target}: no active phase with that ID",
                file=ledger.path,
                item_id=target,
                code="unknown_id",
                fix="name an active todo phase (rehydrate state), or leave --before out",
            )
        if row.status != "todo":
            raise RehydrateError(
                f"--before {target}: that phase is {row.status}; a new phase goes above a "
                "todo phase only",
                file=ledger.path,
                line=row.line,
                item_id=target,
                code="phase_not_todo",
                fix="name a todo phase, or leave --before out to add it last",
            )
        return insert.edit(data, ledger, ctx)

    return Operation("task", "task phase add", edit)


def objective(text: str) -> Operation:
    """Task's ``objective`` (front matter), one line."""
    value = cell("TEXT", text)

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        if ledger.objective == value:
            raise Refused(
                "nothing to change: the objective is already that text",
                file=ledger.path,
                code="no_change",
                fix="nothing to do",
            )
        return Change(set_meta(data, "objective", value, ctx.path), "objective")

    return Operation("task", "task objective", edit)


# A line that would end the Rollback prose or change what follows it: a heading (ATX or a
# setext underline), a table row, a code fence, front matter's fence.
_STRUCTURE = re.compile(r"^ {0,3}(#{1,6}(\s|$)|=+\s*$|-{2,}\s*$|\|)")


def rollback(text: str) -> Operation:
    """Task's Rollback section (prose: how to undo the task's changes), replaced whole."""
    lines = utf8_text("TEXT", text).replace("\r\n", "\n").strip("\n").split("\n")
    if not text.strip():
        raise RehydrateError(
            "TEXT is empty", code="empty_value", fix="say how to undo this task's changes"
        )
    for number, line in enumerate(lines, start=1):
        if _STRUCTURE.match(line) or fence_open(line) is not None:
            raise RehydrateError(
                f"line {number} of TEXT would start a heading, table or code block: {line!r}",
                code="prose_structure",
                fix="write the rollback as plain lines or a list (`- step`); quote commands "
                "in `backticks`",
            )

    def edit(data: bytes, ledger: Ledger, ctx: Context) -> Change:
        if ledger.prose_of("rollback").strip("\n") == "\n".join(lines):
            raise Refused(
                "nothing to change: the rollback is already that text",
                file=ledger.path,
                code="no_change",
                fix="nothing to do",
            )
        return Change(set_prose(data, "rollback", lines, ctx), "rollback")

    return Operation("task", "task rollback", edit)


def approval_add(scope: str, source: str) -> Operation:
    """Record an approval a person granted (scope, who granted it). It grants nothing: the
    runtime decides what an agent may do."""
    values = {
        "scope": cell("--scope", scope),
        "status": "granted",
        "source": cell("--source", source),
    }
    # An Approvals table with only the contract's columns gains a Source column (who
    # granted it): the writer adds it, byte-exact elsewhere.
    return add_row("task", "task approval add", "approvals", values)


def obligation_add(text: str) -> Operation:
    """A new open obligation."""
    values = {"obligation": cell("TEXT", text), "status": "open"}
    return add_row("task", "task obligation add", "obligations", values)


def check_add(text: str) -> Operation:
    """A new open completion check."""
    values = {"check": cell("TEXT", text), "status": "open"}
    return add_row("task", "task check add", "completion checks", values)


def write_add(operation: str, idempotency_key: str | None) -> Operation:
    """A new pending external write, recorded before the side effect happens."""
    values = {"operation": cell("--operation", operation), "status": "pending"}
    _optional(values, "idempotency key", "--idempotency-key", idempotency_key)
    return add_row("task", "task write add", "external writes", values)


def write_settle(item_id: str, new_status: str, evidence: str | None) -> Operation:
    """The outcome of external write ``item_id``; Evidence is required unless ``unknown``."""
    values = {"status": status("external writes", new_status)}
    proof = cell("--evidence", evidence, required=values["status"] != "unknown")
    if proof:
        values["evidence"] = proof
    return update_row("task", "task write settle", "external writes", cell("ID", item_id), values)


def verified_add(
    repo: git.Repo, check: str, artifact: str, report: str | None, cwd: str | None = None
) -> Operation:
    """A passed check pinned to the artifact's current git blob id."""
    path, blob = artifact_blob(repo, cell("--artifact", artifact), cwd)
    values = {"check": cell("--check", check), "artifact": path, "blob": blob}
    _optional(values, "report", "--report", report)
    return add_row("task", "task verified add", "verified", values)


def retire_item(
    repo: git.Repo,
    config: Config,
    kind: str | None,
    item_id: str,
    reason: str,
    replaced_by: str | None,
    date: str | None,
) -> Operation:
    """Retire ``item_id`` in ``kind``'s ledger (None: the one ledger holding it)."""
    from .ledger import find_holder, ledger_ids

    item_id = cell("ID", item_id)
    if kind is None:
        kind = find_holder(repo, config, item_id)
    holder = kind
    replacement = cell("--replaced-by", replaced_by, required=False)

    def elsewhere() -> frozenset[str]:
        others = [k for k in ("spec", "task", "failures") if k != holder]
        return frozenset().union(*ledger_ids(repo, config, others).values())

    return retire(
        kind,
        item_id,
        cell("--reason", reason),
        replacement,
        cell("--date", date, required=False) or None,
        known_elsewhere=elsewhere,
    )
