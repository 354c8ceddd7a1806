"""Restart-cycle simulation: N agent sessions, K parallel branches merged back with the driver.

Each simulated session starts from nothing but ``rehydrate prompt --worktree``: it
reads the prompt's tables (phases, open obligations, unknown external writes,
active failures and constraints), picks its actions from them, records facts
through the writers (``fail add``, ``spec constraint add``, ``task phase``,
``task write add/settle``, ``task obligation``, retirements), commits with the
guard hook installed, and ends. Sessions run in epochs: K branches (linked
worktrees) each run a few sessions, then every branch is merged into main with
the semantic merge driver (sequential merges; git's octopus strategy never runs
a merge driver), one session runs on main, and the branches fast-forward.

The simulation keeps its own record of every fact ever recorded (by its unique
text: IDs can be renumbered by a merge) and at the end asserts that 100% of them
are present in the right state, that no ID is duplicated, and that
``rehydrate guard --range`` passes over the whole history. It reports how the
prompt grows: with the active ledger items (retired items leave the prompt),
not with the number of sessions.

    python benchmarks/simulate.py --sessions 200 --branches 4
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

PATHS = {"spec": "docs/Spec.md", "task": "docs/Task.md", "failures": "docs/Failed_Attempts.md"}
PHASES = 12
GIT_ENV = {
    "GIT_AUTHOR_NAME": "sim",
    "GIT_AUTHOR_EMAIL": "sim@example.com",
    "GIT_COMMITTER_NAME": "sim",
    "GIT_COMMITTER_EMAIL": "sim@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
FAILURE_CAP = 8  # an agent retires the oldest active failure above this many
CONSTRAINT_CAP = 6


class SimulationError(AssertionError):
    """The simulation found a lost, duplicated or wrong item, or a refused history."""


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise SimulationError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.strip()}")
    return proc


def cli(cwd: Path, *args: str) -> tuple[int, str, str]:
    """The rehydrate CLI in this process (a session's commands; hooks still run for real)."""
    from rehydrate.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def write(cwd: Path, *args: str) -> str:
    code, out, err = cli(cwd, *args)
    if code != 0:
        raise SimulationError(f"rehydrate {' '.join(args)} failed ({code}): {err.strip()}")
    return out.strip()


def read_prompt(text: str) -> dict[str, list[dict[str, str]]]:
    """The prompt's fenced ledger tables by the heading above them (what an agent reads)."""
    tables: dict[str, list[dict[str, str]]] = {}
    heading = ""
    fence: str | None = None
    header: list[str] | None = None
    for line in text.splitlines():
        if fence is None:
            if line.startswith("## ") or line.startswith("### "):
                heading = line.lstrip("#").strip()
            elif line.startswith("~~~~ ledger-data"):
                fence, header = "~~~~", None
                tables.setdefault(heading, [])
            continue
        if line == fence:
            fence = None
            continue
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if header is None:
            header = [c.lower() for c in cells]
        elif not all(set(c) <= set("-: ") for c in cells):
            tables[heading].append(dict(zip(header, cells, strict=False)))
    return tables


def section(tables: dict[str, list[dict[str, str]]], starts: str) -> list[dict[str, str]]:
    return next((rows for name, rows in tables.items() if name.startswith(starts)), [])


@dataclass
class Truth:
    """Everything the sessions recorded, keyed by unique text (IDs may be renumbered)."""

    failures: dict[str, bool] = field(default_factory=dict)  # tried -> retired
    constraints: dict[str, tuple[str, bool]] = field(default_factory=dict)  # rule -> level, ret.
    phases: dict[str, str] = field(default_factory=dict)  # phase id -> furthest status
    writes: dict[str, str] = field(default_factory=dict)  # operation -> status
    obligations: dict[str, str] = field(default_factory=dict)  # text -> status

    def count(self) -> int:
        return (
            len(self.failures)
            + len(self.constraints)
            + len(self.phases)
            + len(self.writes)
            + len(self.obligations)
        )


ORDER = {"todo": 0, "doing": 1, "done": 2}


def outcome(operation: str) -> tuple[str, str]:
    """How a reconciliation turns out: deterministic per write, so two branches agree."""
    digest = hashlib.sha256(operation.encode()).digest()[0]
    status = "confirmed" if digest % 3 else "not_applied"
    return status, f"read back the registry for {operation.split()[-1]}: {status}"


def session(tree: Path, number: int, trunk: bool, truth: Truth) -> list[str]:
    """One agent session: rehydrate, act on what the prompt says, commit, end."""
    code, text, err = cli(tree, "prompt", "--worktree")
    if code not in (0, 3):
        raise SimulationError(f"session {number}: prompt failed ({code}): {err.strip()}")
    tables = read_prompt(text)
    done: list[str] = []
    unknown = section(tables, "STOP")
    if unknown:  # blocked: reconcile by reading, do nothing else this session
        for row in unknown:
            status, evidence = outcome(row["operation"])
            write(
                tree,
                "task",
                "write",
                "settle",
                row["id"],
                "--status",
                status,
                "--evidence",
                evidence,
            )
            truth.writes[row["operation"]] = status
            done.append(f"settled {row['id']}")
        commit(tree, f"session {number}: reconcile")
        return done
    tried = f"s{number}: `make check-{number}` on the {'trunk' if trunk else 'branch'}"
    write(
        tree,
        "fail",
        "add",
        "--tried",
        tried,
        "--failure",
        f"exit 2 in step {number % 7}",
        "--workaround",
        f"run `make check-{number % 5}` instead",
    )
    truth.failures[tried] = False
    done.append("fail add")
    active = section(tables, "3. Failed attempts")
    if len(active) + 1 > FAILURE_CAP:
        oldest = active[0]
        write(
            tree,
            "fail",
            "retire",
            oldest["id"],
            "--reason",
            f"workaround folded into the build in session {number}",
        )
        truth.failures[oldest["tried"]] = True
        done.append(f"retire {oldest['id']}")
    if number % 3 == 0:
        rule = f"s{number}: keep module {number % 11} free of network calls"
        level = ("MUST", "SHOULD", "MUST NOT")[(number // 3) % 3]
        write(tree, "spec", "constraint", "add", "--level", level, "--rule", rule)
        truth.constraints[rule] = (level, False)
        done.append("constraint add")
        rows = section(tables, "Active constraints")
        if len(rows) + 1 > CONSTRAINT_CAP:
            oldest = rows[0] if rows[0]["rule"] != rule else rows[1]
            write(
                tree, "spec", "retire", oldest["id"], "--reason", f"superseded in session {number}"
            )
            level_was = truth.constraints.get(oldest["rule"], (oldest["level"], False))[0]
            truth.constraints[oldest["rule"]] = (level_was, True)
            done.append(f"retire {oldest['id']}")
    if number % 2 == 0:
        phases = section(tables, "Phases")
        current = next((p for p in phases if p["status"] != "done"), None)
        if current is not None:
            status = "doing" if current["status"] == "todo" else "done"
            write(tree, "task", "phase", current["id"], status)
            if ORDER[status] > ORDER[truth.phases.get(current["id"], "todo")]:
                truth.phases[current["id"]] = status
            done.append(f"phase {current['id']} {status}")
            if trunk:
                write(tree, "task", "next", f"Continue phase {current['id']} ({status})")
    if number % 5 == 0:
        operation = f"publish build artifact a{number}"
        item = write(
            tree,
            "task",
            "write",
            "add",
            "--operation",
            operation,
            "--idempotency-key",
            f"artifact-{number}",
        )
        write(tree, "task", "write", "settle", item, "--status", "unknown")
        truth.writes[operation] = "unknown"  # the session ended before it saw the outcome
        done.append(f"write {item} unknown")
    if number % 6 == 0:
        text_ = f"s{number}: tell the release manager about module {number % 11}"
        write(tree, "task", "obligation", "add", text_)
        truth.obligations[text_] = "open"
        done.append("obligation add")
    if number % 7 == 0:
        open_ = section(tables, "Open obligations")
        if open_:
            write(tree, "task", "obligation", "done", open_[0]["id"])
            truth.obligations[open_[0]["obligation"]] = "done"
            done.append(f"obligation done {open_[0]['id']}")
    commit(tree, f"session {number}")
    return done


def commit(tree: Path, message: str) -> None:
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", message)  # the pre-commit hook runs the guard


def setup(root: Path, id_scheme: str) -> Path:
    main = root / "main"
    main.mkdir()
    git(main, "init", "-q", "-b", "main")
    if id_scheme != "sequential":
        (main / ".rehydrate.toml").write_text(f'id_scheme = "{id_scheme}"\n', encoding="utf-8")
    write(main, "init")
    commit(main, "empty ledgers")
    write(main, "task", "objective", "Ship the build in twelve phases")
    for i in range(1, PHASES + 1):
        write(main, "task", "phase", "add", "--phase", f"phase {i} of the task")
    commit(main, "plan the phases")
    return main


def measure(tree: Path) -> dict[str, int]:
    """Prompt size at HEAD on the trunk, against the ledgers: items ever recorded (retired
    ones included), active items, and the ledger rows the prompt actually shows."""
    from rehydrate.ledgers import parse_ledger

    code, text, err = cli(tree, "prompt", "--diff-lines", "0")
    if code not in (0, 3):
        raise SimulationError(f"prompt failed ({code}): {err.strip()}")
    active = ever = 0
    for kind, path in PATHS.items():
        ledger = parse_ledger(kind, path, (tree / path).read_bytes())
        gone = ledger.retired_ids
        for record in ledger.all_items():
            ever += 1
            active += record.id not in gone
    tables = read_prompt(text)
    retired_rows = len(section(tables, "Retired items"))
    shown = sum(len(rows) for rows in tables.values()) - retired_rows
    start = text.find("\n## Retired items")
    end = text.find("\n## ", start + 1) if start >= 0 else -1
    retired_chars = 0 if start < 0 else (end if end >= 0 else len(text)) - start
    return {
        "prompt_chars": len(text),
        "prompt_rows": shown,
        "retired_rows": retired_rows,
        "retired_list_chars": retired_chars,
        "active_items": active,
        "items_ever": ever,
    }


def verify(main: Path, truth: Truth) -> dict[str, int]:
    """Every recorded fact present once, in its recorded state; IDs unique; guard passes."""
    from rehydrate.ledgers import parse_ledger

    data = {k: git(main, "show", f"HEAD:{p}").stdout.encode() for k, p in PATHS.items()}
    ledgers = {k: parse_ledger(k, PATHS[k], d) for k, d in data.items()}  # duplicate ID: error
    problems: list[str] = []
    for kind, ledger in ledgers.items():
        found = [r.id for r in ledger.all_items()]
        if len(found) != len(set(found)):
            problems.append(f"{kind}: duplicate IDs")

    def rows(kind: str, column: str) -> dict[str, list[object]]:
        out: dict[str, list[object]] = {}
        for record in ledgers[kind].all_items():
            out.setdefault(record.cells().get(column, ""), []).append(record)
        return out

    retired = {k: ledgers[k].retired_ids for k in ledgers}
    by_tried = rows("failures", "tried")
    for tried, gone in truth.failures.items():
        found = by_tried.get(tried, [])
        if len(found) != 1:
            problems.append(f"failure {tried!r} found {len(found)} times")
        elif (found[0].id in retired["failures"]) != gone:  # type: ignore[attr-defined]
            problems.append(f"failure {tried!r}: retired should be {gone}")
    by_rule = rows("spec", "rule")
    for rule, (level, gone) in truth.constraints.items():
        found = by_rule.get(rule, [])
        if len(found) != 1:
            problems.append(f"constraint {rule!r} found {len(found)} times")
        elif found[0].level != level or (found[0].id in retired["spec"]) != gone:  # type: ignore[attr-defined]
            problems.append(f"constraint {rule!r}: wrong level or retirement")
    phases = {r.id: r.status for r in ledgers["task"].section("phases")}
    for item_id, status in truth.phases.items():
        if phases.get(item_id) != status:
            problems.append(f"phase {item_id}: {phases.get(item_id)} != {status}")
    by_op = rows("task", "operation")
    for operation, status in truth.writes.items():
        found = by_op.get(operation, [])
        if len(found) != 1 or found[0].status != status:  # type: ignore[attr-defined]
            problems.append(f"write {operation!r}: {[f.status for f in found]} != {status}")  # type: ignore[attr-defined]
    by_text = rows("task", "obligation")
    for text, status in truth.obligations.items():
        found = by_text.get(text, [])
        if len(found) != 1 or found[0].status != status:  # type: ignore[attr-defined]
            problems.append(f"obligation {text!r}: wrong state")
    root = git(main, "rev-list", "--max-parents=0", "HEAD").stdout.split()[0]
    guard = subprocess.run(
        [sys.executable, "-m", "rehydrate", "guard", "--range", f"{root}..HEAD"],
        cwd=main,
        capture_output=True,
        text=True,
    )
    if guard.returncode != 0:
        problems.append(f"guard --range failed: {guard.stderr.strip()[:2000]}")
    if problems:
        raise SimulationError("; ".join(problems[:20]) + f" ({len(problems)} problems)")
    commits = int(git(main, "rev-list", "--count", "HEAD").stdout)
    return {
        "facts": truth.count(),
        "commits": commits,
        "rows": sum(1 for k in ledgers for _ in ledgers[k].all_items()),
    }


def simulate(
    sessions: int, branches: int, root: Path, per_branch: int = 2, id_scheme: str = "sequential"
) -> dict[str, object]:
    """Run the whole simulation in ``root``; raises SimulationError on any loss."""
    os.environ.update(GIT_ENV)
    os.environ["HOME"] = str(root)  # no user git config
    started = time.perf_counter()
    main = setup(root, id_scheme)
    trees = []
    for index in range(branches):
        tree = root / f"agent-{index + 1}"
        git(main, "worktree", "add", "-q", "-b", f"agent-{index + 1}", str(tree), "main")
        trees.append(tree)
    truth = Truth()
    samples: list[dict[str, int]] = [{"sessions": 0, **measure(main)}]
    number = merges = renumbered = 0
    while number < sessions:
        for tree in trees:
            for _ in range(per_branch):
                if number < sessions:
                    number += 1
                    session(tree, number, False, truth)
        for index, _tree in enumerate(trees):
            proc = git(main, "merge", "--no-edit", f"agent-{index + 1}", check=False)
            if proc.returncode != 0:
                raise SimulationError(
                    f"merge of agent-{index + 1} after session {number} "
                    f"failed: {proc.stdout}{proc.stderr}"
                )
            merges += 1
            renumbered += (proc.stdout + proc.stderr).count("was added on both sides")
        if number < sessions:
            number += 1
            session(main, number, True, truth)
        for tree in trees:
            git(tree, "merge", "-q", "--ff-only", "main")
        samples.append({"sessions": number, **measure(main)})
    result = verify(main, truth)
    return {
        "schema": "rehydrate/simulation-v1",
        "sessions": sessions,
        "branches": branches,
        "id_scheme": id_scheme,
        "merges": merges,
        "renumbered_on_merge": renumbered,
        **result,
        "seconds": round(time.perf_counter() - started, 1),
        "samples": samples,
        "growth": growth(samples, sessions),
    }


def growth(samples: list[dict[str, int]], sessions: int) -> list[dict[str, object]]:
    """Prompt size at about N/4, N/2 and N, per active item, per shown row, per session."""
    out: list[dict[str, object]] = []
    for share in (4, 2, 1):
        target = sessions / share
        pick = min(samples[1:] or samples, key=lambda s: abs(s["sessions"] - target))
        rest = pick["prompt_chars"] - pick["retired_list_chars"]
        out.append(
            {
                "at": f"N/{share}" if share > 1 else "N",
                **pick,
                "chars_per_active_item": round(rest / pick["active_items"], 1),
                "chars_per_session": round(pick["prompt_chars"] / max(pick["sessions"], 1), 1),
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20, metavar="N")
    parser.add_argument("--branches", type=int, default=2, metavar="K")
    parser.add_argument(
        "--per-branch", type=int, default=2, help="sessions per branch between merges"
    )
    parser.add_argument(
        "--id-scheme",
        choices=("sequential", "branch-safe"),
        default="sequential",
        help="how the writers mint IDs",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--keep", metavar="DIR", default=None, help="work in DIR and keep it")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rehydrate-sim-") as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        report = simulate(args.sessions, args.branches, root, args.per_branch, args.id_scheme)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"{report['sessions']} sessions on {report['branches']} parallel branches + trunk "
        f"({report['id_scheme']} IDs): "
        f"{report['facts']} facts recorded, all present in the right state; "
        f"{report['merges']} merges ({report['renumbered_on_merge']} IDs renumbered), "
        f"{report['commits']} commits, guard --range passes; {report['seconds']} s"
    )
    print(
        "prompt size (md, --diff-lines 0); 'retired list' is the prompt's reference list of "
        "retired IDs and reasons:"
    )
    for row in report["growth"]:  # type: ignore[union-attr]
        print(
            f"  {row['at']:>4}: {row['sessions']:>4} sessions, {row['items_ever']:>4} items "
            f"ever, {row['active_items']:>4} active ({row['prompt_rows']:>4} rows shown), "
            f"{row['retired_rows']:>3} retired; {row['prompt_chars']:>6} chars "
            f"({row['retired_list_chars']:>5} in the retired list), "
            f"{row['chars_per_active_item']:>6} chars/active item without the retired list, "
            f"{row['chars_per_session']:>6} chars/session"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
