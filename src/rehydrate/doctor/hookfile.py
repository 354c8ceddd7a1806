"""The one hook-file check every runtime wired through a hook file uses (Codex, Cursor,
Kiro, Gemini CLI, Copilot CLI): each expected hook wired once, by a program that runs
rehydrate, and the shared launch-line findings (launch_lines.py).

A runtime whose file is read per event (``hooks_in``: Codex, Cursor, Kiro) names the event
in its findings and has a code of its own for a program run by bare name; one whose file
is read as a set of our commands (Gemini CLI, Copilot CLI) names the subcommand alone."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..agents.config_merge import Layout, Ours, Wire, Wired, read_json, wired
from ..errors import RehydrateError
from ..records import NamedTuple
from .context import Context
from .findings import Finding, Outcome


class Codes(NamedTuple):
    """One runtime's finding codes (spelled out in its module, so docs/doctor.md's table
    can be checked against them)."""

    missing: str
    duplicated: str
    broken: str
    invalid: str | None = None  # the hook file cannot be read (``hooks_in``)
    bare: str | None = None  # a program run by bare name; None: probed like an interpreter


# (event, subcommand): the event None where the file is read as a set of our commands
Hook = tuple[str | None, str]


def codes_of(runtime: str) -> Codes:
    """The finding codes of a runtime checked from its row: ``<name>_event_missing``, …"""
    return Codes(
        missing=f"{runtime}_event_missing",
        duplicated=f"{runtime}_hook_duplicated",
        broken=f"{runtime}_hook_interpreter_broken",
        invalid=f"{runtime}_hooks_invalid",
        bare=f"{runtime}_hook_bare",
    )


def row_check(runtime: str) -> Callable[[Context], Outcome]:
    """The doctor check of a runtime's hook file, all from its ``RUNTIMES`` row: every
    event wired once, by a program that runs rehydrate (Cursor, Kiro; Codex adds trust)."""
    from ..agents.runtimes import RUNTIMES, hook_file

    info = RUNTIMES[runtime]
    wiring = hook_file(runtime)

    def check(ctx: Context) -> Outcome:
        """Findings for each missing, doubled or unrunnable hook of ours."""
        hooks, findings = file_findings(
            ctx, wiring.path, wiring.layout, wiring.wires, runtime, info.init, codes_of(runtime)
        )
        if not hooks and not findings:
            return Outcome(None)
        return Outcome(f"{len(hooks)} hooks in {wiring.path}", findings)

    return check


def set_findings(
    ctx: Context, runtime: str, codes: Codes, invalid: str, unreadable: str, own: bool
) -> tuple[list[Wired], list[Finding], Mapping[str, object]] | Outcome:
    """The check of a hook file read as a set of our commands (Gemini CLI, Copilot CLI):
    each subcommand of the row wired once, by a program that runs rehydrate. An Outcome
    when there is nothing more to check: the file cannot be read (finding ``invalid``,
    status ``unreadable``) or is not wired (``own``: the file is ours, so it existing is
    being wired). Else: our hooks, the findings, the file's JSON."""
    from ..agents.runtimes import RUNTIMES, hook_file

    wiring = hook_file(runtime)
    fix = RUNTIMES[runtime].init
    try:
        data = read_json(ctx.root, wiring.path)
    except RehydrateError as exc:
        return Outcome(unreadable, [Finding(invalid, runtime, exc.message, exc.fix or "fix it")])
    found = wired(data or {}, wiring.layout, wiring.path)
    if data is None or not (own or found):
        return Outcome(None)
    expected = [(None, sub) for _, sub, _ in wiring.wires.values()]
    subcommands: list[Hook] = [(None, w.hook.name) for w in found]
    findings = event_findings(runtime, codes, wiring.path, fix, expected, subcommands)
    ours = [(w.hook.name, w.hook) for w in found]
    findings += program_findings(ctx, runtime, codes, wiring.path, fix, ours, by_event=False)
    return found, findings, data


def hooks_in(
    ctx: Context, relpath: str, layout: Layout, name: str, fix: str, codes: Codes
) -> tuple[list[Wired], list[Finding]]:
    """Our hooks in ``relpath``, and a finding when the file cannot be read."""
    if codes.invalid is None:
        raise ValueError(f"{name}: a hook file read per event needs its invalid code")
    try:
        data = read_json(ctx.root, relpath)
    except RehydrateError as exc:
        return [], [Finding(codes.invalid, name, exc.message, exc.fix or fix, file=relpath)]
    return (wired(data, layout) if data is not None else []), []


def file_findings(
    ctx: Context,
    relpath: str,
    layout: Layout,
    table: Mapping[str, Wire],
    name: str,
    fix: str,
    codes: Codes,
) -> tuple[list[Wired], list[Finding]]:
    """The whole check of a hook file read per event (Codex, Cursor, Kiro): our hooks in
    ``relpath``, and a finding per event of ``table`` missing or doubled and per program
    that cannot run rehydrate (or a finding that the file cannot be read)."""
    hooks, findings = hooks_in(ctx, relpath, layout, name, fix, codes)
    if not hooks and not findings:  # not wired here
        return hooks, findings
    expected = [(event, sub) for event, (_, sub, _) in table.items()]
    found: list[Hook] = [(w.event, w.hook.name) for w in hooks]
    findings.extend(event_findings(name, codes, relpath, fix, expected, found))
    ours = [(w.event, w.hook) for w in hooks]
    findings.extend(program_findings(ctx, name, codes, relpath, fix, ours, by_event=True))
    return hooks, findings


def event_findings(
    name: str, codes: Codes, file: str, fix: str, expected: Sequence[Hook], found: Sequence[Hook]
) -> list[Finding]:
    """A finding per expected hook missing from ``found`` or in it more than once."""
    findings = []
    for event, sub in expected:
        count = list(found).count((event, sub))
        command = f"`rehydrate hook {name} {sub}`"
        if count == 0:
            message = (
                f"no rehydrate hook for {event} ({command})"
                if event is not None
                else f"no rehydrate hook runs {command}"
            )
            findings.append(Finding(codes.missing, name, message, fix, file=file))
        elif count > 1:
            message = (
                f"{event} runs {command} {count} times"
                if event is not None
                else f"{command} is wired {count} times"
            )
            findings.append(Finding(codes.duplicated, name, message, fix, file=file))
    return findings


def program_findings(
    ctx: Context,
    name: str,
    codes: Codes,
    file: str,
    fix: str,
    hooks: Sequence[tuple[str, Ours]],
    by_event: bool,
) -> list[Finding]:
    """One finding per program that cannot run rehydrate (a stale or bare path), and the
    shared launch-line findings. ``hooks``: (its event or subcommand, the hook); with
    ``by_event`` each finding names the events whose hooks run the program."""
    from . import launch_lines

    events: dict[tuple[str, str], list[str]] = {}
    for label, ours in hooks:
        if ours.kind != "portable":  # its interpreter: launch_lines' check
            events.setdefault((ours.kind, ours.program), []).append(label)
    programs = list(events.items()) if by_event else sorted(events.items(), key=_program)
    findings = []
    seen = set()
    for (kind, program), names in programs:
        if kind == "bare" and codes.bare is not None:
            where = ctx.which(program)
            found = f"found at {where}" if where else "not on this PATH"
            message = (
                f"the command runs `{program}` by name ({found}); where the runtime's PATH "
                f"lacks it the hook fails; hooks {', '.join(names)}"
            )
            findings.append(Finding(codes.bare, name, message, fix, file=file))
            continue
        if not by_event and program in seen:  # one finding per program
            continue
        seen.add(program)
        problem = ctx.python_problem(program)
        if problem is not None:
            cause = f"{problem} (a moved or deleted virtualenv?)"
            hooks_named = f"; hooks {', '.join(names)}" if by_event else ": the hooks cannot run"
            message = cause + hooks_named
            findings.append(Finding(codes.broken, name, message, fix, file=file))
    launches = [(label, ours.launch) for label, ours in hooks if ours.launch is not None]
    return findings + launch_lines.findings(ctx, name, file, launches, fix)


def _program(item: tuple[tuple[str, str], list[str]]) -> str:
    return item[0][1]
