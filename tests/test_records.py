"""``rehydrate.records.NamedTuple`` builds the class ``typing.NamedTuple`` builds, without
compiling each string annotation into a ``ForwardRef`` (issue 28 item 5): the same fields,
defaults, methods, docstring and errors (tests/test_hook_imports.py counts the compiles).
"""

from __future__ import annotations

import typing

import pytest

from rehydrate.records import NamedTuple


def _pair() -> tuple[type, type]:
    """The same class body under each base (annotations are strings here: the future import)."""

    def body(base: type) -> type:
        class Row(base):  # type: ignore[misc, valid-type]
            """A row."""

            id: str
            line: int
            note: str = ""
            extra: tuple[tuple[str, str], ...] = ()

            def label(self) -> str:
                return f"{self.id}@{self.line}"

            @property
            def noted(self) -> bool:
                return bool(self.note)

            KIND = "row"

        return Row

    return body(NamedTuple), body(typing.NamedTuple)


def test_a_record_is_the_class_typing_builds() -> None:
    ours, theirs = _pair()
    for cls in (ours, theirs):
        assert issubclass(cls, tuple)
        assert cls._fields == ("id", "line", "note", "extra")
        assert cls._field_defaults == {"note": "", "extra": ()}
        assert cls.__doc__ == "A row."
        assert cls.__name__ == "Row" and cls.__qualname__.endswith("body.<locals>.Row")
        assert cls.__module__ == __name__
        assert cls.KIND == "row"
    a, b = ours("F-1", 3), theirs("F-1", 3)
    assert tuple(a) == tuple(b) == ("F-1", 3, "", ())
    assert repr(a) == repr(b) == "Row(id='F-1', line=3, note='', extra=())"
    assert a.label() == b.label() == "F-1@3"
    assert (a.noted, b.noted) == (False, False)
    assert a._replace(note="x").noted and b._replace(note="x").noted
    assert a._asdict() == b._asdict()
    assert ours._make(["G", 1, "n", ()]) == theirs._make(["G", 1, "n", ()])
    with pytest.raises(AttributeError):
        a.id = "x"  # type: ignore[misc]
    assert list(ours.__annotations__) == list(theirs.__annotations__)
    # The annotations stay the strings they are: no ForwardRef was made.
    assert all(isinstance(v, str) for v in ours.__annotations__.values())


def test_a_record_refuses_what_typing_refuses() -> None:
    for base in (NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError):
            type(base)(
                "Bad",
                (base,),
                {"__annotations__": {"a": "int", "b": "int"}, "a": 1, "__module__": __name__},
            )
    with pytest.raises(TypeError):

        class Bad(NamedTuple):
            a: int = 1
            b: int

    for name in ("_replace", "_fields", "__new__"):
        with pytest.raises(AttributeError, match=name):
            type(NamedTuple)(
                "Bad", (NamedTuple,), {"__annotations__": {}, name: None, "__module__": __name__}
            )
    with pytest.raises(TypeError, match="NamedTuple alone"):
        type(NamedTuple)("Bad", (NamedTuple, int), {"__module__": __name__})
