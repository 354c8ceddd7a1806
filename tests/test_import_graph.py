"""The package layout holds (STYLE.md, docs/design.md "Layout"): every import, at module
level or inside a function, names a module and a name that exist; no module outside a
package imports that package's private (``_name``) modules; imports point down the
layers only; and neither modules nor packages import each other in a cycle."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "rehydrate"

# Higher layers may import lower ones, never the other way; one layer may import
# itself as long as the graph stays acyclic. The CLI is the top.
LAYERS = (
    # the leaves every layer may use: digests, compiled patterns, records, typing's names
    ("digests", "patterns", "records", "typecheck"),
    # the one quoting path (quote, with redact) sits under errors, which render through it
    ("errors", "readlimit", "environment", "quote", "redact"),
    ("ledgers", "mdblocks", "failtable", "git"),  # mdblocks: code spans, fences, front matter
    ("config", "terminal", "launchline"),  # launchline: how every hook starts rehydrate
    ("state", "diff"),
    ("guard", "merge", "continuity", "prompt", "writers", "views", "agents", "coord"),
    ("run",),  # the ephemeral-worker loop: prompt, guard, continuity and agents together
    ("mcp_server",),  # `rehydrate mcp`: the writers, prompt and views behind the MCP SDK
    ("doctor",),  # checks the wiring every capability installed
    # hookfast: `hook RUNTIME EVENT` without click; exits: how both end on an exception
    ("cli", "hookfast", "exits", "__main__"),
)
LAYER = {unit: depth for depth, units in enumerate(LAYERS) for unit in units}


class Edge(NamedTuple):
    source: str  # importing module, dotted
    target: str  # imported module, dotted
    names: tuple[str, ...]  # names imported from it ('' for a plain `import`)
    line: int


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((SRC / PACKAGE).rglob("*.py"))}


MODULES = _modules()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _edges() -> Iterator[Edge]:
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == PACKAGE:
                        yield Edge(module, alias.name, ("",), node.lineno)
            elif isinstance(node, ast.ImportFrom):
                target = _resolve(module, _is_package(path), node)
                if target.split(".")[0] != PACKAGE:
                    continue
                plain, submodules = [], []
                for alias in node.names:
                    (submodules if f"{target}.{alias.name}" in MODULES else plain).append(
                        alias.name
                    )
                if plain or not submodules:
                    yield Edge(module, target, tuple(plain), node.lineno)
                for name in submodules:
                    yield Edge(module, f"{target}.{name}", ("",), node.lineno)


EDGES = list(_edges())


def _unit(module: str) -> str:
    """The layer unit a module belongs to: its subpackage, or the top-level module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _defined(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.If | ast.Try):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Import | ast.ImportFrom):
                    names.update((a.asname or a.name).split(".")[0] for a in sub.names)
                elif isinstance(sub, ast.FunctionDef | ast.ClassDef):
                    names.add(sub.name)
                elif isinstance(sub, ast.Assign):
                    names.update(t.id for t in sub.targets if isinstance(t, ast.Name))
    return names


def test_every_import_names_a_module_and_a_name_that_exist():
    missing = []
    for edge in EDGES:
        if edge.target not in MODULES:
            missing.append(f"{edge.source}:{edge.line}: no module {edge.target}")
            continue
        defined = _defined(edge.target)
        for name in edge.names:
            if name and name not in defined:
                missing.append(f"{edge.source}:{edge.line}: {edge.target} has no {name}")
    assert not missing, "\n".join(missing)


def test_private_modules_are_imported_only_inside_their_package():
    offenders = []
    for edge in EDGES:
        parts = edge.target.split(".")
        for depth, part in enumerate(parts):
            if part.startswith("_") and part != "__main__":
                owner = ".".join(parts[:depth])
                if not (edge.source + ".").startswith(owner + "."):
                    offenders.append(f"{edge.source}:{edge.line} imports {edge.target}")
    assert not offenders, "\n".join(offenders)


def test_private_names_are_imported_only_inside_their_package():
    """``from pkg.mod import _name`` across packages reaches into another unit's insides."""
    offenders = [
        f"{e.source}:{e.line} imports {e.target}.{name}"
        for e in EDGES
        for name in e.names
        if name.startswith("_") and _unit(e.source) != _unit(e.target)
    ]
    assert not offenders, "\n".join(offenders)


def test_imports_point_down_the_layers():
    upward = []
    for edge in EDGES:
        source, target = _unit(edge.source), _unit(edge.target)
        if source == target or target == "__init__" or source == "__init__":
            continue
        assert source in LAYER, f"{edge.source}: put {source!r} in a layer of LAYERS"
        assert target in LAYER, f"{edge.target}: put {target!r} in a layer of LAYERS"
        if LAYER[target] > LAYER[source]:
            upward.append(
                f"{edge.source}:{edge.line} ({source}) imports {edge.target} "
                f"({target}), a higher layer"
            )
    assert not upward, "\n".join(upward)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _parent_packages(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_module_cycle():
    graph: dict[str, set[str]] = {}
    for edge in EDGES:
        # importing a package's own __init__ from inside it is how Python loads it
        if edge.target in _parent_packages(edge.source):
            continue
        graph.setdefault(edge.source, set()).add(edge.target)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_no_package_cycle():
    graph: dict[str, set[str]] = {}
    for edge in EDGES:
        source, target = _unit(edge.source), _unit(edge.target)
        if source != target and "__init__" not in (source, target):
            graph.setdefault(source, set()).add(target)
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_no_re_export_shims():
    """A module-level ``__getattr__`` resolving moved names hides a cycle: none is left."""
    shims = [
        name
        for name, path in MODULES.items()
        if "def __getattr__(name" in path.read_text(encoding="utf-8")
    ]
    assert shims == []


def test_core_never_imports_click():
    importers = sorted(
        name
        for name, path in MODULES.items()
        if _unit(name) not in ("cli", "__main__")
        and any(
            line.strip().startswith(("import click", "from click"))
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    )
    assert importers == []


# git's raw door: only git/ runs git with arguments of its own; everyone else asks a
# named question (``git.config_get``, ``git.commit_exists``, ...).
_RAW_GIT = frozenset({"run", "_git", "_start"})


def _raw_git_calls(module: str, tree: ast.AST) -> list[str]:
    found = [
        f"{module}:{e.line}: imports {name} from {e.target}"
        for e in EDGES
        if e.source == module and e.target == f"{PACKAGE}.git"
        for name in e.names
        if name in _RAW_GIT
    ]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in _RAW_GIT
            and isinstance(node.value, ast.Name)
            and node.value.id == "git"
        ):
            found.append(f"{module}:{node.lineno}: git.{node.attr}")
    return found


def test_git_runs_only_inside_git():
    """No ``git.run(...)`` (or ``_git``, or ``from ..git import run``) outside ``git/``."""
    found = [
        hit
        for name, path in MODULES.items()
        if _unit(name) != "git"
        for hit in _raw_git_calls(name, ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_raw_git_check_sees_each_spelling():
    tree = ast.parse("from .. import git\ngit.run(repo, 'log')\nx = git._git\n")
    assert sorted(_raw_git_calls("rehydrate.guard.staged", tree)) == [
        "rehydrate.guard.staged:2: git.run",
        "rehydrate.guard.staged:3: git._git",
    ]
    assert _raw_git_calls("rehydrate.guard.staged", ast.parse("git.config_get(r, 'k')")) == []


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
        ({"a": {"b"}, "b": {"c"}}, None),
    ],
)
def test_cycle_finder_finds_cycles(graph, expected):
    assert _cycle(graph) == expected
