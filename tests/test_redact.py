"""Secret redaction: every kind is caught, the raw value never survives, clean text is untouched."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rehydrate.redact import find_secrets, redact

SECRETS = [
    pytest.param(
        '+AWS_ACCESS_KEY_ID = "AKIAZ7Q3K9P2M4N6B8V1"',
        "AKIAZ7Q3K9P2M4N6B8V1",
        "aws_access_key",
        id="aws-access-key",
    ),
    pytest.param(
        "creds: ASIAZ7Q3K9P2M4N6B8V1 (session)",
        "ASIAZ7Q3K9P2M4N6B8V1",
        "aws_access_key",
        id="aws-session-key",
    ),
    pytest.param("token ghp_" + "a1B2" * 9, "ghp_" + "a1B2" * 9, "github_token", id="github"),
    pytest.param(
        "github_pat_11ABCDEFG0123456789_abcdefghij",
        "11ABCDEFG0123456789_abcdefghij",
        "github_token",
        id="github-fine-grained",
    ),
    pytest.param(
        "SLACK=xoxb-123456789012-abcdefABCDEF",
        "xoxb-123456789012-abcdefABCDEF",
        "slack_token",
        id="slack",
    ),
    pytest.param(
        "url https://hooks.slack.com/services/T000/B000/XXXXXXXX",
        "T000/B000/XXXXXXXX",
        "slack_webhook",
        id="slack-webhook",
    ),
    pytest.param(
        "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx",
        "abcdefghijklmnopqrstuvwx",
        "openai_key",
        id="openai",
    ),
    pytest.param(
        "stripe.Charge(sk_live_abcdefghijklmnop1234)",
        "abcdefghijklmnop1234",
        "stripe_key",
        id="stripe",
    ),
    pytest.param(
        "key=AIzaSyA-abcdefghijklmnopqrstuvwxyz012345",
        "abcdefghijklmnopqrstuvwxyz0123",
        "google_api_key",
        id="google",
    ),
    pytest.param(
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmnop",
        "eyJzdWIiOiIxMjM0In0",
        "jwt",
        id="jwt",
    ),
    pytest.param(
        "DATABASE_URL=postgres://app:s3cr3t-pw@db:5432/app",
        "s3cr3t-pw",
        "url_credentials",
        id="url-credentials",
    ),
    pytest.param(
        "-H 'Authorization: Bearer abc.def-ghi_jkl'", "abc.def-ghi_jkl", "bearer_token", id="bearer"
    ),
    pytest.param(
        'headers = {"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}',
        "dXNlcjpwYXNzd29yZA",
        "basic_auth",
        id="basic-auth",
    ),
    pytest.param('password = "hunter2"', "hunter2", "password", id="password-double-quotes"),
    pytest.param("db_password: 'hunter2'", "hunter2", "password", id="password-yaml"),
    pytest.param("PASSWORD=correcthorse", "correcthorse", "password", id="password-env"),
    pytest.param('"client_secret": "c0ffee-beef"', "c0ffee-beef", "secret", id="json-secret"),
    pytest.param(
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG",
        "secret",
        id="aws-secret",
    ),
    pytest.param("api_key => 'zzzzzz'", "zzzzzz", "api_key", id="api-key-arrow"),
    pytest.param('auth_token := "tok-123456"', "tok-123456", "token", id="token-walrus"),
    pytest.param(
        'パスワード password="日本語の秘密"', "日本語の秘密", "password", id="non-ascii-value"
    ),
    pytest.param(
        "+-----BEGIN RSA PRIVATE KEY-----\n+MIIEowIBAAKCAQEA\n+-----END RSA PRIVATE "
        "KEY-----\n+done",
        "MIIEowIBAAKCAQEA",
        "private_key",
        id="private-key-block",
    ),
    pytest.param(
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA",
        "b3BlbnNzaC1rZXkt",
        "private_key",
        id="private-key-cut-short",
    ),
]


@pytest.mark.parametrize(("text", "raw", "kind"), SECRETS)
def test_secret_is_redacted_with_its_kind(text: str, raw: str, kind: str) -> None:
    out = redact(text)
    assert raw not in out
    assert f"[REDACTED:{kind}]" in out


CLEAN = [
    pytest.param("no secrets here, just a token budget of 2000", id="prose-token"),
    pytest.param("token = get_token()", id="call-not-a-value"),
    pytest.param("if token.strip():", id="attribute"),
    pytest.param('primary_key = "id"', id="primary-key"),
    pytest.param('passenger = "bob"', id="pass-prefix-word"),
    pytest.param("Basic idea: authentication happens at the edge", id="basic-prose"),
    pytest.param(
        "| F-001 | `go test -tags=musl` | リンカエラー | `-tags=darwin_arm64` |", id="ledger-row"
    ),
    pytest.param("password = ''", id="empty-value"),
]


@pytest.mark.parametrize("text", CLEAN)
def test_clean_text_is_unchanged(text: str) -> None:
    assert redact(text) == text


def test_text_around_a_secret_is_kept() -> None:
    text = 'x = 1\npassword = "hunter2"\ny = 2\n'
    assert redact(text) == 'x = 1\npassword = "[REDACTED:password]"\ny = 2\n'


def test_a_mentioned_key_header_does_not_swallow_the_rest_of_a_table() -> None:
    table = (
        "| F-001 | pasted -----BEGIN PRIVATE KEY----- only | parse error | use a file |\n"
        "| F-002 | retry the build | flaky | pin the cache |"
    )
    out = redact(table)
    assert "| F-002 | retry the build | flaky | pin the cache |" in out
    assert out.count(" | ") == table.count(" | ")


def test_a_quoted_value_never_crosses_a_cell_separator() -> None:
    row = '| F-001 | set password = "abc | then "quoted" text | ok |'
    assert redact(row).count(" | ") == row.count(" | ")
    assert redact('password = "a\\|b|c"') == 'password = "[REDACTED:password]"'


def test_redaction_spans_are_reported_in_order() -> None:
    spans = find_secrets('a password="x1" and AKIAZ7Q3K9P2M4N6B8V1')
    assert [kind for _, _, kind in spans] == ["password", "aws_access_key"]


def test_overlapping_matches_are_redacted_once() -> None:
    text = 'api_key = "sk-proj-abcdefghijklmnopqrstuvwx"'
    spans = find_secrets(text)
    assert len(spans) == 1
    assert redact(text).count("[REDACTED:") == 1


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_redaction_is_idempotent_and_only_grows_markers(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
    if "[REDACTED:" not in once:
        assert once == text


def test_a_rule_skipped_for_a_missing_character_could_not_have_matched() -> None:
    """A rule is skipped when its `needs` character is absent: that character must be a
    literal every match holds (outside character classes; none of these rules has it in
    an optional part)."""
    import re

    from rehydrate.redact import RULES, redact

    gated = [rule for rule in RULES if rule.needs]
    assert {rule.kind for rule in gated} >= {"jwt", "url_credentials"}
    for rule in gated:
        outside_classes = re.sub(r"\[(?:\\.|[^\]])*\]", "", rule.pattern)
        assert "?" not in outside_classes.split(rule.needs)[0][-3:], rule.kind
        assert rule.needs in outside_classes, (rule.kind, rule.pattern)
    # and the gated rules still fire when their character is there
    assert "[REDACTED:url_credentials]" in redact("https://u:hunter22@example.com")
    token = (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    )
    assert redact(f"jwt {token}") == "jwt [REDACTED:jwt]"
