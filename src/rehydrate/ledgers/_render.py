"""What a ledger's Markdown shows: visible cells, hidden markup, the Next action's words.

The guard judges text on what renders, not on code points (docs/ledgers.md,
"What counts as visible"). What renders is decided in one place, ``_visible.render``
(mistune's CommonMark/GFM AST); this module asks it about text that holds markup and
answers plain text itself (the grammar says such text shows as written).
"""

from __future__ import annotations

# Letters, symbols that render as nothing: Hangul fillers, braille blank, the
# ideographic half fill space. (Whitespace, Cf, Cc, Co, Cn and lone marks never count.)
_BLANK_GRAPHICS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u303f")
# ASCII that is Markdown syntax, never the visible character of a cell by itself.
_MARKUP = frozenset("*_~`\\")
_VISIBLE_CATEGORY = frozenset("LNPS")


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


def visible(cell: str) -> bool:
    """Whether a cell shows at least one visible character when rendered.

    Visible: a character of general category L, N, P or S (or a mark on one), other than
    the blank fillers and the Markdown syntax characters ``* _ ~ ` \\``, in the text
    ``_visible.render_inline`` says shows (tags, link targets and titles, images never
    do; entities are decoded); the content of a code span counts as written.
    """
    if cell.isascii() and "<" not in cell and "&" not in cell and "]" not in cell:
        # hot path: no tag, entity or link target, so any other character shows
        if cell.strip(" \t*_~`\\"):
            return True
        if "`" not in cell:
            return False
    if "<" in cell or "](" in cell or "`" in cell:
        from ._visible import CODE, render_inline

        return any(
            _has_visible(text, frozenset() if kind == CODE else _MARKUP)  # code: literal
            for kind, text in render_inline(cell).pieces
        )
    if "&" in cell:
        import html

        cell = html.unescape(cell)  # entities are all CommonMark resolves here
    return _has_visible(cell)


def hidden_markup(text: str) -> str | None:
    """What in one line (a table row or a line of prose) a renderer hides, or None.

    Decided by the AST (``_visible.render``; a table row cell by cell, each cell as
    GFM parses it, inline): raw HTML blocks, tags with attributes, comments, processing
    instructions, declarations, content-hiding elements, link and image titles, images'
    alt text, link reference and footnote definitions.
    """
    found = hidden_constructs(text)
    return found[0] if found else None


def _inline_may_hide(text: str) -> bool:
    """Whether inline text (a cell) can hide anything: raw HTML needs '<', a title or an
    image's alt text needs '](' (a reference link's definition is a line of its own)."""
    return "<" in text or "](" in text


def hidden_constructs(text: str) -> tuple[str, ...]:
    """Every construct a renderer hides in one line (see ``hidden_markup``)."""
    from ._visible import needs_ast, render, render_inline

    if not needs_ast(text):
        return ()
    body = text.strip(" \t")
    if body.startswith("|"):
        from ..errors import LedgerParseError
        from ._table import split_row

        try:
            cells = split_row(body, "", 0)
        except LedgerParseError:
            return render(text).hidden
        return tuple(
            h for cell in cells if _inline_may_hide(cell) for h in render_inline(cell).hidden
        )
    return render(text).hidden


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

    Read from the AST (``_visible.render_inline``): code spans become one placeholder
    character (quoted code is not a second action), line-ending tags and hard breaks a
    line feed; then leftover backslashes, emphasis markers and (twice) entities are
    resolved, NFKC applied, look-alike operators folded, and every joiner, variation
    selector, combining mark and format character removed, so ``t\\hen``, ``&#59;``,
    ``；`` and ``th\\u200den`` all read plainly.
    """
    return _fold(_shown_words(text))


def _shown_words(text: str) -> str:
    """The words outside code, as rendered, before folding (circled numbers intact)."""
    from ._visible import BREAK, CODE, render_inline

    if "<" in text or "[" in text or "`" in text or "\\" in text or "*" in text or "_" in text:
        text = "".join(
            " \ufffc " if kind == CODE else ("\n" if kind == BREAK else part)
            for kind, part in render_inline(text).pieces
        )
    return text


def _fold(text: str) -> str:
    import unicodedata

    text = text.replace("\\", "")
    # emphasis markers left unpaired render as themselves, but never split a word
    text = text.translate(_MARKERS)
    if "&" in text:
        import html

        # twice: '&amp;&amp;' is how '&&' is written when escaped once more
        text = html.unescape(html.unescape(text))
    text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    if not text.isascii():
        text = "".join(c for c in text if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    return text


def chaining_problem(text: str) -> str | None:
    """What in the Next action ``text`` chains a second action, as it reads, or None."""
    from ._chaining import chained

    shown = _shown_words(text)
    return chained(_fold(shown), shown)
