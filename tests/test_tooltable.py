"""The tool table (agents/tooltable.py) is built row by row, on first lookup: every row
still builds, a lookup builds that row alone, once, and a program with no row is the
generic one without building anything."""

from __future__ import annotations

import json
import subprocess
import sys

from rehydrate.agents.tooltable import GENERIC, TOOLS, Tool, tool


def test_every_row_builds_into_a_tool() -> None:
    assert len(TOOLS) >= 25
    for program in TOOLS:
        row = TOOLS[program]
        assert isinstance(row, Tool), program
        assert TOOLS[program] is row  # built once
        assert tool(program) is row
    assert {"git", "go", "pip", "npm", "npx", "pnpm", "yarn", "make", "cargo"} <= {*TOOLS}
    assert {"docker", "kubectl", "pytest", "terraform", "python"} <= {*TOOLS}


def test_a_program_without_a_row_is_the_generic_one() -> None:
    assert "tool7" not in TOOLS
    assert tool("tool7") is GENERIC
    assert TOOLS.get("tool7") is None


# In a fresh interpreter: which rows a lookup builds (the table's private cache, read
# only here, is what the laziness is).
_BUILT = """
import json
from rehydrate.agents import tooltable
before = sorted(tooltable.TOOLS._built)
tooltable.tool("make"); tooltable.tool("tool7"); tooltable.tool("make")
has = "git" in tooltable.TOOLS
print(json.dumps([before, sorted(tooltable.TOOLS._built), has]))
"""


def test_a_lookup_builds_its_row_alone() -> None:
    proc = subprocess.run(
        [sys.executable, "-I", "-c", _BUILT], capture_output=True, text=True, check=True
    )
    assert json.loads(proc.stdout) == [[], ["make"], True]  # `in` builds nothing
