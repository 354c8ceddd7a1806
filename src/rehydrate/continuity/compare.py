"""A summary's resume manifest against the pinned ledgers: each claimed list, phase and next
action compared by the rules of its kind (missing, weaker, reordered, invented)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence

from ..ledgers import normalize
from ..ledgers.model import LEVEL_POLARITY, LEVEL_STRENGTH, Ledger
from ..ledgers.task import next_action_problem
from ..state import State
from .decision import Reason
from .manifest import Entry, Manifest, build_manifest, safe_id


def _weaker_or_other(claimed: str, actual: str) -> str:
    same_side = LEVEL_POLARITY[claimed] == LEVEL_POLARITY[actual] or claimed == "MAY"
    if same_side and LEVEL_STRENGTH[claimed] < LEVEL_STRENGTH[actual]:
        return "constraint_weakened"
    return "constraint_level_mismatch"


@dataclasses.dataclass(frozen=True)
class ListRule:
    """How one ID+status (or level) list of the manifest is compared with the ledgers."""

    field: str
    kind: str  # ledger kind
    section: str  # ledger section holding the IDs
    key: str  # "status" | "level"
    dropped: str  # code for an expected ID the manifest lacks
    # dataclasses.field by its module: in this class body, ``field`` is the attribute above
    claims: Mapping[str, str] = dataclasses.field(default_factory=dict)  # claimed value -> code
    mismatch: str = "status_mismatch"
    dropped_by_value: Mapping[str, str] = dataclasses.field(default_factory=dict)  # value -> code
    classify: Callable[[str, str], str] | None = None


LIST_RULES: tuple[ListRule, ...] = (
    ListRule(
        "obligations",
        "task",
        "obligations",
        "status",
        "obligation_dropped",
        {"done": "obligation_claimed_done"},
        "obligation_status_mismatch",
    ),
    ListRule(
        "external_writes",
        "task",
        "external writes",
        "status",
        "write_dropped",
        {},
        "write_status_mismatch",
        {"unknown": "unknown_write_dropped"},
    ),
    ListRule(
        "consumed_approvals",
        "task",
        "approvals",
        "status",
        "consumed_approval_dropped",
        {"granted": "approval_reused"},
        "approval_status_mismatch",
    ),
    ListRule(
        "constraints",
        "spec",
        "constraints",
        "level",
        "constraint_dropped",
        classify=_weaker_or_other,
    ),
    ListRule(
        "open_decisions",
        "spec",
        "decisions",
        "status",
        "open_decision_dropped",
        {"decided": "decision_claimed_decided"},
        "decision_status_mismatch",
    ),
    ListRule(
        "completion_checks",
        "task",
        "completion checks",
        "status",
        "completion_check_dropped",
        {"passed": "completion_check_claimed_passed"},
        "completion_check_status_mismatch",
    ),
)


def _compare_list(
    rule: ListRule, claimed: list[Entry], expected: list[Entry], ledger: Ledger
) -> list[Reason]:
    out: list[Reason] = []
    have = {e["id"]: e[rule.key] for e in claimed}
    for entry in expected:
        if entry["id"] not in have:
            code = rule.dropped_by_value.get(entry[rule.key], rule.dropped)
            out.append(Reason(code, id=entry["id"], field=rule.field))
    records = {r.id: r for r in ledger.section(rule.section)}
    retired = ledger.retired_ids
    for entry in claimed:
        item_id, value = entry["id"], entry[rule.key]
        record = records.get(item_id)
        if record is None:
            out.append(Reason("unverified", id=safe_id(item_id), field=rule.field))
            continue
        actual = getattr(record, rule.key)
        if value == actual:
            # True of the ledger; only a claim about a retired item is out of place.
            if item_id in retired and not any(e["id"] == item_id for e in expected):
                out.append(Reason("item_retired", id=item_id, field=rule.field))
            continue
        if rule.classify is not None:
            code = rule.classify(value, actual)
        else:
            code = rule.claims.get(value, rule.mismatch)
        out.append(Reason(code, id=item_id, field=rule.field))
    return out


def _phase_code(claimed: str, actual: str) -> str:
    if actual == "done":
        return "phase_rolled_back"
    if claimed == "done":
        return "phase_claimed_done"
    return "phase_status_mismatch"


def _order_differs(claimed: Sequence[str], expected: Sequence[str]) -> bool:
    common = set(claimed) & set(expected)
    return [i for i in claimed if i in common] != [i for i in expected if i in common]


def _compare_phases(manifest: Manifest, expected: Manifest, task: Ledger) -> list[Reason]:
    out: list[Reason] = []
    records = {p.id: p for p in task.section("phases")}
    claimed = manifest["phases"]
    claimed_ids = [p["id"] for p in claimed]
    for phase in expected["phases"]:
        if phase["id"] not in claimed_ids:
            out.append(Reason("phase_dropped", id=phase["id"], field="phases"))
    for phase in claimed:
        record = records.get(phase["id"])
        if record is None:
            out.append(Reason("unverified", id=safe_id(phase["id"]), field="phases"))
        elif phase["id"] in task.retired_ids:
            out.append(Reason("item_retired", id=phase["id"], field="phases"))
        elif phase["status"] != record.status:
            out.append(
                Reason(_phase_code(phase["status"], record.status), id=phase["id"], field="phases")
            )
    if _order_differs(claimed_ids, [p["id"] for p in expected["phases"]]):
        out.append(Reason("phase_order_mismatch", field="phases"))
    done = expected["completed_phases"]
    for phase_id in done:
        if phase_id not in manifest["completed_phases"]:
            out.append(Reason("phase_rolled_back", id=phase_id, field="completed_phases"))
    for phase_id in manifest["completed_phases"]:
        if phase_id in done:
            continue
        record = records.get(phase_id)
        code = "unverified" if record is None else "phase_claimed_done"
        out.append(Reason(code, id=safe_id(phase_id), field="completed_phases"))
    if _order_differs(manifest["completed_phases"], done):
        out.append(Reason("phase_order_mismatch", field="completed_phases"))
    return out


def _compare_next_action(claimed: str | None, expected: str | None) -> list[Reason]:
    if claimed is None:
        return [] if expected is None else [Reason("next_action_dropped", field="next_action")]
    if next_action_problem(claimed) or re.search(r"\band then\b", claimed, re.IGNORECASE):
        return [Reason("next_action_not_single", field="next_action")]
    if expected is None or normalize(claimed) != normalize(expected):
        return [Reason("next_action_mismatch", field="next_action")]
    return []


def _lists(manifest: Manifest) -> dict[str, list[Entry]]:
    """The manifest's ID+status (or level) lists by field, as ``LIST_RULES`` names them."""
    return {
        "obligations": manifest["obligations"],
        "external_writes": manifest["external_writes"],
        "consumed_approvals": manifest["consumed_approvals"],
        "constraints": manifest["constraints"],
        "open_decisions": manifest["open_decisions"],
        "completion_checks": manifest["completion_checks"],
    }


def compare(manifest: Manifest, state: State) -> list[Reason]:
    """Both directions: what the manifest drops, and what it claims that the ledgers do not
    support, against the ledgers in ``state``. The manifest must already be valid."""
    expected = build_manifest(state)
    out: list[Reason] = []
    for name, claimed, actual in (
        ("task", manifest["task"], expected["task"]),
        ("objective", manifest["objective"], expected["objective"]),
    ):
        if (claimed is None) != (actual is None) or (
            claimed is not None and normalize(claimed) != normalize(actual or "")
        ):
            out.append(Reason(f"{name}_mismatch", field=name))
    out += _compare_next_action(manifest["next_action"], expected["next_action"])
    out += _compare_phases(manifest, expected, state.ledgers["task"])
    claimed_lists, expected_lists = _lists(manifest), _lists(expected)
    for rule in LIST_RULES:
        out += _compare_list(
            rule, claimed_lists[rule.field], expected_lists[rule.field], state.ledgers[rule.kind]
        )
    if manifest["checksum"] != expected["checksum"]:
        out.append(Reason("checksum_mismatch", field="checksum"))
    return out
