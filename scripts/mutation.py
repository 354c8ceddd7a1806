"""Mutation testing of the guard's judgement and rules, the table parser and the command
check's matching: one command, one score.

    python scripts/mutation.py                  # mutmut, then the table mutants, the score
    python scripts/mutation.py --tables         # the table mutants only
    python scripts/mutation.py --module judge   # one module: judge, rules, _table, matching

mutmut 3 (config: ``[tool.mutmut]`` in pyproject.toml) mutates the functions of
``guard/judge.py``, ``guard/rules.py``, ``ledgers/_table.py`` and ``agents/matching.py``
and runs the fast, git-free tests that cover them. It never mutates module-level code, and
the guard's policy lives in module-level tables (``RULES``; judge's modes and codes), the
parser's in its patterns; so this script then mutates those itself, one AST edit at a time
(delete a dict entry, a set, tuple or list element or a keyword argument, flip a bool,
change a string; drop one character of a compiled pattern), and runs the same tests on
each. ``--workers`` (default 2) bounds both mutmut's children and the table runs.

The score is killed / (total - equivalent). EQUIVALENT lists, by mutmut's name or by the
table mutant's description, each surviving mutant that no test can kill, with the reason.
Nothing here runs in CI: a full run takes about 15 minutes on two shared cores.
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
# module -> module-level names whose values are mutated here (mutmut leaves them alone)
TABLES = {
    "src/rehydrate/guard/judge.py": ("ZERO", "REGULAR", "_PARSE_CODES", "ABSENT"),
    "src/rehydrate/guard/rules.py": ("RULES", "_IMMUTABLE", "_SETTLED"),
    "src/rehydrate/ledgers/_table.py": ("_DELIMITER_CELL", "_SPACES", "_UNESCAPED_PIPE"),
    "src/rehydrate/agents/matching.py": ("_SETUP",),
}
_MATCH = "rehydrate.agents.matching.x_"
_CACHE = "bypasses the span cache (every span read again): the same commands, only slower"
_READ_AWAY = (
    "commandline.read never yields export, unset or ':' as a command (it reads them as "
    "changes to its variables), so these set-up names are never looked up"
)
_SETUP_SET = '{"cd", "pushd", "popd", "export", "source", ".", "set", "echo", "true"'
_JUDGE = "rehydrate.guard.judge.x_"
_PARSER = "rehydrate.guard.judge.xǁParserǁ"  # mutmut's name for a method of a class
_GUARD = "rehydrate.guard.rules.x_"
_TABLE = "rehydrate.ledgers._table.x_"
_NO_STATUS = (
    "the default status of a row in a section without a Status column: no table has it "
    "as a key, and no move goes to it"
)
_CELL = (
    "record.cells() holds every column of the schema, and moves require only their "
    "section's columns (test_guard_rule_tables checks that): the default is never used"
)
_NO_ITEM = (
    "a Retired row always names an item of its ledger (the parser refuses "
    "retired_unknown_id), so the item is always found"
)
_FAST = (
    "turns parse_table's per-row fast path off or makes it never match: split_row gives "
    "the same cells, only slower"
)
_ESCAPE = (
    "a row the per-row fast path takes has width + 1 pipes and splits into width cells "
    "on ' | ', so every pipe is a separator and none is escaped: split_row gives the "
    "same cells"
)
_FALLBACK = (
    "split_row never raises for a row the fast path looked at (it starts with '| ', "
    "ends with ' |' and has no backslash), so its path and line are never shown"
)
# Surviving mutants that no test can kill, and why (the parser's and the tables' guarantees).
EQUIVALENT: dict[str, str] = {
    "matching._SETUP line 29:28: change 'export'": _READ_AWAY,
    f'matching._SETUP line 29:4: delete ":" from {_SETUP_SET}': _READ_AWAY,
    f'matching._SETUP line 29:4: delete "export" from {_SETUP_SET}': _READ_AWAY,
    f'matching._SETUP line 29:4: delete "unset" from {_SETUP_SET}': _READ_AWAY,
    "matching._SETUP line 29:76: change 'unset'": _READ_AWAY,
    "matching._SETUP line 29:95: change ':'": _READ_AWAY,
    _MATCH + "attempts_in_cell__mutmut_19": "without code spans the loop runs once, over "
    "the whole cell, so break and continue both end it",
    _MATCH + "attempts_in_cell__mutmut_20": _CACHE,
    _MATCH + "attempts_in_cell__mutmut_21": _CACHE,
    _MATCH + "attempts_in_cell__mutmut_37": _CACHE,
    _MATCH + "attempts_in_cell__mutmut_30": "a span of one command: the filter keeps it, or "
    "falls back to it when it is a set-up step",
    _JUDGE + "_excused__mutmut_13": "with no other parent excuse_merge excuses nothing "
    "(every excuse names another parent's item), and merged is never None there: the slow "
    "path passes the parsed ledger, the fast path judges only a new side that parses",
    _JUDGE + "_not_a_ledger__mutmut_19": "git's raw diff gives the zero id with mode 000000 "
    "and only then (a path absent on that side), and the drivers take both from it",
    _PARSER + "parse__mutmut_7": "parse_file names ``where`` only for a blob without bytes "
    "and mode, and the parser always gives both",
    _PARSER + "parse__mutmut_14": "parse_file reads a Blob's path, bytes and mode, never its id",
    _JUDGE + "judge__mutmut_71": "every LedgerParseError the parser raises names its file "
    "(the path it was given), so parse_violation never falls back to the path",
    _JUDGE + "judge__mutmut_90": "_excused reads the new side only when merged is None, "
    "and here merged is the parsed ledger",
    _JUDGE + "judge__mutmut_92": "with merged None _excused parses the new side again, "
    "and the parser's cache returns the same Ledger",
    _GUARD + "level_code__mutmut_13": "the strength test is reached only for two different "
    "levels of one polarity, or for MAY as the new level: never equal strengths",
    _GUARD + "_first_difference__mutmut_4": "zip(strict=None) is zip(strict=False)",
    _GUARD + "_first_difference__mutmut_7": "zip() is zip(strict=False)",
    _GUARD + "_status_code__mutmut_10": "a status move has old != new, and distinct "
    "statuses have distinct ranks",
    _GUARD + "_changed__mutmut_4": _NO_STATUS,
    _GUARD + "_changed__mutmut_6": _NO_STATUS,
    _GUARD + "_changed__mutmut_9": _NO_STATUS,
    _GUARD + "_changed__mutmut_44": _CELL,
    _GUARD + "_changed__mutmut_46": _CELL,
    _GUARD + "_changed__mutmut_47": _CELL,
    _GUARD + "_added_in_status__mutmut_3": _NO_STATUS,
    _GUARD + "_added_in_status__mutmut_5": _NO_STATUS,
    _GUARD + "_added_in_status__mutmut_8": _NO_STATUS,
    _GUARD + "_added_in_status__mutmut_23": _CELL,
    _GUARD + "_added_in_status__mutmut_25": _CELL,
    _GUARD + "_added_in_status__mutmut_26": _CELL,
    _GUARD + "_item_violations__mutmut_3": "every section that holds rows has a rule "
    "(test_guard_rule_tables checks that): the default rule is never used",
    _GUARD + "_item_violations__mutmut_5": "as _item_violations__mutmut_3",
    _GUARD + "_item_violations__mutmut_32": _NO_STATUS,
    _GUARD + "_item_violations__mutmut_34": _NO_STATUS,
    _GUARD + "_item_violations__mutmut_37": _NO_STATUS,
    _GUARD + "_item_violations__mutmut_67": _NO_ITEM,
    _GUARD + "_item_violations__mutmut_72": _NO_ITEM,
    _GUARD + "_item_violations__mutmut_74": _NO_STATUS,
    _GUARD + "_item_violations__mutmut_76": _NO_STATUS,
    _GUARD + "_item_violations__mutmut_79": _NO_STATUS,
    _GUARD + "_item_violations__mutmut_81": _NO_ITEM,
    _GUARD + "_task_revision__mutmut_49": "a Task ledger always has a revision (the parser "
    "refuses revision_invalid): the None test is there for the type checker",
    _TABLE + "parse_table__mutmut_81": _FAST,
    _TABLE + "parse_table__mutmut_82": _FAST,
    _TABLE + "parse_table__mutmut_92": "a table's lines are consecutive, so its first row "
    "is at delim_no + 1 either way",
    _TABLE + "parse_table__mutmut_97": "as parse_table__mutmut_92",
    _TABLE + "parse_table__mutmut_128": _FAST,
    _TABLE + "parse_table__mutmut_130": _FAST,
    _TABLE + "parse_table__mutmut_131": _FAST,
    _TABLE + "parse_table__mutmut_132": _FAST,
    _TABLE + "parse_table__mutmut_134": _FAST,
    _TABLE + "parse_table__mutmut_136": _FAST,
    _TABLE + "parse_table__mutmut_138": _ESCAPE,
    _TABLE + "parse_table__mutmut_139": _ESCAPE,
    _TABLE + "parse_table__mutmut_150": "a separator that never occurs gives one cell: "
    "right for a one-column row, and any other row falls back to split_row",
    _TABLE + "parse_table__mutmut_154": _FALLBACK,
    _TABLE + "parse_table__mutmut_155": _FALLBACK,
    "_table._DELIMITER_CELL line 15: drop '^' at 0: ':?-+:?$'": "the pattern is used with "
    "match(), which anchors at the start anyway",
}


class Mutant(NamedTuple):
    path: str
    name: str  # where and what, e.g. "RULES line 160: delete ('pending', 'not_applied'): ..."
    source: str


def _tests() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]
    return list(config["pytest_add_cli_args_test_selection"])


def _segment(source: str, node: ast.AST) -> str:
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    return " ".join(text.split())[:70]


Edit = tuple[str, int, int]  # (what to do, the node's index in ast.walk order, position)


def _edits(tree: ast.Module, value: ast.expr, source: str) -> Iterator[tuple[str, Edit]]:
    """(description, edit) for every single edit inside ``value``."""
    index = {id(n): i for i, n in enumerate(ast.walk(tree))}
    for node in ast.walk(value):
        at = index[id(node)]
        line = f"{getattr(node, 'lineno', 0)}:{getattr(node, 'col_offset', 0)}"
        if isinstance(node, ast.Dict):
            for i, (key, item) in enumerate(zip(node.keys, node.values, strict=True)):
                what = f"{_segment(source, key) if key else '**'}: {_segment(source, item)}"
                yield f"{line}: delete entry {what}", ("dict", at, i)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            whole = _segment(source, node)
            for i, item in enumerate(node.elts):
                yield f"{line}: delete {_segment(source, item)} from {whole}", ("elts", at, i)
        elif isinstance(node, ast.Call):
            for i, keyword in enumerate(node.keywords):
                yield f"{line}: delete {_segment(source, keyword)}", ("keywords", at, i)
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            yield f"{line}: flip {node.value}", ("bool", at, 0)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield f"{line}: change {node.value!r}", ("str", at, 0)


def _apply(tree: ast.Module, edit: Edit) -> str:
    """The module's source with one edit applied (to a copy of the tree)."""
    kind, at, i = edit
    clone = copy.deepcopy(tree)
    node: Any = list(ast.walk(clone))[at]
    if kind == "dict":
        del node.keys[i], node.values[i]
    elif kind == "bool":
        node.value = not node.value
    elif kind == "str":
        node.value = f"XX{node.value}XX"
    else:
        del getattr(node, kind)[i]
    return ast.unparse(clone)


def _pattern_mutants(tree: ast.Module, pattern: ast.Constant, label: str) -> Iterator[Mutant]:
    """Drop one character of a regular expression (each that still compiles)."""
    original = str(pattern.value)
    for i in range(len(original)):
        mutated = original[:i] + original[i + 1 :]
        try:
            re.compile(mutated)
        except re.error:
            continue
        pattern.value = mutated
        yield Mutant("", f"{label}: drop {original[i]!r} at {i}: {mutated!r}", ast.unparse(tree))
    pattern.value = original


def _compiled(value: ast.expr) -> bool:
    """``re.compile(...)``: its first argument is a pattern, mutated a character at a time."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "compile"
    )


def table_mutants(module: str = "") -> Iterator[Mutant]:
    """Every single edit of the TABLES values (or of their pattern), as whole sources."""
    for path, names in TABLES.items():
        if module and Path(path).stem != module:
            continue
        source = (ROOT / path).read_text()
        tree = ast.parse(source)
        for stmt in tree.body:
            if isinstance(stmt, ast.AnnAssign | ast.Assign) and stmt.value is not None:
                targets = [stmt.target] if isinstance(stmt, ast.AnnAssign) else stmt.targets
                name = targets[0].id if isinstance(targets[0], ast.Name) else ""
                if name not in names:
                    continue
                label, value = f"{Path(path).stem}.{name}", stmt.value
                first = value.args[0] if _compiled(value) and value.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    edits = _pattern_mutants(tree, first, f"{label} line {stmt.lineno}")
                    yield from (m._replace(path=path) for m in edits)
                    continue
                for what, edit in _edits(tree, value, source):
                    yield Mutant(path, f"{label} line {what}", _apply(tree, edit))


def _run_tests(src_root: Path, env: dict[str, str], timeout: float) -> str:
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-n0", "-p", "no:cacheprovider"]
    env = {**env, "PYTHONPATH": str(src_root / "src")}
    try:
        done = subprocess.run(
            [*command, *_tests()], cwd=ROOT, env=env, capture_output=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if done.returncode == 0 else "killed"


def run_tables(env: dict[str, str], workers: int = 2, module: str = "") -> dict[str, str]:
    """Each table mutant's fate, each run against its own copy of src/ (one module changed)."""
    mutants = list(table_mutants(module))
    assert len({m.name for m in mutants}) == len(mutants), "table mutant names must be unique"
    with tempfile.TemporaryDirectory(prefix="rehydrate-mutants-") as tmp:
        copies: queue.Queue[Path] = queue.Queue()
        for n in range(workers):
            shutil.copytree(ROOT / "src", Path(tmp, str(n), "src"))
            shutil.copytree(ROOT / "templates", Path(tmp, str(n), "templates"))
            copies.put(Path(tmp, str(n)))
        start = time.monotonic()
        if _run_tests(Path(tmp, "0"), env, timeout=900) != "survived":
            raise SystemExit("the tests fail on the unmutated copy: fix them first")
        timeout = 10 * (time.monotonic() - start) + 30
        done = 0

        def run(mutant: Mutant) -> str:
            nonlocal done
            root = copies.get()
            target = root / mutant.path
            original = target.read_text()
            target.write_text(mutant.source)
            try:
                return _run_tests(root, env, timeout)
            finally:
                target.write_text(original)
                copies.put(root)
                done += 1
                print(f"\r{done}/{len(mutants)} table mutants", end="", file=sys.stderr)

        with ThreadPoolExecutor(workers) as pool:
            fates = list(pool.map(run, mutants))
    print(file=sys.stderr)
    return {m.name: fate for m, fate in zip(mutants, fates, strict=True)}


def _prefix(module: str) -> str:
    """mutmut's name prefix for the functions of ``module`` ("" : every module)."""
    for path in TABLES:
        if Path(path).stem == module:
            dotted = path.removeprefix("src/").removesuffix(".py").replace("/", ".")
            return f"{dotted}.x"  # x_function, xǁClassǁmethod
    return ""


def run_mutmut(env: dict[str, str], workers: int = 2, module: str = "") -> dict[str, str]:
    prefix = _prefix(module)
    names = [f"{prefix}*"] if prefix else []
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(workers)]
    subprocess.run([*command, *names], cwd=ROOT, env=env, check=True)
    listing = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.findall(r"^\s*(\S+): (.+?)\s*$", listing, re.MULTILINE)
    return {name: status for name, status in found if name.startswith(prefix)}


def report(results: dict[str, str]) -> float:
    counts: dict[str, int] = {}
    for status in results.values():
        counts[status] = counts.get(status, 0) + 1
    survivors = sorted(n for n, s in results.items() if s == "survived")
    equivalent = [n for n in survivors if n in EQUIVALENT]
    stale = sorted(n for n in EQUIVALENT if results.get(n) not in (None, "survived"))
    live = [n for n in survivors if n not in EQUIVALENT]
    total, killed = len(results), counts.get("killed", 0)
    score = killed / (total - len(equivalent)) if total > len(equivalent) else 1.0
    print(f"total {total}, " + ", ".join(f"{s} {c}" for s, c in sorted(counts.items())))
    print(f"equivalent {len(equivalent)} (of the survivors):")
    for name in equivalent:
        print(f"  {name}: {EQUIVALENT[name]}")
    if live:
        print(f"surviving, not equivalent ({len(live)}):")
        for name in live:
            print(f"  {name}")
    if stale:
        print("EQUIVALENT names that did not survive (remove them): " + ", ".join(stale))
    print(
        f"score: killed / (total - equivalent) = {killed}/{total - len(equivalent)} = {score:.1%}"
    )
    return score


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", action="store_true", help="the table mutants only")
    modules = sorted(Path(p).stem for p in TABLES)
    parser.add_argument("--module", choices=modules, default="", help="this module only")
    parser.add_argument("--workers", type=int, default=2, help="parallel runs (default 2)")
    args = parser.parse_args()
    # A private temp root: pytest's cleanup of a crowded shared /tmp/pytest-of-<user>
    # otherwise costs minutes per test run.
    with tempfile.TemporaryDirectory(prefix="rehydrate-mutation-tmp-") as temproot:
        env = {**os.environ, "PYTEST_DEBUG_TEMPROOT": temproot}
        results = {} if args.tables else run_mutmut(env, args.workers, args.module)
        results.update(run_tables(env, args.workers, args.module))
    return 0 if report(results) >= 0.95 else 1


if __name__ == "__main__":
    raise SystemExit(main())
