"""The rehydration prompt (CONTRACT §6): fixed load order, pinned to SHAs, fenced, budgeted.

``build_prompt`` is a pure function over parsed state and commit information: the
same inputs give byte-identical text (no clock, no environment, stable order, no
re-wrapping). ``gather`` is the one impure step that reads what the builder needs
from git and the work tree; ``load_prompt`` does both.

Everything quoted from a ledger or from git sits inside a fence (``fences``) that no
data line can close; every instruction of the prompt stays outside the fences.
"""

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import git
from ..config import Config
from ..continuity.decision import Decision, decide
from ..continuity.verifications import artifact_blobs
from ..errors import GitError, RehydrateError
from ..git import commits as git_commits
from ..ledgers import KINDS
from ..records import NamedTuple
from ..state import Pin, Source, State
from .fences import fence
from .sections import (
    PromptOptions,
    PromptSection,
    commit_parts,
    failures_listing,
    header,
    prose,
    reconcile_action,
    retired_items,
    spec_section,
    task_section,
)
from .tokens import count_tokens, counter

SCHEMA = "rehydrate/prompt-v1"
# Optional sections, in the order they are cut to fit --max-tokens (docs/prompt.md).
CUT_ORDER: tuple[str, ...] = (
    "commit.diff",
    "commit.stat",
    "spec.prose",
    "task.prose",
    "failures.prose",
    "retired",
    "commit",
    "protocol",
)
_CUT_WHAT: Mapping[str, str] = {
    "commit.diff": "the latest commit's diff",
    "commit.stat": "the latest commit's file list (--stat)",
    "spec.prose": "the Spec prose sections",
    "task.prose": "the Task prose sections",
    "failures.prose": "the Failed attempts prose sections",
    "retired": "the list of retired items",
    "commit": "the latest commit's SHA, subject and date",
    "protocol": "the working protocol",
}


class Prompt(NamedTuple):
    """The built prompt: its text, its parts in order, the decision and the pins."""

    text: str
    sections: tuple[PromptSection, ...]
    decision: Decision
    pins: Mapping[str, Pin]
    head: str | None = None
    commit: str | None = None
    checksum: str = ""
    cut: tuple[str, ...] = ()
    max_tokens: int | None = None
    estimated_tokens: int | None = None
    tokenizer: str | None = None

    def section(self, name: str) -> PromptSection | None:
        return next((s for s in self.sections if s.name == name), None)

    def to_json(self) -> dict[str, object]:
        """``rehydrate/prompt-v1``: pins, decision, sections and the text, deterministic."""
        return {
            "schema": SCHEMA,
            "head": self.head,
            "commit": self.commit,
            "checksum": self.checksum,
            "pins": {
                kind: {
                    "path": p.path,
                    "blob": p.blob,
                    "last_commit": p.last_commit,
                    "source": p.source,
                }
                for kind, p in self.pins.items()
            },
            "decision": self.decision.to_json(),
            "budget": None
            if self.max_tokens is None
            else {
                "max_tokens": self.max_tokens,
                "estimated_tokens": self.estimated_tokens,
                "tokenizer": self.tokenizer,
                "cut": list(self.cut),
            },
            "sections": [
                {"name": s.name, "mandatory": s.mandatory, "text": s.text} for s in self.sections
            ],
            "text": self.text,
        }


class PromptOverBudget(RehydrateError):
    """The mandatory parts (0-3) do not fit --max-tokens: exit 2, nothing written."""


# parts


# A protocol line "[when KIND] ..." is kept only while the ledgers hold a KIND item: a
# rule about approvals costs nothing in a task that has none (docs/prompt.md).
_WHEN = re.compile(r"^([ \t]{0,8})\[when ([a-z]{1,20})\] ")
_NUMBERED = re.compile(r"^\d{1,6}\. ")


def _has(state: State, kind: str) -> bool:
    task = state.ledgers["task"]
    sections = {"approvals": "approvals", "writes": "external writes"}
    if kind not in sections:
        from ..errors import RehydrateError

        raise RehydrateError(
            f"the working protocol says [when {kind}], which is not a condition",
            code="protocol_condition",
            fix=f"use one of: {', '.join(f'[when {k}]' for k in sections)}",
        )
    return bool(task.section(sections[kind]))


def _protocol(options: PromptOptions, state: State) -> str:
    text = options.protocol
    if text is None:
        from ..writers.templates import read_template

        text = read_template("protocol.md")
    lines: list[str] = []
    number = 0
    for line in text.strip("\n").split("\n"):
        when = _WHEN.match(line)
        if when:
            if not _has(state, when[2]):
                continue
            line = when[1] + line[when.end() :]
        numbered = _NUMBERED.match(line)
        if numbered:  # items renumbered after the ones left out
            number += 1
            line = f"{number}. " + line[numbered.end() :]
        lines.append(line)
    return "## 5. Working protocol\n\n" + "\n".join(lines)


# builder


def build_prompt(
    state: State,
    options: PromptOptions,
    *,
    commit_info: git_commits.CommitInfo | None = None,
    worktree_differs: Sequence[str] = (),
    artifacts: Mapping[str, str | None] | None = None,
) -> Prompt:
    """The prompt for ``state``: pure and deterministic; raises PromptOverBudget.

    ``artifacts`` maps a verification's artifact path to its current blob id at the
    pinned source (None: missing); without it every verification is shown as stale.
    """
    decision = decide(state.ledgers)
    sections = [
        PromptSection("header", header(state, decision, worktree_differs), True),
        PromptSection("spec", spec_section(state), True),
        PromptSection("spec.prose", prose(state, "spec"), False),
        PromptSection("task", task_section(state, decision, artifacts), True),
        PromptSection("task.prose", prose(state, "task", skip=("rollback", "next action")), False),
        PromptSection("failures", failures_listing(state).render(), True),
        PromptSection("failures.prose", prose(state, "failures"), False),
        *_claims(options),
        PromptSection("retired", retired_items(state) if options.show_retired else "", False),
        *commit_parts(commit_info, options),
        PromptSection("protocol", _protocol(options, state), False),
    ]
    cut: list[str] = []
    tokens: int | None = None
    tokenizer: str | None = None
    if options.max_tokens is not None:
        tokenizer = counter()[0]
        tokens = count_tokens(_join(sections))
        for name in CUT_ORDER:
            if tokens <= options.max_tokens:
                break
            index = next(i for i, s in enumerate(sections) if s.name == name)
            if not sections[index].text:
                continue
            size = count_tokens(sections[index].text)
            sections[index] = PromptSection(name, _cut_mark(name, size, commit_info), False)
            cut.append(name)
            tokens = count_tokens(_join(sections))
        if tokens > options.max_tokens:
            raise _over_budget(sections, tokens, options.max_tokens, tokenizer)
    return Prompt(
        text=_join(sections),
        sections=tuple(sections),
        decision=decision,
        pins=state.pins,
        head=state.head,
        commit=state.commit,
        checksum=state.checksum,
        cut=tuple(cut),
        max_tokens=options.max_tokens,
        estimated_tokens=tokens,
        tokenizer=tokenizer,
    )


def _claims(options: PromptOptions) -> list[PromptSection]:
    """The claims part, only when a lease is in force (so a prompt without claims is the
    same bytes as before there were claims)."""
    from .claims import claims_section

    text = claims_section(options.claims)
    return [PromptSection("claims", text, True)] if text else []


def _join(sections: Sequence[PromptSection]) -> str:
    return "\n\n".join(s.text for s in sections if s.text) + "\n"


def _cut_mark(name: str, size: int, info: git_commits.CommitInfo | None) -> str:
    see = (
        f" Run `git show {info.sha}` to read it."
        if info and name.startswith("commit")
        else " Read the ledger file itself for it."
        if name.endswith(".prose") or name == "retired"
        else ""
    )
    return f"[cut to fit the token budget (--max-tokens): {_CUT_WHAT[name]} (~{size} tokens).{see}]"


def _over_budget(
    sections: Sequence[PromptSection], total: int, budget: int, tokenizer: str
) -> PromptOverBudget:
    sizes = ", ".join(f"{s.name} ~{count_tokens(s.text)}" for s in sections if s.mandatory)
    return PromptOverBudget(
        f"the mandatory parts of the prompt need ~{total} tokens ({tokenizer}), over "
        f"--max-tokens {budget} even with every optional part cut ({sizes})",
        code="over_budget",
        fix=f"raise --max-tokens to at least {total}, or retire items that no longer apply "
        "(with a reason); rehydrate never drops a constraint or a failure to fit",
    )


# gathering


class PromptInputs(NamedTuple):
    """What ``build_prompt`` needs besides the options, read from git and the work tree."""

    state: State
    commit_info: git_commits.CommitInfo | None
    worktree_differs: list[str]
    artifacts: dict[str, str | None]


def read_protocol(repo: git.Repo, config: Config, template: str | None) -> str | None:
    """The working protocol text: --template FILE, else config prompt_template, else None."""
    path = (
        Path(template)
        if template
        else (repo.root / config.prompt_template if config.prompt_template else None)
    )
    if path is None:
        return None
    from ..readlimit import TEMPLATE_LIMIT, read_file, read_path

    # --template names a file on the command line (a FIFO from <(...) is a stream);
    # prompt_template is a file of the repository: a regular file or an error, never a wait
    read = read_path if template else read_file
    try:
        return read(path, TEMPLATE_LIMIT).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RehydrateError(
            f"cannot read the prompt template ({getattr(exc, 'strerror', None) or exc})",
            file=str(path),
            code="template_unreadable",
            fix="pass an existing UTF-8 file to --template (or fix prompt_template)",
        ) from None


def gather(
    repo: git.Repo,
    config: Config,
    source: Source,
    diff_lines: int,
    head: str | None = None,
    head_known: bool = False,
) -> PromptInputs:
    """Load the pinned state and everything else the prompt shows (the impure part).

    git computes the latest commit's diff while the ledgers are parsed. ``head``: HEAD's
    commit id as the caller found it (``head_known``), else it is asked for.
    """
    from ..state import commit_differs, load_state, resolve, worktree_differs

    try:
        head, commit = resolve(repo, source, head, head_known)
    except GitError as exc:
        if exc.code == "bad_revision" and source.rev == "HEAD" and git.head(repo) is None:
            raise RehydrateError(
                "the repository has no commits yet, so there is no revision to pin the prompt to",
                code="no_commits",
                fix="commit the ledgers (git add docs && git commit), or pass --worktree",
            ) from None
        raise
    shown = commit if source.kind == "rev" else head
    collect = git_commits.start_show_commit(repo, shown, diff_lines) if shown else None
    try:
        current = None
        if source.kind != "staged":  # rev: compared with the pins, and spares git reads
            try:
                current = git.read_worktree(
                    repo, [config.path_of(k) for k in KINDS], config.max_ledger_bytes
                )
            except RehydrateError:
                if source.kind == "worktree":
                    raise
        state = load_state(repo, config, source, (head, commit), current)
        if source.kind == "rev":
            # unreadable in the work tree: say it differs, never fail
            differs = (
                worktree_differs(repo, state.pins, current)
                if current is not None
                else [pin.path for pin in state.pins.values()]
            )
        else:
            differs = commit_differs(repo, state.head, state.pins) if state.head else []
        artifacts = artifact_blobs(repo, state)
    except BaseException:
        if collect is not None:
            collect(cancel=True)
        raise
    return PromptInputs(state, collect() if collect is not None else None, differs, artifacts)


def load_prompt(
    repo: git.Repo,
    config: Config,
    source: Source,
    options: PromptOptions,
    head: str | None = None,
    head_known: bool = False,
) -> Prompt:
    """gather + build_prompt: the prompt for ``source`` with ``options``."""
    inputs = gather(repo, config, source, options.diff_lines, head, head_known)
    if options.claims is None:
        from .known_claims import known_view

        options = options._replace(claims=known_view(repo))
    return build_prompt(
        inputs.state,
        options,
        commit_info=inputs.commit_info,
        worktree_differs=inputs.worktree_differs,
        artifacts=inputs.artifacts,
    )


__all__ = [
    "CUT_ORDER",
    "SCHEMA",
    "Prompt",
    "PromptInputs",
    "PromptOptions",
    "PromptOverBudget",
    "PromptSection",
    "build_prompt",
    "fence",
    "gather",
    "load_prompt",
    "read_protocol",
    "reconcile_action",
]
