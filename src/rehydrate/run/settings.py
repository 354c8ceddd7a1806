"""What builds the next prompt comes from HEAD: settings and the prompt template.

The loop reads its settings (``.rehydrate.toml`` / ``pyproject.toml [tool.rehydrate]``)
and the prompt template as HEAD has them, never from the work tree, where an agent could
write a settings file that points a ledger at a stub or a template of its own. A session
that changes either in the work tree (tracked, untracked or ignored alike) and leaves it
uncommitted, or commits a new template, is a violation (``run_settings_changed``), named
with the file; a settings change it commits is judged by the guard like any other.
"""

from __future__ import annotations

import os

from .. import git
from ..config import CONFIG_FILES, Config, config_from_files
from ..errors import ConfigError, RehydrateError
from ..guard.rules import Violation
from ..records import NamedTuple

CODE = "run_settings_changed"
FIX = (
    "a session must not change what builds the next session's prompt: undo the change "
    "(git checkout HEAD -- {path}, or delete it if untracked); to change the settings or "
    "the template, a person commits it between runs"
)
TEMPLATE_LIMIT = 1 << 20


def committed(repo: git.Repo, head: str) -> tuple[Config, str | None]:
    """HEAD's settings and the text of its prompt template (None: no template)."""
    got = git.read_specs(repo, [f"{head}:{name}" for name in CONFIG_FILES])
    config = config_from_files({name: got[f"{head}:{name}"] for name in CONFIG_FILES})
    if config.prompt_template is None:
        return config, None
    data = git.read_specs(repo, [f"{head}:{config.prompt_template}"])[
        f"{head}:{config.prompt_template}"
    ]
    if data is None or len(data) > TEMPLATE_LIMIT:
        raise RehydrateError(
            f"the prompt template {config.prompt_template} is not committed (or is over "
            f"{TEMPLATE_LIMIT} bytes); the run builds prompts from HEAD only",
            file=config.prompt_template,
            code="template_uncommitted",
            fix=f"commit {config.prompt_template} (git add {config.prompt_template} && git "
            "commit), or remove prompt_template from the settings",
        )
    try:
        return config, data.decode("utf-8")
    except UnicodeDecodeError:
        raise RehydrateError(
            "the prompt template is not UTF-8",
            file=config.prompt_template,
            code="template_unreadable",
            fix="save it as UTF-8 and commit it",
        ) from None


class View(NamedTuple):
    """The settings as the work tree has them, and each template file's bytes."""

    files: tuple[tuple[str, bytes | None], ...]  # settings files as the work tree has them
    templates: tuple[tuple[str, bytes | None], ...]


def _read(repo: git.Repo, path: str) -> bytes | None:
    """The file's bytes; None when absent; a marker when it is there but not a regular
    file of sane size (a FIFO, a symlink: never read, never blocking)."""
    from .owner import read_regular

    full = repo.root / path
    if not os.path.lexists(full):
        return None
    try:
        return read_regular(full, TEMPLATE_LIMIT)
    except OSError as exc:
        return f"unreadable: {exc}".encode()


def _relevant(name: str, data: bytes | None) -> bytes | None:
    """The part of a settings file that is settings (pyproject.toml: only its
    ``[tool.rehydrate]`` table counts, the rest is the project's)."""
    if name != "pyproject.toml" or data is None:
        return data
    try:
        found = config_from_files({name: data})
    except ConfigError as exc:
        return f"error: {exc.code}".encode()
    return repr(found._replace(origin=None)).encode() if found != Config() else None


def view(repo: git.Repo, config: Config) -> View:
    files = tuple((name, _relevant(name, _read(repo, name))) for name in CONFIG_FILES)
    paths = {config.prompt_template}
    try:
        texts = {name: _read(repo, name) for name in CONFIG_FILES}
        paths.add(config_from_files(texts).prompt_template)
    except ConfigError:
        pass
    templates = tuple((p, _read(repo, p)) for p in sorted(x for x in paths if x))
    return View(files, templates)


def changed(
    repo: git.Repo, config: Config, start: View, before: str, after: str
) -> tuple[Violation, ...]:
    """What the session changed of the settings or the template, each as a violation."""
    now = view(repo, config)
    out: list[Violation] = []
    was = dict(start.files)
    for name, data in now.files:
        if data != was.get(name):
            out.append(_violation(name, "the settings in the work tree changed in the session"))
    was_t = dict(start.templates)
    for path, data in now.templates:
        if path in was_t and data != was_t[path]:
            out.append(_violation(path, "the prompt template changed in the session"))
    if config.prompt_template and before != after:
        spec = config.prompt_template
        blobs = git.read_specs(repo, [f"{before}:{spec}", f"{after}:{spec}"])
        if blobs[f"{before}:{spec}"] != blobs[f"{after}:{spec}"]:
            out.append(_violation(spec, "the session committed a change to the prompt template"))
    return tuple({(v.path, v.message): v for v in out}.values())


def _violation(path: str, message: str) -> Violation:
    return Violation(CODE, path, None, None, message, FIX.format(path=path))
