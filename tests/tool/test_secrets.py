"""What counts as a secret, and what does not (so notes about secrets can still be written)."""

from __future__ import annotations

import pytest

from brain.parse.secrets.scan import find_secret

SECRETS = [
    ("-----BEGIN RSA PRIVATE KEY-----", "a private key"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "a private key"),
    ("-----BEGIN PRIVATE KEY-----", "a private key"),
    ("aws key AKIAIOSFODNN7EXAMPLF in the env", "an AWS access key"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "an AWS secret key"),
    ("ghp_" + "A1b2" * 9, "a GitHub token"),
    ("github_pat_" + "11ABCDEFG" * 4, "a GitHub token"),
    ("glpat-" + "x1Y2z3" * 4, "a GitLab token"),
    ("xoxb-1234567890-abcdefghij", "a Slack token"),
    ("https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXX", "a Slack webhook"),
    ("sk_live_" + "a1B2c3D4" * 3, "a Stripe key"),
    ("sk-ant-api03-" + "abcDEF123_" * 3, "an Anthropic API key"),
    ("OPENAI_API_KEY=sk-proj-" + "Ab1Cd2Ef3" * 3, "an OpenAI API key"),
    ("AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "a Google API key"),
    ("hf_" + "aBcDeFgHiJ" * 4, "a Hugging Face token"),
    ("npm_" + "aB3" * 12, "an npm token"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "a JSON web token"),
    ("db: postgres://app:s3cretPw9@db.internal/app", "a password in a URL"),
    ("password: hunter22", "a password or key assignment"),
    ('"api_key": "9f8e7d6c5b4a3f2e1d0c"', "a password or key assignment"),
]
NOT_SECRETS = [
    "The staging key is in 1Password, vault *Ops*.",
    "Never store keys, tokens, passwords or customer emails.",
    "token: see-the-ops-vault",
    "password: <your password>",
    "api_key: ${API_KEY}",
    "postgres://app:<password>@db.internal/app",
    "commit 3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f fixed it",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "the secret is to keep answers short",
    "-----BEGIN PUBLIC KEY-----",
    "see https://user@example.com/x",
]


@pytest.mark.parametrize(("text", "kind"), SECRETS)
def test_secrets_are_found(text: str, kind: str) -> None:
    hit = find_secret("intro\n" + text + "\n")
    assert hit is not None
    assert (hit.line, hit.kind) == (2, kind)


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert find_secret(text) is None


def test_only_the_given_lines_are_scanned() -> None:
    text = "old: ghp_" + "A1b2" * 9 + "\nnew line\n"
    assert find_secret(text, range(2, 3)) is None
    assert find_secret(text, range(1, 2)) is not None


def test_the_preview_gives_nothing_away() -> None:
    text = "ghp_" + "A1b2" * 9
    hit = find_secret(text)
    assert hit is not None
    assert hit.preview(text) == "ghp_…"
