"""Immutable records: ``typing.NamedTuple`` to the type checker, without its start-up cost.

``class Row(NamedTuple): ...`` with ``NamedTuple`` from here is the same class
``typing.NamedTuple`` makes (a ``collections.namedtuple`` with the fields' defaults, the
class body's methods, properties and docstring), less one step: typing checks each field's
annotation as it builds the class, and under ``from __future__ import annotations`` every
annotation is a string, so each is compiled into a ``ForwardRef``. Nothing reads them at
run time; the hook's import path holds 34 records, 169 such compiles (~5 ms of every
tool call, benchmarks/bench_agent_hooks.py). Here the annotations stay the strings they
are. mypy sees ``typing.NamedTuple`` itself.
"""

from __future__ import annotations

from collections import namedtuple

from .typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # typing's own lists (3.11): what a class body may not set, and what is not copied.
    _PROHIBITED = frozenset(
        {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
        | {"_make", "_replace", "_asdict", "_source"}
    )
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _RecordMeta(type):
        def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, object]) -> type:
            if bases != (NamedTuple,):
                raise TypeError(f"{typename}: a record inherits from NamedTuple alone")
            fields = ns.get("__annotations__", {})
            defaults: list[str] = []
            for name in fields:
                if name in ns:
                    defaults.append(name)
                elif defaults:
                    raise TypeError(
                        f"{typename}: field {name} without a default follows {defaults[-1]}"
                    )
            record = namedtuple(  # noqa: PYI024 - the typed form is what this builds
                typename, list(fields), defaults=[ns[n] for n in defaults], module=ns["__module__"]
            )
            record.__annotations__ = record.__new__.__annotations__ = dict(fields)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{typename}: cannot overwrite NamedTuple attribute {key}")
                if key not in _SPECIAL and key not in record._fields:
                    setattr(record, key, value)
            return record

    NamedTuple = type.__new__(_RecordMeta, "NamedTuple", (), {})
