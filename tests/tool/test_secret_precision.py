"""Precision and recall of the secret detector on a labelled corpus, and each problem once.

The corpus (tests/tool/secret_corpus.py) holds real-looking notes without a secret (code
blocks in five languages, GitHub Actions, GitLab CI, Kubernetes, Terraform, prose about
secrets, HTML and markup) and a secret of every kind the detector covers planted in prose, a
code block, CI YAML, JSON and shell, plus every disguise docs/security.md promises to undo.
The floors: every planted secret found at its line, no report on a negative note, both by
the memory tool's detector and by the `secret` problem of check (with either prefilter).

Before: `id-token: write` over `attestations: write` gave 20 identical problems (the report
loop asked for hits from line 2 on and got the line-1 hit of the pair join each time), and
`const secret = app.secretStorage.getSecret(…)`, `api_key = settings.API_KEY`, `token:
tokenFromEnv` were secrets; `DB_PASSWORD="…"` was not (no `\\b` inside a name), nor a token
split over three lines, around an HTML comment or tag, in spaced letters, across the
frontmatter's fence or inside markdown emphasis.
"""

from __future__ import annotations

import pytest

from brain.layouts import secrets as secrets_module
from brain.layouts.secrets import MAX_SECRETS_PER_FILE, secret_problems
from brain.parse.native import native
from brain.parse.secrets.scan import find_secret, find_secrets
from tests.tool.secret_corpus import NEGATIVES, PLANTED, TOKEN, Planted, false_positives, planted_found


def _detector_lines(text: str) -> list[int]:
    return [hit.line for hit in find_secrets(text)]


def _problem_lines(text: str) -> list[int]:
    return [problem.line or 0 for problem in secret_problems("memory/shared/x.md", text)]


@pytest.fixture(params=["python", *(["native"] if native is not None else [])])
def prefilter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(secrets_module, "native", None)
    return str(request.param)


@pytest.mark.parametrize("planted", PLANTED, ids=lambda p: p.name)
def test_each_planted_secret_is_found_once_at_its_line(planted: Planted, prefilter: str) -> None:
    assert _detector_lines(planted.text) == [planted.line]
    assert _problem_lines(planted.text) == [planted.line]


@pytest.mark.parametrize("name", sorted(NEGATIVES))
def test_no_ordinary_note_is_a_secret(name: str, prefilter: str) -> None:
    assert _detector_lines(NEGATIVES[name]) == []
    assert _problem_lines(NEGATIVES[name]) == []


def test_the_floors_recall_one_and_no_false_positive() -> None:
    found, missed = planted_found(_problem_lines)
    assert missed == []
    assert found == len(PLANTED) >= 120
    assert false_positives(_problem_lines) == []
    assert len(NEGATIVES) >= 12


def test_a_yaml_permission_block_is_no_secret_and_no_flood() -> None:
    text = "id-token: write\nattestations: write\n"
    assert secret_problems("workflows/release.yml", text) == []
    assert find_secret(text) is None


@pytest.mark.parametrize("line", [
    'const secret = app.secretStorage.getSecret("brain.apiKey");',
    "api_key = settings.API_KEY",
    "const apiKey = process.env.OPENAI_API_KEY!;",
    'password = os.environ["DB_PASSWORD"]',
    "token: tokenFromEnv,",
    "let token = std::env::var(name)?;",
    "$token = $request->bearerToken();",
    "access_token = response.json()",
    "permissions:\n  id-token: write\n  attestations: write\n  contents: read",
])
def test_code_that_fetches_a_secret_is_not_one(line: str) -> None:
    assert find_secret(line) is None


@pytest.mark.parametrize("line", [
    "password: hunter22",
    "password = Zq8xW2pL9v",
    'DB_PASSWORD="Zq8xW2pL9vK3mR7t"',
    "openai-api-key: Zq8xW2pL9vK3mR7t",
    "token = config.Zq8x.W2pL9v",
])
def test_values_that_read_as_data_stay_secrets(line: str) -> None:
    assert find_secret(line) is not None


def test_each_problem_once_at_its_own_position() -> None:
    text = f"intro\nfirst {TOKEN} and\nplain\n  key: {TOKEN[:20]}\n{TOKEN[20:]}\nend {TOKEN}\n"
    found = secret_problems("memory/shared/x.md", text)
    assert [(p.line, p.column) for p in found] == [(2, 7), (4, 8), (6, 5)]
    lines = text.split("\n")
    for problem in found:
        assert problem.line is not None
        assert problem.column is not None
        assert problem.length
        assert lines[problem.line - 1][problem.column - 1 :].startswith("ghp_")
        assert TOKEN not in problem.message + (problem.fix or "")


def test_many_secrets_are_capped_each_on_its_own_line() -> None:
    text = "".join(f"k{i}: {TOKEN}\n" for i in range(MAX_SECRETS_PER_FILE + 5))
    found = secret_problems("memory/shared/x.md", text)
    assert [p.line for p in found] == list(range(1, MAX_SECRETS_PER_FILE + 1))


def test_a_hit_is_asked_for_by_the_lines_it_spans_only() -> None:
    split = f"note\n{TOKEN[:14]}\n{TOKEN[14:28]}\n{TOKEN[28:]}\nmore words\nlast"
    for changed in (2, 3, 4):  # an edit of any piece completes the secret
        hit = find_secret(split, range(changed, changed + 1))
        assert hit is not None
        assert hit.line == 2
    assert find_secret(split, range(5, 7)) is None  # the word glued after it is not part of it
    assert find_secret(split, range(1, 2)) is None
    assert find_secrets(split) == find_secrets(split, range(1, 7))
