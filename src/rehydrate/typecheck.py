"""typing's run-time names the hook path uses, without importing ``typing``.

``import typing`` costs every agent hook call ~4 ms (benchmarks/bench_agent_hooks.py):
the module itself, and ``contextlib`` and the rest it brings. Annotations need none of
it (``from __future__ import annotations`` keeps them as strings); what reads
``TYPE_CHECKING`` and ``cast`` at run time gets them here. mypy reads any name
``TYPE_CHECKING`` as true and sees typing's ``cast`` itself; ``NamedTuple`` is
``records.py``'s. A test keeps ``typing`` off every hook path (tests/test_hook_imports.py).
"""

from __future__ import annotations

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import cast as cast
else:

    def cast(kind: object, value: object) -> object:
        """``typing.cast``: the value, unchanged."""
        return value
