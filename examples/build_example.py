"""Build the worked example repository: ``python examples/build_example.py DIR``.

A thin wrapper: the builder ships in the package (``rehydrate.cli.example``) so that
``rehydrate demo`` works from an installed wheel; this script is the same thing
without the status/prompt display.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rehydrate.cli.example import build_example
from rehydrate.errors import RehydrateError


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(
            "usage: python examples/build_example.py DIR  (a new or empty directory)",
            file=sys.stderr,
        )
        return 2
    try:
        example = build_example(Path(argv[0]))
    except RehydrateError as exc:
        print(f"build_example: {exc}", file=sys.stderr)
        return exc.exit_code
    print(example.root)
    for sha in example.commits:
        print(sha)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
