"""Exit 0 when a release tag names pyproject's version (``v`` + ``[project].version``).

``python scripts/check_version.py v0.1.0``; the release workflow runs it on the pushed
tag, so a tag and the version it publishes cannot disagree (docs/releasing.md).
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return str(tomllib.load(handle)["project"]["version"])


def tag() -> str:
    """The tag a release of this version carries."""
    return f"v{version()}"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: check_version.py vX.Y.Z", file=sys.stderr)
        return 2
    if argv[0] != tag():
        print(
            f"tag {argv[0]!r} does not name pyproject's version: tag {tag()} instead, "
            "or raise [project].version first",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
