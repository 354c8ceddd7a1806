"""Every environment value rehydrate reads is validated in one place (rehydrate.environment)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from rehydrate import environment
from rehydrate.errors import RehydrateError

SRC = Path(__file__).resolve().parents[1] / "src" / "rehydrate"


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "1e308", "soon", "5s", "0x10"])
def test_a_lock_timeout_that_is_no_sensible_number_is_refused(value: str) -> None:
    with pytest.raises(RehydrateError) as caught:
        environment.number(environment.LOCK_TIMEOUT, 5.0, {environment.LOCK_TIMEOUT: value})
    assert caught.value.code == "bad_environment"
    assert "REHYDRATE_LOCK_TIMEOUT" in str(caught.value) and "0 to 3600" in str(caught.value)


@pytest.mark.parametrize(("value", "seconds"), [("", 5.0), ("0", 0.0), ("0.25", 0.25), ("60", 60)])
def test_a_sensible_lock_timeout_is_taken(value: str, seconds: float) -> None:
    env = {environment.LOCK_TIMEOUT: value}
    assert environment.number(environment.LOCK_TIMEOUT, 5.0, env) == seconds


@pytest.mark.parametrize("value", ["0", "-5", "12abc", "1e3", "nan", "999999999999"])
def test_a_context_limit_that_is_no_count_is_refused(value: str) -> None:
    with pytest.raises(RehydrateError):
        environment.count(environment.CONTEXT_LIMIT, {environment.CONTEXT_LIMIT: value})


def test_a_value_with_a_secret_or_an_escape_is_quoted_redacted() -> None:
    env = {environment.LOCK_TIMEOUT: "\x1b]0;pwn\x07 ghp_" + "a" * 36}
    with pytest.raises(RehydrateError) as caught:
        environment.number(environment.LOCK_TIMEOUT, 5.0, env)
    text = str(caught.value)
    assert "\x1b" not in text and "ghp_aaaa" not in text


def test_the_cli_refuses_a_nan_lock_timeout_without_waiting(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run([sys.executable, "-m", "rehydrate", "init"], cwd=tmp_path, capture_output=True)
    proc = subprocess.run(
        [sys.executable, "-m", "rehydrate", "fail", "add", "--tried", "`make q`"]
        + ["--failure", "it broke", "--workaround", "use make r"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "REHYDRATE_LOCK_TIMEOUT": "nan"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "bad_environment" in proc.stderr, proc.stderr


def test_no_module_reads_a_rehydrate_variable_but_environment() -> None:
    """A REHYDRATE_* variable read with environ.get / os.environ[...] elsewhere is a second
    path that skips validation."""
    names = "|".join(["REHYDRATE_", "LIMIT_ENV", "SESSION_ENV", "LOCK_TIMEOUT"])
    read = re.compile(rf"""(?:environ(?:\.get\(|\[)|getenv\()\s*["']?(?:{names})""")
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path.name != "environment.py" and read.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], offenders
