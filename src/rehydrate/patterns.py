"""``compiled``: a regular expression compiled at its first use, then kept.

Every module an agent hook imports keeps its patterns as text (issue 28 item 5): compiling
them at import cost ~12 ms of every call, for patterns most calls never use. A pattern used
once per call goes to ``re`` directly (``re.fullmatch(_NAME, text)``, through ``re``'s own
cache); one used in a loop over words, rows or pieces goes through ``compiled``, whose
lookup costs a fifth of ``re``'s. tests/test_hook_imports.py requires that no module on the
hook's path compiles a pattern at import; tests/test_linear_regex.py checks the texts
handed to either.
"""

from __future__ import annotations

import re
from functools import cache


@cache
def compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, once per process."""
    return re.compile(pattern)
