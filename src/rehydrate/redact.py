"""Secret redaction for text that goes into a prompt: values become ``[REDACTED:<kind>]``.

Rules are a table (kind, pattern, which text it scans, which group is the secret).
Every pattern starts with a literal (``AKIA``, ``ghp_``, ``-----BEGIN``...), so the
regular-expression engine skips through clean text at string-search speed; the
case-insensitive rules scan an ASCII-lower-cased copy of the text that keeps every
offset. Assignments (``password = "..."``) are found from their keywords with
``str.find`` and checked with an anchored match. Redaction is deliberately eager:
a false positive costs a few characters of context, a false negative leaks a
credential into a model's context window. A private-key block whose END line is
missing (a diff cut short) is redacted as far as PEM characters go: fail closed,
without swallowing unrelated text.
"""

import re
from collections.abc import Iterator
from typing import NamedTuple

MARK = "[REDACTED:{kind}]"


class Rule(NamedTuple):
    kind: str
    pattern: re.Pattern[str]
    folded: bool = False  # scan the ASCII-lower-cased copy (case-insensitive)
    group: int = 0  # the group holding the secret (0: the whole match)
    # Rules merged into one pattern to save a scan of the text: the kind of each of its
    # numbered groups (the last group that matched names the kind; the span is group 0).
    kinds: tuple[str, ...] = ()
    # A character every match holds and prose seldom does: a text without it is not
    # scanned (one memchr instead of a pass of the regular-expression engine).
    needs: str = ""


def _rule(kind: str, pattern: str, *, folded: bool = False, group: int = 0,
          needs: str = "") -> Rule:
    return Rule(kind, re.compile(pattern), folded, group, needs=needs)


def _merged(prefix: str, alternatives: tuple[tuple[str, str], ...]) -> Rule:
    """One scan for rules sharing a literal prefix: ``prefix(?:(alt1)|(alt2)...)``."""
    body = "|".join(f"({pattern})" for _, pattern in alternatives)
    return Rule(alternatives[0][0], re.compile(f"{prefix}(?:{body})"),
                kinds=tuple(kind for kind, _ in alternatives))


_TAIL = r"(?![A-Za-z0-9])"
_PEM = r"[A-Za-z0-9+/=\s:,-]"
RULES: tuple[Rule, ...] = (
    # The body is what a PEM block (or a diff of one) can hold; without an END line the
    # redaction runs from the header's line break as far as such characters go, and stops
    # at the first other one (a table's '|', a quote, a period), so it never swallows
    # the rest of a ledger; a header alone in a sentence is redacted by itself.
    _rule("private_key", r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----"
                         r"(?:" + _PEM + r"*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|"
                         r"[ \t]*\r?\n" + _PEM + r"*|)"),
    _merged("A", (("aws_access_key", r"KIA[A-Z0-9]{16}" + _TAIL),
                  ("aws_access_key", r"SIA[A-Z0-9]{16}" + _TAIL),
                  ("google_api_key", r"Iza[0-9A-Za-z_-]{35}"))),
    _merged("g", (("github_token", r"h[pousr]_[A-Za-z0-9]{30,255}"),
                  ("github_token", r"ithub_pat_[A-Za-z0-9_]{22,255}"))),
    _rule("slack_token", r"xox[abposre]-[A-Za-z0-9-]{10,}", needs="x"),
    _rule("slack_webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"),
    _rule("openai_key", r"sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}"),
    _rule("stripe_key", r"k_(?:live|test)_[A-Za-z0-9]{16,}"),
    _rule("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", needs="J"),
    _rule("url_credentials", r"://[^\s/:@'\"]+:([^\s/@'\"]+)@", group=1, needs="@"),
    _rule("bearer_token", r"bearer[ \t]+([a-z0-9._~+/=-]{8,})", folded=True, group=1),
    _rule("basic_auth", r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?basic[ \t]+([a-z0-9+/=]{8,})",
          folded=True, group=1, needs="z"),
)

# Assignments: keyword -> kind; the keyword must start the key's word (a prefix like
# ``db_`` or ``AWS_SECRET_`` is fine), then ``=``/``:`` and a value.
_ASSIGNMENT_WORDS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("p", ("password", "passwd", "passphrase", "pwd"), "password"),  # found by _P_WORDS
    ("secret", ("secret",), "secret"),
    ("token", ("token",), "token"),
    ("credential", ("credential",), "credentials"),
    ("key", ("key",), "api_key"),
)
_KEY_QUALIFIER = re.compile(r"(?:api|access|private|secret|signing|encryption|master|auth"
                            r"|client|app|account|service)[_.-]?\Z")
_ASSIGNMENT_TAIL = re.compile(
    r"[\w.-]*[\"']?[ \t]*(?::=|=>|=|:)[ \t]*"
    # a quoted value never crosses a table's cell separator (" | ", unescaped)
    r"""(?:"((?:[^"\n|]|(?<=\\)\||\|(?! ))+)"|'((?:[^'\n|]|(?<=\\)\||\|(?! ))+)'"""
    r"""|([^\s"'`,;(){}\[\]<>|]{4,})(?![\w.(\[]))"""
)


_P_WORDS = re.compile("p(?:ass|wd)")  # one scan for both password hints


def _ascii_lower(text: str) -> str:
    """Lower-case ASCII letters; every other character becomes '?' (offsets unchanged)."""
    if text.isascii():
        return text.lower()
    return text.encode("ascii", "replace").lower().decode("ascii")


def _hits(lowered: str, hint: str) -> Iterator[int]:
    if hint == "p":
        yield from (match.start() for match in _P_WORDS.finditer(lowered))
        return
    at = lowered.find(hint)
    while at != -1:
        yield at
        at = lowered.find(hint, at + 1)


def _assignments(lowered: str) -> list[tuple[int, int, str]]:
    spans = []
    for hint, words, kind in _ASSIGNMENT_WORDS:
        for at in _hits(lowered, hint):
            word = next((w for w in words if lowered.startswith(w, at)), None)
            if word is not None and (
                    hint != "key" or _KEY_QUALIFIER.search(lowered, max(0, at - 16), at)):
                match = _ASSIGNMENT_TAIL.match(lowered, at + len(word))
                if match:
                    index = next(i for i in (1, 2, 3) if match.group(i) is not None)
                    spans.append((match.start(index), match.end(index), kind))
    return spans


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, kind) spans of secret-looking values, in order."""
    lowered: str | None = None
    spans: list[tuple[int, int, str]] = []
    for rule in RULES:
        if rule.folded and lowered is None:
            lowered = _ascii_lower(text)
        haystack = lowered if rule.folded else text
        assert haystack is not None
        if rule.needs and rule.needs not in haystack:
            continue
        if rule.kinds:
            for match in rule.pattern.finditer(haystack):
                spans.append((match.start(), match.end(), rule.kinds[match.lastindex - 1]))
            continue
        for match in rule.pattern.finditer(haystack):
            spans.append((match.start(rule.group), match.end(rule.group), rule.kind))
    if lowered is None:
        lowered = _ascii_lower(text)
    spans.extend(_assignments(lowered))
    spans.sort(key=lambda s: (s[0], -s[1]))
    kept: list[tuple[int, int, str]] = []
    for span in spans:
        if kept and span[0] < kept[-1][1]:
            continue  # inside a span already redacted (a key inside an assignment, ...)
        kept.append(span)
    return kept


def redact(text: str) -> str:
    """``text`` with every secret-looking value replaced by ``[REDACTED:<kind>]``."""
    spans = find_secrets(text)
    if not spans:
        return text
    out = []
    pos = 0
    for start, end, kind in spans:
        out.append(text[pos:start])
        out.append(MARK.format(kind=kind))
        pos = end
    out.append(text[pos:])
    return "".join(out)
