"""check-command reads a command as a shell would (issue 15 item 2): every form that runs
a failed attempt is refused, and each has a legitimate twin that stays allowed.

Each row: (id, the command that repeats `go test -tags=musl ./...`, its twin). The twin
differs in what runs (the workaround, another flag, data instead of code), never only
in spelling.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import commit, run, write
from rehydrate.agents.commandline import MAX_DEPTH
from rehydrate.agents.commands import check
from rehydrate.ledgers import parse_ledger

FAILURES = """\
# Failed attempts

| ID | Tried | Failure | Workaround |
|---|---|---|---|
| F-001 | `go test -tags=musl ./...` | linker crash (error 22) | use `-tags=darwin_arm64` |
| F-002 | `bash -c 'npm ci --legacy-peer-deps'` | lockfile rewritten | `npm ci` |
| F-003 | `CGO_ENABLED=0 go build ./cmd/...` | missing symbols | build with cgo |
"""
LEDGER = parse_ledger("failures", "docs/Failed_Attempts.md", FAILURES.encode())

M = "go test -tags=musl ./..."
W = "go test -tags=darwin_arm64 ./..."
FORMS = [
    # lists, newlines, pipelines
    ("newline", f"touch x\n{M}", f"touch x\n{W}"),
    ("crlf-newline", f"touch x\r\n{M}", f"touch x\r\n{W}"),
    ("blank-lines-and-indent", f"\n\n   {M}\n", f"\n\n   {W}\n"),
    ("and-or", f"make && {M} || true", f"make && {W} || true"),
    ("semicolon", f"set -e; {M}; cd ..", f"set -e; {W}; cd .."),
    ("background", f"{M} & wait", f"{W} & wait"),
    ("pipeline", f"true | {M} | tee log", f"true | {W} | tee log"),
    ("pipe-stderr", f"{M} |& tail", f"{W} |& tail"),
    ("negated", f"! {M}", f"! {W}"),
    # compound commands
    ("if-body", f"if true; then {M}; fi", f"if true; then {W}; fi"),
    ("if-condition", f"if {M}; then echo ok; fi", f"if {W}; then echo ok; fi"),
    ("else-branch", f"if false; then :; else {M}; fi", f"if false; then :; else {W}; fi"),
    ("elif", f"if false; then :; elif {M}; then :; fi", f"if false; then :; elif {W}; then :; fi"),
    ("for", f"for i in 1 2; do {M}; done", f"for i in 1 2; do {W}; done"),
    ("c-for", f"for ((i=0;i<2;i++)); do {M}; done", f"for ((i=0;i<2;i++)); do {W}; done"),
    ("while", f"while true; do {M}; break; done", f"while true; do {W}; break; done"),
    ("until", f"until {M}; do sleep 1; done", f"until {W}; do sleep 1; done"),
    ("case", f"case $x in a) {M};; esac", f"case $x in a) {W};; esac"),
    ("subshell", f"(set -e; {M})", f"(set -e; {W})"),
    ("group", f"{{ {M}; }}", f"{{ {W}; }}"),
    ("function-then-call", f"t() {{ {M}; }}; t", f"t() {{ {W}; }}; t"),
    ("test-then", f"[[ -d svc ]] && {M}", f"[[ -d svc ]] && {W}"),
    # substitutions
    ("dollar-paren", f"echo $({M})", f"echo '$({M})'"),
    ("dollar-paren-quoted", f'echo "$({M})"', f"echo '\"$({M})\"'"),
    ("backticks", f"echo `{M}`", f"echo '`{M}`'"),
    ("assignment-value", f"out=$({M})", f"out='$({M})'"),
    ("nested-substitution", f"echo $(echo $({M}))", f"echo $(echo $({W}))"),
    ("process-substitution", f"diff <({M}) want.txt", f"diff <({W}) want.txt"),
    ("export-substitution", f"export LOG=$({M})", f"export LOG=$({W})"),
    # shells handed a string
    ("bash-c", f"bash -c '{M}'", f"bash -c '{W}'"),
    ("sh-c-double", f'sh -c "{M}"', f'sh -c "{W}"'),
    ("bash-lc", f"bash -lc '{M}'", f"bash -lc '{W}'"),
    ("bash-option-value", f"bash -o pipefail -c '{M} | tail'", f"bash -o pipefail -c '{W}'"),
    ("zsh-c", f"zsh -c '{M}'", f"zsh -c 'echo {M}'"),
    ("nested-bash-sh", f"bash -c \"sh -c '{M}'\"", f"bash -c \"sh -c '{W}'\""),
    ("nested-escaped", f'sh -c "bash -c \\"{M}\\""', f'sh -c "bash -c \\"{W}\\""'),
    ("sudo-bash-c", f"sudo -u ci bash -c 'set -e && {M}'", f"sudo -u ci bash -c 'set -e && {W}'"),
    ("eval", f"eval '{M}'", f"eval 'echo {M}'"),
    ("eval-words", f"eval {M}", f"eval {W}"),
    ("eval-in-bash-c", f"bash -c \"eval '{M}'\"", f"bash -c \"eval '{W}'\""),
    ("env-split-string", f"env -S '{M}'", f"env -S '{W}'"),
    ("heredoc-to-bash", f"bash <<'EOF'\n{M}\nEOF\n", f"cat <<'EOF'\n{M}\nEOF\n"),
    ("heredoc-to-sh-s", f"sh -s <<EOF\nset -e\n{M}\nEOF\n", f"sh -s <<EOF\nset -e\n{W}\nEOF\n"),
    ("herestring-to-bash", f"bash <<< '{M}'", f"cat <<< '{M}'"),
    ("heredoc-substitution", f"cat <<EOF\n$({M})\nEOF\n", f"cat <<'EOF'\n$({M})\nEOF\n"),
    ("find-exec", f"find . -maxdepth 0 -exec {M} \\;", "find . -name '*musl*'"),
    ("echo-into-sh", f"echo '{M}' | sh", f"echo '{M}' | cat"),
    ("printf-into-bash", f"printf '{M}' | bash -s", f"printf '{M}' | tee cmd.txt"),
    # wrappers and prefixes
    ("cosmetic-assignments", f"NO_COLOR=1 PAGER=cat {M}", f"CGO_ENABLED=0 {M}"),
    # env's own options and cosmetic assignments; clearing or unsetting the environment
    # (`env -i`, `-u GOFLAGS`) may be the workaround: another invocation (issue 28)
    ("env-options", f"env -v PATH=/usr/bin -- {M}", f"env -i PATH=/usr/bin -u GOFLAGS {M}"),
    ("sudo-time-nice", f"sudo -E time -p nice -n 5 {M}", f"sudo -E time -p nice -n 5 {W}"),
    ("nohup-timeout", f"nohup timeout 60 {M} &", f"nohup timeout 60 {W} &"),
    ("command-exec", f"command {M}", f"command -v go && {W}"),
    ("exec", f"exec {M}", f"exec {W}"),
    ("stdbuf-setsid", f"setsid stdbuf -oL {M}", f"setsid stdbuf -oL {W}"),
    ("xargs", f"true | xargs -r {M}", "ls -d */ | xargs -n1 go test -tags=musl"),
    ("time-keyword", f"time {M}", f"time {W}"),
    # quoting, paths, continuations, comments, redirections
    ("empty-quotes-in-program", "g''o test -tags=musl ./...", "g''o test ./..."),
    ("quoted-program", '"go" test -tags=musl ./...', '"go" test ./...'),
    ("escaped-program", "\\go test -tags=musl ./...", "\\go test ./..."),
    ("quoted-subcommand", "go 'te'st -tags=musl ./...", "go 'te'st ./..."),
    ("split-quoted-flag", "go test -tags=\"mu\"'sl' ./...", "go test -tags=\"mu\"'sl'x ./..."),
    ("ansi-c-program", "$'go' test -tags=musl ./...", "$'go' test ./..."),
    ("full-path", "/usr/local/go/bin/go test -tags=musl ./...", "/usr/local/go/bin/go vet ./..."),
    ("relative-path", "./bin/go test -tags=musl ./...", "./bin/go test ./..."),
    ("continuation", "go test \\\n  -tags=musl \\\n  ./...", "go test \\\n  ./..."),
    ("trailing-comment", f"{M}  # once more", f"{W}  # {M}"),
    ("comment-line", f"# retry\n{M}", f"# {M}\ngo test ./..."),
    ("redirect-after", f"{M} > out.txt 2>&1", f"{W} > musl.txt 2>&1"),
    ("redirect-inside", "go 2>/dev/null test -tags=musl ./...", "go 2>/dev/null test ./..."),
    ("redirect-first", f">log {M}", f">log {W}"),
    ("flag-space-value", "go test -tags musl ./...", "go test -tags darwin_arm64 ./..."),
    ("cosmetic-extra-flags", f"{M} -v -count=1 -json", "go test -v -count=1 -tags=musl ./pkg"),
    # issue 28: the forms an outside round found, each with its twin
    ("env-split-string-attached", f"env -S'{M}'", f"env -S'{W}'"),
    ("env-split-string-equals", f"env --split-string='{M}'", f"env --split-string='{W}'"),
    ("eval-dashdash", f"eval -- '{M}'", f"eval -- 'echo {M}'"),
    ("sudo-cluster", f"sudo -Eu root {M}", f"sudo -Eu root {W}"),
    ("echo-words-into-sh", f"echo {M} | sh", f"echo {M} | cat"),
    ("printf-format-into-sh", f"printf '%s\\n' '{M}' | sh", f"printf '%s\\n' '{M}' > cmd.txt"),
    ("continuation-in-a-word", "go te\\\nst -tags=musl ./...", "go te\\\nst ./..."),
    ("strace", f"strace -f -o /tmp/t {M}", f"strace -f -o /tmp/t {W}"),
    ("flock", f"flock /tmp/lock {M}", f"flock /tmp/lock {W}"),
    ("flock-c", f"flock /tmp/lock -c '{M}'", f"flock /tmp/lock -c '{W}'"),
    ("watch", f"watch -n1 '{M}'", f"watch -n1 '{W}'"),
    ("script-qc", f"script -qc '{M}' /dev/null", f"script -q /dev/null -c '{W}'"),
    ("busybox-sh", f"busybox sh -c '{M}'", f"busybox sh -c '{W}'"),
    (
        "python-os-system",
        f"python3 -c \"import os; os.system('{M}')\"",
        f"python3 -c \"print('{M}')\"",
    ),
    (
        "python-subprocess",
        f"python -c \"import subprocess; subprocess.run('{M}', shell=True)\"",
        "python -c 'pass'",
    ),
    (
        "python-subprocess-argv",
        "python3 -c \"import subprocess; subprocess.run(['go','test','-tags=musl','./...'])\"",
        "python3 -c \"import subprocess; subprocess.run(['go','test','./...'])\"",
    ),
    ("trap", f"trap '{M}' EXIT", f"trap '{W}' EXIT"),
    ("coproc", f"coproc {M}", f"coproc {W}"),
    ("bash-process-substitution", f"bash <(echo '{M}')", f"cat <(echo '{M}')"),
    ("export-earlier", f"export GOFLAGS; {M}", f"export CGO_ENABLED=0; {M}"),
    ("static-variable", "T=musl; go test -tags=$T ./...", "T=darwin_arm64; go test -tags=$T ./..."),
    ("variable-braces", "T=musl; go test -tags=${T} ./...", "go test -tags=$T ./..."),
    ("home-path", f"$HOME/sdk/go/bin/{M}", f"$HOME/sdk/go/bin/{W}"),
    ("long-flag-spelling", "go test --tags=musl ./...", "go test --tags=darwin_arm64 ./..."),
    ("go-flag-space", "go test --tags musl ./...", "go vet --tags musl ./..."),
]


@pytest.mark.parametrize(("form", "repeat", "twin"), FORMS, ids=[f[0] for f in FORMS])
def test_every_form_of_a_repeat_is_refused_and_its_twin_allowed(
    form: str, repeat: str, twin: str
) -> None:
    refused = check(repeat, LEDGER)
    assert [h.id for h in refused.hits] == ["F-001"], repeat
    assert check(twin, LEDGER).hits == [], twin


ATTEMPT_FORMS = [
    # the recorded attempt is itself wrapped: both sides are read the same way
    ("npm ci --legacy-peer-deps", "F-002"),
    ("set -e; npm ci --legacy-peer-deps --silent", "F-002"),
    ("env CGO_ENABLED=0 go build ./cmd/...", "F-003"),
    ("sh -c 'CGO_ENABLED=0 go build ./cmd/...'", "F-003"),
]
ATTEMPT_TWINS = ["npm ci", "bash -c 'npm ci'", "go build ./cmd/...", "CGO_ENABLED=1 go build ./..."]


@pytest.mark.parametrize(("command", "row"), ATTEMPT_FORMS)
def test_a_wrapped_attempt_in_the_ledger_is_matched(command: str, row: str) -> None:
    assert [h.id for h in check(command, LEDGER).hits] == [row]


@pytest.mark.parametrize("command", ATTEMPT_TWINS)
def test_a_wrapped_attempt_does_not_refuse_its_neighbours(command: str) -> None:
    assert check(command, LEDGER).hits == []


UNPARSED = [
    pytest.param(f"{M} ((((", True, id="trailing-garbage"),
    pytest.param(f"echo 'unbalanced\n{M}", False, id="unbalanced-quote-swallows"),
    pytest.param(f"{M} )", True, id="stray-paren"),
    pytest.param("go test ((((", False, id="garbage-twin"),
]


@pytest.mark.parametrize(("command", "refused"), UNPARSED)
def test_unparseable_text_is_matched_word_by_word_and_says_so(command: str, refused: bool) -> None:
    """What the grammar recovers is matched, and every run of words between operators
    too (over-matching is the safe side); the note names the place."""
    checked = check(command, LEDGER)
    assert bool(checked.hits) is refused
    assert checked.problems and "not valid shell at line" in checked.note


def test_a_long_command_is_read_word_by_word() -> None:
    command = "echo " + "x" * 70_000 + f"\n{M}\n"
    checked = check(command, LEDGER)
    assert [h.id for h in checked.hits] == ["F-001"]
    assert "over the 65536 the shell grammar reads" in checked.note
    assert check("echo " + "x" * 70_000 + f"\n{W}\n", LEDGER).hits == []


def test_a_medium_command_is_parsed_in_a_child_process() -> None:
    body = "\n".join(f"echo line {i}" for i in range(300))  # ~4 KB: over the in-process size
    assert check(f"{body}\n{M}", LEDGER).hits and not check(f"{body}\n{M}", LEDGER).problems
    assert check(f"cat <<'EOF'\n{body}\n{M}\nEOF\n", LEDGER).hits == []  # data, parsed


def _wrapped(command: str, depth: int, form: str) -> str:
    for level in range(depth):
        if form == "bash -c":
            command = "bash -c " + json.dumps(command)
        elif form == "heredoc":
            command = f"bash <<'E{level}'\n{command}\nE{level}"
        else:  # what an echo prints, piped into a shell
            command = f"echo {json.dumps(command)} | sh"
    return command


@pytest.mark.parametrize("form", ["bash -c", "heredoc", "echo | sh"])
@pytest.mark.parametrize("depth", [1, 2, MAX_DEPTH - 1, MAX_DEPTH + 2, 3 * MAX_DEPTH])
def test_no_depth_of_nesting_hides_a_repeat(form: str, depth: int) -> None:
    """Parsed up to MAX_DEPTH; deeper, read by the word lexer (and named): still refused.
    The twin, the same nesting around a command no row covers, is allowed."""
    if form != "heredoc" and depth > MAX_DEPTH + 2:
        return  # each level doubles the escaping: the check's text budget is the bound
    checked = check(_wrapped(M, depth, form), LEDGER)
    assert [h.id for h in checked.hits] == ["F-001"], checked
    assert ("read word by word" in checked.note) == (depth > MAX_DEPTH), checked.note
    assert check(_wrapped(W, depth, form), LEDGER).hits == []


@pytest.mark.parametrize(
    "command",
    [
        f"sh <<'A'\nsh <<'B'\n{M}\nB\nA",  # the inner shell's input is not the outer's
        f"bash -s <<'A'\nbash -s <<'B'\n{M}\nB\nA",
        f"sh <<<'sh <<<\"{M}\"'",
        f"echo 'echo {M} | sh' | sh",
        f"sh <<<'true'; sh <<<'{M}'",  # the same shell, fed two inputs
    ],
)
def test_each_input_fed_to_the_same_shell_is_read(command: str) -> None:
    assert [h.id for h in check(command, LEDGER).hits] == ["F-001"]
    assert check(command.replace(M, W), LEDGER).hits == []


def test_plain_words_never_load_the_grammar() -> None:
    from rehydrate.agents import shell

    assert shell.parse("go test -tags=musl ./...").commands == (
        shell.Simple(("go", "test", "-tags=musl", "./...")),
    )
    assert shell.parse("if true").commands != (shell.Simple(("if", "true")),)


@pytest.fixture
def failures_repo(ledger_repo: Path) -> Path:
    write(ledger_repo, "docs/Failed_Attempts.md", FAILURES)
    commit(ledger_repo, "failures")
    return ledger_repo


@pytest.mark.parametrize(
    "form", ["newline", "bash-c", "heredoc-to-bash", "dollar-paren", "xargs", "find-exec"]
)
def test_the_cli_refuses_each_form_and_allows_its_twin(failures_repo: Path, form: str) -> None:
    _, repeat, twin = next(f for f in FORMS if f[0] == form)
    for _ in range(2):  # the first call parses the ledger in full, the second reads bytes
        refused = run(failures_repo, "check-command", "--json", "--", repeat)
        assert refused.code == 1, refused.err
        assert [m["id"] for m in json.loads(refused.out)["matches"]] == ["F-001"]
        assert run(failures_repo, "check-command", "--", twin).code == 0


def test_the_cli_says_what_it_could_not_parse(failures_repo: Path) -> None:
    result = run(failures_repo, "check-command", "--json", "--", "go test ./... ((((")
    assert result.code == 0
    assert json.loads(result.out)["unparsed"] == ["not valid shell at line 1, column 14"]
    assert "could not be parsed as shell" in result.err


HOSTILE = ["a|", ")", "$(", "`", "'", '"', "\\", "(", "{", "<<A\n", 'bash -c "', "eval ", "a;"]
HOSTILE += ["x=(", "$[", "\n", "a ", "if ", "${", "|", ">", "a()", "[[ "]


@pytest.mark.parametrize("token", HOSTILE)
@pytest.mark.parametrize("size", [1_000, 40_000, 200_000])
def test_hostile_command_text_is_read_in_bounded_time(token: str, size: int) -> None:
    """Sizes for each path: parsed here, in a child killed at its deadline, word by word.
    (The 1 MB, 2 s bar is benchmarks/bench_hostile.py's, on real processes.)"""
    import time

    text = (token * (size // len(token) + 1))[:size]
    start = time.perf_counter()
    checked = check(text, LEDGER)
    assert time.perf_counter() - start < 5.0, token
    assert checked.hits == []
    assert check(text + f"\n{M}\n", LEDGER).hits or checked.problems  # read, or said why not


PLAIN_WORD = st.text(alphabet="abz019_./=:,+@%^-", min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(PLAIN_WORD, min_size=1, max_size=6), st.sampled_from([" ", "  ", "\t"]))
def test_plain_words_split_as_the_grammar_reads_them(words: list[str], blank: str) -> None:
    """The fast path (no grammar) gives the commands tree-sitter-bash gives for plain words."""
    from rehydrate.agents import shell
    from rehydrate.agents.commandline import normalize

    def commands(simples: object) -> list[tuple[object, ...]]:
        found = [normalize(s.words) for s in simples]  # type: ignore[attr-defined]
        return [(c.program, c.env, c.words, c.rest) for c in found if c is not None]

    text = blank.join(words)
    if words[0] in shell.RESERVED:
        return
    if any(w in ("==", "=~") for w in words):
        return  # a gap of the grammar: tree-sitter-bash drops a bare `==` word; bash keeps it
    parsed = shell._parse_here(text.encode())
    assert parsed is not None
    if parsed[1] is not None:
        return  # a gap of the grammar (`x%y z`): bash, and the split, read plain words
    assert commands(shell.parse(text).commands) == commands(parsed[0])


def test_the_grammar_loads_without_the_bash_package_init() -> None:
    """Only the compiled binding is loaded (the package's __init__ costs ~30 ms)."""
    import subprocess
    import sys

    code = (
        "import sys; from rehydrate.agents import shell; "
        "assert shell.parse('a | b').commands; "
        "print('tree_sitter_bash' in sys.modules, 'importlib.resources' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    ("repeat", "twin"),
    [
        # what a bare cat or a tee passes on: its heredoc or here-string, into the pipe
        (f"cat <<'E' | sh\n{M}\nE", f"cat <<'E' && sh\n{M}\nE"),  # after &&: no input
        (f"cat <<'E' | tee log | bash\n{M}\nE", f"cat <<'E' | grep -v x | sh\n{M}\nE"),
        (f"tee /dev/null <<<'{M}' | sh", f"tee /dev/null <<<'{M}' | cat"),
        (f"cat <<<'{M}' | sh", f"cat <<<'{W}' | sh"),
        # a -c script's positional parameters, from the arguments after it
        (f"sh -c '$0 \"$@\"' {M}", f"sh -c 'echo $0 \"$@\"' {M}"),
        (f"bash -c 'eval \"$1\"' _ '{M}'", f"bash -c 'eval \"$1\"' _ '{W}'"),
        (f"bash -c '\"$@\"' _ {M}", f"bash -c 'echo \"$@\"' _ {M}"),
        (f"bash -c 'eval \"$*\"' _ {M}", f"sh -c \"echo '$1'\" _ '{M}'"),  # quoted: literal
        # a process substitution as a shell's standard input (not another descriptor)
        (f"sh < <(echo {M})", f"sh 3< <(echo {M})"),
        (f"bash -s < <(cat <<<'{M}')", f"cat < <(echo {M})"),
        # $(echo WORDS) in a text a shell reads: run as a command, it runs WORDS
        (f'bash -c "$(echo {M})"', f'bash -c "echo $(echo {M})"'),
        (f'sh <<< "$(echo {M})"', f'sh <<< "$(echo {W})"'),
        (f"bash -c \"$(printf '{M}')\"", f"bash -c \"$(printf '%s' {M})\""),  # no separators
    ],
)
def test_what_reaches_a_shell_is_read(repeat: str, twin: str) -> None:
    assert [h.id for h in check(repeat, LEDGER).hits] == ["F-001"], repeat
    assert check(twin, LEDGER).hits == [], twin


@pytest.mark.parametrize(
    ("repeat", "twin"),
    [
        # $'…' as bash makes it: hex, octal, \u escapes (an unknown escape keeps its \)
        ("go test $'-tags=\\x6dusl' ./...", "go test $'-tags=\\x6dus\\q' ./..."),
        ("go test -tags=$'\\155usl' ./...", "go test -tags=$'\\155usl\\0x' ./....x"),
        ("$'\\u0067o' test -tags=musl ./...", "$'\\u0067o' vet -tags=musl ./..."),
        ("bash -c $'go test -tags=musl ./...\\n' || true", "bash -c $'go test -tags=musl\\n./...'"),
        # what `which`, `command -v`, `type -P` print, as the program word
        ('"$(which go)" test -tags=musl ./...', '"$(which gox)" test -tags=musl ./...'),
        ("`command -v go` test -tags=musl ./...", "echo `command -v go` test -tags=musl ./..."),
        ('sudo "$(type -P go)" test -tags=musl ./...', '"$(type -P go) x" test -tags=musl ./...'),
        # an unquoted expansion is split into fields (by IFS when the line set it)
        (f"CMD='{M}'; $CMD", f"CMD='{M}'; \"$CMD\""),  # quoted: one word, no such program
        ("T='-tags=musl ./...'; go test $T", "T='-tags=musl ./...'; go test \"$T\""),
        ("IFS=,; C=go,test,-tags=musl,./...; $C", "IFS=,; C='go test -tags=musl ./...'; $C"),
        ("E=; $E go test -tags=musl ./...", "E=x; $E go test -tags=musl ./..."),
        ("P='./...'; go test -tags=musl $P", "P='./*'; go test -tags=musl $P"),  # a pattern
        ("C='go test'; $C -tags=musl ./...", f"IFS=$X; C='{M}'; $C"),  # IFS not known
        # arrays and the positional parameters, as their items
        (f'x=({M}); "${{x[@]}}"', f'x=({M}); "${{x[*]}}"'),  # one word, no such program
        ("x=(go test); x+=(-tags=musl ./...); ${x[@]}", f'x=({M}); x+=(-v2); "${{x[@]}}"'),
        (
            f"declare -a x=({M}); ${{x[0]}} ${{x[1]}} ${{x[2]}} ${{x[3]}}",
            f"x=({M}); x[3]=./a; ${{x[@]}}",
        ),
        (f'set -- {M}; "$@"', f'set -- {M}; shift; "$@"'),
        (f"set -e -- {M}; $1 $2 $3 $4", f'set -- {M}; f() {{ "$@"; }}; f ls'),  # the function's
        ('set -- -tags=musl ./...; go test "$@"', f'set -- {M}; echo "$@"'),
        ("T=mu; T+=sl; go test -tags=$T ./...", "T=musl; T+=x; go test -tags=$T ./..."),
        # a `for` loop over plain words: its body once per word
        (
            "for p in ./...; do go test -tags=musl $p; done",
            "for p in ./a; do go test -tags=musl $p; done",
        ),
        (
            "for t in darwin musl; do go test -tags=$t ./...; done",
            "for t in $(ls); do go test -tags=$t ./...; done",
        ),
        (
            "for t in x musl; do go test -tags=$t ./... || true; done",
            "for t in x musl; do break; go test -tags=$t ./...; done",
        ),
        # a string the shell expands before it feeds it, and a child shell's variables
        (f"x='{M}'; sh <<< \"$x\"", f"x='{M}'; sh <<< '$x'"),  # sh's own $x: not set
        (f"x='{M}'; echo \"$x\" | sh", f"x='{M}'; echo '$x' | sh"),
        (f"x='{M}'; bash <<E\n$x\nE", f"x='{M}'; bash <<'E'\n$x\nE"),
        (f"export x='{M}'; sh <<< '$x'", f"x='{M}'; sh -c '$x'"),  # exported: sh's variable
        (f"x='{M}' bash -c '$x'", f"export x='{M}'; bash -c '\"$x\"'"),  # one word: no program
        ("go test -tags=musl $(printf './...')", "go test -tags=musl $(printf './%s')"),
        # /dev/stdin as the script a shell or `source` reads: its input
        (f"source /dev/stdin <<< '{M}'", f"source /dev/stdin <<< '{W}'"),
        (f"echo '{M}' | bash /dev/fd/0", f"echo '{M}' | bash other.sh"),
        # what `$(pwd)` prints is $PWD (here: where the check runs)
        ('cd "$(pwd)" && go test -tags=musl ./...', 'cd "$(pwd)/sub" && go test -tags=musl ./...'),
    ],
)
def test_what_a_word_expands_to_is_read(repeat: str, twin: str) -> None:
    assert [h.id for h in check(repeat, LEDGER).hits] == ["F-001"], repeat
    assert check(twin, LEDGER).hits == [], twin


@pytest.mark.parametrize(
    ("repeat", "twin"),
    [
        # the grammar hangs these redirections on the list or pipeline; bash on its last
        # command, so that command's input (or output file) is theirs
        (f"cd . && bash <<'E'\n{M}\nE", f"cd . && cat <<'E'\n{M}\nE"),
        (f"true && sh <<'E'\n{M}\nE", f"sh <<'E' && true\n{W}\nE"),
        (f"make || sh < <(echo {M})", f"make || cat < <(echo {M})"),
        (f"echo hi | sh <<'E'\n{M}\nE", f"echo hi | cat <<'E'\n{M}\nE"),
        (f"a && b; true && sh <<< '{M}'", f"true && sh <<< '{W}'"),
    ],
)
def test_a_redirection_after_a_list_is_its_last_commands(repeat: str, twin: str) -> None:
    assert [h.id for h in check(repeat, LEDGER).hits] == ["F-001"], repeat
    assert check(twin, LEDGER).hits == [], twin


@pytest.mark.parametrize(
    ("repeat", "twin"),
    [
        (f"cat > s.sh <<'E'\n{M}\nE\nbash s.sh", f"cat > s.sh <<'E'\n{M}\nE\ncat s.sh"),
        (f"cat <<'E' > s.sh\nset -e\n{M}\nE\nsh ./s.sh", f"cat <<'E' > s.sh\n{W}\nE\nsh s.sh"),
        (f"printf '{M}\\n' > s.sh && bash s.sh", f"printf '{M}\\n' >> s.sh && bash s.sh"),
        (f"echo '{M}' > s.sh; chmod +x s.sh; ./s.sh", f"echo '{M}' > s.sh; cp ok.sh s.sh; ./s.sh"),
        (f"echo '{M}' >| /tmp/t.sh; . /tmp/t.sh", f"echo '{M}' > /tmp/t.sh; . ./t.sh"),
        (f"tee s.sh <<< '{M}' >/dev/null; sh s.sh", f"tee -a s.sh <<< '{M}' >/dev/null; sh s.sh"),
        (
            f"echo '{M}' > s.sh; sudo timeout 9 sh s.sh",
            f"echo '{M}' > s.sh; sed -i s/m/n/ s.sh; sh s.sh",
        ),
        (f"echo '{M}' > s.sh; bash -c 'sh s.sh'", f"bash -c 'sh s.sh'; echo '{M}' > s.sh"),
        # a file the line wrote, as a command's standard input
        (f"echo '{M}' > s.sh; sh < s.sh", f"echo '{M}' > s.sh; cat < s.sh"),
        ("echo ./... > f; xargs go test -tags=musl < f", "echo ./... > f; xargs go vet < f"),
        # run by its path: read when a shell runs it (no #! line, or a shell's)
        (
            f"printf '#!/usr/bin/env bash\\n{M}\\n' > s.sh; chmod +x s.sh; ./s.sh",
            f"printf '#!/usr/bin/env python3\\n{M}\\n' > s.sh; chmod +x s.sh; ./s.sh",
        ),
        # what base64 -d decodes, what a process substitution of printers prints
        (
            "echo Z28gdGVzdCAtdGFncz1tdXNsIC4vLi4u | base64 -d | sh",
            "echo Z28gdGVzdCAtdGFncz1kYXJ3aW5fYXJtNjQgLi8uLi4= | base64 -d | sh",
        ),
        (
            "sh < <(base64 -d <<< Z28gdGVzdCAtdGFncz1tdXNsIC4vLi4u)",
            "sh < <(base64 <<< Z28gdGVzdCAtdGFncz1tdXNsIC4vLi4u)",
        ),  # encoded, not decoded
        (f"bash <(cat <<'E'\n{M}\nE\n)", f"bash <(echo '{M}' | grep -v go)"),
        # an interpreter's program on its input, and more of Python's ways to run one
        (
            "python3 - <<'EOF'\nimport os\nos.system('go test -tags=musl ./...')\nEOF",
            "python3 check.py <<'EOF'\nimport os\nos.system('go test -tags=musl ./...')\nEOF",
        ),
        (
            "echo \"import os; os.system('go test -tags=musl ./...')\" | python3",
            "echo \"import os; os.system('go test -tags=musl ./...')\" | python3 -c 'pass'",
        ),
        (
            "node <<< \"require('child_process').execSync('go test -tags=musl ./...')\"",
            "node app.js <<< \"require('child_process').execSync('go test -tags=musl ./...')\"",
        ),
        (
            "python3 -c \"import subprocess as sp; sp.run(['go', 'test', '-tags=musl', './...'])\"",
            "python3 -c \"import subprocess as sp; sp.run(['go', 'test', '-tags=x', './...'])\"",
        ),
        (
            'python3 -c "from subprocess import call; '
            "call(['go', 'test', '-tags=musl', './...'])\"",
            "python3 -c \"from os import call; call(['go', 'test', '-tags=musl', './...'])\"",
        ),
        (
            "python3 -c \"import os; os.execvp('go', ['go', 'test', '-tags=musl', './...'])\"",
            "python3 -c \"import os; os.execvp('go', ['go', 'vet', '-tags=musl', './...'])\"",
        ),
        (f"$SHELL -c '{M}'", f"$SHELLX -c '{M}'"),
        # awk's system() in a BEGIN block that is the whole program
        (f"awk 'BEGIN {{ system(\"{M}\") }}'", f"awk '{{ system(\"{M}\") }}' in.txt"),
        # xargs -I puts the whole line in: a script a shell is handed
        (f"echo '{M}' | xargs -I{{}} sh -c '{{}}'", f"echo '{M}' | xargs -I{{}} echo '{{}}'"),
        (f"xargs -I % bash -c % <<< '{M}'", f"printf '{M}\n{W}\n' | xargs -I % bash -c %"),
        # a write that may not have run, or another file, or elsewhere: not what runs
        (f"echo '{M}' 1> s.sh; sh s.sh", f"test -f x && echo '{M}' > s.sh; sh s.sh"),
        (f"echo '{M}' > s.sh 2>&1; sh s.sh", f"(echo '{M}' > s.sh); sh s.sh"),
        (f"echo '{M}' > s.sh; sh s.sh", f"echo '{M}' > s.sh; echo ls > \"$F\"; sh s.sh"),
        (f"echo '{M}' > s.sh; sh s.sh", f"echo '{M}' > s.sh; cd sub && sh s.sh"),
        (f"echo '{M}' > s.sh; sh s.sh", f"echo '{M}' > s.sh; env -C sub sh s.sh"),
        (f"echo '{M}' > s.sh; sh s.sh", f"echo '{M}' > s.sh; bash -n s.sh"),
    ],
)
def test_a_script_the_line_writes_then_runs_is_read(repeat: str, twin: str) -> None:
    assert [h.id for h in check(repeat, LEDGER).hits] == ["F-001"], repeat
    assert check(twin, LEDGER).hits == [], twin


def test_nested_loops_are_read_in_bounded_time() -> None:
    """Each loop over plain words reads its body once per word, up to a budget of bytes:
    sixteen nested loops of sixteen words do not read the body 16**16 times."""
    words = " ".join(f"w{i}" for i in range(16))
    text = "".join(f"for v{d} in {words}; do " for d in range(16)) + M + "; done" * 16
    start = time.perf_counter()
    hits = check(text, LEDGER).hits
    assert time.perf_counter() - start < 5
    assert [h.id for h in hits] == ["F-001"]  # the innermost body still runs it


STOP35 = [  # (refused, its twin): the forms stop 35 reads, through the agent hook
    (f"cd . && bash <<'EOF'\n{M}\nEOF", f"cd . && cat <<'EOF'\n{M}\nEOF"),
    (f"cat > /tmp/t.sh <<'EOF'\n{M}\nEOF\nbash /tmp/t.sh", f"cat > /tmp/t.sh <<'EOF'\n{M}\nEOF"),
    (f"CMD='{M}'; $CMD", f"CMD='{M}'; \"$CMD\""),
    (f'x=({M}); "${{x[@]}}"', f'x=({M}); echo "${{x[@]}}"'),
    ("go test $'-tags=\\x6dusl' ./...", "go test $'-tags=\\x6d' ./..."),
    (f"x='{M}'; sh <<< \"$x\"", f"x='{M}'; sh <<< '$x'"),
    (
        "for p in ./...; do go test -tags=musl $p; done",
        "for p in ./a; do go test -tags=musl $p; done",
    ),
]


@pytest.mark.parametrize(("repeat", "twin"), STOP35)
def test_the_agent_hook_refuses_what_the_line_runs(
    failures_repo: Path, repeat: str, twin: str
) -> None:
    """Claude Code's PreToolUse hook, on the committed ledger: each form is denied with the
    row it repeats, and its twin is let through."""

    def decision(command: str) -> tuple[str, str]:
        event = {"session_id": "s", "cwd": str(failures_repo), "tool_name": "Bash"}
        raw = json.dumps({**event, "tool_input": {"command": command}})
        result = run(failures_repo, "hook", "claude", "pre-tool-use", input=raw)
        assert result.code == 0, result
        out = json.loads(result.out) if result.out.strip() else {}
        hook = out.get("hookSpecificOutput", {})
        return hook.get("permissionDecision", "allow"), hook.get("permissionDecisionReason", "")

    verdict, reason = decision(repeat)
    assert verdict == "deny" and "F-001" in reason, (repeat, reason)
    assert decision(twin)[0] != "deny", twin


@pytest.mark.parametrize(
    ("runs_nothing", "twin"),
    [  # what never runs is not refused; its twin, which runs it, is
        (f"false && {M}", f"true && {M}"),
        (f"true || {M}", f"false || {M}"),
        (f": || {M}", f"false && echo x || {M}"),
        (f"! true && {M}", f"! false && {M}"),
        (f"if false; then {M}; fi", f"if true; then {M}; fi"),
        (f"if true; then :; else {M}; fi", f"if false; then :; else {M}; fi"),
        (
            f"if false; then :; elif false; then {M}; fi",
            f"if false; then :; elif true; then {M}; fi",
        ),
        (
            f"if x; then :; elif ! false; then :; else {M}; fi",
            f"if x; then :; elif y; then :; else {M}; fi",
        ),
        (f"if true; then :; elif {M}; then :; fi", f"if false; then :; elif {M}; then :; fi"),
        (
            f"if false; then {M}; elif true; then :; else {M}; fi",
            f"if x; then :; elif false; then :; else {M}; fi",
        ),
        (f"while false; do {M}; done", f"while true; do {M}; break; done"),
        (f"until true; do {M}; done", f"until false; do {M}; break; done"),
        (f"exit 0; {M}", f"{M}; exit 0"),
        (f"echo done; exit 1\n{M}", f"make || exit 1; {M}"),  # a conditional exit
        (f"bash -c 'exit; {M}'", f"(exit 0); {M}"),  # a subshell's exit ends the subshell
    ],
)
def test_what_never_runs_is_not_refused(runs_nothing: str, twin: str) -> None:
    assert check(runs_nothing, LEDGER).hits == [], runs_nothing
    assert [h.id for h in check(twin, LEDGER).hits] == ["F-001"], twin


@pytest.mark.parametrize(
    ("repeat", "twin"),
    [  # `0<` is standard input; tree-sitter-bash reads that `0` as an argument
        (f"bash 0<<< '{M}'", f"bash 3<<< '{M}'"),
        (f"bash 0<<'E'\n{M}\nE", f"bash 3<<'E'\n{M}\nE"),
        (f"printf '{M}\\n' > s.sh; bash 0< s.sh", f"printf '{M}\\n' > s.sh; bash 3< s.sh"),
        (f"printf '{M}\\n' > s.sh; sh 0<s.sh && ls", f"printf '{M}\\n' > s.sh; sh 4<s.sh && ls"),
        (f"{M} 0</dev/null", f"{M} 0 </dev/null"),  # `0 <`: an argument `0`, another act
    ],
)
def test_descriptor_zero_is_standard_input_and_another_is_not(repeat: str, twin: str) -> None:
    assert [h.id for h in check(repeat, LEDGER).hits] == ["F-001"], repeat
    assert check(twin, LEDGER).hits == [], twin
