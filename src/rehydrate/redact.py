"""Secret redaction for text that leaves the process: values become ``[REDACTED:<kind>]``.

Two kinds of rule. *Tokens* are recognisable by shape (``AKIA…``, ``ghp_…``,
``glpat-…``, a JWT, a private-key block): a table of (kind, literal, pattern).
*Assignments* are recognisable by a name (``password = "…"``, ``api_key: …``,
``Authorization: Token …``, ``mysql -p…``, a YAML ``password: |`` block): found from
their keywords with ``str.find`` and checked with anchored matches. Redaction is
deliberately eager: a false positive costs a few characters of context, a false
negative leaks a credential into a model's context window.

Linear time, by construction (docs/design.md, "Regular expressions"): every pattern
starts with a literal, so the engine tries it only where that literal occurs; every
repetition is possessive (``*+``, ``++``, ``{m,}+``: never backtracked into) or bounded
by a small constant; and an unbounded run either cannot hold the literal's first
character or sits behind a lookbehind that makes attempts start only at the start
of a run, so no two failed attempts scan the same run. The keyword scanner never
looks at a hit inside a span it has already scanned. ``tests/test_redact.py`` checks
the first two properties on the parsed patterns; ``benchmarks/bench_hostile.py``
times 1 MB of every hostile token.
"""

import re

from .patterns import compiled
from .records import NamedTuple

MARK = "[REDACTED:{kind}]"
# Every character a renderer or a tokenizer may take as a line break.
BREAKS = "\n\r\x0b\x0c\x85\u2028\u2029"


class Rule(NamedTuple):
    kind: str
    pattern: str  # compiled on first use (``compiled``)
    # A literal every match holds: a text without it is not scanned (one fast `in`
    # instead of a pass of the regular-expression engine). "" means always scan.
    needs: str = ""
    folded: bool = False  # scan the ASCII-lower-cased copy (case-insensitive)
    group: int = 0  # the group holding the secret (0: the whole match; -1: the one that matched)
    # Rules merged into one pattern to save a scan: the kind of each numbered group
    # (the last group that matched names the kind; the span is group 0).
    kinds: tuple[str, ...] = ()


def _rule(
    kind: str, pattern: str, needs: str = "", *, folded: bool = False, group: int = 0
) -> Rule:
    return Rule(kind, pattern, needs, folded, group)


def _merged(prefix: str, alternatives: tuple[tuple[str, str], ...], needs: str = "") -> Rule:
    """One scan for rules sharing a literal prefix: ``prefix(?:(alt1)|(alt2)...)``."""
    body = "|".join(f"({pattern})" for _, pattern in alternatives)
    return Rule(
        alternatives[0][0],
        f"{prefix}(?:{body})",
        needs,
        kinds=tuple(kind for kind, _ in alternatives),
    )


_TAIL = r"(?![A-Za-z0-9])"
_NL = r"[^\s\"'`|;&]"  # a character of an unquoted value on a command line

RULES: tuple[Rule, ...] = (
    # Tokens known by their prefix. Every scan of the quoted text costs about 1 ns a
    # character (1.6 ms on the 1.6 MB benchmark prompt), so rules share a scan behind a
    # first character where they can, and vendor prefixes rare in coding sessions are
    # left out (docs/prompt.md lists them); their values are still caught when they are
    # assigned to a name holding token, secret, key, password or credential.
    _merged(
        "A",
        (
            ("aws_access_key", r"(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}" + _TAIL),
            ("google_api_key", r"Iza[0-9A-Za-z_-]{35}"),
            ("age_secret_key", r"GE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
            ("atlassian_token", r"TATT3[A-Za-z0-9_=-]{150,300}+"),
        ),
    ),
    _merged(
        "g",
        (
            ("github_token", r"h[pousr]_[A-Za-z0-9]{30,255}"),
            ("github_token", r"ithub_pat_[A-Za-z0-9_]{22,255}"),
            (
                "gitlab_token",
                r"l(?:pat|dt|ptt|rt|cbt|ffct|ft|imt|oas|soat|agent|wt|sa)"
                r"-[A-Za-z0-9_-]{20,}+",
            ),
            ("grafana_token", r"l(?:c|sa)_[A-Za-z0-9+/_=-]{32,}+"),
        ),
    ),
    _merged(
        "x",
        (
            ("slack_token", r"ox[abposre]-[A-Za-z0-9-]{10,}+"),
            ("slack_token", r"app-[0-9]-[A-Za-z0-9-]{10,}+"),
        ),
        needs="x",
    ),
    _rule("openai_key", r"sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}+"),
    _merged(
        "p",
        (
            ("pypi_token", r"ypi-AgE[A-Za-z0-9_-]{50,}+"),
            ("prefect_token", r"nu_[A-Za-z0-9]{36}"),
            ("perplexity_key", r"plx-[A-Za-z0-9]{48}"),
            ("pulumi_token", r"ul-[a-f0-9]{40}"),
            ("planetscale_token", r"scale_(?:tkn|oauth|pw)_[A-Za-z0-9_.=-]{32,64}"),
        ),
    ),
    _rule("slack_webhook", r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]++"),
    _rule("huggingface_token", r"hf_[A-Za-z]{34}" + _TAIL),
    _rule("stripe_key", r"k_(?:live|test|prod)_[A-Za-z0-9]{10,}+"),
    _rule("npm_token", r"npm_[A-Za-z0-9]{36}" + _TAIL),
    _rule(
        "jwt",
        r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+"
        r"\.[A-Za-z0-9_-]{8,}+",
        needs="J",
    ),
    # userinfo with a password, whatever the scheme, the user possibly empty (redis://:pw@h)
    _rule("url_credentials", r"://[^\s/:@'\"`]*+:([^\s/@'\"`]++)@", needs="@", group=1),
    _rule("bearer_token", r"bearer[ \t]++([a-z0-9._~+/=-]{8,}+)", folded=True, group=1),
    # Authorization: Basic / Token / Digest / any scheme (the value after it is the secret)
    Rule(
        "basic_auth",
        r"authorization[\"'`]?[ \t]*+[:=][ \t]*+[\"'`]?(?:basic[ \t]++([a-z0-9+/=]{8,}+)|"
        r"(?:(?:bearer|token|digest|apikey|sso-key|key)[ \t]++)?([^\s\"'`,;|]{8,}+))",
        needs="z",
        folded=True,
        group=-1,
        kinds=("basic_auth", "authorization"),
    ),
    # a password given on a command line: mysql -pSECRET, curl -u user:SECRET
    _rule("password", r"mysql[^\n\r|]{0,200}?[ \t]-p(" + _NL + r"++)", group=1),
    _rule(
        "password",
        r"curl[^\n\r|]{0,200}?[ \t](?:-u|--user)[ \t=]*+['\"]?"
        r"[^\s:'\"]++:(" + _NL + r"++)",
        group=1,
    ),
)

# Assignments: keyword -> kind. The keyword may sit anywhere in the key's name
# (``db_password``, ``PGPASSWORD``, ``AWS_SECRET_ACCESS_KEY``); ``key`` needs a qualifier
# before it (``api_key``, ``signing-key``) and ``pass`` a word and a separator
# (``DB_PASS``), so prose stays prose. One engine scan per literal (the engine finds a
# literal faster than str.find); the qualifiers are fixed-width lookbehinds, so a
# megabyte of ``keykeykey`` costs no Python-level step per hit.
_KEY_QUALIFIERS = (
    "api",
    "access",
    "private",
    "secret",
    "signing",
    "encryption",
    "master",
    "auth",
    "client",
    "app",
    "account",
    "service",
    "license",
    "deploy",
    "consumer",
    "session",
    "webhook",
    "hmac",
    "stripe",
    "ssh",
    "gpg",
    "jwt",
)


def _key_hits() -> str:
    """``key`` after a qualifier: lookbehinds grouped by the character just before ``key``,
    so a hit that cannot qualify fails at its first comparison."""
    by_last: dict[str, list[str]] = {}
    for q in _KEY_QUALIFIERS:
        by_last.setdefault(q[-1], []).append(q)
    plain = [
        f"(?<={c}key)(?:" + "|".join(f"(?<={q}key)" for q in qs) + ")"
        for c, qs in sorted(by_last.items())
    ]
    separated = "(?<=[_.-]key)(?:" + "|".join(f"(?<={q}.key)" for q in _KEY_QUALIFIERS) + ")"
    return "key(?:" + "|".join([*plain, separated]) + ")"


_KEYWORDS: tuple[tuple[str, str], ...] = (
    (r"p(?:ass(?:word|wd|phrase)|wd|ass(?<=[a-z0-9][_.-]pass))", "password"),
    ("secret", "secret"),
    ("token", "token"),
    ("cred(?:ential|s)", "credentials"),
    (_key_hits(), "api_key"),
)
_KEY_RUN = r"[\w.-]*+"  # the rest of the key's name (stops at every hit's end)
# A key named for something about the secret, not the secret (password_policy: strict),
# and values that are never secrets.
_ABOUT = (
    r"[_.-](?:policy|length|min|max|file|path|hint|prompt|field|name|type"
    r"|expiry|expires|ttl|format|rotation|required|enabled|reset|regex|count"
    r"|size|env|var|id|url|uri|endpoint|header)s?\Z"
)
_NOT_SECRETS = frozenset(
    {"true", "false", "null", "none", "nil", "yes", "no", "required", "optional", "~"}
)
_VALUE = (
    # the name, the operator and the value may sit in neighbouring table cells
    # (``| PGPASSWORD | = | hunter2 |``): one cell separator is allowed on each side
    r"[\"'`]?[ \t]*+(?:\|[ \t]*+)?(?::=|=>|=|:)[ \t]*+(?:\|[ \t]*+)?"
    # a quoted value never crosses a line break or a table's cell separator (" | ")
    r"(?:\"((?:[^\"\\|\n\r\x0b\x0c]|\\[^\n\r]|\|(?! ))++)\""
    r"|'((?:[^'\\|\n\r\x0b\x0c]|\\[^\n\r]|\|(?! ))++)'"
    r"|`((?:[^`\\|\n\r\x0b\x0c]|\\[^\n\r]|\|(?! ))++)`"
    r"|([^\s\"'`,;(){}\[\]<>|]{4,}+)"
    r"|([|>][+-]?[1-9]?[+-]?)[ \t]*+(?=[\n\r]))"  # a YAML block scalar: the lines below
)
_DIFF_INDENT = r"[+ -]?[ \t]*+"


def _ascii_lower(text: str) -> str:
    """Lower-case ASCII letters; other characters become '?' and every line break '\\n'
    (offsets kept), so the scanners below know one line break only."""
    if text.isascii():
        lowered = text.lower()
    else:
        lowered = text.encode("ascii", "replace").lower().decode("ascii")
        if "\x85" in text or "\u2028" in text or "\u2029" in text:
            lowered = "".join("\n" if c in BREAKS else lowered[i] for i, c in enumerate(text))
    if "\r" in lowered or "\x0b" in lowered or "\x0c" in lowered:
        lowered = lowered.translate(_TO_LF)
    return lowered


_TO_LF = str.maketrans("\r\x0b\x0c", "\n\n\n")


def _run_end(run: re.Pattern[str], text: str, pos: int, endpos: int | None = None) -> int:
    """Where a match of ``run`` (a pattern that matches the empty string too) at ``pos``
    ends."""
    found = run.match(text, pos) if endpos is None else run.match(text, pos, endpos)
    return pos if found is None else found.end()


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end == -1 else end


def _block(text: str, key_at: int, start: int) -> int:
    """End of a YAML block scalar whose key is at ``key_at``: the lines below that are
    indented deeper than the key's line (a diff's +/-/space column allowed; blank lines
    stay in the block)."""
    line_start = text.rfind("\n", 0, key_at) + 1
    indent_run = compiled(_DIFF_INDENT)
    depth = _run_end(indent_run, text, line_start) - line_start
    end = pos = _line_end(text, start)
    while pos < len(text):
        pos += 1
        line_end = _line_end(text, pos)
        indent = _run_end(indent_run, text, pos, line_end) - pos
        if indent <= depth and indent < line_end - pos:
            break
        end = pos = line_end
    return end


def _assignments(lowered: str) -> list[tuple[int, int, str]]:
    spans = []
    for keyword, kind in _KEYWORDS:
        search = compiled(keyword).search
        hit = search(lowered)
        if hit is None:
            continue  # the value patterns are compiled at the first hit only
        key_run, value_at = compiled(_KEY_RUN).match, compiled(_VALUE).match
        about = compiled(_ABOUT).search
        while hit is not None:
            at, word_end = hit.span()
            # every later hit inside this key run ends at the same place: never rescanned
            run = key_run(lowered, word_end)  # matches the empty string too
            skip = run.end() if run is not None else word_end
            value = value_at(lowered, skip)
            if value is not None:
                index = value.lastindex or 0  # never 0: every alternative is a group
                start, end = value.span(index)
                if index == 5:  # a YAML block scalar: the lines below are the secret
                    start, end = value.end(), _block(lowered, at, value.end())
                elif index == 4 and lowered[end : end + 1] in ("(", "["):
                    end = start  # an unquoted name then '(' or '[': a call, an index
                if (
                    end > start
                    and (end - start > 8 or lowered[start:end] not in _NOT_SECRETS)
                    and (skip == word_end or not about(lowered, at, skip))
                ):
                    spans.append((start, end, kind))
                if end > skip:
                    skip = end
            hit = search(lowered, skip if skip > at else at + 1)
    return spans


_PEM_BEGIN = r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_RUN = r"[A-Za-z0-9+/=\s:,-]*+"  # what a PEM block (or a diff of one) holds
_PEM_BREAK = r"[ \t]*+(?:\r\n|[\n\r])"


def _private_keys(text: str) -> list[tuple[int, int, str]]:
    """Private-key blocks. Without an END line (a diff cut short) the redaction runs from
    the header's line break as far as PEM characters go, and stops at the first other one
    (a table's '|', a quote, a period), so it never swallows the rest of a ledger; a header
    alone in a sentence is redacted by itself."""
    spans: list[tuple[int, int, str]] = []
    end_match: re.Match[str] | None = None
    searched = False  # the END search is redone only once the END found is behind us
    pos = 0
    begin_at = compiled(_PEM_BEGIN).search
    while (begin := begin_at(text, pos)) is not None:
        pem_run = compiled(_PEM_RUN)
        if not searched or (end_match is not None and end_match.start() < begin.end()):
            end_match = compiled(_PEM_END).search(text, begin.end())
            searched = True
        if (
            end_match is not None
            and _run_end(pem_run, text, begin.end(), end_match.start()) == end_match.start()
        ):
            end = end_match.end()
        elif compiled(_PEM_BREAK).match(text, begin.end()):
            run = _run_end(pem_run, text, begin.end())
            end = begin.end() + len(text[begin.end() : run].rstrip())
        else:
            end = begin.end()
        spans.append((begin.start(), end, "private_key"))
        pos = end
    return spans


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """Non-overlapping (start, end, kind) spans of secret-looking values, in order."""
    lowered: str | None = None
    spans: list[tuple[int, int, str]] = []
    spans.extend(_private_keys(text))
    for rule in RULES:
        if rule.folded and lowered is None:
            lowered = _ascii_lower(text)
        haystack = lowered if rule.folded else text
        assert haystack is not None
        if rule.needs and rule.needs not in haystack:
            continue
        pattern = compiled(rule.pattern)
        if rule.kinds:
            for match in pattern.finditer(haystack):
                index = match.lastindex or 0
                group = index if rule.group == -1 else 0
                spans.append((match.start(group), match.end(group), rule.kinds[index - 1]))
            continue
        for match in pattern.finditer(haystack):
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
