"""Wiring rehydrate into Copilot CLI: ``.github/hooks/rehydrate.json`` and a section of
``.github/copilot-instructions.md``.

The hooks file is rehydrate's own (one command hook per event, the portable launch line
of ``rehydrate hook copilot <event>``, launchline.py); other keys of the user's in it are
kept. Copilot CLI does not process sessionStart's output, so the context goes through the
instructions file Copilot reads into every session: a section between ``<!--
rehydrate:begin -->`` and ``<!-- rehydrate:end -->``, replaced in place, the rest of the
file untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..readlimit import read_text
from . import config_merge
from .copilot import CORE_FILE, HOOKS_FILE, write_core
from .runtimes import Installed, hook_file

NAME = "copilot"
INSTRUCTIONS_FILE = ".github/copilot-instructions.md"
BEGIN = "<!-- rehydrate:begin -->"
END = "<!-- rehydrate:end -->"
TRUST_NOTE = (
    "Copilot CLI loads repository hooks only in a trusted folder: trust it when asked "
    "(kept in ~/.copilot/config.json trusted_folders)"
)
SECTION = """\
## rehydrate: this repository's state is in ledgers

- Before acting, read the ledgers: {spec} (constraints and decisions), {task} (the next
  action, phases, obligations) and {failures} (failed attempts). `rehydrate prompt`
  prints them as one prompt. They are the source of truth, not what you remember.
- Keep every MUST / MUST NOT constraint. Never repeat a failed attempt: use its workaround
  (a repeat is refused before it runs).
- Record a command that failed in {failures} before you stop (`rehydrate fail add`), and
  commit ledger changes (`git add docs && git commit`).
"""


def merge_hooks(current: Mapping[str, object] | None) -> tuple[dict[str, object], bool]:
    return config_merge.merge(current, hook_file(NAME))


def section(root: Path) -> str:
    from ..config import load_config

    config = load_config(root)
    paths = {k: config.path_of(k) for k in ("spec", "task", "failures")}
    return f"{BEGIN}\n{SECTION.format(**paths)}{END}\n"


def merged_instructions(current: str | None, wanted: str) -> str:
    """``current`` with rehydrate's section replaced (or appended)."""
    if not current:
        return wanted
    start, end = current.find(BEGIN), current.find(END)
    if start != -1 and end > start:
        tail = current[end + len(END) :].removeprefix("\n")
        return current[:start] + wanted + tail
    return current.rstrip("\n") + "\n\n" + wanted


def install_agent(root: Path, python: str) -> list[Installed]:
    """Write or merge the hooks file and the instructions section (idempotent)."""
    from ..ledgers.atomicfile import write_in_repo

    done = [Installed(config_merge.install_json(root, hook_file(NAME), python), HOOKS_FILE)]
    path = root / INSTRUCTIONS_FILE
    try:
        text: str | None = read_text(path)
    except FileNotFoundError:
        text = None
    merged = merged_instructions(text, section(root))
    if merged == text:
        done.append(Installed("unchanged", INSTRUCTIONS_FILE, TRUST_NOTE))
    else:
        write_in_repo(root, INSTRUCTIONS_FILE, merged.encode("utf-8"), create_dirs=True)
        what = "created" if text is None else "updated"
        done.append(Installed(what, INSTRUCTIONS_FILE, TRUST_NOTE))
    excluded = exclude_core(root)
    existed = (root / CORE_FILE).exists()
    changed = bool(write_core(str(root)))  # and by every session's start and end
    what = "unchanged" if not changed else "updated" if existed else "created"
    note = "kept out of git by .git/info/exclude" if excluded else ""
    done.append(Installed(what, CORE_FILE, note))
    return done


def exclude_core(root: Path) -> bool:
    """List the core file in ``.git/info/exclude`` (local: no tracked file changes); True
    when it is listed."""
    from .. import git

    repo = git.find_repo(root)
    relpath = git.git_path(repo, "info/exclude")  # whole, line breaks too
    path = Path(relpath) if Path(relpath).is_absolute() else root / relpath
    line = f"/{CORE_FILE}"
    try:
        current = read_text(path)
    except FileNotFoundError:
        current = ""
    if line in current.splitlines():
        return True
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(("" if not current or current.endswith("\n") else "\n") + line + "\n")
    return True
