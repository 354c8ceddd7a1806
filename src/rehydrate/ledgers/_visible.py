"""What a renderer shows of a piece of ledger Markdown, from the CommonMark/GFM AST.

``render`` is the one place that decides which bytes are visible: it walks mistune's AST
and returns the visible text (text nodes, code as written, link text, autolinks,
footnote references) and every construct a renderer hides. Hidden, by the AST:

* a raw HTML block (its tags never show; ``<details>`` hides its body until opened);
* inline HTML other than a bare tag of an element that shows its content as text
  (``<b>``, ``</kbd>``, ``<br>``): any attribute (``<span title="...">``), a comment,
  a processing instruction, a declaration, CDATA, an element that hides or replaces its
  content (``<script>``, ``<details>``, ``<img>``) or that rehydrate does not know;
* a link's or image's title (shown only on hover), an image's alt text (shown only
  when the image fails to load);
* a link reference definition (renders nothing; the link using it shows its text);
* a footnote definition, referenced or not: unreferenced it renders nothing, and
  referenced it renders at the very end of the document, away from the row or line it
  qualifies, where neither a reviewer of the diff nor the prompt's section (which
  carries the section, not the document's end) shows it next to what it changes.

A link's destination is not hidden text: it is where the link goes, and a ledger may
point at a document. Markup syntax (emphasis markers, escapes, code fences, heading
marks) is neither text nor hidden content.

mistune is called only on text that holds ``<`` or ``[`` (``needs_ast``): every hiding
construct of the grammar starts with one of them, so other text is its own visible text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..records import NamedTuple
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from mistune import Markdown

_Token = Mapping[str, Any]  # Any: mistune's own type of its AST tokens and state env

# Elements whose content renders as text and which carry nothing else when bare.
SHOWN_TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "big",
        "blockquote",
        "br",
        "cite",
        "code",
        "dd",
        "del",
        "dfn",
        "div",
        "dl",
        "dt",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "ins",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "time",
        "tr",
        "tt",
        "u",
        "ul",
        "var",
        "wbr",
    }
)
# Of those, the ones that end a line when rendered (a Next action holding one spans two).
LINE_TAGS = frozenset(
    {"br", "p", "div", "li", "ul", "ol", "hr", "tr", "td", "th", "table", "pre"}
    | {"blockquote", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6"}
)
# A bare tag: '<name>', '</name>', '<name/>', nothing else between the angle brackets.
_BARE_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)[ \t\n]*/?>")
# A link '[text](destination)': no image ('!['), no title, nothing the tree could read
# as a nested bracket, code, escape or angle-bracket destination.
_PLAIN_LINK = re.compile(r"(?<![!\\])\[([^\[\]<>`\\!]*)\]\(([^\s()<>\"'`\\]*)\)")
CODE = "code"
TEXT = "text"
MAX_RENDER_CHARS = 16_384  # per table cell, Next action or prose block
BREAK = "break"


class Rendered(NamedTuple):
    """What a renderer shows: visible pieces in order, and what it hides."""

    pieces: tuple[tuple[str, str], ...]  # (TEXT | CODE | BREAK, what shows)
    hidden: tuple[str, ...]  # each hidden construct, described for a refusal

    @property
    def text(self) -> str:
        return "".join(text for _, text in self.pieces)


def needs_ast(text: str) -> bool:
    """Whether ``text`` can hold anything a renderer hides (else it shows as written)."""
    return "<" in text or "[" in text


@lru_cache(maxsize=1)
def _parser() -> Markdown:
    import mistune

    return mistune.create_markdown(renderer=None, plugins=["table", "footnotes", "strikethrough"])


def render(markdown: str) -> Rendered:
    """The visible text of ``markdown`` and every construct a renderer hides in it."""
    if not needs_ast(markdown):
        return Rendered(((TEXT, markdown),), ())
    return _too_long(markdown) or _render(markdown)


def _too_long(text: str) -> Rendered | None:
    """Fail closed past ``MAX_RENDER_CHARS``: mistune is linear but slow (tens of
    microseconds a character on hostile input), and the hook must stay fast."""
    if len(text) <= MAX_RENDER_CHARS:
        return None
    return Rendered(
        ((TEXT, text),),
        (
            f"{len(text)} characters of Markdown holding '<' or '[' in one block, more "
            f"than the {MAX_RENDER_CHARS} the renderer check reads (split it, or write "
            "the brackets as '&lt;' / '\\['),",
        ),
    )


def render_inline(text: str) -> Rendered:
    """As ``render``, for inline content: a table cell, the Next action (GFM parses a
    cell's text as inline, so a ``<br>`` there is a tag, not an HTML block).

    Text whose only markup is bare shown tags and title-less links is answered without
    the tree (``_plain_inline``: what the tree says of them is known, and importing
    mistune would cost the hook more than the rest of its run); a property test holds
    that answer to the tree's."""
    if not needs_ast(text) and "`" not in text and "\\" not in text and "*" not in text:
        return Rendered(((TEXT, html.unescape(text) if "&" in text else text),), ())
    return _plain_inline(text) or _too_long(text) or _render_inline(text)


def _plain_inline(text: str) -> Rendered | None:
    """Inline text whose every '<' opens a bare shown tag and every '](' closes the text of
    a link with a plain destination and no title (no image, code, escape or comment):
    its visible pieces, nothing hidden. None for anything else (the tree decides)."""
    if "`" in text or "\\" in text or "<!" in text or "<?" in text or "*" in text:
        return None
    unknown = False

    def tag(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group(1).lower()
        if name not in SHOWN_TAGS:
            unknown = True
        return "\0" if name in LINE_TAGS else ""

    if "<" in text:
        text = _BARE_TAG.sub(tag, text)
        if unknown or "<" in text:
            return None
    if "](" in text:
        text = _PLAIN_LINK.sub(r"\1", text)
        if "](" in text:
            return None
    pieces: list[tuple[str, str]] = []
    for index, part in enumerate(text.split("\0")):
        if index:
            pieces.append((BREAK, "\n"))
        if part:
            pieces.append((TEXT, html.unescape(part) if "&" in part else part))
    return Rendered(tuple(pieces), ())


@lru_cache(maxsize=4096)
def _render_inline(text: str) -> Rendered:
    from mistune.core import InlineState

    state = InlineState({})
    state.src = text
    tokens = _parser().inline.parse(state)
    pieces: list[tuple[str, str]] = []
    hidden: list[str] = []
    _walk(tokens, pieces, hidden)
    return Rendered(tuple(pieces), tuple(hidden))


@lru_cache(maxsize=64)
def _render(markdown: str) -> Rendered:
    tokens, state = _parser().parse(markdown)
    pieces: list[tuple[str, str]] = []
    hidden: list[str] = []
    _walk(tokens if isinstance(tokens, list) else [], pieces, hidden)  # a list: no renderer
    env: _Token = state.env
    for key in env.get("ref_links") or {}:
        hidden.append(
            f"a link reference definition ('[{key.lower()}]: ...'), which renders nothing"
        )
    for key in env.get("ref_footnotes") or {}:
        hidden.append(f"a footnote definition ('[^{key.lower()}]: ...'), shown away from its text")
    return Rendered(tuple(pieces), tuple(hidden))


def _walk(tokens: Sequence[_Token], pieces: list[tuple[str, str]], hidden: list[str]) -> None:
    """Append the visible pieces and hidden constructs of ``tokens``, in document order.

    Iterative (an explicit stack): nesting depth comes from the input."""
    stack: list[Iterator[_Token]] = [iter(tokens)]
    while stack:
        token = next(stack[-1], None)
        if token is None:
            stack.pop()
            continue
        kind = token.get("type", "")
        if _leaf(kind, token, pieces, hidden):
            continue
        attrs = token.get("attrs") or {}
        if kind == "link" and attrs.get("title"):
            hidden.append(f"a link title ({_quote(attrs['title'])}), shown only on hover")
        if pieces and kind in ("paragraph", "heading", "list_item", "block_quote"):
            pieces.append((BREAK, "\n"))
        children = token.get("children")
        if children:
            stack.append(iter(children))


def _leaf(kind: str, token: _Token, pieces: list[tuple[str, str]], hidden: list[str]) -> bool:
    """Record a token that has no children to walk; False for a container."""
    raw = token.get("raw", "")
    if kind == "text":
        if "<!" in raw or "<?" in raw:
            # an unterminated '<!--', '<!' or '<?' written as such (not escaped, not an
            # entity): CommonMark shows it, but a renderer that passes HTML through (and a
            # model reading the source) takes it for a comment that hides the rest
            hidden.append("an unterminated HTML comment, declaration or instruction ('<!', '<?')")
        pieces.append((TEXT, html.unescape(raw) if "&" in raw else raw))
    elif kind in ("codespan", "block_code"):
        pieces.append((CODE, raw))
    elif kind == "linebreak":
        pieces.append((BREAK, "\n"))
    elif kind == "softbreak":
        pieces.append((TEXT, " "))
    elif kind == "block_html":
        hidden.append(f"a raw HTML block ({_quote(raw)}), whose tags never show")
    elif kind == "inline_html":
        problem = _inline_html(raw)
        if problem:
            hidden.append(problem)
        elif _tag_name(raw) in LINE_TAGS:
            pieces.append((BREAK, "\n"))
    elif kind == "footnote_ref":
        pieces.append((TEXT, f"[{raw}]"))
    elif kind in ("footnotes", "footnote_item"):
        hidden.append("a footnote definition, shown away from its text")
    elif kind == "image":
        alt: list[tuple[str, str]] = []
        _walk(token.get("children") or [], alt, hidden)
        if "".join(text for _, text in alt).strip() or (token.get("attrs") or {}).get("title"):
            hidden.append("an image's alt text or title, shown only when it fails to load")
    else:
        return False
    return True


def _tag_name(raw: str) -> str | None:
    match = _BARE_TAG.fullmatch(raw)
    return match.group(1).lower() if match else None


def _inline_html(raw: str) -> str | None:
    """Why an inline HTML token hides something, or None for a bare shown tag."""
    if raw.startswith("<!--"):
        return f"an HTML comment ({_quote(raw)})"
    if raw.startswith("<?"):
        return f"an HTML processing instruction ({_quote(raw)})"
    if raw.startswith("<!"):
        return f"an HTML declaration or CDATA ({_quote(raw)})"
    name = _tag_name(raw)
    if name is None:
        found = re.match(r"</?([A-Za-z][A-Za-z0-9-]*)", raw)
        what = f"<{found.group(1).lower()}>" if found else "an HTML"
        return f"a {what} tag with attributes ({_quote(raw)}), which never show"
    if name not in SHOWN_TAGS:
        return f"a <{name}> tag, whose content a renderer hides, replaces or may not show"
    return None


def _quote(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")
