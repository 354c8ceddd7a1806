"""Fuzz the pure readers: every hostile input is a named error, never a crash or a hang."""

from __future__ import annotations

import json
import time

from fuzzing import (
    JSON_VALUES,
    MAX_SECONDS,
    fuzz,
    ledger_bytes,
    mutate_mapping,
    toml_text,
    yaml_block,
)
from hypothesis import given
from hypothesis import strategies as st

from conftest import EXAMPLE_NAMES, example_ledger
from rehydrate.config import config_from_files
from rehydrate.continuity.envelopes import parse_envelope
from rehydrate.continuity.manifest import extract_manifest, validate_manifest
from rehydrate.errors import RehydrateError
from rehydrate.ledgers import parse_ledger
from rehydrate.ledgers._frontmatter import split
from rehydrate.ledgers.yamlsafe import YAMLInputError, load

# seeds: ledgers with one example row per section
TEMPLATES = {kind: example_ledger(kind) for kind in EXAMPLE_NAMES}


def _bounded(started: float) -> None:
    assert time.monotonic() - started < MAX_SECONDS


@fuzz(6)
@given(kind=st.sampled_from(sorted(TEMPLATES)), data=st.data())
def test_ledger_parser_only_raises_parse_errors(kind, data):
    raw = data.draw(ledger_bytes(TEMPLATES[kind]))
    started = time.monotonic()
    try:
        parse_ledger(kind, f"docs/{kind}.md", raw)
    except RehydrateError as exc:
        assert exc.code and exc.file
    _bounded(started)


@fuzz(4)
@given(block=yaml_block(), typed=st.booleans())
def test_yaml_door_only_raises_its_own_error(block, typed):
    started = time.monotonic()
    try:
        load(block, typed=typed)
    except YAMLInputError as exc:
        assert exc.message
    _bounded(started)


@fuzz(4)
@given(block=yaml_block())
def test_front_matter_only_raises_parse_errors(block):
    started = time.monotonic()
    try:
        meta, _ = split(["---", *block.split("\n"), "---", "# T"], "docs/Task.md")
        assert isinstance(meta, dict) and all(isinstance(k, str) for k in meta)
    except RehydrateError as exc:
        assert exc.code == "frontmatter_invalid"
    _bounded(started)


@fuzz(6)
@given(dotfile=st.one_of(st.none(), toml_text()), pyproject=st.one_of(st.none(), toml_text(True)))
def test_config_only_raises_config_errors(dotfile, pyproject):
    started = time.monotonic()
    texts = {
        ".rehydrate.toml": dotfile.encode() if dotfile is not None else None,
        "pyproject.toml": pyproject.encode() if pyproject is not None else None,
    }
    try:
        config = config_from_files(texts)
        for path in config.paths.values():
            assert not path.startswith(("/", "../")) and ".." not in path.split("/")
    except RehydrateError as exc:
        assert exc.code.startswith(("config_", "path_outside_repo"))
    _bounded(started)


_MANIFEST_KEYS = [
    "schema",
    "task",
    "objective",
    "next_action",
    "completed_phases",
    "phases",
    "obligations",
    "external_writes",
    "consumed_approvals",
    "constraints",
    "open_decisions",
    "completion_checks",
    "pins",
    "checksum",
]
_MANIFEST = {
    "schema": "rehydrate/resume-manifest-v1",
    "task": "T-001",
    "objective": "o",
    "next_action": "n",
    "completed_phases": [],
    "phases": [{"id": "P1", "status": "todo"}],
    "obligations": [],
    "external_writes": [],
    "consumed_approvals": [],
    "constraints": [{"id": "C-001", "level": "MUST"}],
    "open_decisions": [],
    "completion_checks": [],
    "pins": {"commit": None, "ledgers": {"docs/Spec.md": "0" * 40}},
    "checksum": "rehydrate-checksum/v1:sha256:" + "0" * 64,
}


@st.composite
def _manifest_text(draw):
    from rehydrate.ledgers.yamlsafe import dump

    data = mutate_mapping(draw, _MANIFEST, _MANIFEST_KEYS)
    text = json.dumps(data) if draw(st.booleans()) else dump(data)
    if draw(st.booleans()):
        lines = text.split("\n")
        at = draw(st.integers(0, len(lines) - 1))
        lines[at] = (
            lines[at].split(":")[0]
            + ": "
            + draw(st.sampled_from(__import__("fuzzing").YAML_VALUES))
        )
        text = "\n".join(lines)
    wrap = draw(st.sampled_from(["bare", "fence", "front"]))
    if wrap == "fence":
        return f"# Summary\n\n```resume-manifest\n{text}\n```\n"
    if wrap == "front":
        return f"---\n{text}\n---\n# Summary\n"
    return text


@fuzz(6)
@given(text=_manifest_text())
def test_manifest_reader_never_crashes(text):
    started = time.monotonic()
    found = extract_manifest(text)
    if found.problem is None:
        for reason in validate_manifest(found.data):
            assert reason.code
    _bounded(started)


@fuzz(4)
@given(data=st.data())
def test_envelope_reader_never_crashes(data):
    keys = [
        "schema",
        "envelope_id",
        "reset_reason",
        "task",
        "pins",
        "checksum",
        "summary_sha256",
        "pending_obligations",
        "unknown_writes",
        "consumed_approvals",
        "constraint_refs",
        "requires_reauthorization",
    ]
    base = {
        "schema": "rehydrate/continuity-envelope-v1",
        "envelope_id": "ce-" + "0" * 32,
        "reset_reason": "handoff",
        "task": "T",
        "pins": _MANIFEST["pins"],
        "checksum": _MANIFEST["checksum"],
        "summary_sha256": None,
        "pending_obligations": [],
        "unknown_writes": [],
        "consumed_approvals": [],
        "constraint_refs": [],
        "requires_reauthorization": True,
    }
    obj = mutate_mapping(data.draw, base, keys)
    raw = (
        json.dumps(obj).encode()
        if data.draw(st.booleans())
        else data.draw(
            st.one_of(st.binary(max_size=64), JSON_VALUES.map(lambda v: json.dumps(v).encode()))
        )
    )
    started = time.monotonic()
    envelope, problems = parse_envelope(raw)
    assert (envelope is None) == bool(problems)
    _bounded(started)
