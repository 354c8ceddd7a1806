"""The secret kinds the redactor knows: each with an example that must be redacted and a
near miss that must not be (one row per kind; adding a kind is adding a row)."""

from __future__ import annotations

import pytest

from rehydrate.redact import redact

# (kind, text holding a secret, the secret's raw value, a near miss left alone)
KINDS = [
    (
        "aws_access_key",
        "aws_access_key_id AKIAZ7Q3K9P2M4N6B8V1",
        "AKIAZ7Q3K9P2M4N6B8V1",
        "see AKIA-docs and AKIAZ7Q3 (truncated)",
    ),
    (
        "github_token",
        "push with ghp_" + "a1B2" * 9,
        "a1B2a1B2a1B2a1B2a1B2a1B2a1B2",
        "the ghp_ prefix marks classic tokens",
    ),
    (
        "github_fine_grained",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwx",
        "11ABCDEFG0123456789_abcdefghij",
        "github_pat_ tokens expire",
    ),
    (
        "gitlab_pat",
        "CI uses glpat-AbCdEfGhIjKlMnOpQrSt for the mirror",
        "AbCdEfGhIjKlMnOpQrSt",
        "create a glpat- token in the settings",
    ),
    (
        "gitlab_runner",
        "register with glrt-xyzXYZ0123456789abcdef",
        "xyzXYZ0123456789abcdef",
        "runner tokens start glrt-",
    ),
    (
        "slack_bot",
        "SLACK=xoxb-123456789012-abcdefABCDEF",
        "abcdefABCDEF",
        "xoxb- tokens belong to bots",
    ),
    (
        "slack_app",
        "xapp-1-A0123456789-0123456789-abcdef",
        "A0123456789-0123456789",
        "xapp- is an app-level prefix",
    ),
    (
        "slack_webhook",
        "post to https://hooks.slack.com/services/T000/B000/XXXXXXXX",
        "T000/B000/XXXXXXXX",
        "see https://hooks.slack.com/ for the docs",
    ),
    (
        "openai",
        "OPENAI=sk-proj-abcdefghijklmnopqrstuvwx",
        "abcdefghijklmnopqrstuvwx",
        "sk-learn is a library",
    ),
    (
        "anthropic",
        "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
        "abcdefghijklmnopqrstuvwxyz0123",
        "the sk-ant- prefix",
    ),
    (
        "stripe",
        "charge with sk_live_abcdefghijklmnop1234",
        "abcdefghijklmnop1234",
        "risk_level_high is a flag",
    ),
    (
        "npm",
        "//registry.npmjs.org/ npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "npm_config_cache is a variable",
    ),
    (
        "pypi",
        "upload with pypi-AgEIcHlwaS5vcmcCJGI4YjQ5ZjA4LWJlZTEtNDg3OS05ODk2LWIwZjdjN2ZiYjRk",
        "AgEIcHlwaS5vcmcCJGI4YjQ5ZjA4LWJlZTEtNDg3OS05",
        "pypi-simple is an index",
    ),
    (
        "google_api_key",
        "maps AIzaSyA-abcdefghijklmnopqrstuvwxyz012345",
        "abcdefghijklmnopqrstuvwxyz0123",
        "AIza keys are restricted",
    ),
    (
        "jwt",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijklmnop",
        "eyJzdWIiOiIxMjM0In0",
        "a JWT header starts with eyJ.",
    ),
    (
        "private_key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0B\n-----END PUBLIC KEY-----",
    ),
    (
        "openssh_private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\n"
        "-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjE",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBYJ user@host",
    ),
    (
        "pgp_private_key",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0abc\n-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBF0abc",
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF0abc\n-----END PGP PUBLIC KEY BLOCK-----",
    ),
    (
        "url_credentials",
        "DATABASE_URL=postgres://app:s3cr3t-pw@db:5432/app",
        "s3cr3t-pw",
        "ssh://git@github.com:owner/repo.git",
    ),
    (
        "bearer",
        "-H 'Authorization: Bearer abc.def-ghi_jkl'",
        "abc.def-ghi_jkl",
        "the bearer of bad news",
    ),
    (
        "basic_auth",
        '{"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}',
        "dXNlcjpwYXNzd29yZA",
        "Basic idea: authentication happens at the edge",
    ),
    (
        "authorization_token",
        "curl -H 'Authorization: Token 9f8e7d6c5b4a3210'",
        "9f8e7d6c5b4a3210",
        "the Authorization header is optional",
    ),
    ("password_assignment", 'password = "hunter22"', "hunter22", 'password = ""'),
    (
        "password_backticks",
        "set password: `hunter22` in the vault",
        "hunter22",
        "the `password` field is required",
    ),
    (
        "password_env",
        "PGPASSWORD=correcthorse psql -h db",
        "correcthorse",
        "PGPASSWORD is read by psql",
    ),
    (
        "password_cli_flag",
        "mysql --password=correcthorse -u root",
        "correcthorse",
        "mysql --password prompts for it",
    ),
    ("mysql_p", "mysql -uroot -pcorrecthorse shop", "correcthorse", "mysql -u root -p shop"),
    (
        "curl_user",
        "curl -u admin:correcthorse https://api.example.com",
        "correcthorse",
        "curl -u admin https://api.example.com",
    ),
    (
        "yaml_block",
        "db:\n  password: |\n    correct horse\n    battery staple\n  user: app",
        "battery staple",
        "db:\n  password_policy: strict\n  user: app",
    ),
    ("secret_json", '"client_secret": "c0ffee-beef"', "c0ffee-beef", '"secret_santa": true'),
    ("api_key", "api_key => 'zzzzzz'", "zzzzzz", 'primary_key = "id"'),
    ("token_walrus", 'auth_token := "tok-123456"', "tok-123456", "token = get_token()"),
    ("db_pass", "DB_PASS=correcthorse", "correcthorse", "tests pass: all green"),
    (
        "aws_secret",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG",
        "AWS_SECRET_ACCESS_KEY is read from the environment",
    ),
    (
        "grafana",
        "glsa_abcdefghijklmnopqrstuvwxyz012345_0123abcd",
        "abcdefghijklmnopqrstuvwxyz012345",
        "glsa_ is Grafana's prefix",
    ),
    (
        "age",
        "AGE-SECRET-KEY-1QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQP",
        "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQP",
        "age keys start AGE-SECRET-KEY-1",
    ),
]


@pytest.mark.parametrize(("kind", "text", "raw", "near_miss"), KINDS, ids=[row[0] for row in KINDS])
def test_secret_kind_is_redacted_and_its_near_miss_is_not(
    kind: str, text: str, raw: str, near_miss: str
) -> None:
    out = redact(text)
    assert raw not in out, out
    assert "[REDACTED:" in out
    assert redact(near_miss) == near_miss


def test_every_kind_survives_line_endings_and_fences() -> None:
    """The same secrets quoted with CRLF, lone CR or U+2028 line breaks are still redacted."""
    from rehydrate.prompt.fences import fence

    for _, text, raw, _ in KINDS:
        for newline in ("\r\n", "\r", "\u2028"):
            quoted = fence(text.replace("\n", newline))
            assert raw.replace("\n", newline) not in quoted, (text, newline)
