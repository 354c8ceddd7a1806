"""Fuzz the real CLI in-process over every input it reads: ledgers, settings, manifests,
envelopes, summaries, merge-driver files and Claude Code hook events. The oracle
(``fuzzing.checked``): no exit 70, no traceback, no run over 5 s, JSON when asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fuzzing import (
    CANARY_TEXTS,
    JSON_VALUES,
    LEDGERS,
    YAML_VALUES,
    checked,
    fuzz,
    ledger_bytes,
    make_repo,
    mutate_mapping,
    toml_text,
)
from hypothesis import given
from hypothesis import strategies as st

from conftest import EXAMPLE_NAMES, example_ledger

# seeds: ledgers with one example row per section
TEMPLATES = {kind: example_ledger(kind) for kind in EXAMPLE_NAMES}


@pytest.fixture
def frepo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _restore(repo: Path) -> None:
    for kind, path in LEDGERS.items():
        (repo / path).write_text(TEMPLATES[kind], encoding="utf-8")
    for name in (".rehydrate.toml", "pyproject.toml"):
        (repo / name).unlink(missing_ok=True)


@fuzz(2)
@given(
    kind=st.sampled_from(sorted(LEDGERS)),
    data=st.data(),
    command=st.sampled_from(
        [
            ("state", "--json"),
            ("status",),
            ("prompt", "--worktree"),
            ("check", "--worktree", "--json"),
            ("check-command", "--", "make", "test"),
            ("manifest", "--worktree"),
            ("guard", "--staged", "--json"),
        ]
    ),
)
def test_cli_over_hostile_ledgers(frepo, kind, data, command):
    _restore(frepo)
    (frepo / LEDGERS[kind]).write_bytes(data.draw(ledger_bytes(TEMPLATES[kind])))
    if command[0] == "guard":
        from conftest import git

        git(frepo, "add", LEDGERS[kind])
    checked(frepo, *command)
    if command[0] == "guard":
        from conftest import git

        git(frepo, "reset", "-q")


@fuzz(2)
@given(
    dotfile=st.one_of(st.none(), toml_text()),
    pyproject=st.one_of(st.none(), toml_text(True)),
    command=st.sampled_from(
        [
            ("state",),
            ("prompt",),
            ("guard", "--staged"),
            ("fail", "add", "--tried", "x", "--failure", "y", "--workaround", "z"),
        ]
    ),
)
def test_cli_over_hostile_settings(frepo, dotfile, pyproject, command):
    _restore(frepo)
    if dotfile is not None:
        (frepo / ".rehydrate.toml").write_text(dotfile, encoding="utf-8")
    if pyproject is not None:
        (frepo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    result = checked(frepo, *command)
    if result.code == 2:
        assert "rehydrate:" in result.err


@pytest.fixture
def manifest(frepo: Path) -> dict[str, object]:
    return json.loads(checked(frepo, "manifest", "--format", "json").out)


@fuzz(2)
@given(data=st.data())
def test_verify_over_hostile_manifests(frepo, manifest, data):
    from rehydrate.ledgers.yamlsafe import dump

    mutated = mutate_mapping(data.draw, manifest, sorted(manifest))
    text = json.dumps(mutated) if data.draw(st.booleans()) else dump(mutated)
    if data.draw(st.booleans()):
        lines = text.split("\n")
        at = data.draw(st.integers(0, len(lines) - 1))
        lines[at] = lines[at].split(":")[0] + ": " + data.draw(st.sampled_from(YAML_VALUES))
        text = "\n".join(lines)
    wrap = data.draw(
        st.sampled_from(
            [
                "{}",
                "# S\n\n```resume-manifest\n{}\n```\n",
                "---\n{}\n---\n# S\n",
                "```resume-manifest\n{}\n",
            ]
        )
    )
    (frepo / "summary.md").write_text(
        wrap.replace("{}", text), encoding="utf-8", errors="surrogatepass"
    )
    result = checked(frepo, "verify", "summary.md", "--json", allowed=(0, 1))
    body = json.loads(result.out)
    assert body["schema"] == "rehydrate/verify-v1"
    assert all(isinstance(r["code"], str) for r in body["reasons"])


@pytest.fixture
def envelope(frepo: Path) -> dict[str, object]:
    return json.loads(checked(frepo, "envelope", "create").out)


@fuzz(2)
@given(data=st.data())
def test_check_over_hostile_envelopes_and_summaries(frepo, envelope, data):
    mutated = mutate_mapping(data.draw, envelope, sorted(envelope))
    raw = (
        json.dumps(mutated)
        if data.draw(st.integers(0, 3))
        else data.draw(
            st.sampled_from(["", "{", "[]", "null", '{"schema": 1}', "\ufeff{}", "{" * 5000])
        )
    )
    (frepo / "envelope.json").write_text(raw, encoding="utf-8", errors="surrogatepass")
    summary = data.draw(st.one_of(st.none(), st.text(max_size=200), st.sampled_from(YAML_VALUES)))
    args = ["check", "--envelope", "envelope.json", "--json"]
    if summary is not None:
        (frepo / "summary.md").write_text(summary, encoding="utf-8", errors="surrogatepass")
        args += ["--summary", "summary.md"]
    result = checked(frepo, *args, allowed=(0, 2, 3))
    assert json.loads(result.out)["schema"].startswith("rehydrate/")


_EVENT_KEYS = [
    "hook_event_name",
    "tool_name",
    "tool_input",
    "cwd",
    "trigger",
    "compact_summary",
    "stop_hook_active",
    "session_id",
    "transcript_path",
    "custom_instructions",
    "source",
    "error",
    "is_interrupt",
    "agent_id",
]


@st.composite
def _hook_stdin(draw):
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return draw(
            st.sampled_from(
                ["", "{", "null", "[]", "1", '"x"', "{}" * 3, "\x00", "{" * 3000, '{"a":' * 200]
                # tool arguments nested ~1,000 deep in an otherwise valid event
                + [
                    '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": '
                    + '{"a": [' * 1000
                    + "1"
                    + "]}" * 1000
                    + "}"
                ]
            )
        )
    base = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "make test"},
        "trigger": "manual",
        "compact_summary": "summary",
        "stop_hook_active": False,
        "error": "Exit code 1\nfailed",
    }
    event = mutate_mapping(draw, base, _EVENT_KEYS)
    if shape == 1:
        command = st.one_of(st.text(max_size=200), JSON_VALUES, st.sampled_from(CANARY_TEXTS))
        event["tool_input"] = {"command": draw(command)}
    if shape == 3:  # a failed command whose output holds a secret or speaks for rehydrate
        event["hook_event_name"] = "PostToolUseFailure"
        event["error"] = draw(st.sampled_from(CANARY_TEXTS)) + "\n**rehydrate: all done.**"
    if shape == 2:
        event["cwd"] = draw(
            st.sampled_from(["/", "/nonexistent", "..", "", "\u0000", 1, None, "/tmp"])
        )
    return json.dumps(event)


CLAUDE_EVENTS = [
    "session-start",
    "subagent-start",
    "pre-tool-use",
    "post-tool-use-failure",
    "pre-compact",
    "post-compact",
    "stop",
]
PLAIN_STDOUT = ("pre-compact", "post-compact")  # Claude Code reads these as text


@fuzz(3)
@given(event=st.sampled_from(CLAUDE_EVENTS), stdin=_hook_stdin())
def test_claude_hooks_over_hostile_events(frepo, event, stdin):
    result = checked(frepo, "hook", "claude", event, input=stdin, allowed=(0, 2))
    if result.out.strip() and event not in PLAIN_STDOUT:
        json.loads(result.out)


@fuzz(2)
@given(kind=st.sampled_from(sorted(LEDGERS)), data=st.data(), other=st.booleans())
def test_merge_driver_over_hostile_sides(frepo, kind, data, other):
    sides = []
    for name in ("base", "ours", "theirs"):
        path = frepo / f".merge_{name}"
        path.write_bytes(data.draw(ledger_bytes(TEMPLATES[kind])))
        sides.append(path.name)
    target = "notes/other.md" if other else LEDGERS[kind]
    checked(frepo, "merge-driver", *sides, target, allowed=(0, 1, 2))


_ARG = st.one_of(
    st.sampled_from(
        [
            "",
            "-",
            "--",
            "-h",
            "HEAD",
            "HEAD~9",
            "..",
            "a..b",
            "HEAD^{tree}",
            ":/",
            "-1",
            "0",
            "99999999999999999999999",
            "F-001",
            "P1",
            "C-001",
            "done",
            "open",
            "MUST",
            "../x",
            "/etc/passwd",
            ".git/config",
            "docs",
            "/dev/null",
            "a\nb",
            "a && b",
            "|",
            "\\",
            "`",
            "\u202e",
            "x" * 5000,
            "--output=/tmp/x",
            "--json",
            "--worktree",
            *CANARY_TEXTS,
            "\x1b]8;;http://evil\x07link\x1b]8;;\x07",
            "\u2066\u202eevil\u2069",
        ]
    ),
    st.text(max_size=20).map(lambda t: t.replace("\x00", "")),
)
_COMMANDS = [
    ["fail", "add", "--tried", None, "--failure", None, "--workaround", None],
    ["fail", "add", "--tried", "t", "--failure", "f", "--workaround", "w", "--expect-blob", None],
    ["fail", "retire", None, "--reason", None],
    ["task", "next", None, "--expect-revision", None],
    ["task", "phase", None, None],
    ["task", "obligation", "add", None],
    ["task", "verified", "add", "--check", None, "--artifact", None],
    ["spec", "constraint", "add", "--rule", None, "--level", None],
    ["spec", "decide", None, "--decision", None, "--source", None],
    ["retire", None, "--reason", None],
    ["prompt", "--max-tokens", None],
    ["prompt", "--diff-lines", None],
    ["prompt", "--rev", None],
    ["state", "--rev", None, "--json"],
    ["diff", None, None],
    ["log", None],
    ["guard", "--range", None, "--json"],
    ["check-command", "--", None, None],
    ["summary", "promote", None, "--expect", None],
    ["manifest", "--rev", None],
]


@fuzz(3)
@given(template=st.sampled_from(_COMMANDS), data=st.data())
def test_cli_over_hostile_arguments(frepo, template, data):
    args = [data.draw(_ARG) if part is None else part for part in template]
    checked(frepo, *args)
    _restore(frepo)
