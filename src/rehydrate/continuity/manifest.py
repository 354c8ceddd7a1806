"""The resume manifest (rehydrate/resume-manifest-v1): build it from state, serialise it,
find it in a summary, and validate its shape fail-closed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypedDict, TypeVar

from ..ledgers import KINDS
from ..ledgers.model import (
    APPROVALS,
    CHECKS,
    DECISIONS,
    LEVEL_STRENGTH,
    OBLIGATIONS,
    PHASES,
    WRITES,
    CompletionCheck,
    Constraint,
    Decision,
    Ledger,
    Obligation,
    Phase,
)
from ..state import CHECKSUM_PREFIX, State
from .decision import Reason

MANIFEST_SCHEMA = "rehydrate/resume-manifest-v1"
FENCE_INFO = "resume-manifest"
MAX_MANIFEST_BYTES = 1024 * 1024

# Anything we echo back from a manifest must look like an ID, never like prose or a secret.
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/#+-]{0,63}$")
_OID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_SETTLED_WRITES = ("confirmed", "not_applied")
_R = TypeVar("_R")


# The manifest's shape (validate_manifest checks a parsed one against it).

Entry = dict[str, str]  # {"id": ..., "status": ...}, or {"id": ..., "level": ...} for constraints


class Pins(TypedDict):
    """The commit the ledgers were read at (None: the index or the work tree) and their blobs."""

    commit: str | None
    ledgers: dict[str, str | None]  # path -> blob (a parsed ledger always has one)


class Manifest(TypedDict):
    schema: str
    task: str | None
    objective: str | None
    next_action: str | None
    completed_phases: list[str]
    phases: list[Entry]
    obligations: list[Entry]
    external_writes: list[Entry]
    consumed_approvals: list[Entry]
    constraints: list[Entry]
    open_decisions: list[Entry]
    completion_checks: list[Entry]
    pins: Pins
    checksum: str


# Building the manifest from a state.


def _active(ledger: Ledger, name: str, kind: type[_R]) -> list[_R]:
    """The section's records not retired, typed (a section holds one kind of record)."""
    return [r for r in ledger.active(name) if isinstance(r, kind)]


def build_manifest(state: State) -> Manifest:
    """The resume manifest for ``state``: IDs, statuses, levels, pins and the checksum only."""
    spec, task = state.ledgers["spec"], state.ledgers["task"]
    phases = _active(task, "phases", Phase)
    # Unknown writes stay even when retired (as in decision.unknown_writes): fail closed.
    writes = [
        w
        for w in task.section("external writes")
        if w.status == "unknown"
        or (w.status not in _SETTLED_WRITES and w.id not in task.retired_ids)
    ]
    return {
        "schema": MANIFEST_SCHEMA,
        "task": task.task_id or None,
        "objective": task.objective or None,
        "next_action": task.next_action.text if task.next_action else None,
        "completed_phases": [p.id for p in phases if p.status == "done"],
        "phases": [{"id": p.id, "status": p.status} for p in phases],
        "obligations": [
            {"id": o.id, "status": o.status}
            for o in _active(task, "obligations", Obligation)
            if o.status == "open"
        ],
        "external_writes": [{"id": w.id, "status": w.status} for w in writes],
        # Never reusable, retired or not: a retired approval does not come back to life.
        "consumed_approvals": [
            {"id": a.id, "status": a.status}
            for a in task.section("approvals")
            if a.status != "granted"
        ],
        "constraints": [
            {"id": c.id, "level": c.level} for c in _active(spec, "constraints", Constraint)
        ],
        "open_decisions": [
            {"id": d.id, "status": d.status}
            for d in _active(spec, "decisions", Decision)
            if d.status == "open"
        ],
        "completion_checks": [
            {"id": c.id, "status": c.status}
            for c in _active(task, "completion checks", CompletionCheck)
        ],
        "pins": pins_of(state),
        "checksum": state.checksum,
    }


def pins_of(state: State) -> Pins:
    """``{"commit": <commit read or null>, "ledgers": {path: blob}}``."""
    return {
        "commit": state.commit,
        "ledgers": {state.pins[k].path: state.pins[k].blob for k in KINDS},
    }


def dump_manifest(manifest: Manifest, fmt: str = "yaml") -> str:
    """Serialise a manifest: YAML (safe_dump, key order kept) or JSON; ends with a newline."""
    if fmt == "json":
        return json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
    from ..ledgers.yamlsafe import dump

    return dump(manifest)


# Finding a manifest in a text.


@dataclass(frozen=True)
class Extracted:
    """A manifest found in a text (``data``), or why none could be read (``problem``)."""

    data: object = None
    problem: Reason | None = None
    where: str = ""  # "fenced block" | "front matter" | "document"
    detail: str = ""  # why it could not be read, for a human message (no ledger text)


def _fenced_blocks(lines: list[str]) -> tuple[list[tuple[int, str]], Reason | None]:
    blocks: list[tuple[int, str]] = []
    index = 0
    opener = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*" + re.escape(FENCE_INFO) + r"[ \t]*$")
    any_fence = re.compile(r"^ {0,3}(`{3,}|~{3,})")
    while index < len(lines):
        match = opener.match(lines[index])
        fence = any_fence.match(lines[index])
        if match is None and fence is not None:
            # Skip other fenced blocks whole, so a quoted example is not taken for the manifest.
            mark = fence.group(1)
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(mark):
                index += 1
            index += 1
            continue
        if match is None:
            index += 1
            continue
        mark = match.group(1)
        start = index
        index += 1
        body: list[str] = []
        while index < len(lines):
            stripped = lines[index].strip()
            if stripped.startswith(mark[0] * len(mark)) and set(stripped) == {mark[0]}:
                break
            body.append(lines[index])
            index += 1
        else:
            return blocks, Reason("manifest_invalid", field="resume-manifest")
        blocks.append((start + 1, "\n".join(body)))
        index += 1
    return blocks, None


def _front_matter(lines: list[str]) -> str | None:
    if not lines or lines[0].rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return "\n".join(lines[1:index])
    return None


def extract_manifest(text: str) -> Extracted:
    """Find exactly one manifest: a fenced ``resume-manifest`` block, front matter, or the
    whole document (a bare manifest file). None -> ``manifest_missing``; two -> duplicate."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    blocks, problem = _fenced_blocks(lines)
    if problem:
        return Extracted(problem=problem)
    found: list[tuple[str, str]] = [("fenced block", body) for _, body in blocks]
    front = _front_matter(lines)
    if front is not None:
        parsed = _parse(front)
        if isinstance(parsed, dict) and "schema" in parsed:
            found.append(("front matter", front))
    if len(found) > 1:
        return Extracted(problem=Reason("manifest_duplicate", field="resume-manifest"))
    if not found:
        parsed = _parse(text) if text.strip() and front is None else None
        if isinstance(parsed, dict) and "schema" in parsed:
            found.append(("document", text))
        elif MANIFEST_SCHEMA in text:
            # It names the schema but does not parse (a tag, an alias, bad YAML): invalid,
            # not missing, so the fix is to regenerate it rather than to add one.
            detail = parsed.detail if isinstance(parsed, _ParseFailure) else ""
            return Extracted(
                problem=Reason("manifest_invalid", field="resume-manifest"), detail=detail
            )
        else:
            return Extracted(problem=Reason("manifest_missing", field="resume-manifest"))
    where, body = found[0]
    if len(body.encode("utf-8", "surrogatepass")) > MAX_MANIFEST_BYTES:
        return Extracted(problem=Reason("manifest_invalid", field="resume-manifest"))
    data = _parse(body)
    if isinstance(data, _ParseFailure):
        return Extracted(
            problem=Reason("manifest_invalid", field="resume-manifest"), detail=data.detail
        )
    return Extracted(data=data, where=where)


class _ParseFailure:
    """Marker: the text is neither strict JSON nor strict YAML (``detail`` says why)."""

    def __init__(self, detail: str = "") -> None:
        self.detail = detail


def _parse(body: str) -> object:
    if body.lstrip().startswith("{"):
        return parse_json(body)
    return _parse_yaml(body)


def parse_json(body: str) -> object:
    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        out: dict[str, object] = {}
        for key, value in items:
            if key in out:
                raise ValueError(f"duplicate key {key!r}")
            out[key] = value
        return out

    try:
        return json.loads(body, object_pairs_hook=pairs)
    except (ValueError, RecursionError) as exc:
        return _ParseFailure(f"not valid JSON ({type(exc).__name__})")


def _parse_yaml(body: str) -> object:
    from ..ledgers.yamlsafe import YAMLInputError, load

    try:
        return load(body, typed=True)
    except YAMLInputError as exc:
        return _ParseFailure(f"not valid YAML: {exc}")


# Validating its shape.


def safe_id(value: object) -> str | None:
    """``value`` if it may be echoed (looks like an ID), else None."""
    return value if isinstance(value, str) and _SAFE_ID.match(value) else None


def _is_text(value: object) -> bool:
    return isinstance(value, str) and "\n" not in value and "\r" not in value


def _check_text(name: str, value: object, nullable: bool) -> list[Reason]:
    if value is None:
        return [] if nullable else [Reason("field_empty", field=name)]
    if not isinstance(value, str):
        return [Reason("field_type", field=name)]
    if not value.strip():
        return [Reason("field_empty", field=name)]
    return []


def _check_id(name: str, value: object) -> list[Reason]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return [Reason("field_empty", field=name)]
    if not _is_text(value):
        return [Reason("field_type", field=name)]
    return []


def _check_ids(name: str, value: object) -> list[Reason]:
    if not isinstance(value, list):
        return [Reason("field_type", field=name)]
    out: list[Reason] = []
    seen: set[str] = set()
    for entry in value:
        problems = _check_id(name, entry)
        out += problems
        if not problems:
            if entry in seen:
                out.append(Reason("field_duplicate", id=safe_id(entry), field=name))
            seen.add(entry)
    return out


def _check_items(name: str, key: str, allowed: Sequence[str]) -> Callable[[object], list[Reason]]:
    def check(value: object) -> list[Reason]:
        if not isinstance(value, list):
            return [Reason("field_type", field=name)]
        out: list[Reason] = []
        seen: set[str] = set()
        for entry in value:
            if not isinstance(entry, dict) or set(entry) != {"id", key}:
                out.append(Reason("field_type", field=name))
                continue
            problems = _check_id(name, entry["id"]) + _check_text(
                f"{name}.{key}", entry[key], False
            )
            if not problems and entry[key] not in allowed:
                problems.append(
                    Reason("field_invalid", id=safe_id(entry["id"]), field=f"{name}.{key}")
                )
            if not problems and entry["id"] in seen:
                problems.append(Reason("field_duplicate", id=safe_id(entry["id"]), field=name))
            if not problems:
                seen.add(entry["id"])
            out += problems
        return out

    return check


def check_pins(value: object) -> list[Reason]:
    if not isinstance(value, dict) or set(value) != {"commit", "ledgers"}:
        return [Reason("field_type", field="pins")]
    out: list[Reason] = []
    commit = value["commit"]
    if commit is not None and not (isinstance(commit, str) and _OID.match(commit)):
        out.append(Reason("field_empty" if commit == "" else "field_invalid", field="pins.commit"))
    ledgers = value["ledgers"]
    if not isinstance(ledgers, dict) or not ledgers:
        return out + [
            Reason("field_empty" if ledgers == {} else "field_type", field="pins.ledgers")
        ]
    for path, blob in ledgers.items():
        if not isinstance(path, str) or not path.strip():
            out.append(Reason("field_empty", field="pins.ledgers"))
        elif blob == "" or blob is None:
            out.append(Reason("field_empty", id=safe_id(path), field="pins.ledgers"))
        elif not (isinstance(blob, str) and _OID.match(blob)):
            out.append(Reason("field_invalid", id=safe_id(path), field="pins.ledgers"))
    return out


def _check_checksum(value: object) -> list[Reason]:
    problems = _check_text("checksum", value, False)
    if problems:
        return problems
    pattern = re.escape(CHECKSUM_PREFIX) + "[0-9a-f]{64}"
    if not isinstance(value, str) or not re.fullmatch(pattern, value):
        return [Reason("field_invalid", field="checksum")]
    return []


# field -> validator; every field is required (a nullable one must still be present).
FIELDS: Mapping[str, Callable[[object], list[Reason]]] = {
    "task": lambda v: _check_text("task", v, True),
    "objective": lambda v: _check_text("objective", v, True),
    "next_action": lambda v: _check_text("next_action", v, True),
    "completed_phases": lambda v: _check_ids("completed_phases", v),
    "phases": _check_items("phases", "status", PHASES.values["status"]),
    "obligations": _check_items("obligations", "status", OBLIGATIONS.values["status"]),
    "external_writes": _check_items("external_writes", "status", WRITES.values["status"]),
    "consumed_approvals": _check_items("consumed_approvals", "status", APPROVALS.values["status"]),
    "constraints": _check_items("constraints", "level", tuple(LEVEL_STRENGTH)),
    "open_decisions": _check_items("open_decisions", "status", DECISIONS.values["status"]),
    "completion_checks": _check_items("completion_checks", "status", CHECKS.values["status"]),
    "pins": check_pins,
    "checksum": _check_checksum,
}


def validate_manifest(data: object) -> list[Reason]:
    """Fail-closed shape check: the schema first, then every field present and well typed."""
    if not isinstance(data, dict):
        return [Reason("manifest_invalid", field="resume-manifest")]
    if "schema" not in data:
        return [Reason("field_missing", field="schema")]
    if data["schema"] != MANIFEST_SCHEMA:
        return [Reason("schema_unsupported", field="schema")]
    out: list[Reason] = []
    for name, check in FIELDS.items():
        if name not in data:
            out.append(Reason("field_missing", field=name))
        else:
            out += check(data[name])
    for name in data:
        if name != "schema" and name not in FIELDS:
            out.append(Reason("field_unknown", field=safe_id(name)))
    return out
