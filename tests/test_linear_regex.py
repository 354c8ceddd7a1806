"""Linear time by construction (issue 13 item 1): the shape of every pattern that scans
ledger text, diffs, commit messages or summaries, checked on the parsed pattern.

A pattern may backtrack only over a bounded stretch: every repetition of unbounded (or
large) length is possessive (``*+``, ``++``, ``{m,}+``), so the engine never re-tries a
run it has consumed; and each redaction rule starts with a literal, so attempts start
only where that literal occurs. ``benchmarks/bench_hostile.py`` (run small by
test_bench_hostile.py) times the whole commands on megabyte lines.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from types import ModuleType

import pytest

from rehydrate import redact
from rehydrate.agents import commandline, failfile, matching, shell
from rehydrate.prompt import build as prompt
from rehydrate.prompt import fences

BOUND = 300  # the longest bounded repetition allowed to backtrack


def _backtracking_runs(parsed: object) -> list[str]:
    """Repetitions that may backtrack over more than BOUND characters."""
    found: list[str] = []
    for op, av in parsed:  # type: ignore[attr-defined]
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, high, sub = av
            if high == c.MAXREPEAT or high > BOUND:
                found.append(f"{op} {low},{high}")
            found += _backtracking_runs(sub)
        elif op == c.POSSESSIVE_REPEAT:
            found += _backtracking_runs(av[2])
        elif op in (c.SUBPATTERN,):
            found += _backtracking_runs(av[3])
        elif op == c.ATOMIC_GROUP:
            found += _backtracking_runs(av)
        elif op == c.BRANCH:
            for branch in av[1]:
                found += _backtracking_runs(branch)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            found += _backtracking_runs(av[1])
    return found


_RE_CALLS = frozenset("compile match fullmatch search finditer findall sub subn split".split())


def _texts_used_as_patterns(module: ModuleType) -> list[str]:
    """The names of ``module``'s constants handed to ``re`` as a pattern (``re.match(_NAME,
    text)``, ``re.compile(_NAME)``, redact's ``_compiled(_NAME)``): a pattern compiled on
    first use is kept as its text, so ``vars`` alone no longer finds it (issue 28 item 5)."""
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            to_re = func.value.id == "re" and func.attr in _RE_CALLS
        else:
            to_re = isinstance(func, ast.Name) and func.id == "compiled"
        if to_re:
            names.append(node.args[0].id)
    return [n for n in dict.fromkeys(names) if isinstance(vars(module).get(n), str | bytes)]


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    out = []
    for module in (redact, fences, prompt, matching, commandline, shell, failfile):
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                out.append((f"{module.__name__}.{name}", value))
        for name in _texts_used_as_patterns(module):
            out.append((f"{module.__name__}.{name}", re.compile(getattr(module, name))))
    out += [
        (f"redact.RULES[{i}] {rule.kind}", re.compile(rule.pattern))
        for i, rule in enumerate(redact.RULES)
    ]
    out += [(f"redact._KEYWORDS {kind}", re.compile(p)) for p, kind in redact._KEYWORDS]
    return out


@pytest.mark.parametrize(("name", "pattern"), _patterns(), ids=[n for n, _ in _patterns()])
def test_no_pattern_backtracks_over_an_unbounded_run(name: str, pattern: re.Pattern[str]) -> None:
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    assert _backtracking_runs(parsed) == [], name


@pytest.mark.parametrize("rule", redact.RULES, ids=[r.kind for r in redact.RULES])
def test_every_redaction_rule_starts_with_a_literal(rule: redact.Rule) -> None:
    first_op, _ = _parser.parse(rule.pattern)[0]
    assert first_op == c.LITERAL, rule.kind


def test_the_check_itself_catches_a_backtracking_pattern() -> None:
    """The twin: the classic quadratic shapes are flagged."""
    for bad in (r"pwd[\w.-]*=", r"(`+)(.+?)\1", r"\A\s*# [^\n]*\s*\Z", r"a{1,5000}b"):
        assert _backtracking_runs(_parser.parse(bad)), bad
    assert not _backtracking_runs(_parser.parse(r"pwd[\w.-]*+=[^\n]{0,40}"))
