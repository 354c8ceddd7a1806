"""How many of gitleaks' default rules the redactor catches (issue 13 item 4).

For every ``[[rules]]`` entry of a gitleaks config (``config/gitleaks.toml`` of
github.com/gitleaks/gitleaks), a sample is generated from the rule's own regular
expression (the shortest text it matches, with varied characters so it looks random),
and redacted in two contexts:

- ``match``: the generated match alone, in a sentence (for keyword rules it already
  holds the keyword and the assignment, e.g. ``adafruit=…``);
- ``assignment``: the secret as gitleaks' own tests write it,
  ``<keyword>_api_token = "<secret>"``.

A rule is caught in a context when its secret (the rule's secretGroup, else the whole
match) is no longer in the output. Rules whose Go pattern does not translate to Python
are counted apart. Nothing is downloaded: pass the config's path.

Usage: python benchmarks/secret_coverage.py gitleaks.toml [--redactor path/to/redact.py]
       [--misses]
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

_VARIED = "aB3xQ9mK7pL2zR8wT4nV6cY1dF5hJ0gS"


def _pick(allowed: Callable[[str], bool], i: int) -> str:
    pool = [ch for ch in _VARIED + "-_./+=~:@ " if allowed(ch)] or [
        chr(n) for n in range(32, 127) if allowed(chr(n))
    ]
    return pool[i % len(pool)] if pool else "a"


def _in_set(items: list[tuple[Any, Any]]) -> Callable[[str], bool]:
    def test(ch: str) -> bool:
        negate, hit = False, False
        for op, av in items:
            if op == c.NEGATE:
                negate = True
            elif op == c.LITERAL and ord(ch) == av:
                hit = True
            elif op == c.RANGE and av[0] <= ord(ch) <= av[1]:
                hit = True
            elif op == c.CATEGORY and re.fullmatch(
                {
                    c.CATEGORY_DIGIT: r"\d",
                    c.CATEGORY_WORD: r"\w",
                    c.CATEGORY_SPACE: r"\s",
                    c.CATEGORY_NOT_DIGIT: r"\D",
                    c.CATEGORY_NOT_WORD: r"\W",
                    c.CATEGORY_NOT_SPACE: r"\S",
                }.get(av, r"\w"),
                ch,
            ):
                hit = True
        return hit != negate

    return test


def _generate(parsed: Any, groups: dict[int, str], counter: list[int]) -> str:
    out = []
    for op, av in parsed:
        counter[0] += 1
        if op == c.LITERAL:
            out.append(chr(av))
        elif op == c.NOT_LITERAL:
            out.append(_pick(lambda ch, av=av: ord(ch) != av, counter[0]))
        elif op == c.ANY:
            out.append(_pick(lambda ch: True, counter[0]))
        elif op == c.IN:
            test = _in_set(av)
            out.append(_pick(test, counter[0]))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _, sub = av
            out.append("".join(_generate(sub, groups, counter) for _ in range(low)))
        elif op == c.SUBPATTERN:
            text = _generate(av[3], groups, counter)
            if av[0] is not None:
                groups[av[0]] = text
            out.append(text)
        elif op == c.ATOMIC_GROUP:
            out.append(_generate(av, groups, counter))
        elif op == c.BRANCH:
            branches = [b for b in av[1] if b]  # an empty branch adds nothing
            out.append(_generate(branches[0] if branches else [], groups, counter))
        elif op == c.GROUPREF:
            out.append(groups.get(av, ""))
        # AT (anchors, \b), ASSERT, ASSERT_NOT: zero width, nothing to add
    return "".join(out)


def _python_pattern(go: str) -> str:
    """Go's RE2 syntax as Python's: POSIX classes, \\z, and a flag group that is not at
    the start (Go applies it to the rest of the pattern; Python needs a scoped group)."""
    out = (
        go.replace("[[:alnum:]]", "[a-zA-Z0-9]")
        .replace("[:alnum:]", "a-zA-Z0-9")
        .replace(r"\z", r"\Z")
    )
    at = out.find("(?i)", 1)
    if at > 0:
        out = out[:at] + "(?i:" + out[at + 4 :] + ")"
    return out


def sample(rule: dict[str, Any]) -> tuple[str, str] | None:
    """(match, secret) generated from the rule's regex; None when it does not translate."""
    pattern = _python_pattern(rule.get("regex", ""))
    if not pattern:
        return None
    try:
        compiled = re.compile(pattern)
        parsed = _parser.parse(pattern, compiled.flags)
    except (re.error, ValueError, OverflowError):
        return None
    groups: dict[int, str] = {}
    text = _generate(parsed, groups, [0])
    match = compiled.search(text)
    if match is None:
        return None
    group = rule.get("secretGroup") or (1 if compiled.groups else 0)
    secret = match.group(group) if group <= compiled.groups else match.group(0)
    if not secret or len(secret) < 4:
        secret = match.group(0)
    return match.group(0), secret


def _load_redact(path: str | None) -> Callable[[str], str]:
    if path is None:
        from rehydrate.redact import redact

        return redact
    spec = importlib.util.spec_from_file_location("redact_under_test", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.redact  # type: ignore[no-any-return]


def measure(config: dict[str, Any], redact: Callable[[str], str]) -> dict[str, Any]:
    rules = config.get("rules", [])
    result: dict[str, Any] = {
        "rules": len(rules),
        "unmeasured": [],
        "match": [],
        "assignment": [],
        "missed_both": [],
    }
    for rule in rules:
        generated = sample(rule)
        if generated is None:
            result["unmeasured"].append(rule["id"])
            continue
        match, secret = generated
        keyword = (rule.get("keywords") or [rule["id"].split("-")[0]])[0]
        caught = []
        for context, text in (
            ("match", f"found {match} in the log"),
            ("assignment", f'{keyword}_api_token = "{secret}"'),
        ):
            if secret not in redact(text):
                result[context].append(rule["id"])
                caught.append(context)
        if not caught:
            result["missed_both"].append(rule["id"])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", help="path to gitleaks' config/gitleaks.toml")
    parser.add_argument("--redactor", help="a redact.py to measure instead of rehydrate's")
    parser.add_argument("--misses", action="store_true", help="list the rules missed")
    args = parser.parse_args()
    config = tomllib.loads(Path(args.config).read_text(encoding="utf-8"))
    result = measure(config, _load_redact(args.redactor))
    measured = result["rules"] - len(result["unmeasured"])
    either = measured - len(result["missed_both"])
    print(
        f"gitleaks rules: {result['rules']}, measured: {measured} "
        f"({len(result['unmeasured'])} do not translate to Python)"
    )
    print(f"  caught as the match alone:         {len(result['match'])}/{measured}")
    print(f"  caught as '<kw>_api_token = \"…\"':  {len(result['assignment'])}/{measured}")
    print(f"  caught in at least one context:    {either}/{measured}")
    if args.misses:
        print("  missed in both: " + ", ".join(result["missed_both"]))
        print("  unmeasured: " + ", ".join(result["unmeasured"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
