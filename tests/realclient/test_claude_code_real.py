"""Real Claude Code (npm, pinned) through rehydrate's hooks, against a scripted model API.

Every assertion is on what reached the model (the fake API's request log) or on what
really ran (marker files), never on what a hook printed. Known gaps are strict xfails
naming their issue 15 item: they turn into failures once fixed.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import DEFAULT_SUMMARY, FakeAnthropic, Logged, bash, text, tool
from harness import (
    CLAUDE_CODE_VERSION,
    ROOT,
    VENV_BIN,
    install_claude,
    install_plugin,
    make_project,
    run_claude,
    run_doctor,
)

from conftest import git

pytestmark = pytest.mark.realclient

NEXT_ACTION = "run the scripted session against the fake model API"
ADDED_CONTEXT = "SessionStart hook additional context"


@pytest.fixture(scope="session")
def claude() -> Path:
    return install_claude()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Any]:
    """``api(turns, **options)`` starts a fake Messages API that stops with the test."""
    servers: list[FakeAnthropic] = []

    def start(*turns: list[dict[str, Any]], **options: Any) -> FakeAnthropic:
        log = tmp_path / f"requests-{len(servers)}.jsonl"
        server = FakeAnthropic(list(turns), log_file=log, **options).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def tool_results(request: Logged) -> list[dict[str, Any]]:
    """The tool_result blocks the client sent since the model's last turn."""
    return [
        b
        for message in request.tail()
        if isinstance(message.get("content"), list)
        for b in message["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


def test_claude_code_is_the_pinned_version(claude: Path) -> None:
    import subprocess

    out = subprocess.run(
        [str(claude), "--version"], capture_output=True, text=True, timeout=30, check=True
    ).stdout
    assert out.split()[0] == CLAUDE_CODE_VERSION


def test_ledger_context_reaches_the_first_model_request(
    claude: Path, project: Path, api: Any
) -> None:
    fake = api([text("hello back")])
    session = run_claude(claude, project, fake, "hello")
    assert session.returncode == 0, session.stderr
    # Claude Code 2.1.332 with nonessential traffic off calls nothing but the Messages API.
    assert {r.path for r in fake.requests} == {"/v1/messages?beta=true"}
    first = fake.turn_requests()[0]
    assert first.index == 0
    said = first.text()
    assert ADDED_CONTEXT in said
    for item in ("C-RC1", "C-RC2", "D-RC1", "O-RC1", "F-RC7", NEXT_ACTION):
        assert item in said, item
    claude_md = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert "C-RC1" not in claude_md and "F-RC7" not in claude_md  # only the hook says them
    assert session.hook_order()[0] == "session-start"


def test_repeat_of_a_failed_attempt_is_denied(claude: Path, project: Path, api: Any) -> None:
    fake = api([bash("touch marker && go test -tags=musl ./...")], [text("understood")])
    session = run_claude(claude, project, fake, "run the tests")
    assert session.returncode == 0, session.stderr
    assert not (project / "marker").exists()
    turns = fake.turn_requests()
    assert len(turns) >= 2
    (result,) = tool_results(turns[1])
    assert result["is_error"] is True
    reason = json.dumps(result["content"])
    assert "F-RC7" in reason and "use default build tags" in reason


def test_a_row_hidden_by_skip_worktree_still_refuses(claude: Path, project: Path, api: Any) -> None:
    """Issue 24 class 2: the row deleted in the work tree under ``skip-worktree`` (``git
    status`` is clean): the command is still refused, and the stop names the change."""
    ledger = project / "docs/Failed_Attempts.md"
    git(project, "update-index", "--skip-worktree", "docs/Failed_Attempts.md")
    kept = [line for line in ledger.read_text().splitlines(True) if "F-RC7" not in line]
    ledger.write_text("".join(kept))
    assert git(project, "status", "--porcelain").stdout == ""
    fake = api([bash("touch marker && go test -tags=musl ./...")], [text("understood")])
    session = run_claude(claude, project, fake, "run the tests")
    assert session.returncode == 0, session.stderr
    assert not (project / "marker").exists()
    turns = fake.turn_requests()
    (result,) = tool_results(turns[1])
    assert result["is_error"] is True and "F-RC7" in json.dumps(result["content"])
    assert len(turns) >= 3  # the stop was blocked once: the model was told
    assert "docs/Failed_Attempts.md" in turns[2].text()


def test_an_allowed_command_runs(claude: Path, project: Path, api: Any) -> None:
    fake = api([bash("touch marker && echo ran; go vet -tags=netgo ./... || true")], [text("ok")])
    session = run_claude(claude, project, fake, "run it")
    assert session.returncode == 0, session.stderr
    assert (project / "marker").exists()
    turns = fake.turn_requests()
    (result,) = tool_results(turns[1])
    assert not result.get("is_error")
    assert "ran" in json.dumps(result["content"])
    # Ledgers committed: Stop lets the session end, no further model request.
    assert len(turns) == 2
    assert session.hook_order() == ["session-start", "pre-tool-use", "stop"]


def test_a_close_command_runs_and_the_row_reaches_the_model(
    claude: Path, project: Path, api: Any
) -> None:
    """Same program and subcommand as F-RC7, another tag: allowed (it runs), and the row
    is named to the model with the call (PreToolUse additionalContext, issue 28)."""
    fake = api([bash("touch marker && go test -tags=netgo ./... || true")], [text("ok")])
    session = run_claude(claude, project, fake, "run it")
    assert session.returncode == 0, session.stderr
    assert (project / "marker").exists()
    turns = fake.turn_requests()
    *_, call, answer, context = turns[1].messages()
    assert call["role"] == "assistant" and answer["role"] == "user"
    assert not any(b.get("is_error") for b in answer["content"] if isinstance(b, dict))
    said = json.dumps(context)  # Claude Code 2.1.332: a system message after the result
    assert context["role"] == "system" and "PreToolUse:Bash hook additional context" in said
    assert "close to failed attempt F-RC7" in said and "use default build tags" in said


def test_newline_separated_repeat_is_denied(claude: Path, project: Path, api: Any) -> None:
    fake = api([bash("touch m2\ngo test -tags=musl ./...")], [text("ok")])
    session = run_claude(claude, project, fake, "run the tests")
    assert session.returncode == 0, session.stderr
    assert not (project / "m2").exists()


# (marker name, command after `touch <marker> && `, denied?) - all in one session, one turn.
SHELL_FORMS = [
    pytest.param(*form, id=form[0])
    for form in [
        ("bash_c", "bash -c 'go test -tags=musl ./...'", True),
        ("sh_c", 'sh -c "go test -tags=musl ./..."', True),
        ("eval", "eval 'go test -tags=musl ./...'", True),
        ("if_then", "if true; then go test -tags=musl ./...; fi", True),
        ("for_do", "for i in 1; do go test -tags=musl ./...; done", True),
        ("subshell", "(go test -tags=musl ./...)", True),
        ("pipeline", "true | go test -tags=musl ./...", True),
        ("substitution", "echo $(go test -tags=musl ./...)", True),
        ("default_tags", "go test ./... || true", False),  # precision: still allowed
    ]
]


@pytest.fixture(scope="module")
def shell_forms(claude: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One session whose one turn runs every form of SHELL_FORMS; returns the project."""
    from conftest import GIT_ENV

    commands = [bash(f"touch {p.values[0]} && {p.values[1]}") for p in SHELL_FORMS]
    with pytest.MonkeyPatch.context() as env:  # module scope: set up what conftest would
        home = tmp_path_factory.mktemp("forms-home")
        (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
        env.setenv("HOME", str(home))
        for key, value in GIT_ENV.items():
            env.setenv(key, value)
        repo = make_project(tmp_path_factory.mktemp("forms"))
        with FakeAnthropic(
            [commands, [text("ok")]], log_file=repo.parent / "requests.jsonl"
        ) as fake:
            session = run_claude(claude, repo, fake, "run them all")
    assert session.returncode == 0, session.stderr
    assert len(session.calls("pre-tool-use")) == len(SHELL_FORMS)
    return repo


@pytest.mark.parametrize(("marker", "form", "denied"), SHELL_FORMS)
def test_shell_forms_of_a_repeat(shell_forms: Path, marker: str, form: str, denied: bool) -> None:
    assert (shell_forms / marker).exists() is not denied, form


def test_stop_blocks_once_over_uncommitted_ledgers(claude: Path, project: Path, api: Any) -> None:
    fake = api(
        [bash("echo 'Learned: the cache needs a warm-up.' >> docs/Spec.md")],
        [text("finished")],
        [text("noted, stopping anyway")],
    )
    session = run_claude(claude, project, fake, "work")
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    assert len(turns) == 3  # the block made the session go on once, and only once
    said = turns[2].text()
    assert "Ledger changes are not committed: docs/Spec.md" in said
    assert "Ledger changes are not committed" not in turns[1].text()
    stops = session.calls("stop")
    assert [json.loads(c["stdin"])["stop_hook_active"] for c in stops] == [False, True]


def _after_compaction(fake: FakeAnthropic) -> list[Logged]:
    compact = [r.index for r in fake.requests if r.kind == "compact"]
    assert compact, "no compaction request reached the model"
    return [r for r in fake.turn_requests() if r.index > compact[-1]]


def test_manual_compact_reinjects_the_ledger_core(claude: Path, project: Path, api: Any) -> None:
    fake = api([bash("touch m1")], [text("first done")], [text("after compact")])
    session = run_claude(claude, project, fake, "hello", "/compact", "what next?")
    assert session.returncode == 0, session.stderr
    order = session.hook_order()
    # Observed with 2.1.332: PreCompact, the summary request, SessionStart(compact), then
    # PostCompact, so the verdict on the summary comes after the context was given.
    start = order.index("pre-compact")
    assert order[start : start + 3] == ["pre-compact", "session-start", "post-compact"]
    sources = [json.loads(c["stdin"]).get("source") for c in session.calls("session-start")]
    assert sources == ["startup", "compact"]
    (post,) = session.calls("post-compact")
    assert json.loads(post["stdin"])["compact_summary"] == fake.summary
    after = _after_compaction(fake)
    assert after
    said = after[0].text()
    for item in ("Session source: compact", "C-RC1", "C-RC2", "F-RC7", NEXT_ACTION):
        assert item in said, item
    assert "not been verified yet" in said
    # Claude Code keeps the <summary> and drops the <analysis> (see the item 3 test).
    assert "The user said hello and a command ran" in said
    assert "The user greeted; one command ran" not in said
    assert "The user greeted" in DEFAULT_SUMMARY
    # The default summary names no constraint: the verdict reaches the model in PostCompact's
    # output (a manual /compact), and once more through the held Stop.
    assert "UNFAITHFUL: constraint_dropped C-RC1" in said
    assert len(after) == 2 and "Stop hook" in json.dumps(after[1].tail())


def test_faithful_compaction_summary_is_not_flagged(claude: Path, project: Path, api: Any) -> None:
    summary = (
        f"<analysis>ok</analysis>\n<summary>Constraints C-RC1 and C-RC2 hold. Next "
        f"action: {NEXT_ACTION}</summary>"
    )
    fake = api([text("first done")], [text("after compact")], summary=summary)
    session = run_claude(claude, project, fake, "hello", "/compact", "what next?")
    assert session.returncode == 0, session.stderr
    after = _after_compaction(fake)
    assert len(after) == 1  # no Stop block
    assert all("UNFAITHFUL" not in r.text() for r in fake.requests)


def test_manual_compact_over_uncommitted_ledgers_is_refused(
    claude: Path, project: Path, api: Any
) -> None:
    fake = api(
        [bash("echo 'Learned: more.' >> docs/Spec.md")],
        [text("first done")],
        [text("noted")],
        [text("after")],
    )
    session = run_claude(claude, project, fake, "hello", "/compact", "next")
    assert session.returncode == 0, session.stderr
    (pre,) = session.calls("pre-compact")
    assert pre["exit"] == 2
    assert not [r for r in fake.requests if r.kind == "compact"]  # no summary was made
    assert "session-start" not in session.hook_order()[1:]
    # The refusal and its fix are in the conversation the model sees next.
    said = fake.turn_requests()[3].text()
    assert "Compaction blocked by PreCompact hook" in said
    assert "commit the ledgers first (git add docs/Spec.md" in said


def test_late_unfaithful_verdict_denies_the_next_command_once(
    claude: Path, project: Path, api: Any
) -> None:
    fake = api([text("first done")], [bash("touch m3")], [bash("touch m3")], [text("done")])
    session = run_claude(claude, project, fake, "hello", "/compact", "next")
    assert session.returncode == 0, session.stderr
    after = _after_compaction(fake)
    assert len(after) == 3
    (denied,) = tool_results(after[1])
    assert denied["is_error"] is True
    assert "UNFAITHFUL: constraint_dropped C-RC1" in json.dumps(denied["content"])
    (ran,) = tool_results(after[2])
    assert not ran.get("is_error")
    assert (project / "m3").exists()  # the retry ran: the verdict is delivered once


def test_auto_compaction_over_uncommitted_ledgers_warns_the_model(
    claude: Path, project: Path, api: Any
) -> None:
    # A tiny compaction window and large reported usage make Claude Code compact by itself.
    fake = api(
        [bash("echo 'Learned: x.' >> docs/Spec.md")],
        [text("after")],
        [text("more")],
        input_tokens=45_000,
    )
    session = run_claude(claude, project, fake, "go", env=AUTO_COMPACT)
    assert session.returncode == 0, session.stderr
    triggers = [json.loads(c["stdin"])["trigger"] for c in session.calls("pre-compact")]
    assert triggers and set(triggers) == {"auto"}
    order = session.hook_order()
    start = len(order) - 1 - order[::-1].index("pre-compact")
    assert order[start : start + 3] == ["pre-compact", "session-start", "post-compact"]
    after = _after_compaction(fake)
    assert after
    said = after[0].text()
    assert "the last compaction ran over UNCOMMITTED ledger changes" in said
    assert "docs/Spec.md had uncommitted changes" in said
    assert "C-RC1" in said and "F-RC7" in said


AUTO_COMPACT = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "50000", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}


def test_a_failed_auto_compaction_leaves_no_stale_warning(
    claude: Path, project: Path, api: Any
) -> None:
    # One large usage figure: Claude Code tries to compact once, too early to succeed.
    fake = api(
        [bash("echo 'Learned: y.' >> docs/Spec.md")],
        [text("after")],
        [bash("git add docs && git commit -qm 'ledgers: learned y'")],
        [text("done")],
        input_tokens=[45_000, 10],
    )
    first = run_claude(claude, project, fake, "go", env=AUTO_COMPACT)
    assert first.returncode == 0, first.stderr
    assert first.hook_order().count("pre-compact") == 1
    assert "post-compact" not in first.hook_order()  # the compaction did not happen
    assert not git(project, "status", "--porcelain", "docs").stdout.strip()
    later = api([text("hello again")])
    second = run_claude(claude, project, later, "hello")
    assert second.returncode == 0, second.stderr
    assert "UNCOMMITTED" not in later.turn_requests()[0].text()


def test_hooks_do_not_fail_open_when_rehydrate_is_not_on_path(
    claude: Path, project: Path, api: Any
) -> None:
    """Issue 15 item 6: init writes the interpreter's absolute path, so the hooks run
    where Claude Code's PATH has no rehydrate (a bare command exited 127: fail open)."""
    assert shutil.which("rehydrate", path="/usr/local/bin:/usr/bin:/bin") is None
    fake = api([bash("touch marker && go test -tags=musl ./...")], [text("ok")])
    session = run_claude(claude, project, fake, "run the tests", with_rehydrate=False)
    assert session.returncode == 0, session.stderr
    assert not (project / "marker").exists()
    assert "F-RC7" in fake.turn_requests()[0].text()  # the context reached the model too
    assert all(call["exit"] == 0 for call in session.hooks), session.hooks


def test_ids_only_in_the_analysis_are_not_faithful(claude: Path, project: Path, api: Any) -> None:
    summary = (
        f"<analysis>Constraints C-RC1 and C-RC2 hold. Next action: {NEXT_ACTION}"
        "</analysis>\n<summary>The user said hello.</summary>"
    )
    fake = api([text("first done")], [text("after compact")], [text("noted")], summary=summary)
    session = run_claude(claude, project, fake, "hello", "/compact", "what next?")
    assert session.returncode == 0, session.stderr
    assert any("UNFAITHFUL" in r.text() for r in _after_compaction(fake))


def test_precompact_shapes_the_summary_request(claude: Path, project: Path, api: Any) -> None:
    fake = api([text("first done")], [text("after compact")])
    session = run_claude(claude, project, fake, "hello", "/compact", "what next?")
    assert session.returncode == 0, session.stderr
    (request,) = [r for r in fake.requests if r.kind == "compact"]
    instructions = json.dumps(request.tail(), ensure_ascii=False)
    for item in ("C-RC1", "C-RC2", "D-RC1", NEXT_ACTION, "resume-manifest"):
        assert item in instructions, item


def test_unfaithful_verdict_is_in_the_first_request_after_compact(
    claude: Path, project: Path, api: Any
) -> None:
    fake = api([text("first done")], [text("after compact")])
    session = run_claude(claude, project, fake, "hello", "/compact", "what next?")
    assert session.returncode == 0, session.stderr
    assert "UNFAITHFUL" in _after_compaction(fake)[0].text()


def test_late_verdict_holds_back_a_write_too(claude: Path, project: Path, api: Any) -> None:
    target = project / "written.txt"
    fake = api(
        [text("first done")], [tool("Write", file_path=str(target), content="x\n")], [text("done")]
    )
    session = run_claude(claude, project, fake, "hello", "/compact", "next")
    assert session.returncode == 0, session.stderr
    assert not target.exists()


def test_a_failed_command_is_captured_before_stop(claude: Path, project: Path, api: Any) -> None:
    fake = api(
        [bash("ls /nonexistent-rehydrate-dir")], [text("that failed, stopping")], [text("ok")]
    )
    session = run_claude(claude, project, fake, "list it")
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    assert len(turns) == 3, "Stop did not block over an unrecorded failure"
    assert "captured this failed command as pending failure 1" in turns[1].text()
    said = turns[2].text()
    assert "ls /nonexistent-rehydrate-dir" in said and "rehydrate fail add" in said


def test_a_red_test_run_is_a_failing_check_and_not_captured(
    claude: Path, project: Path, api: Any
) -> None:
    """Red before green (issue 26 item 3): a test run that reports a failing test is the
    check doing its job; nothing is captured, Stop lets the session end."""
    red = (
        "printf 'def test_red():\\n    assert 1 == 2\\n' > test_red.py && "
        f"{VENV_BIN / 'python'} -m pytest -q -p no:cacheprovider test_red.py"
    )
    fake = api([bash(red)], [text("red, as expected")], [text("ok")])
    session = run_claude(claude, project, fake, "run the test")
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    assert "1 failed" in json.dumps(turns[1].messages()[-1])  # the run really failed
    assert len(turns) == 2, "Stop held the session over a failing check"
    assert "captured this failed command" not in turns[1].text()
    pending = project / ".rehydrate" / "pending-failures.json"
    assert not pending.exists() or json.loads(pending.read_text())["failures"] == []


def test_a_recorded_failure_lets_the_stop_through(claude: Path, project: Path, api: Any) -> None:
    record = (
        "rehydrate fail add --tried '`ls /nonexistent-rehydrate-dir`' --failure 'no such "
        "directory' --workaround 'list the parent directory' --commit"
    )
    fake = api([bash("ls /nonexistent-rehydrate-dir")], [bash(record)], [text("recorded")])
    session = run_claude(claude, project, fake, "list it")
    assert session.returncode == 0, session.stderr
    turns = fake.turn_requests()
    (ran,) = tool_results(turns[2])
    assert not ran.get("is_error"), ran
    assert len(turns) == 3  # recorded and committed: nothing holds the stop
    assert "F-RC8" in (project / "docs/Failed_Attempts.md").read_text(encoding="utf-8")


SUBAGENT_TASK = "SUBAGENT-TASK: list the repository"


def _subagent_route(body: dict[str, Any]) -> list[dict[str, Any]] | None:
    first = json.dumps((body.get("messages") or [{}])[0], ensure_ascii=False)
    return [text("subagent finished")] if SUBAGENT_TASK in first else None


def _subagent_requests(fake: FakeAnthropic) -> list[Logged]:
    return [
        r
        for r in fake.turn_requests()
        if SUBAGENT_TASK in json.dumps(r.messages()[:1], ensure_ascii=False)
    ]


def test_a_subagent_runs_against_the_fake(claude: Path, project: Path, api: Any) -> None:
    """The harness half of the item 8 test: the subagent's own request is told apart."""
    fake = api(
        [
            tool(
                "Agent",
                description="list repo",
                prompt=SUBAGENT_TASK,
                subagent_type="general-purpose",
                run_in_background=False,
            )
        ],
        [text("main finished")],
        route=_subagent_route,
    )
    session = run_claude(claude, project, fake, "delegate")
    assert session.returncode == 0, session.stderr
    assert _subagent_requests(fake)
    assert "subagent finished" in fake.turn_requests()[-1].text()


def test_a_subagent_gets_the_ledger_core(claude: Path, project: Path, api: Any) -> None:
    fake = api(
        [
            tool(
                "Agent",
                description="list repo",
                prompt=SUBAGENT_TASK,
                subagent_type="general-purpose",
                run_in_background=False,
            )
        ],
        [text("main finished")],
        route=_subagent_route,
    )
    session = run_claude(claude, project, fake, "delegate")
    assert session.returncode == 0, session.stderr
    said = _subagent_requests(fake)[0].text()
    for item in ("C-RC1", "F-RC7", NEXT_ACTION):
        assert item in said, item


@pytest.mark.parametrize(
    "manifest", ["", ".claude-plugin/plugin.json", ".claude-plugin/marketplace.json"]
)
def test_the_repository_is_a_valid_claude_code_plugin(
    claude: Path, tmp_path: Path, manifest: str
) -> None:
    """Issue 15 item 10: the repository is a plugin and its own marketplace; --strict
    fails on warnings (unknown fields, missing metadata) too."""
    import subprocess

    done = subprocess.run(
        [str(claude), "plugin", "validate", "--strict", str(ROOT / manifest)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout, done.stdout


def test_validate_refuses_a_broken_plugin_manifest(claude: Path, tmp_path: Path) -> None:
    """The control for the test above: the same --strict validation fails on a bad hooks
    file (without --strict this one is only a warning)."""
    import subprocess

    copy = tmp_path / "plugin"
    for part in (".claude-plugin", "hooks"):
        shutil.copytree(ROOT / part, copy / part)
    (copy / "hooks" / "hooks.json").write_text('{"hooks": {"SessionStart": "nope"}}')
    done = subprocess.run(
        [str(claude), "plugin", "validate", "--strict", str(copy / ".claude-plugin/plugin.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode != 0, done.stdout + done.stderr
    assert "SessionStart" in done.stdout, done.stdout


@pytest.fixture
def plain_project(tmp_path: Path) -> Path:
    """A project set up by plain ``rehydrate init``: no .claude/settings.json hooks."""
    repo = make_project(tmp_path, claude=False)
    assert not (repo / ".claude").exists()
    return repo


def test_the_plugin_gives_the_hooks_without_init(
    claude: Path, plain_project: Path, api: Any
) -> None:
    """Issue 15 item 10: marketplace add + install, no ``init --claude``: the context
    reaches the model and a repeated failed attempt is refused."""
    fake = api([bash("touch marker && go test -tags=musl ./...")], [text("ok")])
    install_plugin(claude, plain_project, fake)
    session = run_claude(claude, plain_project, fake, "run the tests")
    assert session.returncode == 0, session.stderr
    first = fake.turn_requests()[0].text()
    assert ADDED_CONTEXT in first
    for item in ("C-RC1", "F-RC7", NEXT_ACTION):
        assert item in first, item
    assert not (plain_project / "marker").exists()
    (result,) = tool_results(fake.turn_requests()[1])
    assert result["is_error"] is True and "F-RC7" in json.dumps(result["content"])


def test_the_user_scope_plugin_stays_out_of_an_unrelated_repository(
    claude: Path, tmp_path: Path, api: Any
) -> None:
    """Issue 26 item 1: the plugin installed at user scope (the default), a repository
    with no ledgers and no rehydrate settings: the command runs, the model is told
    nothing, and nothing is written there."""
    other = tmp_path / "unrelated"
    other.mkdir()
    git(other, "init", "-q")
    (other / "README.md").write_text("an unrelated project\n")
    git(other, "add", "README.md")
    git(other, "commit", "-q", "-m", "init")
    fake = api([bash("touch marker && ls")], [text("ok")])
    install_plugin(claude, other, fake)
    session = run_claude(claude, other, fake, "list the files")
    assert session.returncode == 0, session.stderr
    assert (other / "marker").exists()
    assert ADDED_CONTEXT not in fake.turn_requests()[0].text()
    (result,) = tool_results(fake.turn_requests()[1])
    assert result.get("is_error") is not True, result
    assert not (other / ".rehydrate").exists()
    assert git(other, "status", "--porcelain").stdout == "?? marker\n"


def test_the_plugin_fails_closed_when_rehydrate_is_missing(
    claude: Path, plain_project: Path, api: Any
) -> None:
    """The plugin's launcher finds no rehydrate (not on PATH, python3 lacks it): the model
    is told at session start, and the command is refused (exit 2), not run (exit 127)."""
    fake = api([bash("touch marker && echo ran")], [text("ok")])
    install_plugin(claude, plain_project, fake)
    session = run_claude(claude, plain_project, fake, "run it", with_rehydrate=False)
    assert session.returncode == 0, session.stderr
    assert not (plain_project / "marker").exists()
    first = fake.turn_requests()[0].text()
    assert "rehydrate is not installed where Claude Code runs its hooks" in first
    (result,) = tool_results(fake.turn_requests()[1])
    assert result["is_error"] is True
    assert "cannot be checked against the recorded failed attempts" in json.dumps(result["content"])


def _rehydrate_doctor(repo: Path) -> dict[str, Any]:
    import subprocess

    done = subprocess.run(
        [str(VENV_BIN / "rehydrate"), "doctor", "--json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        env={
            "PATH": f"{VENV_BIN}:/usr/bin:/bin",
            "HOME": str(repo.parent / "claude-home"),
            **{k: v for k, v in os.environ.items() if k.startswith("GIT_")},
        },
    )
    report: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == (0 if report["ok"] else 1), done.stderr
    return report


def test_rehydrate_doctor_sees_the_plugin_claude_code_installed(
    claude: Path, plain_project: Path, api: Any
) -> None:
    """doctor reads what the real ``claude plugin install`` wrote; and with init's
    settings hooks too, it reports the hooks wired twice (context injected twice)."""
    install_plugin(claude, plain_project, api())
    report = _rehydrate_doctor(plain_project)
    states = {i["name"]: i["state"] for i in report["integrations"]}
    assert states["claude-plugin"] == "ok", report
    assert report["ok"], report
    import subprocess

    subprocess.run(
        [str(VENV_BIN / "rehydrate"), "init", "--claude"],
        cwd=plain_project,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    twice = _rehydrate_doctor(plain_project)
    assert [f["code"] for f in twice["findings"]] == ["claude_hooks_twice"], twice


EMOJI_RULE = "keep the launch on schedule " + "\U0001f680" * 90


EMOJI_IDS = [f"C-E{n:02d}" for n in range(1, 41)]
EMOJI_SPEC = (
    "    ---\n    ledger: spec\n    ---\n    # Spec\n\n    ## Constraints\n\n"
    "    | ID | Rule | Level | Source |\n    |---|---|---|---|\n"
    + "".join(f"    | {i} | {EMOJI_RULE} | MUST | realclient |\n" for i in EMOJI_IDS)
)


def _context_from_hook(repo: Path) -> str:
    import subprocess

    event = json.dumps(
        {
            "hook_event_name": "SessionStart",
            "source": "startup",
            "cwd": str(repo),
            "session_id": "s",
        }
    )
    out = subprocess.run(
        [str(VENV_BIN / "rehydrate"), "hook", "claude", "session-start"],
        cwd=repo,
        input=event,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": str(VENV_BIN) + ":/usr/bin:/bin", "HOME": str(repo)},
    )
    return str(json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"])


def test_emoji_context_is_capped_in_utf16_units(tmp_path: Path) -> None:
    """The precondition of the next test, checked without the client: the emoji make the
    context much longer in UTF-16 units than in characters, and it stays within
    Claude Code's cap in units (where counting characters once ran over it)."""
    repo = make_project(tmp_path, spec=EMOJI_SPEC)
    context = _context_from_hook(repo)
    units = len(context.encode("utf-16-le")) // 2
    assert units <= 10_000
    assert units - len(context) > 1_000
    assert all(i in context for i in EMOJI_IDS)


def test_emoji_heavy_context_reaches_the_model_whole(
    claude: Path, tmp_path: Path, api: Any
) -> None:
    project = make_project(tmp_path, spec=EMOJI_SPEC)
    ids = EMOJI_IDS
    fake = api([text("hello back")])
    session = run_claude(claude, project, fake, "hello")
    assert session.returncode == 0, session.stderr
    said = fake.turn_requests()[0].text()
    missing = [i for i in (*ids, "F-RC7") if i not in said]
    assert not missing, f"dropped before the model: {missing}"


def test_claude_doctor_finds_no_settings_errors(claude: Path, project: Path, api: Any) -> None:
    fake = api()
    report = run_doctor(claude, project, fake)
    assert "Claude Code doctor" in report, report
    assert "Invalid settings" not in report, report
    assert not fake.requests


def test_claude_doctor_does_report_broken_settings(claude: Path, project: Path, api: Any) -> None:
    """The control for the test above: doctor does see a bad hook in the same file."""
    path = project / ".claude" / "settings.json"
    settings = json.loads(path.read_text(encoding="utf-8"))
    settings["hooks"]["NotAnEvent"] = [{"hooks": [{"type": "command", "command": "true"}]}]
    path.write_text(json.dumps(settings), encoding="utf-8")
    git(project, "add", "-A")
    report = run_doctor(claude, project, api())
    assert "Invalid settings" in report and "NotAnEvent" in report, report
