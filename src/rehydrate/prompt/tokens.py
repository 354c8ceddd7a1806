"""Token estimates for the prompt budget, offline: a documented heuristic, tiktoken if present.

The heuristic (``heuristic-v1``): every ASCII character counts 1/4 token (English
text and code average about four characters per token), every other character
counts one whole token (CJK is about one token per character; Cyrillic, Greek
and accented Latin take fewer, so they are over-counted). The total is rounded
up. Over-counting is the safe side of a budget.

tiktoken is used only when it is importable *and* its ``cl100k_base`` table is
already in its local cache: it would otherwise download the table, and a prompt
must never need the network. ``REHYDRATE_TOKENIZER=heuristic`` forces the
heuristic (for output that must not depend on what is installed).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache

from .. import digests

HEURISTIC = "heuristic-v1"
_TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def heuristic_tokens(text: str) -> int:
    """ceil(ASCII characters / 4) + non-ASCII characters."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return -(-ascii_chars // 4) + (len(text) - ascii_chars)


def _tiktoken_cached() -> bool:
    """True when tiktoken can load cl100k_base without touching the network."""
    import tempfile

    cache = (
        os.environ.get("TIKTOKEN_CACHE_DIR")
        or os.environ.get("DATA_GYM_CACHE_DIR")
        or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    )
    return os.path.isfile(os.path.join(cache, digests.sha1(_TIKTOKEN_URL.encode()).hexdigest()))


@lru_cache(maxsize=1)
def counter() -> tuple[str, Callable[[str], int]]:
    """(name, count function) for this environment; decided once per process."""
    from ..environment import TOKENIZER, choice

    if choice(TOKENIZER) != "heuristic" and _tiktoken_cached():
        try:
            import tiktoken

            encoding = tiktoken.get_encoding("cl100k_base")
        except Exception:  # any failure of an optional tokenizer falls back to the heuristic
            pass
        else:
            return "tiktoken-cl100k_base", lambda text: len(
                encoding.encode(text, disallowed_special=())
            )
    return HEURISTIC, heuristic_tokens


def count_tokens(text: str) -> int:
    """Estimated tokens in ``text`` (see the module docstring for how)."""
    return counter()[1](text)
