"""Hostile text for the scanners issue 28 and issue 26 item 3 added, one line per case:
each is read in linear time (a 200 KB input in well under the bound; a quadratic
version would take minutes), and gives an answer, never an exception."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from rehydrate.agents import shell
from rehydrate.agents.commandline import _echoed, _Variables, read
from rehydrate.agents.commands import attempts_in_cell, commands_in, match
from rehydrate.agents.outcomes import failing_check, salient
from rehydrate.agents.shell import join_continuations, printed
from rehydrate.writers.verbs import not_placeholder

N = 200_000
G = 60_000  # what the shell grammar itself reads (MAX_GRAMMAR_BYTES is 64 KiB)
BOUND = 3.0  # seconds


def _match(tried: str, command: str) -> object:
    return [match(c, a) for a in attempts_in_cell(tried) for c in commands_in(command)]


def _scopes(n: int, opener: shell.Simple = shell.SCOPE_OPEN) -> object:
    """``n`` nested scopes (subshells, or ``&&`` parts), each setting two variables (one
    of them the same), left one by one."""
    known = _Variables()
    for i in range(n):
        known.scope(opener)
        known.record(("T=musl", f"V{i}=1"))
    for _ in range(n):
        known.scope(shell.SCOPE_CLOSE)
    return known.values


def _placeholder(value: str) -> object:
    try:
        return not_placeholder("--workaround", value)
    except Exception as exc:  # noqa: BLE001 - a named refusal is an answer too
        return exc


CASES: list[tuple[str, Callable[[], object]]] = [
    ("continuations", lambda: join_continuations("go \\\n" * (N // 5))),
    ("continuations-in-quotes", lambda: join_continuations("'\\\n" * (N // 3))),
    ("unbalanced-quotes", lambda: join_continuations("\"'\\\n" * (N // 4))),
    ("variables", lambda: read("A=1; echo " + "$A" * (N // 2))),
    ("braced-variables", lambda: read("A=1; echo " + "${A}" * (N // 4))),
    ("many-exports", lambda: read("export " + " ".join(f"A{i}=1" for i in range(N // 8)) + "; go")),
    ("many-unsets", lambda: read("export A=1; " + "unset A; export A=2; " * (N // 40) + "go")),
    ("unknown-variables", lambda: read("echo " + "$" * N)),
    ("python-os-system-openers", lambda: read('python3 -c "' + "os.system(" * (N // 10) + '"')),
    ("python-argv-openers", lambda: read('python3 -c "' + "subprocess.run([" * (N // 16) + '"')),
    ("python-argv-strings", lambda: read('python3 -c "subprocess.run([' + "'a'," * (N // 4))),
    ("python-quote-openers", lambda: read("python3 -c \"os.system('" + "x" * N + '"')),
    ("printf-format", lambda: printed(("printf", "%s\\n" * (N // 4), "go test"))),
    ("echo-options", lambda: printed(("echo", *(["-n"] * (N // 3)), "go"))),
    ("option-cluster", lambda: _match("`rm -rf build`", "rm -" + "r" * N + " build")),
    ("cluster-attached-value", lambda: _match("`make x`", "make -j" + "4" * N + " x")),
    ("many-options", lambda: _match("`git push -f o m`", "git push " + "-f " * (N // 3))),
    ("many-words", lambda: _match("`go test ./...`", "go test " + "./x " * (N // 4))),
    ("sudo-clusters", lambda: read("sudo " + "-E" * (N // 2) + "u root go test")),
    ("node-exec-openers", lambda: read('node -e "' + "execSync(" * (N // 9) + '"')),
    ("node-argv-strings", lambda: read("node -e \"spawn('a', [" + "'a'," * (N // 4) + '"')),
    ("perl-system-strings", lambda: read("perl -e 'system(" + '"a",' * (N // 4) + "'")),
    ("ruby-backticks", lambda: read("ruby -e '" + "`" * N + "'")),
    ("perl-qx-openers", lambda: read("perl -e '" + "qx(" * (N // 3) + "'")),
    ("echo-substitutions", lambda: _echoed(("$(echo " * (N // 7) + "go)",))),
    ("subshell-scopes", lambda: _scopes(N // 4)),
    ("chain-scopes", lambda: _scopes(N // 4, shell.MAYBE_OPEN)),
    ("branch-scopes", lambda: _scopes(N // 4, shell.UNKNOWN_OPEN)),
    ("readers", lambda: read("T=1; read " + "T " * (N // 2))),
    ("runner-options", lambda: read("uv run " + "-x " * (N // 3) + "go test")),
    ("resource-kinds", lambda: _match("`kubectl delete pod a`", "kubectl delete " + "po/" * N)),
    ("noexec-options", lambda: read("bash -c " + "-x " * (N // 3) + "'go test'")),
    ("goflags-options", lambda: _match("`go test ./...`", "GOFLAGS='" + "-v " * (N // 3) + "' go")),
    ("path-spellings", lambda: _match("`rm -rf build`", "rm -rf " + "./" * (N // 2) + "b//")),
    ("shell-clusters", lambda: read("bash -" + "e" * N + "o pipefail -c 'go test'")),
    ("env-clusters", lambda: read("env -" + "v" * N + "i go test")),
    ("aliases-on-one-line", lambda: read("alias a=b; " * (G // 11) + "\na x")),
    ("alias-uses", lambda: read("alias a='a a'\n" + "a;" * (G // 2))),
    ("alias-definitions", lambda: read("".join(f"alias a{i}=b\n" for i in range(G // 12)))),
    ("function-calls", lambda: read('f() { "$@"; }; ' + "f f f f; " * (G // 9))),
    # stop 39: a long alias value used again and again (each use copies it: a budget),
    # values ending in a blank, prefixes before groups (a parse per pass), shifts, slices
    ("long-alias-uses", lambda: read(f"alias a='{'x' * (G // 2)}'\n" + "a;" * (G // 4))),
    ("alias-blank-chain", lambda: read("alias a='b ' b='a '\n" + "a " * (G // 2))),
    (
        "alias-first-words",
        lambda: read("alias " + " ".join(f"a{i}=a{i + 1}" for i in range(G // 12)) + "\na0"),
    ),
    ("eval-with-aliases", lambda: read("alias " + "x" * (G // 4) + "=y\n" + "eval a;" * (G // 8))),
    ("time-groups", lambda: read("time { " * (G // 7) + "a" + "; }" * (G // 7))),
    ("negated-groups", lambda: read("! { " * (G // 4) + "a")),
    ("shifts", lambda: read('f() { shift; f "$@"; }; f ' + "x " * (G // 2))),
    ("slices", lambda: read("set -- a b; " + '"${@:1}" ' * (G // 10))),
    ("reads", lambda: read("read -r a b <<< 'a b'; " * (G // 23))),
    (
        "printf-long-format",
        lambda: read("printf '" + "x" * (G // 2) + "%s' " + "a " * (G // 4) + "| sh"),
    ),
    ("printed-values", lambda: read("c=$(printf '%s' a); " * (G // 20) + "$c")),
    ("printf-v", lambda: read("printf -v a '%s %s' " + "a " * (G // 2))),
    ("recursive-function", lambda: read('f() { f "$@"; f "$@"; }; f ' + "x " * (G // 2))),
    (
        "evals-and-variables",
        lambda: read(
            "".join(f"A{i}=1; " for i in range(G // 16))
            + "".join(f"eval 'x{i} $A{i}'; " for i in range(G // 32))
        ),
    ),
    ("whole-substitutions", lambda: read("bash -c \"$(cat <<'E'\n" + "a\n" * (G // 2) + 'E\n)"')),
    ("failure-counts", lambda: failing_check("pytest", "1 " * N)),
    ("failure-lines", lambda: failing_check("pytest", "FAIL\n" * (N // 5))),
    ("progress-bar", lambda: salient("." * N + " [100%]\n")),
    ("dashes", lambda: salient("-" * N)),
    ("equals-then-text", lambda: salient("=" * N + "x" + "=" * N)),
    ("error-words", lambda: salient("error " * (N // 6))),
    ("exception-shaped", lambda: salient("A" * N + "Error: x")),
    ("many-lines", lambda: salient("error: x\n" * (N // 9))),
    ("placeholder-dots", lambda: _placeholder("." * N)),
    ("placeholder-blanks", lambda: _placeholder(" " * N)),
    ("placeholder-todo", lambda: _placeholder("TODO " * (N // 5))),
]


@pytest.mark.parametrize(("case", "make"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_input_is_scanned_in_linear_time(case: str, make: Callable[[], object]) -> None:
    start = time.perf_counter()
    make()
    assert time.perf_counter() - start < BOUND, case
