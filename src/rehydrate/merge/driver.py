"""The git side of the semantic merge driver: registering it, and running it on git's files.

``register_merge_driver`` writes one ``<ledger path> merge=rehydrate`` line per
configured ledger into ``.gitattributes`` (commit it, so every clone and
worktree merges ledgers the same way) and sets ``merge.rehydrate.driver`` /
``merge.rehydrate.name`` in the repository's git config (shared by its linked
worktrees; every clone runs ``rehydrate init`` or ``rehydrate hook install``
once). Both steps are idempotent. ``run_driver`` is what
``rehydrate merge-driver %O %A %B %P`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import git
from ..config import Config
from ..git import changes as git_changes
from ..readlimit import read_bytes
from .result import Conflict

DRIVER = "rehydrate"
NAME = "rehydrate semantic ledger merge (union by ID, furthest allowed state)"
ATTRIBUTES = ".gitattributes"
NOTES_SHOWN = 20  # notes printed one per line; the rest are summarised on one line


def driver_command() -> str:
    """The configured driver: this Python's rehydrate, by absolute path (no PATH lookup),
    isolated (launchline.py: nothing in the work tree or PYTHON* variables is imported)."""
    from ..launchline import command

    return command("merge-driver") + " %O %A %B %P"


def _pattern(path: str) -> str:
    """A .gitattributes pattern that matches exactly ``path`` (quoted when it has spaces)."""
    special = "*?[\\"
    escaped = "".join("\\" + c if c in special else c for c in path)
    if " " in escaped or '"' in escaped:
        return '"' + escaped.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "/" + escaped if "/" not in escaped.strip("/") else escaped


def attribute_lines(config: Config) -> list[str]:
    """One ``<path> merge=rehydrate`` line per ledger, in spec, task, failures order."""
    from ..ledgers import KINDS

    return [f"{_pattern(config.path_of(kind))} merge={DRIVER}" for kind in KINDS]


def register_merge_driver(
    repo: git.Repo, config: Config, *, command: str | None = None
) -> list[str]:
    """Register the driver for the three ledgers (attributes and git config); idempotent.

    Returns what it did, one line per action, for the caller to show.
    """
    actions: list[str] = []
    target = repo.root / ATTRIBUTES
    try:
        raw = read_bytes(target) if target.exists() else b""
    except OSError as exc:
        from ..errors import RehydrateError

        raise RehydrateError(
            f"cannot read {ATTRIBUTES}: {exc}",
            file=ATTRIBUTES,
            code="attributes_unreadable",
            fix="check the file's permissions",
        ) from None
    text = raw.decode("utf-8", "surrogateescape")
    present = {" ".join(line.split()) for line in text.splitlines()}
    missing = [line for line in attribute_lines(config) if line not in present]
    if missing:
        newline = "\r\n" if "\r\n" in text else "\n"
        prefix = "" if not text or text.endswith("\n") else newline
        block = prefix + "".join(line + newline for line in missing)
        from ..ledgers.atomicfile import write_in_repo

        write_in_repo(repo.root, ATTRIBUTES, raw + block.encode("utf-8", "surrogateescape"))
        actions.extend(
            f"{'created' if not raw else 'updated':<9} {ATTRIBUTES}: {line}" for line in missing
        )
    else:
        actions.append(f"{'kept':<9} {ATTRIBUTES} (merge={DRIVER} for the three ledgers)")
    for key, value in (
        (f"merge.{DRIVER}.name", NAME),
        (f"merge.{DRIVER}.driver", command or driver_command()),
    ):
        current = git.config_get(repo, key, local=True)
        if current == value:
            actions.append(f"{'kept':<9} git config {key}")
            continue
        git.config_set(repo, key, value)
        actions.append(f"{'updated' if current is not None else 'set':<9} git config {key}")
    return actions


def _parsed_before(repo: git.Repo, config: Config, kind: str) -> frozenset[str]:
    """Failure-ledger blobs the guard parsed at commit time (its own cache), so the driver
    need not parse HEAD's 10,000-row ledger again; empty for the other ledgers."""
    if kind != "failures":
        return frozenset()
    from ..guard.fastpath import load_trusted

    return load_trusted(repo, config)


def _write(path: Path, data: bytes) -> None:
    from ..ledgers.atomicfile import atomic_write

    atomic_write(path, data)


@dataclass(frozen=True)
class DriverOutcome:
    """What the driver did: exit code (0 merged, 1 conflict) and messages for stderr."""

    code: int
    messages: list[str] = field(default_factory=list)


def run_driver(
    base: Path,
    ours: Path,
    theirs: Path,
    path: str,
    *,
    marker_size: int = 7,
    repo: git.Repo | None = None,
    config: Config | None = None,
) -> DriverOutcome:
    """Merge git's three temp files for ledger ``path``; the result goes INTO ``ours``."""
    from ..config import load_config
    from ..ledgers import KINDS
    from .ledger import merge_ledger

    repo = repo or git.find_repo()
    if config is None:
        config = load_config(repo.root)
    relative = path.replace("\\", "/").lstrip("/")
    kinds = {config.path_of(k): k for k in KINDS}
    kind = kinds.get(relative)
    from ..readlimit import read_path

    # git's three temp files; a hostile %O/%A/%B (e.g. /dev/zero) is bounded like a ledger
    data = [read_path(p, config.max_ledger_bytes) for p in (base, ours, theirs)]
    if kind is None:
        merged, clean = git_changes.merge_file(
            data[1],
            data[0],
            data[2],
            marker_size=marker_size,
            labels=(f"ours:{path}", "base", f"theirs:{path}"),
        )
        _write(ours, merged)
        note = (
            f"rehydrate merge-driver: {path} is not a configured ledger "
            f"({', '.join(sorted(kinds))}); used git's text merge"
        )
        return DriverOutcome(
            0 if clean else 1, [note] + ([] if clean else [f"{path}: text conflict"])
        )

    def merge_text(o: bytes, b: bytes, t: bytes) -> tuple[bytes, bool]:
        return git_changes.merge_file(
            o, b, t, marker_size=marker_size, labels=(f"ours:{path}", "base", f"theirs:{path}")
        )

    result = merge_ledger(
        kind,
        data[0],
        data[1],
        data[2],
        relative,
        section_aliases=config.section_aliases,
        column_aliases=config.column_aliases,
        max_bytes=config.max_ledger_bytes,
        merge_text=merge_text,
        marker_size=marker_size,
        labels=("ours", "base", "theirs"),
        trusted=_parsed_before(repo, config, kind),
        object_format=repo.object_format,
    )
    _write(ours, result.data)
    shown = result.notes[:NOTES_SHOWN]
    messages = [f"rehydrate merge-driver: {note}" for note in shown]
    if len(result.notes) > len(shown):
        renamed = ", ".join(
            f"{old}->{new}" for old, new in list(result.renamed.items())[len(shown) :]
        )
        messages.append(
            f"rehydrate merge-driver: ... and {len(result.notes) - len(shown)} more: {renamed}"
        )
    targets = resolvable(kind, relative, config, data, result.conflicts)
    messages.extend(_conflict_lines(relative, result.conflicts, targets))
    return DriverOutcome(1 if result.conflicts else 0, messages)


def _conflict_lines(
    path: str, conflicts: list[Conflict], targets: dict[Conflict, str]
) -> list[str]:
    """One line per conflict (naming `merge resolve` where it applies), and what to do."""
    out = []
    for conflict in conflicts:
        line = f"rehydrate merge-driver: {path}: CONFLICT {conflict}"
        target = targets.get(conflict)
        if target:
            line += f" -> `rehydrate merge resolve {target} --take ours` (or `--take theirs`)"
        out.append(line)
    if not conflicts:
        return out
    ids = sorted({c.item_id for c in conflicts if c.item_id})
    named = f" ({', '.join(ids)})" if ids else ""
    steps = []
    if targets:
        steps.append(
            "run `rehydrate merge resolve ID --take ours|theirs` for each (it keeps one "
            "side's version and records the other; docs/merging.md)"
        )
    if any(c not in targets for c in conflicts):
        other = "other " if targets else ""
        steps.append(f"resolve the {other}marked rows by hand and `rehydrate guard --staged`")
    out.append(
        f"rehydrate merge-driver: {path}: {len(conflicts)} "
        f"conflict(s){named}: {'; '.join(steps)}; then `git commit`"
    )
    return out


def resolvable(
    kind: str, path: str, config: Config, data: list[bytes], conflicts: list[Conflict]
) -> dict[Conflict, str]:
    """Conflicts that ``rehydrate merge resolve`` settles: conflict -> what to name."""
    from ..errors import RehydrateError
    from ..ledgers import Context
    from .resolve import contested_targets

    wanted: dict[Conflict, str] = {}
    for conflict in conflicts:
        if conflict.code == "next_action_conflict":
            wanted[conflict] = "next-action"
        elif conflict.code == "frontmatter_conflict" and "'objective'" in conflict.message:
            wanted[conflict] = "objective"
        elif conflict.item_id:
            wanted[conflict] = conflict.item_id
    if not wanted:
        return {}
    ctx = Context(path, config.section_aliases, config.column_aliases, config.max_ledger_bytes)
    try:
        found = contested_targets(kind, ctx, data[0], data[1], data[2], set(wanted.values()))
    except RehydrateError:  # a side that does not parse: by hand
        return {}
    return {c: t for c, t in wanted.items() if t in found}
