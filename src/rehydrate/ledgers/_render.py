"""What a ledger's Markdown shows: visible cells, hidden markup, the Next action's words.

The guard judges text on what renders, not on code points (docs/ledgers.md,
"What counts as visible"). Everything here is a single left-to-right pass or a
regular expression whose every match attempt stops at the next ``<``, ``&``
or ``]`` (linear time on any input); nothing imports mistune.
"""

from __future__ import annotations

import re

# Letters, symbols that render as nothing: Hangul fillers, braille blank, the
# ideographic half fill space. (Whitespace, Cf, Cc, Co, Cn and lone marks never count.)
_BLANK_GRAPHICS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u303f")
# ASCII that is Markdown syntax, never the visible character of a cell by itself.
_MARKUP = frozenset("*_~`\\")
_VISIBLE_CATEGORY = frozenset("LNPS")
# An HTML tag (open, close or self-closing). ``[^<>]*`` stops at the next '<' or '>',
# so the attempts that start at the '<' of a line never rescan each other's text.
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)(?:[\s/][^<>]*)?>")
# An inline link or image '[text](target)': only its text shows. Each attempt stops at
# the next bracket, then at the next parenthesis.
_INLINE_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)")
_TICKS = re.compile(r"`+")
# Tags whose content a browser does not show, and tags that are only metadata.
_HIDING_TAGS = frozenset(
    {
        "script",
        "style",
        "template",
        "noscript",
        "head",
        "title",
        "meta",
        "link",
        "base",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "param",
        "svg",
        "math",
        "font",
        "noembed",
        "noframes",
        "xmp",
        "plaintext",
        "textarea",
        "select",
        "option",
        "input",
    }
)
_HIDING_ATTRIBUTE = re.compile(r"hidden|style\s*=|opacity|display|visibility", re.IGNORECASE)
# Tags that end a line when rendered: a Next action holding one spans two lines.
_LINE_TAGS = frozenset(
    {
        "br",
        "p",
        "div",
        "li",
        "ul",
        "ol",
        "hr",
        "tr",
        "td",
        "th",
        "table",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "blockquote",
        "dl",
        "dt",
        "dd",
        "section",
        "article",
        "details",
        "summary",
        "address",
        "figure",
        "figcaption",
        "header",
        "footer",
        "nav",
        "main",
        "aside",
    }
)


def code_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, run length) of each inline code span, CommonMark's pairing of runs.

    A run of N backticks opens a span closed by the next run of exactly N. Runs are
    found once and each length's runs kept in order with a cursor that only moves
    forward, so pairing is linear (rescanning for each opener would be quadratic).
    """
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    cursor = dict.fromkeys(by_length, 0)
    spans: list[tuple[int, int, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        length = end - start
        same, at = by_length[length], cursor[length]
        while at < len(same) and same[at] <= index:
            at += 1
        cursor[length] = at
        if at == len(same):
            index += 1
            continue
        close = same[at]
        spans.append((start, runs[close][1], length))
        index = close + 1
    return spans


def _has_visible(text: str, markup: frozenset[str] = _MARKUP) -> bool:
    """Whether ``text`` holds a character that renders (``markup`` characters never do)."""
    import unicodedata

    # A mark (M) shows only on a visible base, which already answered: marks never decide.
    return any(
        unicodedata.category(char)[0] in _VISIBLE_CATEGORY
        and char not in _BLANK_GRAPHICS
        and char not in markup
        for char in text
    )


def _outside_code(text: str) -> str:
    """``text`` with its code spans blanked (their content shows literally)."""
    pieces, pos = [], 0
    for start, end, _ in code_spans(text):
        pieces.append(text[pos:start])
        pos = end
    pieces.append(text[pos:])
    return " ".join(pieces)


def _rendered(text: str) -> str:
    """``text`` outside code spans with tags, link targets and entities turned into what
    they show; escapes keep the escaped character."""
    text = _TAG.sub("", text) if "<" in text else text
    text = _INLINE_LINK.sub(r"\1", text) if "](" in text else text
    if "&" in text:
        import html

        text = html.unescape(text)
    return text


def visible(cell: str) -> bool:
    """Whether a cell shows at least one visible character when rendered.

    Visible: a character of general category L, N, P or S (or a mark on one), other than
    the blank fillers and the Markdown syntax characters ``* _ ~ ` \\``, left after
    removing HTML tags and link targets and decoding entities; the content of
    a code span counts as written (entities and tags in it show literally).
    """
    if cell.isascii() and "<" not in cell and "&" not in cell and "]" not in cell:
        # hot path: no tag, entity or link target, so any other character shows
        if cell.strip(" \t*_~`\\"):
            return True
        if "`" not in cell:
            return False
    if "`" in cell:
        pieces: list[str] = []
        pos = 0
        for start, end, ticks in code_spans(cell):
            if _has_visible(cell[start + ticks : end - ticks], frozenset()):  # literal text
                return True
            pieces.append(cell[pos:start])
            pos = end
        pieces.append(cell[pos:])
        cell = " ".join(pieces)
    return _has_visible(_rendered(cell))


def hidden_markup(text: str) -> str | None:
    """What in one line would render as nothing while the model still reads it, or None.

    HTML comments (``<!--``, ``<!-->``, unterminated too), declarations and CDATA
    (``<!``), processing instructions (``<?``), tags that hide their content (``<div
    hidden>``, ``style=``, ``<script>``, ``<template>`` ...) and link reference
    definitions (``[//]: # (note)``), which render nothing at all.
    """
    if "<" in text:
        if "<!" in text:
            return "an HTML comment or declaration ('<!')"
        if "<?" in text:
            return "an HTML processing instruction ('<?')"
        for match in _TAG.finditer(_outside_code(text) if "`" in text else text):
            name = match.group(1).lower()
            if name in _HIDING_TAGS:
                return f"a <{name}> tag, whose content does not render"
            if _HIDING_ATTRIBUTE.search(match.group()):
                return f"a <{name}> tag with an attribute that can hide it"
    if "]:" in text and _link_definition(text):
        return "a link reference definition ('[label]: target'), which renders nothing"
    return None


def _link_definition(text: str) -> bool:
    """Whether ``text`` starts (inside block quotes and list items) with '[label]:'."""
    pos, size = 0, len(text)
    while pos < size:  # container prefixes: '>', list markers, indentation
        char = text[pos]
        if char in " \t>":
            pos += 1
        elif char in "-*+" and pos + 1 < size and text[pos + 1] in " \t":
            pos += 2
        elif char.isdigit():
            digits = pos
            while pos < size and text[pos].isdigit():
                pos += 1
            if pos < size - 1 and text[pos] in ".)" and text[pos + 1] in " \t":
                pos += 2
            else:
                pos = digits
                break
        else:
            break
    if not text.startswith("[", pos) or text.startswith("[^", pos):  # footnotes render
        return False
    close = text.find("]", pos + 1)
    while close > 0 and text[close - 1] == "\\":
        close = text.find("]", close + 1)
    return close > 0 and text.startswith(":", close + 1)


# Look-alikes of the chaining operators that NFKC leaves alone (NFKC already folds
# fullwidth, small and mathematical forms: '；' '＆' '｜' '𝐭𝐡𝐞𝐧').
_FOLD = str.maketrans(
    {
        "\u037e": ";",
        "\u061b": ";",
        "\u204f": ";",
        "\u1364": ";",
        "\u2e35": ";",
        "\ua6f6": ";",
        "\u2223": "|",
        "\u01c0": "|",
        "\u2502": "|",
        "\u23d0": "|",
        "\u2758": "|",
        "\uffe8": "|",
        "\u214b": "&",
        "\u0435": "e",
        "\u04bb": "h",
        "\u0578": "n",
        "\u0442": "t",
        "\u03b7": "n",
        "\uff64": "\u3001",
        "\ufe11": "\u3001",
        "\ufe51": "\u3001",
    }
)


_MARKERS = {ord(c): None for c in "*_`~"}


def action_words(text: str) -> str:
    """The Next action as a reader sees its words, for the chaining check.

    Comments, tags (a line-ending tag such as ``<br>`` becomes a line feed), backslash
    escapes, emphasis and code markers and entities are resolved; then NFKC, look-alike
    operators folded, and every joiner, variation selector, combining mark and format
    character removed, so
    ``th<!-- -->en``, ``t\\hen``, ``&#59;``, ``；`` and ``th\\u200den`` all read plainly.
    """
    import unicodedata

    if "<" in text:
        text = _strip_comments(text)
        text = _TAG.sub(lambda m: "\n" if m.group(1).lower() in _LINE_TAGS else "", text)
    text = text.replace("\\", "")
    # emphasis and code markers render as nothing inside a word: '*th*en' reads 'then'
    text = text.translate(_MARKERS)
    if "&" in text:
        import html

        # twice: '&amp;&amp;' is how '&&' is written when escaped once more
        text = html.unescape(html.unescape(text))
    text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    if not text.isascii():
        text = "".join(c for c in text if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    return text


def _strip_comments(text: str) -> str:
    """``text`` with every ``<!-- ... -->`` (or unterminated ``<!--``) removed."""
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:start])
        end = text.find("-->", start + 2)  # '<!-->' closes itself, as in HTML
        if end < 0:
            return "".join(out)
        pos = end + 3
