"""The fuzz oracle itself (``fuzzing.oracle``): a crash must not hide from it in a hook's
stdout JSON (exit 0), escaped or not, nor on stderr (issue 27 item 5)."""

from __future__ import annotations

import pytest
from fuzzing import oracle

from conftest import Result

HOOK = ("hook", "claude", "pre-tool-use")


@pytest.mark.parametrize(
    ("out", "err", "code"),
    [
        pytest.param(
            '{"hookSpecificOutput": {"permissionDecisionReason": "rehydrate: internal error"}}',
            "",
            0,
            id="internal-error-in-stdout-json",
        ),
        pytest.param(
            '{"reason": "rehydrate: internal\\u0020error in the hook"}',
            "",
            0,
            id="escaped-in-stdout-json",
        ),
        pytest.param(
            '{"a": ["Trace\\u0062ack (most recent call last):"]}', "", 0, id="escaped-traceback"
        ),
        pytest.param("", "Traceback (most recent call last):\n", 0, id="traceback-on-stderr"),
        pytest.param("", "rehydrate: internal error (KeyError)", 0, id="internal-error-stderr"),
        pytest.param('{"continue": true}', "", 70, id="exit-70"),
    ],
)
def test_the_oracle_sees_a_crash_wherever_it_is_said(out: str, err: str, code: int) -> None:
    with pytest.raises(AssertionError):
        oracle(HOOK, Result(code, out, err))


@pytest.mark.parametrize(
    "out",
    ['{"hookSpecificOutput": {"permissionDecision": "deny", "reason": "F-001"}}', "", "text"],
)
def test_the_oracle_lets_an_ordinary_answer_pass(out: str) -> None:
    oracle(HOOK, Result(0, out, "rehydrate: hook input is not JSON"))
