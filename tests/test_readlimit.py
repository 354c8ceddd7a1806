"""Every read of a file rehydrate did not write goes through rehydrate.readlimit."""

from __future__ import annotations

import re
from pathlib import Path

import rehydrate

SRC = Path(rehydrate.__file__).parent
# Reads that need no bound, each with why: files git or rehydrate itself writes, or
# rehydrate's own package data. Anything else must use readlimit (read_file, read_text,
# read_bytes, read_tail, read_path, read_stream): a new entry here needs a reason.
OWN_FILES = {
    "git/__init__.py": "HEAD, written by git",
    "git/changes.py": "MERGE_HEAD, written by git",
    "guard/range.py": "the shallow file, written by git",
    "guard/fastpath.py": "the trust file under .git/rehydrate, written by rehydrate",
    "writers/templates.py": "rehydrate's package templates",
    "run/launch.py": "appends to the session log (a write)",
    "agents/copilot_install.py": "appends to .git/info/exclude (a write; read above bounded)",
    "guard/amend.py": "/proc/<pid>/cmdline and stat of git's own process, written by the kernel",
    "run/reaper.py": "/proc/<pid>/stat of the loop's own children, written by the kernel",
}
READ = re.compile(r"\.read_text\(|\.read_bytes\(|(?<![\w.])open\(|\.open\(")


def test_no_module_reads_a_file_behind_the_bounded_reader() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        name = str(path.relative_to(SRC))
        if name == "readlimit.py" or name in OWN_FILES:
            continue
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = text.split("#", 1)[0]
            if READ.search(code) and "os.open(" not in code and "Popen(" not in code:
                offenders.append(f"{name}:{number}: {text.strip()}")
    assert offenders == [], "\n".join(offenders)


def test_the_scan_sees_an_unbounded_read() -> None:
    assert READ.search('data = (root / "x").read_text(encoding="utf-8")')
    assert READ.search("with open(path) as handle:")
