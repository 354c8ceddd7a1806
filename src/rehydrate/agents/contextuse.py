"""Clear, don't compact: tell the agent to record its state once its context passes the
limit ``rehydrate run --context-limit`` set, so the loop can start a fresh session.

Active only inside ``rehydrate run`` (``LIMIT_ENV`` set in the agent's environment), so a
plain session pays one environment lookup. The runtime's transcript (Claude Code: the
``transcript_path`` JSONL every hook gets, one line per message with its ``usage``) is read
from its tail only: the latest main-thread message's usage is the context in use. The
first tool call past the limit is refused once with the instruction to update the
ledgers and commit; the note ``NOTE`` tells the loop, which ends the session once the
ledgers are committed (or after its wrap-up time).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from .core import REFUSE, STATE_DIR, Outcome

LIMIT_ENV = "REHYDRATE_RUN_CONTEXT_LIMIT"  # tokens; set by rehydrate run for its sessions
SESSION_ENV = "REHYDRATE_RUN_SESSION"  # the session's number in the run
NOTE = f"{STATE_DIR}/run-context.json"
TAIL = 256 * 1024  # bytes of the transcript read from its end
USAGE_KEYS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)
INSTRUCTION = (
    "rehydrate run: this session's context is at {tokens} tokens, past the limit of "
    "{limit}. Clear, don't compact: update the ledgers and commit, the session ends after "
    "this. Record what you learned (rehydrate fail add for what failed), set the next "
    "action (rehydrate task next ...), move the phases, then commit the ledgers. A fresh "
    "session continues from them."
)


def usage_tokens(usage: object) -> int | None:
    """The context a message's ``usage`` accounts for (input, cache, output tokens)."""
    if not isinstance(usage, dict):
        return None
    total = 0
    for key in USAGE_KEYS:
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            total += value
    return total


def transcript_tokens(path: Path, tail: int = TAIL) -> int | None:
    """The context in use by the latest main-thread message with usage in the transcript's
    last ``tail`` bytes; None when there is none (or the file cannot be read)."""
    from ..errors import RehydrateError
    from ..readlimit import load_json, read_tail

    try:  # only its end (a 10 GB sparse file costs the same), never a FIFO or a device
        data = read_tail(path, tail)
    except (OSError, RehydrateError):
        return None
    for line in reversed(data.splitlines()):
        if b'"usage"' not in line:
            continue
        try:
            entry = load_json(line)
        except ValueError:
            continue  # the partial first line of the tail, or a line being written
        if not isinstance(entry, dict) or entry.get("isSidechain") is True:
            continue  # a subagent's message: not this context
        message = entry.get("message")
        tokens = usage_tokens(message.get("usage") if isinstance(message, dict) else None)
        if tokens:
            return tokens
    return None


def limit_from(environ: Mapping[str, str]) -> int | None:
    from ..environment import count

    return count(LIMIT_ENV, environ)


def read_note(root: Path) -> dict[str, object] | None:
    from ..errors import RehydrateError
    from ..readlimit import SUMMARY_LIMIT, load_json, read_file

    try:
        data = load_json(read_file(root / NOTE, SUMMARY_LIMIT))
    except (OSError, ValueError, RehydrateError):
        return None
    return data if isinstance(data, dict) else None


def check_context(root: Path, transcript: str | None, environ: Mapping[str, str]) -> Outcome | None:
    """Refuse the first tool call past the limit, once per session; else None."""
    limit = limit_from(environ)
    if limit is None or not transcript:
        return None
    from ..environment import raw

    session = raw(SESSION_ENV, environ)
    note = read_note(root)
    if note is not None and note.get("session") == session:
        return None  # told already: let it record and commit
    tokens = transcript_tokens(Path(transcript))
    if tokens is None or tokens < limit:
        return None
    from .. import git
    from ..errors import GitError
    from .store import now, store

    try:  # once per session: the loop waits for a commit after this one
        head = git.head(git.find_repo(root))
    except GitError:
        head = None
    note = {"session": session, "tokens": tokens, "limit": limit, "head": head, "time": now()}
    store(root, NOTE, note)
    return Outcome(REFUSE, INSTRUCTION.format(tokens=tokens, limit=limit))


PROMPT_ENV = (
    "REHYDRATE_RUN_PROMPT"  # the prompt the loop delivered: .rehydrate/sessions/<n>.prompt.md
)
_PROMPT_PATH = r"\.rehydrate/sessions/[0-9]{1,9}\.prompt\.md"


def delivered_prompt(
    root: Path, source: str, environ: Mapping[str, str] = os.environ
) -> str | None:
    """Inside ``rehydrate run``, at a session's start: the pointer that replaces the core
    in the SessionStart context, because the loop already delivered the whole prompt as
    the session's first message (the ledgers reach the agent once). None elsewhere: a
    compacted, cleared or resumed session, a subagent, or no prompt file the loop wrote."""
    value = environ.get(PROMPT_ENV, "")
    if source != "startup" or not re.fullmatch(_PROMPT_PATH, value):
        return None
    path = root / value
    if path.is_symlink() or not path.is_file():
        return None
    return (
        "rehydrate run delivered this session's rehydration prompt (the ledgers' "
        "constraints, failed attempts, task state and next action, read from the work tree) "
        f"as your first message, so it is not repeated here; it is saved at {value}, and "
        "`rehydrate prompt --worktree` rebuilds it."
    )
