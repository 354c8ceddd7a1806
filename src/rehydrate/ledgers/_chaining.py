"""Whether a Next action chains a second action onto the first: a small structural judge.

It reads the words as they render (``_render.action_words``: code spans already replaced
by a placeholder, since code is quoted, not an instruction to do something next) and
looks for the structures that put one action after another, in any language:

* a sequencing word or particle (the table ``CONNECTORS``: English ``then``, Chinese
  ``然后``, Japanese ``してから``/``、次に``, Russian ``затем``/``потом``, ...);
* a sequencing symbol: ``;``, ``&&``, ``||``, an ASCII arrow (``->``, ``=>``, ``~>``)
  or any character Unicode names an ARROW (``→``, ``⇒``, ``⟶``, ``➜``);
* an enumeration: two markers counting on (``(1) … (2)``, ``1. … 2.``, ``a) … b)``,
  ``① … ②``);
* a bulleted list inside the line: a bullet character (``•``, ``‣``, ``◦``, ...) after
  some text, or two ASCII bullets (`` - `` / `` * `` / `` + `` between words).

Every check is one left-to-right scan or a regular expression over literals: linear.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# (language, spelling). Spellings in a script with word spaces need a word boundary on
# both sides ('strengthen' holds no 'then'); the others match anywhere.
CONNECTORS: tuple[tuple[str, str], ...] = (
    ("en", "then"),
    ("en", "afterwards"),
    ("en", "after that"),
    ("en", "followed by"),
    ("de", "dann"),
    ("de", "danach"),
    ("de", "anschließend"),
    ("fr", "puis"),
    ("fr", "ensuite"),
    ("es", "luego"),
    ("es", "después de eso"),
    ("es", "y después"),
    ("pt", "depois disso"),
    ("pt", "em seguida"),
    ("pt", "e depois"),
    ("it", "e poi"),
    ("it", "dopodiché"),
    ("nl", "daarna"),
    ("nl", "vervolgens"),
    ("ru", "затем"),
    ("ru", "потом"),
    ("ru", "после этого"),
    ("uk", "потім"),
    ("uk", "після цього"),
    ("zh", "然后"),
    ("zh", "然後"),
    ("zh", "接着"),
    ("zh", "接著"),
    ("zh", "随后"),
    ("zh", "隨後"),
    ("zh", "之后再"),
    ("zh", "之後再"),
    ("zh", "其次"),
    ("ja", "してから"),
    ("ja", "その後"),
    ("ja", "それから"),
    ("ja", "、次に"),
    ("ja", "。次に"),
    ("ko", "그 다음"),
    ("ko", "그다음"),
    ("ko", "그런 다음"),
    ("ko", "그리고 나서"),
)
SYMBOLS: tuple[str, ...] = (";", "&&", "||", "->", "=>", "~>")
BULLETS = frozenset("•‣◦⁃∙●○▪▫■□◆◇")


def _spaced(spelling: str) -> bool:
    return any(
        c.isascii() or "CYRILLIC" in unicodedata.name(c, "") for c in spelling if c.isalpha()
    )


_CONNECTOR = (
    "(?<!\\w)(?:"
    + "|".join(re.escape(s) for _, s in CONNECTORS if _spaced(s))
    + ")(?!\\w)|"
    + "|".join(re.escape(s) for _, s in CONNECTORS if not _spaced(s))
)
_CONNECTORS = re.compile(_CONNECTOR, re.IGNORECASE)
_WORDS = re.compile(_CONNECTOR + "|" + "|".join(re.escape(s) for s in SYMBOLS), re.IGNORECASE)
# An enumeration marker after the start, a space or a punctuation mark: '(1)', '1.', '1)'
# followed by a space, '(a)', 'a)'.
_MARKER = re.compile(
    r"(?:^|(?<=[\s,;:、，。]))(?:\(\s*(\d{1,3}|[a-z])\s*\)|(\d{1,3})[.)](?=\s)|([a-z])\)(?=\s))",
    re.IGNORECASE,
)
_ASCII_BULLET = re.compile(r"(?<=\s)[-*+](?=\s)")


@lru_cache(maxsize=1024)
def _kind(char: str) -> str:
    name = unicodedata.name(char, "")
    if "ARROW" in name:
        return "arrow"
    if "CIRCLED DIGIT" in name or "CIRCLED NUMBER" in name or "PARENTHESIZED DIGIT" in name:
        return "number"
    if char in BULLETS:
        return "bullet"
    return ""


def chained(words: str, raw: str = "") -> str | None:
    """What in ``words`` (the action as it reads) chains a second action, or None.

    ``raw``: the same words before NFKC folding, where circled numbers are still told
    apart from digits.
    """
    # look-alike folding maps Cyrillic 'е' 'т' onto Latin: Russian words are read unfolded
    found = _WORDS.search(words) or (_CONNECTORS.search(raw) if raw else None)
    if found:
        return repr(found.group())
    counted = 0
    for index, char in enumerate(raw or words):
        if char.isascii():
            continue
        kind = _kind(char)
        if kind == "arrow":
            return f"the arrow {char!r}"
        if kind == "number":
            counted += 1
            if counted == 2:
                return "a numbered list (circled numbers)"
        if kind == "bullet" and (raw or words)[:index].strip():
            return f"a bulleted list ({char!r})"
    if "-" in words or "*" in words or "+" in words:
        if len(_ASCII_BULLET.findall(words)) >= 2:
            return "a bulleted list (' - ')"
    return _enumeration(words)


def _enumeration(words: str) -> str | None:
    """Two enumeration markers that count on ('1.' then '2.', '(a)' then '(b)')."""
    if "(" not in words and "." not in words and ")" not in words:
        return None
    seen: set[str] = set()
    for match in _MARKER.finditer(words):
        value = (match.group(1) or match.group(2) or match.group(3)).lower()
        before = str(int(value) - 1) if value.isdigit() else chr(ord(value) - 1)
        if before in seen:
            return f"a numbered list ({match.group().strip()!r} after {before!r})"
        seen.add(value)
    return None
