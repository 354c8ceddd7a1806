"""SHA-1 and SHA-256, the one place rehydrate takes them from.

``hashlib`` loads OpenSSL (``_hashlib``) when it is imported: ~3 ms of every agent hook
call, which needs a blob id or two. CPython's own implementations (``_sha1``; ``_sha256``,
``_sha2`` from 3.12), which ``hashlib`` itself falls back to, load in a tenth of that, and
are taken when present; ``hashlib``'s otherwise. The digests are the same
(tests/test_digests.py compares them on random data).
"""

from __future__ import annotations

from .typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import sha1, sha256  # the same constructors, to the type checker
else:
    try:
        from _sha1 import sha1
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import sha1
    try:
        from _sha2 import sha256  # 3.12 and later
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:  # pragma: no cover - a Python built without it
            from hashlib import sha256

__all__ = ["sha1", "sha256"]
