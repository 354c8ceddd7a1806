"""The agent runtimes rehydrate wires into: one entry per runtime, what each gets, and how.

``RUNTIMES`` is the one table ``rehydrate init --agent NAME`` offers, ``rehydrate hook
NAME EVENT`` is built from (each row's ``hooks``: its events and their help, one click
group per runtime made by ``cli/_hook_adapter.py``, run by ``rehydrate.agents.<name>``'s
``run_hook``) and the runtime × action table of docs/integrations/runtimes.md is generated
from (scripts/gen_docs.py).
Each entry names its installer lazily ("module:function" under ``rehydrate.agents``), so
reading the table imports no adapter.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path

from ..records import NamedTuple

# The core actions (agents/core.py), the columns of the runtime × action table.
ACTIONS = ("inject", "refuse", "refuse_unreadable", "capture", "hold_stop", "compaction")


class Support(NamedTuple):
    ok: bool
    why: str


class Fail(NamedTuple):
    """How an event fails closed on an internal error (agents/hookcore.py): its answer,
    "refuse" (the tool call), "block" (the stop, once), "exit2" or "inject" (the error as
    context), where ``when`` holds (a field of the event has that value) and ``unless``
    does not (that field is true); otherwise, and for an event with no rule, a note."""

    answer: str
    when: tuple[str, str] | None = None
    unless: str | None = None

    def applies(self, data: Mapping[str, object]) -> bool:
        if self.when is not None and data.get(self.when[0]) != self.when[1]:
            return False
        return self.unless is None or data.get(self.unless) is not True


REFUSE = Fail("refuse")
HOLD = Fail("block", unless="stop_hook_active")  # never twice: the runtime says it held once
MANUAL = Fail("exit2", when=("trigger", "manual"))  # a compaction asked for by hand
# What a hook leaves undone when its event JSON cannot be read (said after the reason).
NO_CONTEXT = "no context added"
UNCHECKED = "tool call allowed unchecked"
NOT_CAPTURED = "failure not captured"
NOT_CHECKED = "stop not checked"


class Hooks(NamedTuple):
    """What ``rehydrate hook NAME`` offers: one subcommand per event, answered by
    ``agents/hookcore.run_hook(NAME, event, raw)`` with ``rehydrate.agents.<name>``'s
    handlers and answers."""

    title: str  # in the group's one-line help: "<title> hook adapters (event JSON on stdin)."
    help: str  # the group's help
    events: Mapping[str, str]  # event subcommand -> its help (the first clause is its line)
    unread: Mapping[str, str] = {}  # event -> what is left undone on unreadable input
    fail: Mapping[str, Fail] = {}  # event -> how it fails closed (absent: a note)
    project_vars: tuple[str, ...] = ()  # environment variables naming the project
    bypass: str = ""  # the file an internal error says to remove the hook from (default:
    # the first of the row's launch_files)
    # A runtime with no adapter module of its own (``rehydrate.agents.<name>``): each event's
    # core action, "start" (the context), "tool" (a shell command checked) or "stop" (held
    # once), answered in Claude Code's convention (agents/hookcore.conventional), the shell
    # tool named ``shell`` (``tool_name``, ``tool_input.command``).
    actions: Mapping[str, str] = {}
    shell: str = "Bash"


# One hook of ours in a hook file: (its matcher or None, the subcommand, extra fields of
# our entry beyond the command, e.g. Kiro's {"matcher": "*"}).
Wire = tuple[str | None, str, Mapping[str, object]]

HOOKS_FIX = "make 'hooks' an object of event -> list"


class Layout(NamedTuple):
    """How one runtime's JSON hook file is shaped (``config_merge`` reads and merges it):
    ``{"hooks": {Event: [...]}}``, each event holding matcher groups (``grouped``:
    ``[{"matcher": …, "hooks": [entry, …]}]``) or the entries themselves."""

    runtime: str
    grouped: bool  # events hold matcher groups (True) or command entries (False)
    key: str = "command"  # the field of an entry holding the command line
    extra: Mapping[str, object] = {}  # fields a fresh entry of ours gets first ({"type": …})
    match_all: tuple[str | None, ...] = (None,)  # group matchers that stand for "every tool"
    typed: bool = False  # an entry of ours has "type": "command" (Claude Code)
    join: bool = False  # ours joins the first group of its matcher (Gemini CLI)
    pinned: Mapping[str, object] = {}  # top-level fields always set (Copilot's "version": 1)
    launcher: tuple[str, ...] = ()  # a plugin launcher's words, recognised as ours (Claude)
    hooks_fix: str = HOOKS_FIX  # the fix when 'hooks' is not an object
    list_fix: str = "make hooks.{event} a list"  # the fix when an event is not a list


class HookFile(NamedTuple):
    """The JSON file a runtime reads its hooks from: where, its shape, our hooks in it."""

    path: str  # repository-relative
    layout: Layout
    wires: Mapping[str, Wire]  # the runtime's event name -> our hook for it
    base: Mapping[str, object] = {}  # the fields a new file starts with


class Doctor(NamedTuple):
    """One check ``rehydrate doctor`` runs for a runtime (doctor/__init__.py)."""

    absent: str = ""  # its status when the runtime is not wired here (never a finding);
    # "": "no hooks in <its hook file> (rehydrate init --agent NAME)"
    check: str = ""  # "module:function" under rehydrate.doctor; "": the row's hook-file check
    name: str = ""  # its name in the report; "": the runtime's


# The order of the runtimes' checks in the doctor's report (as it always was).
DOCTOR_ORDER = (
    "claude",
    "codex",
    "cursor",
    "cline",
    "kiro",
    "aider",
    "copilot",
    "gemini",
    "opencode",
)


class RuntimeInfo(NamedTuple):
    name: str
    title: str
    installer: str  # "module:function" under rehydrate.agents, imported lazily ("": the
    # row's hook file merged, config_merge.install_row)
    doc: str  # docs/integrations/<name>.md
    version: str  # the client version targeted/tested
    tested: str  # "real client" or "documented JSON"
    support: Mapping[
        str, Support
    ]  # keys: the core actions "inject", "refuse", "refuse_unreadable", "capture", "hold_stop", "compaction"  # noqa: E501
    launch_files: tuple[str, ...] = ()  # files holding its launch lines (hook install refreshes)
    hooks: Hooks | None = None  # its ``rehydrate hook NAME`` group; None: no hook events
    hook_file: HookFile | None = None  # its JSON hook file, merged and read by config_merge
    doctor: tuple[Doctor, ...] = ()  # what ``rehydrate doctor`` checks of it

    @property
    def init(self) -> str:
        """The command that wires it (every doctor finding's fix)."""
        return f"rehydrate init --agent {self.name}"


class Installed(NamedTuple):
    what: str  # "created", "updated" or "unchanged"
    path: str  # repository-relative
    note: str = ""


Installer = Callable[[Path, str], list[Installed]]
ROW_INSTALLER = "config_merge:install_row"  # a row with no installer: its hook file merged


def _all(why: str = "") -> dict[str, Support]:
    return {action: Support(True, why) for action in ACTIONS}


RUNTIMES: dict[str, RuntimeInfo] = {}

RUNTIMES["aider"] = RuntimeInfo(
    name="aider",
    title="Aider",
    installer="aider_install:install_agent",
    doc="docs/integrations/aider.md",
    version="0.86",
    tested="documented JSON",
    doctor=(Doctor("no .aider.conf.yml settings (rehydrate init --agent aider)", "aider:check"),),
    support={
        "inject": Support(True, "`read:` the three ledgers in .aider.conf.yml"),
        "refuse": Support(False, "Aider has no hook before a shell command runs"),
        "refuse_unreadable": Support(False, "Aider has no hook before a shell command runs"),
        "capture": Support(False, "Aider has no hook after a shell command fails"),
        "hold_stop": Support(
            False, "no stop hook; `git-commit-verify: true` runs the guard on its commits"
        ),
        "compaction": Support(False, "no compaction hook; the ledgers are re-read every turn"),
    },
)

RUNTIMES["claude"] = RuntimeInfo(
    name="claude",
    hooks=Hooks(
        title="Claude Code",
        help="Claude Code hooks: session-start, subagent-start, pre-tool-use, "
        "post-tool-use-failure, pre-compact, post-compact, stop.",
        events={
            "session-start": "Print the capped rehydration context; the full prompt goes to "
            ".rehydrate/.",
            "subagent-start": "Print the ledger core for a subagent; it holds constraints, "
            "failures, next action.",
            "pre-tool-use": "Deny a repeated failed attempt; hold the first call after a "
            "compaction.",
            "post-tool-use-failure": "Capture a failed shell command; it stays until recorded "
            "or dismissed.",
            "pre-compact": "Tell the summariser what to keep; refuse compacting uncommitted "
            "ledgers.",
            "post-compact": "Verify the summary as the model sees it; print the verdict.",
            "stop": "Hold the stop once while anything is unrecorded; ledger changes, captured "
            "failures.",
        },
        unread={
            "session-start": NO_CONTEXT,
            "subagent-start": NO_CONTEXT,
            "pre-tool-use": UNCHECKED,
            "post-tool-use-failure": NOT_CAPTURED,
            "pre-compact": "compaction not checked",
            "post-compact": "summary not verified",
            "stop": NOT_CHECKED,
        },
        fail={
            "pre-tool-use": REFUSE,
            "session-start": Fail("inject"),
            "subagent-start": Fail("inject"),
            "stop": HOLD,
            "pre-compact": MANUAL,
        },
        project_vars=("CLAUDE_PROJECT_DIR",),
    ),
    title="Claude Code",
    installer="claude_install:install_agent",
    hook_file=HookFile(
        ".claude/settings.json",
        Layout(
            "claude",
            grouped=True,
            extra={"type": "command"},
            match_all=(None, "", "*"),
            typed=True,
            launcher=("sh", "${CLAUDE_PLUGIN_ROOT}/hooks/rehydrate-hook"),
            hooks_fix="make 'hooks' an object of event name -> list",
            list_fix="make hooks.{event} a list of matcher groups",
        ),
        {
            "SessionStart": (None, "session-start", {}),
            "SubagentStart": (None, "subagent-start", {}),
            "PreToolUse": ("*", "pre-tool-use", {}),
            "PostToolUseFailure": ("Bash", "post-tool-use-failure", {}),
            "PreCompact": (None, "pre-compact", {}),
            "PostCompact": (None, "post-compact", {}),
            "Stop": (None, "stop", {}),
        },
    ),
    launch_files=(".claude/settings.json",),  # what init writes (a local file is yours)
    doc="docs/integrations/claude-code.md",
    version="2.1.332",
    tested="real client",
    doctor=(
        Doctor(
            "no hooks in .claude/settings.json (rehydrate init --claude)",
            "claude_settings:check",
            "claude-settings",
        ),
        Doctor(
            "not installed (claude plugin install rehydrate@rehydrate)",
            "claude_plugin:check",
            "claude-plugin",
        ),
    ),
    support=_all(),
)

RUNTIMES["cline"] = RuntimeInfo(
    name="cline",
    hooks=Hooks(
        title="Cline",
        help="Cline hooks (documented JSON): task-start, task-resume, pre-tool-use, post-tool-use.",
        events={
            "task-start": "Give the capped rehydration core; as contextModification.",
            "task-resume": "Give the core again; for a resumed task.",
            "pre-tool-use": "Cancel a repeated failed attempt; any command while the ledger "
            "cannot be read.",
            "post-tool-use": "Capture a failed command; kept until it is recorded or dismissed.",
        },
        unread={
            "task-start": NO_CONTEXT,
            "task-resume": NO_CONTEXT,
            "pre-tool-use": "allowed unchecked",
            "post-tool-use": "not captured",
        },
        fail={"pre-tool-use": REFUSE},
        bypass=".clinerules/hooks",
    ),
    title="Cline",
    installer="cline:install_agent",
    launch_files=tuple(
        f".clinerules/hooks/{e}" for e in ("TaskStart", "TaskResume", "PreToolUse", "PostToolUse")
    ),
    doc="docs/integrations/cline.md",
    version="3.36",
    tested="documented JSON",
    doctor=(Doctor("no hooks in .clinerules/hooks (rehydrate init --agent cline)", "cline:check"),),
    support={
        "inject": Support(True, "TaskStart / TaskResume `contextModification`"),
        "refuse": Support(True, "PreToolUse `cancel` on execute_command"),
        "refuse_unreadable": Support(True, "PreToolUse `cancel` on execute_command"),
        "capture": Support(True, "PostToolUse on a failed execute_command"),
        "hold_stop": Support(False, "Cline has no hook that can keep a task from completing"),
        "compaction": Support(
            False, "PreCompact can add context but Cline gives no summary to verify"
        ),
    },
)

RUNTIMES["codex"] = RuntimeInfo(
    name="codex",
    hooks=Hooks(
        title="Codex CLI",
        help="Codex CLI hooks: session-start, pre-tool-use, post-tool-use, pre-compact, "
        "post-compact, stop; and trust.",
        events={
            "session-start": "Print the capped rehydration context; the full prompt goes to "
            ".rehydrate/.",
            "pre-tool-use": "Deny a repeated failed attempt; hold the first call after a "
            "compaction.",
            "post-tool-use": "Capture a failed shell command; its exit code comes from the "
            "rollout.",
            "pre-compact": "Record the compaction; refuse compacting uncommitted ledgers by hand.",
            "post-compact": "Verify the summary in the rollout; against the ledgers.",
            "stop": "Block the stop once; while ledgers or captured failures are unrecorded.",
        },
        unread={
            "session-start": NO_CONTEXT,
            "pre-tool-use": UNCHECKED,
            "post-tool-use": NOT_CAPTURED,
            "pre-compact": "compaction not checked",
            "post-compact": "summary not verified",
            "stop": NOT_CHECKED,
        },
        fail={
            "pre-tool-use": REFUSE,
            "session-start": Fail("inject"),
            "stop": HOLD,
            "pre-compact": MANUAL,
        },
    ),
    title="Codex CLI",
    installer="codex_install:install_agent",
    hook_file=HookFile(
        ".codex/hooks.json",
        Layout("codex", grouped=True, extra={"type": "command"}),
        {
            "SessionStart": (None, "session-start", {}),
            "PreToolUse": (None, "pre-tool-use", {}),
            "PostToolUse": (None, "post-tool-use", {}),
            "PreCompact": (None, "pre-compact", {}),
            "PostCompact": (None, "post-compact", {}),
            "Stop": (None, "stop", {}),
        },
    ),
    launch_files=(".codex/hooks.json",),
    doc="docs/integrations/codex.md",
    version="0.171.0",
    tested="real client",
    doctor=(Doctor("", "codex:check"),),
    support={
        "inject": Support(True, "SessionStart (startup, resume, clear, compact), 10,000 bytes"),
        "refuse": Support(True, "PreToolUse `permissionDecision: deny`"),
        "refuse_unreadable": Support(True, "PreToolUse `permissionDecision: deny`"),
        "capture": Support(True, "PostToolUse, exit code read from the rollout file"),
        "hold_stop": Support(True, "Stop `decision: block`, once"),
        "compaction": Support(
            True,
            "verified from the rollout's `compacted` line; not shaped: PreCompact's output "
            "does not reach the summariser",
        ),
    },
)

RUNTIMES["copilot"] = RuntimeInfo(
    name="copilot",
    hooks=Hooks(
        title="Copilot CLI",
        help="Copilot CLI hooks: one subcommand per event (below), the event JSON on stdin.",
        events={
            "session-start": "Rebuild the core file the next session reads.",
            "session-end": "Rebuild the core file the next session reads.",
            "pre-tool-use": "Deny a bash command that repeats a failed attempt.",
            "post-tool-use": "Capture a failed bash command.",
            "agent-stop": "Block the end of the turn once while ledgers are unrecorded.",
        },
        unread={
            "session-start": "core not refreshed",
            "session-end": "core not refreshed",
            "pre-tool-use": UNCHECKED,
            "post-tool-use": NOT_CAPTURED,
            "agent-stop": NOT_CHECKED,
        },
        fail={"pre-tool-use": REFUSE},
    ),
    title="GitHub Copilot CLI",
    installer="copilot_install:install_agent",
    hook_file=HookFile(
        ".github/hooks/rehydrate.json",
        Layout(
            "copilot",
            grouped=False,
            key="bash",
            extra={"type": "command"},
            pinned={"version": 1},
            hooks_fix="make 'hooks' an object",
            list_fix="make it a list",
        ),
        {
            event: (None, sub, {"timeoutSec": 60})
            for event, sub in (
                ("sessionStart", "session-start"),
                ("sessionEnd", "session-end"),
                ("preToolUse", "pre-tool-use"),
                ("postToolUse", "post-tool-use"),
                ("agentStop", "agent-stop"),
            )
        },
    ),
    launch_files=(".github/hooks/rehydrate.json",),
    doc="docs/integrations/copilot.md",
    version="1.0.102",
    tested="real client",
    doctor=(
        Doctor("no .github/hooks/rehydrate.json (rehydrate init --agent copilot)", "copilot:check"),
    ),
    support={
        "inject": Support(
            True,
            "the core in .github/instructions/rehydrate-core.instructions.md, rebuilt at each "
            "session's start and end (sessionStart output is not processed)",
        ),
        "refuse": Support(True, "preToolUse `permissionDecision: deny`"),
        "refuse_unreadable": Support(True, "preToolUse `permissionDecision: deny`"),
        "capture": Support(True, "postToolUse, exit code at the end of the bash result"),
        "hold_stop": Support(True, "agentStop `decision: block`: the reason is the next prompt"),
        "compaction": Support(
            False, "preCompact's output is not processed: no shaping, no summary to verify"
        ),
    },
)

RUNTIMES["cursor"] = RuntimeInfo(
    name="cursor",
    hooks=Hooks(
        title="Cursor",
        help="Cursor hooks (documented JSON): session-start, before-shell-execution, stop.",
        events={
            "session-start": "Give the capped rehydration core; as additional_context.",
            "before-shell-execution": "Deny a repeated failed attempt; any command while the "
            "ledger cannot be read.",
            "stop": "Follow up once; while ledgers or captured failures are unrecorded.",
        },
        unread={"session-start": NO_CONTEXT, "stop": NOT_CHECKED},
        fail={"before-shell-execution": REFUSE},
    ),
    title="Cursor",
    installer="cursor:install_agent",
    hook_file=HookFile(
        ".cursor/hooks.json",
        Layout("cursor", grouped=False),
        {
            "sessionStart": (None, "session-start", {}),
            "beforeShellExecution": (None, "before-shell-execution", {}),
            "stop": (None, "stop", {}),
        },
        base={"version": 1},
    ),
    launch_files=(".cursor/hooks.json",),
    doc="docs/integrations/cursor.md",
    version="2.0",
    tested="documented JSON",
    doctor=(Doctor(),),
    support={
        "inject": Support(
            True, "sessionStart `additional_context`, and .cursor/rules/rehydrate.mdc"
        ),
        "refuse": Support(True, "beforeShellExecution `permission: deny`"),
        "refuse_unreadable": Support(True, "beforeShellExecution `permission: deny`"),
        "capture": Support(
            False, "afterShellExecution carries the output and duration, no exit code"
        ),
        "hold_stop": Support(True, "stop `followup_message`, once (`loop_count`)"),
        "compaction": Support(False, "Cursor has no hook around its summarisation"),
    },
)

RUNTIMES["gemini"] = RuntimeInfo(
    name="gemini",
    hooks=Hooks(
        title="Gemini CLI",
        help="Gemini CLI hooks: one subcommand per event (below), the event JSON on stdin.",
        events={
            "session-start": "Build the capped core for the session.",
            "before-model": "Put the core before the first message; check a summary.",
            "before-tool": "Deny a shell command that repeats a failed attempt.",
            "after-tool": "Capture a failed shell command; name a close failed attempt.",
            "after-agent": "Deny the end of the turn once while unrecorded.",
        },
        unread={
            "session-start": "no context prepared",
            "before-model": NO_CONTEXT,
            "before-tool": UNCHECKED,
            "after-tool": NOT_CAPTURED,
            "after-agent": NOT_CHECKED,
        },
        fail={"before-tool": REFUSE, "after-agent": HOLD},
        project_vars=("GEMINI_PROJECT_DIR",),
    ),
    title="Gemini CLI",
    installer="gemini_install:install_agent",
    hook_file=HookFile(
        ".gemini/settings.json",
        Layout(
            "gemini",
            grouped=True,
            extra={"type": "command"},
            join=True,
            hooks_fix="make 'hooks' an object",
            list_fix="make it a list",
        ),
        {  # never PostCompact: Gemini CLI rejects the settings file then
            event: (matcher, sub, {"name": f"rehydrate-{sub}"})
            for event, matcher, sub in (
                ("SessionStart", None, "session-start"),
                ("BeforeModel", None, "before-model"),
                ("BeforeTool", "run_shell_command", "before-tool"),
                ("AfterTool", "run_shell_command", "after-tool"),
                ("AfterAgent", None, "after-agent"),
            )
        },
    ),
    launch_files=(".gemini/settings.json",),
    doc="docs/integrations/gemini.md",
    version="0.61.0",
    tested="real client",
    doctor=(Doctor("", "gemini:check"),),
    support={
        "inject": Support(True, "BeforeModel `llm_request`: the core in every model request"),
        "refuse": Support(True, "BeforeTool `decision: deny`"),
        "refuse_unreadable": Support(True, "BeforeTool `decision: deny`"),
        "capture": Support(True, "AfterTool, `Exit Code: N` in the result"),
        "hold_stop": Support(True, "AfterAgent `decision: deny`, once (`stop_hook_active`)"),
        "compaction": Support(
            True,
            "verified from the summary in the next request; not shaped: PreCompress's output "
            "does not reach the summariser",
        ),
    },
)

RUNTIMES["kiro"] = RuntimeInfo(
    name="kiro",
    hooks=Hooks(
        title="Kiro CLI",
        help="Kiro CLI hooks (documented JSON): agent-spawn, pre-tool-use.",
        events={
            "agent-spawn": "Print the capped rehydration core; Kiro adds stdout to the context.",
            "pre-tool-use": "Exit 2 on a repeated failed attempt; on any shell command while "
            "the ledger cannot be read.",
        },
        unread={"agent-spawn": NO_CONTEXT, "pre-tool-use": "allowed unchecked"},
        fail={"pre-tool-use": Fail("exit2")},
    ),
    title="Kiro CLI",
    installer="kiro:install_agent",
    hook_file=HookFile(
        ".kiro/agents/rehydrate.json",
        Layout("kiro", grouped=False),
        {
            "agentSpawn": (None, "agent-spawn", {}),
            "preToolUse": (None, "pre-tool-use", {"matcher": "*"}),
        },
        base={
            "name": "rehydrate",
            "description": "Works from the rehydrate ledgers: their core at spawn, failed "
            "attempts refused",
            "tools": ["*"],
        },
    ),
    launch_files=(".kiro/agents/rehydrate.json",),
    doc="docs/integrations/kiro.md",
    version="2.16",
    tested="documented JSON",
    doctor=(Doctor("no .kiro/agents/rehydrate.json (rehydrate init --agent kiro)"),),
    support={
        "inject": Support(True, "agentSpawn stdout is added to the context"),
        "refuse": Support(True, "preToolUse exit 2 on execute_bash, stderr to the model"),
        "refuse_unreadable": Support(True, "preToolUse exit 2 on execute_bash"),
        "capture": Support(False, "no exit code is documented in postToolUse's tool_response"),
        "hold_stop": Support(False, "a stop hook cannot block (exit 2 is for preToolUse only)"),
        "compaction": Support(
            False, "pre/postCompact carry no summary to verify; the core returns at agentSpawn"
        ),
    },
)


RUNTIMES["opencode"] = RuntimeInfo(
    name="opencode",
    hooks=Hooks(
        title="OpenCode",
        help="OpenCode hooks: one subcommand per event (below), the event JSON on stdin.",
        events={
            "system": "The capped core for the system prompt.",
            "compacting": "What the compaction summary must keep, for the summariser.",
            "tool-before": "Deny a bash command that repeats a failed attempt.",
            "tool-after": "Capture a failed bash command; name a close failed attempt.",
            "idle": "Continue the session once while ledgers are unrecorded.",
        },
        unread={
            "system": NO_CONTEXT,
            "compacting": "compaction not shaped",
            "tool-before": UNCHECKED,
            "tool-after": NOT_CAPTURED,
            "idle": NOT_CHECKED,
        },
        fail={"tool-before": Fail("refuse", when=("tool", "bash"))},
    ),
    title="OpenCode",
    installer="opencode_install:install_agent",
    launch_files=(".opencode/plugins/rehydrate.js",),
    doc="docs/integrations/opencode.md",
    version="1.18.33",
    tested="real client",
    doctor=(
        Doctor(
            "no .opencode/plugins/rehydrate.js (rehydrate init --agent opencode)", "opencode:check"
        ),
    ),
    support={
        "inject": Support(True, "plugin: the core in every system prompt"),
        "refuse": Support(True, "plugin: an Error thrown in tool.execute.before"),
        "refuse_unreadable": Support(True, "plugin: an Error thrown in tool.execute.before"),
        "capture": Support(True, "plugin: tool.execute.after `metadata.exit`"),
        "hold_stop": Support(
            True,
            "under `opencode serve` and the TUI (session.idle, promptAsync); not in "
            "`opencode run`, which exits at the first idle",
        ),
        "compaction": Support(
            True, "shaped (experimental.session.compacting); the summary read back and verified"
        ),
    },
)


def wired_runtimes(root: Path) -> list[str]:
    """The runtimes whose launch lines this repository holds (``rehydrate hook <name>`` in
    one of its ``launch_files``): ``hook install`` rewrites those lines to the current form."""
    found = []
    for name, info in RUNTIMES.items():
        for relpath in info.launch_files:
            from ..readlimit import read_text

            try:
                text = read_text(root / relpath, errors="replace")
            except OSError:
                continue
            if f"hook {name} " in text or f'"hook", "{name}"' in text:
                found.append(name)
                break
    return found


def hook_file(name: str) -> HookFile:
    """Runtime ``name``'s JSON hook file (a LookupError for a runtime without one)."""
    found = RUNTIMES[name].hook_file
    if found is None:
        raise LookupError(f"runtime {name!r} has no JSON hook file in RUNTIMES")
    return found


def installer(name: str) -> Installer:
    """The ``install_agent`` function of runtime ``name``, imported now (no installer of
    its own: its row's hook file merged, ``config_merge.install_row``)."""
    module, _, function = (RUNTIMES[name].installer or ROW_INSTALLER).partition(":")
    if not RUNTIMES[name].installer:  # (name, root, python): the row's own
        from functools import partial

        row: Callable[[str, Path, str], list[Installed]]
        row = getattr(importlib.import_module(f"rehydrate.agents.{module}"), function)
        return partial(row, name)
    found: Installer = getattr(importlib.import_module(f"rehydrate.agents.{module}"), function)
    return found
