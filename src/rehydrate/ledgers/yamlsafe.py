"""The one door to PyYAML: strict safe loading and safe dumping.

Every YAML read (resume manifests, ledger front matter) goes through ``load``. On top of
PyYAML's safe loader it refuses what an honest document never needs and a hostile one
uses: explicit tags (``!!bool``, ``!!timestamp``, ``!local``, ``!``), anchors and aliases
(no "billion laughs"), merge keys (``<<``), duplicate and non-string keys, nesting deeper
than ``MAX_DEPTH`` and documents larger than ``MAX_BYTES``. Implicit typing (``typed``) is
limited to null, bool, int and float: a date stays a string. Every failure is one
``YAMLInputError`` (a ``ValueError``) carrying a line number, never a PyYAML exception or a
crash in a constructor.

With libyaml (``yaml.CSafeLoader``) the checks run over the C parser's event stream
first and the document is then composed in C, about 8x faster than the pure-Python
loader (docs/design.md, "One YAML door"); without it the same checks hook the
pure-Python composer.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

from ..typecheck import TYPE_CHECKING

MAX_BYTES = 1024 * 1024
_Constructed = dict[Hashable, Any]  # Any: PyYAML's BaseConstructor.construct_mapping returns it
MAX_DEPTH = 32
_SAFE_TAGS = (
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
)


if TYPE_CHECKING:
    from typing import Protocol

    from yaml.events import Event

    class _Loader(Protocol):
        """A PyYAML loader, as ``load`` drives one."""

        def get_single_data(self) -> object: ...

        def dispose(self) -> None: ...


class YAMLInputError(ValueError):
    """The text is not YAML rehydrate accepts; ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.message = message
        self.line = line


def load(text: str, *, typed: bool = False) -> object:
    """Load one YAML document strictly (see the module docstring).

    Every scalar is a string unless ``typed`` (then null, bool, int and float too). An empty
    document is None.
    """
    import yaml

    if len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise YAMLInputError(f"document is larger than {MAX_BYTES // 1024} KiB")
    if "\x00" in text:
        raise YAMLInputError("document contains a NUL character")
    fast = hasattr(yaml, "CSafeLoader")
    loader = None
    try:
        if fast:
            _check_events(yaml.parse(text, Loader=yaml.CBaseLoader))
        loader = _loader(typed, fast)(text)  # the reader refuses control characters here
        return loader.get_single_data()
    except YAMLInputError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YAMLInputError(
            exc.problem or str(exc).splitlines()[0], mark.line + 1 if mark else None
        ) from None
    except yaml.YAMLError as exc:
        raise YAMLInputError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None
    except RecursionError:
        raise YAMLInputError("document is nested too deeply") from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # A constructor choking on a value the resolver let through (e.g. "0x_"): the
        # document is refused, never a crash.
        raise YAMLInputError(f"unreadable value ({type(exc).__name__})") from None
    finally:
        if loader is not None:
            loader.dispose()


def dump(data: Mapping[str, object]) -> str:
    """Serialise a mapping of plain values as block YAML, key order kept."""
    import yaml

    text: str = yaml.safe_dump(
        dict(data), sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
    )
    return text


def _check_event(event: Event, depth: int) -> None:
    import yaml

    line = event.start_mark.line + 1 if event.start_mark else None
    if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
        raise YAMLInputError("anchors and aliases (&, *) are not allowed", line)
    if getattr(event, "tag", None) is not None:
        raise YAMLInputError("explicit tags (!!type, !name) are not allowed", line)
    if depth > MAX_DEPTH:
        raise YAMLInputError(f"nested deeper than {MAX_DEPTH} levels", line)


def _check_events(events: Iterable[Event]) -> None:
    """The composer's checks over a parser's event stream (the C parser's)."""
    import yaml

    depth = 0
    for event in events:
        if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
            continue
        opens = isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent))
        if opens or isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            _check_event(event, depth + 1)
        depth += opens


@functools.cache
def _loader(typed: bool, fast: bool) -> Callable[[str], _Loader]:
    """The strict loader class over the C (``fast``) or the Python parser; scalars plain
    strings, or (``typed``) null, bool, int and float too."""
    import yaml
    from yaml.composer import Composer
    from yaml.constructor import BaseConstructor
    from yaml.nodes import MappingNode, Node
    from yaml.parser import Parser

    class StrictKeys(BaseConstructor):
        """Mapping keys plain strings only: no merge keys, no duplicates."""

        def construct_mapping(self, node: MappingNode, deep: bool = False) -> _Constructed:
            seen: set[str] = set()
            for key_node, _ in node.value:
                line = key_node.start_mark.line + 1
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR:
                    raise YAMLInputError("keys must be plain strings", line)
                if key_node.value == "<<":
                    raise YAMLInputError("merge keys (<<) are not allowed", line)
                if key_node.value in seen:
                    raise YAMLInputError(f"duplicate key {key_node.value!r}", line)
                seen.add(key_node.value)
            return super().construct_mapping(node, deep=deep)

    class StrictEvents(Parser, Composer):
        """No tags, anchors, aliases or deep nesting, checked in the Python composer's
        ``compose_node`` (the C composer never calls it; ``_check_events`` ran before)."""

        _depth = 0

        def compose_node(self, parent: Node | None, index: int) -> Node | None:
            self._depth += 1
            try:
                # types-PyYAML leaves Parser.peek_event unannotated
                _check_event(self.peek_event(), self._depth)  # type: ignore[no-untyped-call]
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    if not typed:
        if fast:

            class CPlainLoader(StrictKeys, yaml.CBaseLoader):
                pass

            return CPlainLoader

        class PlainLoader(StrictEvents, StrictKeys, yaml.BaseLoader):
            pass

        return PlainLoader
    # Only the plain types: no timestamps, no merge or value keys.
    resolvers = {
        first: [(tag, regexp) for tag, regexp in found if tag in _SAFE_TAGS]
        for first, found in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    if fast:

        class CTypedLoader(StrictKeys, yaml.CSafeLoader):
            yaml_implicit_resolvers = resolvers

        return CTypedLoader

    class TypedLoader(StrictEvents, StrictKeys, yaml.SafeLoader):
        yaml_implicit_resolvers = resolvers

    return TypedLoader


_STR = "tag:yaml.org,2002:str"
