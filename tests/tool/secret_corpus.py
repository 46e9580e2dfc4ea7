"""A labelled corpus for the secret detector: real-looking notes that hold no secret, and
secrets of every kind the detector covers planted in real-looking places, plainly and in the
disguises docs/security.md ("Secrets") promises to see through.

The planted values are made here from a fixed seed, never written out in the source: they
are fake, and a repository scanner must not take this file for a leak. Used by
tests/tool/test_secret_precision.py (floors) and bench/bench_secrets.py (figures).
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

_RNG = random.Random(20261206)
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _jwt_part(n: int) -> str:
    return base64.urlsafe_b64encode(_rand(n).encode()).decode().rstrip("=")


# One value of each kind the detector covers (brain.parse.secrets.scan._PATTERNS and rules).
VALUES: dict[str, str] = {
    "a private key": "-----BEGIN OPENSSH PRIVATE KEY-----",
    "an AWS access key": "AKIA" + _rand(16, string.ascii_uppercase + string.digits),
    "an AWS secret key": "aws_secret_access_key = " + _rand(40, _ALNUM + "/+"),
    "a GitHub token": "ghp_" + _rand(36),
    "a GitHub fine-grained token": "github_pat_" + _rand(22) + "_" + _rand(59),
    "a GitLab token": "glpat-" + _rand(20),
    "a Slack token": "xoxb-" + _rand(12, string.digits) + "-" + _rand(24),
    "a Slack webhook": "https://hooks.slack.com/services/T" + _rand(8) + "/B" + _rand(8) + "/" + _rand(24),
    "a Stripe key": "sk_live_" + _rand(24),
    "an Anthropic API key": "sk-ant-api03-" + _rand(40, _ALNUM + "_-"),
    "an OpenAI API key": "sk-proj-" + _rand(48),
    "a Google API key": "AIza" + _rand(35, _ALNUM + "_-"),
    "a Hugging Face token": "hf_" + _rand(34),
    "an npm token": "npm_" + _rand(36),
    "a PyPI token": "pypi-AgEIcHlwaS5vcmc" + _rand(60, _ALNUM + "_-"),
    "a SendGrid key": "SG." + _rand(22) + "." + _rand(43),
    "a Twilio key": "SK" + _rand(32, "0123456789abcdef"),
    "an Azure storage key": "AccountKey=" + _rand(86, _ALNUM + "+/") + "==",
    "a JSON web token": "eyJhbGciOiJIUzI1NiJ9.eyJ" + _jwt_part(30) + "." + _jwt_part(30),
    "a password in a URL": "postgres://app:" + _rand(14) + "@db.internal:5432/app",
    "a password or key assignment": 'DB_PASSWORD="' + _rand(18) + '"',
}
TOKEN = VALUES["a GitHub token"]


@dataclass(frozen=True)
class Planted:
    name: str
    text: str
    line: int  # where the secret starts


def _in_places(kind: str, value: str) -> list[Planted]:
    """The value in the places a note keeps one: prose, a code block, CI YAML, JSON, shell."""
    return [
        Planted(f"{kind} in prose", f"# Deploy notes\n\nThe key for staging is {value} for now.\n", 3),
        Planted(f"{kind} in a code block",
                f"# Client\n\n```python\nclient = Client(\n    {value!r},\n)\n```\n", 5),
        Planted(f"{kind} in CI YAML",
                f"jobs:\n  deploy:\n    env:\n      CREDENTIAL: {value}\n    steps:\n      - run: make\n", 4),
        Planted(f"{kind} in JSON", f'{{\n  "name": "svc",\n  "credential": "{value}"\n}}\n', 3),
        Planted(f"{kind} in shell", f"```sh\nexport CREDENTIAL='{value}'\n./run.sh\n```\n", 2),
    ]


def _disguised() -> list[Planted]:
    """The disguises the detector promises to undo (docs/security.md, "Secrets")."""
    t = TOKEN
    spaced = " ".join(t)
    return [
        Planted("three-line split", f"Notes\n\n{t[:14]}\n{t[14:28]}\n{t[28:]}\n", 3),
        Planted("many-line split after a word",
                f"see below x\n{t[:8]}\n{t[8:16]}\n{t[16:24]}\n{t[24:]}\n", 2),
        Planted("HTML comment in the middle", f"token {t[:12]}<!-- keep -->{t[12:]}\n", 1),
        Planted("HTML comment over lines", f"token {t[:12]}<!--\nhidden\n-->{t[12:]}\n", 1),
        Planted("HTML tag in the middle", f"token {t[:12]}<span>{t[12:24]}</span>{t[24:]}\n", 1),
        Planted("spaced letters", f"Notes\nthe token is {spaced}\n", 2),
        Planted("spaced letters over two lines", f"the token is\n{spaced[:41]}\n{spaced[42:]}\n", 2),
        Planted("split across frontmatter and body",
                f"---\ndescription: deploy\nnote: {t[:20]}\n---\n{t[20:]}\n", 3),
        Planted("split across frontmatter and body, indented",
                f"---\ndescription: deploy\nnote: >\n  {t[:20]}\n---\n{t[20:]}\n", 4),
        Planted("bold in the middle", f"token {t[:10]}**{t[10:20]}**{t[20:]}\n", 1),
        Planted("code marks in the middle", f"token `{t[:10]}``{t[10:]}`\n", 1),
        Planted("escaped underscore", f"token {t.replace('_', chr(92) + '_')}\n", 1),
        Planted("continuation backslash", f'export T="{t[:20]}\\\n    {t[20:]}"\n', 1),
        Planted("assignment split over three lines",
                "Notes\npassword: Zq8xW2\npL9vK3\nmR7tY1\n", 2),
        Planted("zero-width space", f"token {t[:9]}\u200b{t[9:]}\n", 1),
        Planted("base64 of a token", "blob " + base64.b64encode(t.encode()).decode() + "\n", 1),
    ]


PLANTED: list[Planted] = [
    p for kind, value in VALUES.items() for p in _in_places(kind, value)
] + _disguised()

# Real-looking notes without a secret: code in several languages, CI files, docs prose.
NEGATIVES: dict[str, str] = {
    "GitHub Actions permissions (id-token, attestations)": """\
name: release
on:
  push:
    tags: ["v*"]
permissions:
  contents: read
  id-token: write
  attestations: write
  packages: write
jobs:
  publish:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          registry-url: https://registry.npmjs.org
      - run: npm publish --provenance
        env:
          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}
          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
      - uses: actions/attest-build-provenance@v1
        with:
          subject-path: dist/*.tgz
      - uses: actions/cache@v4
        with:
          key: ${{ runner.os }}-npm-${{ hashFiles('**/package-lock.json') }}
""",
    "GitLab CI": """\
stages: [test, deploy]
variables:
  POSTGRES_PASSWORD: $CI_DB_PASSWORD
  SECRET_DETECTION_ENABLED: "true"
test:
  image: python:3.12
  script:
    - pip install -e .
    - pytest -q
deploy:
  stage: deploy
  script:
    - echo "$DEPLOY_KEY" | ssh-add -
    - ./deploy.sh --token-file /run/secrets/deploy_token
  only: [main]
""",
    "VS Code extension (TypeScript)": """\
# Extension notes

The extension keeps the API key in the secret storage, never in settings:

```ts
export async function activate(app: vscode.ExtensionContext) {
  const secret = await app.secretStorage.getSecret("brain.apiKey");
  const token = secret ?? (await promptForToken());
  const apiKey = process.env.OPENAI_API_KEY!;
  const password = config.get<string>("proxyPassword");
  await app.secrets.store("brain.apiKey", token);
}
```
""",
    "Python settings": """\
```python
import os
from getpass import getpass

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
api_key = settings.OPENAI_API_KEY
password = getpass.getpass("Password: ")
token = jwt.encode(payload, key, algorithm="HS256")
secret_key = get_random_secret_key()
access_token = response.json()["access_token"]
client_secret = os.getenv("CLIENT_SECRET", default=None)
```
""",
    "Rust and Go": """\
```rust
let token = std::env::var("GITHUB_TOKEN")?;
let secret = vault.read_secret(&path).await?;
let api_key = config.api_key.clone();
```

```go
token := os.Getenv("SLACK_TOKEN")
password := viper.GetString("db.password")
secretKey := []byte(cfg.SecretKey)
```
""",
    "Kubernetes and compose": """\
apiVersion: v1
kind: Pod
spec:
  containers:
    - name: app
      env:
        - name: DB_PASSWORD
          valueFrom:
            secretKeyRef:
              name: db-credentials
              key: password
---
services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}
      POSTGRES_USER: app
""",
    "Terraform": """\
resource "aws_db_instance" "main" {
  username = var.db_username
  password = var.db_password
  kms_key_id = aws_kms_key.main.arn
}
""",
    "docs prose about secrets": """\
---
description: how we handle credentials
type: reference
---
# Credentials

Never store tokens, passwords or API keys in memory. The staging token lives in
1Password (vault *Ops*); the production key is rotated every 90 days by the
platform team. Ask in #platform for access.

**Note**: a *token* is not a **password**. The `GITHUB_TOKEN` of a workflow expires
with the job; a personal access token does not.

<!-- TODO: link the rotation runbook -->

| Secret | Where | Rotation |
|---|---|---|
| deploy key | Vault `kv/deploy` | yearly |
| npm token | GitHub secret `NPM_TOKEN` | on departure |
""",
    "wrapped prose and lists": """\
The summary of the incident: the database password was rotated on Tuesday
afterwards the connection pool kept stale connections for about twenty minutes
and requests failed until the pods restarted. Follow-up: shorter pool lifetime.

Letters of the options: a b c d e f g h i j k, and the steps 1 2 3 4 5 6 7 8 9.
Commit 3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f fixed it; sha256 of the tarball is
e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.
Request id 0b6f6d2c-8b1e-4d6a-9a63-1c3b2f7e9d10 in the logs.
""",
    "HTML and markup in notes": """\
<details>
<summary>Token setup</summary>

Set <code>token</code> to the value from the vault: `token: <from-vault>`.
Use <kbd>Ctrl</kbd>+<kbd>C</kbd>. The env var is **API**_**KEY** in old docs.

</details>
<!-- secret: see vault -->
""",
    "shell session": """\
```console
$ export AWS_PROFILE=staging
$ aws sts get-caller-identity --query Account --output text
$ gh auth token | docker login ghcr.io -u "$USER" --password-stdin
$ kubectl create secret generic api --from-literal=token="$(pass show api/token)"
```
""",
    "YAML config of a service": """\
server:
  port: 8080
auth:
  token_header: X-Api-Token
  secret_name: brain-api
  password_min_length: 12
  keyring: secretservice
storage:
  access_key_env: MINIO_ACCESS_KEY
  bucket: memories-eu-west-1
""",
}


def planted_found(find: Callable[[str], list[int]]) -> tuple[int, list[str]]:
    """(how many planted secrets `find` reports at their line, the names of those it misses)."""
    missed = [p.name for p in PLANTED if p.line not in find(p.text)]
    return len(PLANTED) - len(missed), missed


def false_positives(find: Callable[[str], list[int]]) -> list[str]:
    """`name:line` of every report on a negative note."""
    return [f"{name}:{line}" for name, text in NEGATIVES.items() for line in find(text)]
