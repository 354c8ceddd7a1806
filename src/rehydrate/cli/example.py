"""The worked example: a small repository in which an agent works on a task over three sessions.

Built by real commits with pinned identities and dates (so every output shown in the
docs is reproducible byte for byte), through the same commands a user runs: ``rehydrate
init`` installs the guard hook, the writers (``fail add``, ``task …``, ``spec …``) edit
the ledgers, and every ``git commit`` passes the hook. Shipped in the package so that
``rehydrate demo`` works from an installed wheel with nothing but git.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shlex
import subprocess
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import GitError, RehydrateError

AGENT = ("Coding Agent", "agent@example.com")
TASK_ID = "T-7"

SPEC = """\
---
ledger: spec
---
# Spec

## Constraints

| ID | Rule | Level | Source |
|---|---|---|---|
| C-001 | Every upload to the archive bucket carries an idempotency key | MUST | OPS-88 |
| C-002 | Export 10,000 invoices in under 5 minutes | SHOULD | OPS-88 |
| C-003 | Write to the production bucket from a developer machine | MUST NOT | security policy |

## Contracts

| ID | Subject | Contract | Source |
|---|---|---|---|
| K-001 | Export file name | `invoices-YYYY-MM.csv.gz`, one file per month | finance tool |

## Decisions

| ID | Question | Status | Decision | Owner | Due | Source |
|---|---|---|---|---|---|---|
| D-001 | Which compression for the export file? | open | | Maya Chen | 2026-03-03 | |
| D-002 | How long are exported files kept in the archive? | open | | Maya Chen | 2026-03-04 | |

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
"""

TASK = """\
---
ledger: task
task: T-7
revision: 1
objective: Export each month's invoices to the archive bucket exactly once
---
# Task

## Phases

| ID | Phase | Status |
|---|---|---|
| P1 | Reproduce the duplicate upload with a test | doing |
| P2 | Make uploads idempotent | todo |
| P3 | Backfill January's export | todo |
| P4 | Write the backfill runbook | todo |

## Next action

Write a failing test for the duplicate upload in tests/test_export.py

## Obligations

| ID | Obligation | Status |
|---|---|---|
| O-001 | Tell the finance team when January's export is in the archive | open |

## External writes

| ID | Operation | Status | Idempotency key | Evidence |
|---|---|---|---|---|

## Approvals

| ID | Scope | Status | Source |
|---|---|---|---|
| A-001 | One backfill run against the production archive bucket | granted | Maya Chen, 2026-03-02 |

## Verified

| ID | Check | Artifact | Blob | Report |
|---|---|---|---|---|

## Completion checks

| ID | Check | Status |
|---|---|---|
| X-001 | The full test suite passes | open |
| X-002 | January's export is in the archive exactly once | open |

## Rollback

Revert the task's commits. The backfill uploads with an idempotency key, so a second
run is a no-op; delete the object only with the finance team's consent.

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
"""

FAILURES = """\
---
ledger: failures
---
# Failed attempts

| ID | Tried | Failure | Workaround |
|---|---|---|---|

## Retired

| ID | Reason | Date | Replaced by |
|---|---|---|---|
"""

EXPORT_V1 = '''\
"""Monthly invoice export to the archive bucket."""


def upload_batch(client, month, rows):
    body = "\\n".join(rows).encode()
    client.put_object(Bucket="acme-archive", Key=f"invoices-{month}.csv.gz", Body=body)
'''

EXPORT_V2 = '''\
"""Monthly invoice export to the archive bucket."""


def upload_batch(client, month, rows):
    key = f"inv-{month}"
    if client.find_by_tag(key):
        return "already-uploaded"
    body = "\\n".join(rows).encode()
    client.put_object(Bucket="acme-archive", Key=f"invoices-{month}.csv.gz", Body=body,
                      Tagging=f"idempotency-key={key}")
    return "uploaded"
'''

EXPORT_V3 = EXPORT_V2.replace(
    '    key = f"inv-{month}"\n',
    '    key = f"inv-{month}"\n    print(f"upload {month}: idempotency key {key}")\n',
)

TEST = """\
from export import upload_batch


class FakeBucket:
    def __init__(self):
        self.objects = {}

    def find_by_tag(self, key):
        return [k for k, v in self.objects.items() if v[1] == key]

    def put_object(self, Bucket, Key, Body, Tagging=""):
        self.objects[Key] = (Body, Tagging.partition("=")[2])


def test_second_upload_is_a_no_op():
    bucket = FakeBucket()
    assert upload_batch(bucket, "2026-01", ["a,1"]) == "uploaded"
    assert upload_batch(bucket, "2026-01", ["a,1"]) == "already-uploaded"
    assert len(bucket.objects) == 1
"""

README = """\
# invoices

Monthly invoice export (the rehydrate worked example: see docs/Task.md).
"""


@dataclass(frozen=True)
class Step:
    """One commit: files to write, rehydrate commands to run, then ``git commit``."""

    date: str  # ISO 8601, used as author and committer date
    message: str
    files: Mapping[str, str] = field(default_factory=dict)
    commands: Sequence[str] = ()  # each as a user types it (split like a shell)


STEPS: tuple[Step, ...] = (
    Step(
        "2026-03-02T09:00:00+00:00",
        "Start T-7: export invoices to the archive exactly once",
        files={
            "README.md": README,
            "src/export.py": EXPORT_V1,
            "docs/Spec.md": SPEC,
            "docs/Task.md": TASK,
            "docs/Failed_Attempts.md": FAILURES,
        },
    ),
    Step(
        "2026-03-02T11:30:00+00:00",
        "Reproduce the duplicate upload in a test",
        files={"tests/test_export.py": TEST},
        commands=(
            "fail add"
            " --tried '`pytest -k duplicate` against the staging bucket'"
            " --failure 'staging credentials expire after 15 minutes; the test hangs'"
            " --workaround 'use the in-memory FakeBucket in tests/test_export.py'",
            "task phase P1 done",
            "task phase P2 doing",
            "task next 'Add an idempotency key to upload_batch() in src/export.py'",
        ),
    ),
    Step(
        "2026-03-02T15:10:00+00:00",
        "A longer timeout does not stop the duplicate",
        commands=(
            "fail add"
            " --tried '`UPLOAD_TIMEOUT=120 python -m export --month 2026-01`'"
            " --failure 'still uploads twice: the retry fires after the first upload"
            " succeeded but before its response arrived'"
            " --workaround 'never retry blindly; look the object up by its idempotency key'",
            "spec constraint add"
            " --level 'MUST NOT'"
            " --rule 'Retry an upload before checking whether the object already exists'"
            " --source F-002",
        ),
    ),
    Step(
        "2026-03-03T09:20:00+00:00",
        "Idempotent uploads; compression decided",
        files={"src/export.py": EXPORT_V2},
        commands=(
            "spec constraint strengthen C-002 --level MUST",
            "task verified add"
            " --check 'pytest tests/test_export.py: 1 passed'"
            " --artifact src/export.py",
            "spec decide D-001"
            " --decision 'gzip: the finance tool reads .csv.gz'"
            " --source 'Maya Chen in #invoices, 2026-03-03'",
            "task phase P2 done",
            "task phase P3 doing",
            "task next 'Run the January backfill once with idempotency key inv-2026-01'",
        ),
    ),
    Step(
        "2026-03-03T10:05:00+00:00",
        "Only the backfill job may write to production",
        commands=(
            "spec constraint add"
            " --level 'MUST NOT'"
            " --rule 'Write to the production bucket except through the backfill job"
            " under an approval'"
            " --source 'security policy, 2026-03-03 revision'",
            "spec retire C-003"
            " --reason 'superseded by the stricter backfill-only rule'"
            " --replaced-by C-005"
            " --date 2026-03-03",
        ),
    ),
    Step(
        "2026-03-03T11:04:00+00:00",
        "January backfill: the upload's outcome is unknown",
        files={"src/export.py": EXPORT_V3},
        commands=(
            "task write add"
            " --operation 'Upload invoices-2026-01.csv.gz to s3://acme-archive/'"
            " --idempotency-key inv-2026-01",
            "task approval consume A-001",
            "task write settle E-001 --status unknown",
            "task next 'Look up key inv-2026-01 in s3://acme-archive/ by reading only'",
        ),
    ),
    Step(
        "2026-03-04T09:15:00+00:00",
        "Reconcile E-001 from the bucket listing",
        commands=(
            "task write settle E-001"
            " --status confirmed"
            " --evidence '`aws s3api head-object`: one object tagged inv-2026-01,"
            " 2026-03-03T11:01:58Z'",
            "task check pass X-002",
            "task obligation done O-001",
            "task phase P3 done",
            "task phase P4 doing",
            "task next 'Write the backfill runbook in docs/runbook.md'",
        ),
    ),
)


@dataclass(frozen=True)
class Example:
    """The built repository."""

    root: Path
    commits: tuple[str, ...]  # oldest first


def git_env(date: str | None = None) -> dict[str, str]:
    """An environment that makes git independent of the user's configuration, and pinned."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "REHYDRATE_"))}
    env.update(
        {
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": AGENT[0],
            "GIT_AUTHOR_EMAIL": AGENT[1],
            "GIT_COMMITTER_NAME": AGENT[0],
            "GIT_COMMITTER_EMAIL": AGENT[1],
            "NO_COLOR": "1",
        }
    )
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return env


def _run(args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> str:
    proc = subprocess.run(list(args), cwd=cwd, env=dict(env), capture_output=True, text=True)
    if proc.returncode != 0:
        raise GitError(
            f"building the example failed at `{' '.join(args)}`: "
            f"{(proc.stderr or proc.stdout).strip()}",
            code="example_failed",
            fix="this is a bug in the worked example; please report it",
        )
    return proc.stdout


def _rehydrate(args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> None:
    """Run one rehydrate command in this process, as the CLI would from ``cwd`` with ``env``.

    In-process because a Python start per command would cost ~0.15 s each; the commits
    (and so the guard hook) still run as real git processes.
    """
    import contextlib
    import io

    from . import main

    out, err = io.StringIO(), io.StringIO()
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    try:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)
    if code != 0:
        raise RehydrateError(
            f"building the example failed at `rehydrate {' '.join(args)}` "
            f"(exit {code}): {err.getvalue().strip()}",
            code="example_failed",
            fix="this is a bug in the worked example; please report it",
        )


def _write(root: Path, relpath: str, text: str) -> None:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def prepare_target(target: Path) -> Path:
    """``target`` as an absolute, empty directory (created if needed); refuses anything else."""
    target = target.expanduser().absolute()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise RehydrateError(
            f"{target} exists and is not an empty directory",
            file=str(target),
            code="usage",
            fix="name a new or empty directory",
        )
    target.mkdir(parents=True, exist_ok=True)
    return target


# The day after the example's last session: the dates in STEPS are written for it.
ANCHOR = _dt.date(2026, 3, 5)
_DAY = re.compile(r"(?<![\d-])2026-03-(0[1-5])(?!\d)")  # a session day; "2026-01" (a month) is data


def shifted(text: str, days: int) -> str:
    """``text`` with every session day moved by ``days`` (the example relative to a date)."""
    if not days:
        return text
    return _DAY.sub(
        lambda m: (_dt.date(2026, 3, int(m[1])) + _dt.timedelta(days)).isoformat(), text
    )


def build_example(target: Path, anchor: _dt.date = ANCHOR) -> Example:
    """Build the worked example in ``target`` (new or empty directory): real commits, real hook.

    ``anchor`` is the day after the last session (``rehydrate demo`` passes today, so a due
    date is one day past, not months); the default keeps commits byte-identical for tests.
    """
    root = prepare_target(target)
    days = (anchor - ANCHOR).days
    env = git_env()
    _run(["git", "init", "-q", "-b", "main"], root, env)
    _rehydrate(["init"], root, env)
    commits = []
    for step in STEPS:
        env = git_env(shifted(step.date, days))
        for relpath, text in step.files.items():
            _write(root, relpath, shifted(text, days))
        for command in step.commands:
            _rehydrate([shifted(arg, days) for arg in shlex.split(command)], root, env)
        _run(["git", "add", "-A"], root, env)
        _run(["git", "commit", "-q", "-m", step.message], root, env)  # the guard hook runs
        commits.append(_run(["git", "rev-parse", "HEAD"], root, env).strip())
    return Example(root, tuple(commits))


def describe() -> str:
    """What the example is, in a few lines (for the demo and examples/README.md)."""
    return textwrap.dedent("""\
        An agent exports invoices to an archive bucket over three sessions: it records two
        failed attempts, adds and strengthens constraints, gets a decision taken, moves the
        phases forward, hits an upload whose outcome is unknown (blocked), and reconciles it
        from evidence. Every commit passed the guard hook installed by `rehydrate init`.""")
