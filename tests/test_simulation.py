"""The restart-cycle simulation in its small size (the issue's N=200, K=4 run is manual)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_small_restart_cycle_loses_nothing_and_the_prompt_tracks_active_items(
    tmp_path: Path,
) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "simulate.py"),
            "--sessions",
            "20",
            "--branches",
            "2",
            "--json",
            "--keep",
            str(tmp_path / "sim"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["schema"] == "rehydrate/simulation-v1"
    # verify() inside the script raised on any lost, duplicated or wrong item, or a
    # refused history; these say the run exercised what it claims to.
    assert report["facts"] >= 20 and report["merges"] >= 6
    assert report["renumbered_on_merge"] > 0  # sequential IDs collided and were renumbered
    quarter, half, full = report["growth"]
    assert full["sessions"] == 20 and half["sessions"] < full["sessions"]
    # Retired items leave the lists (the prompt keeps only an ID-and-reason reference
    # list of them); apart from that list the prompt follows the rows it shows.
    assert full["items_ever"] > full["active_items"] and full["retired_rows"] > 0
    grown = (full["prompt_chars"] - full["retired_list_chars"]) - (
        half["prompt_chars"] - half["retired_list_chars"]
    )
    assert grown / max(full["prompt_rows"] - half["prompt_rows"], 1) < 300
    assert full["chars_per_session"] < quarter["chars_per_session"]
