"""Unlinked mentions (brain.parse.mentions), as a table: what counts as a mention and what never does."""

from __future__ import annotations

import pytest

from brain.parse.mentions import Mention, MentionTarget, NameIndex, find_mentions

SOURCE = "memory:alice/notes"
ALPHA = MentionTarget("memory:alice/Project Alpha", "Project Alpha", 0)
BETA = MentionTarget("memory:shared/beta", "beta", 1)
GAMMA_OWN = MentionTarget("memory:alice/gamma", "gamma", 0)
GAMMA_SHARED = MentionTarget("memory:shared/gamma", "shared/gamma", 1)
DUP_A = MentionTarget("memory:shared/Deploy Guide", "Deploy Guide", 1)
DUP_B = MentionTarget("memory:shared/deploy-howto", "deploy-howto", 1)
SELF = MentionTarget(SOURCE, "notes", 0)
KEY = MentionTarget("memory:alice/apikey", "apikey", 0)


def index() -> NameIndex:
    # Bob's private notes are never in the index: the caller builds it from Alice's reach,
    # and the table below checks that a name only they hold is not a mention.
    return NameIndex([
        ("Project Alpha", ALPHA), ("alpha proj", ALPHA),  # a name and an alias
        ("beta", BETA),
        ("gamma", GAMMA_OWN), ("gamma", GAMMA_SHARED),
        ("deploy guide", DUP_A), ("deploy guide", DUP_B),  # the alias of one is the name of another
        ("notes", SELF),
        ("apikey", KEY),
        ("it", MentionTarget("memory:alice/it", "it", 0)),  # too short to be a mention
    ])


CASES: list[tuple[str, str, list[tuple[int, int, str, str | None]]]] = [
    # (case, body, [(line, column, text, replacement)])
    ("plain", "We shipped Project Alpha today.", [(1, 12, "Project Alpha", "[[Project Alpha]]")]),
    ("case-insensitive", "see project alpha", [(1, 5, "project alpha", "[[Project Alpha|project alpha]]")]),
    ("alias", "the alpha proj is late", [(1, 5, "alpha proj", "[[Project Alpha|alpha proj]]")]),
    ("spaces squashed", "Project  Alpha", [(1, 1, "Project  Alpha", "[[Project Alpha|Project  Alpha]]")]),
    ("shared note", "ask beta", [(1, 5, "beta", "[[beta]]")]),
    ("own scope wins", "gamma rays", [(1, 1, "gamma", "[[gamma]]")]),
    ("second line, code points", "x\nÉté: beta", [(2, 6, "beta", "[[beta]]")]),
    ("every occurrence", "beta and beta", [(1, 1, "beta", "[[beta]]"), (1, 10, "beta", "[[beta]]")]),
    ("heading", "# About beta", [(1, 9, "beta", "[[beta]]")]),
    ("emphasis", "*beta* rocks", [(1, 2, "beta", "[[beta]]")]),
    ("ambiguous", "read the deploy guide", [(1, 10, "deploy guide", None)]),
    ("partial word", "alphabet betamax betas", []),
    ("inside a word with underscore", "my_beta_thing", []),
    ("hyphen as a space", "project-alpha", [(1, 1, "project-alpha", "[[Project Alpha|project-alpha]]")]),
    ("punctuation between words", "project, alpha", []),
    ("across lines", "Project\nAlpha", []),
    ("code span", "run `beta` now", []),
    ("fenced code", "```\nbeta\n```\n", []),
    ("tilde fence", "~~~\nbeta\n~~~\n", []),
    ("indented code", "text\n\n    beta here\n", []),
    ("wikilink", "see [[beta]]", []),
    ("wikilink label", "see [[other|beta]]", []),
    ("markdown link text", "see [beta](https://x.org)", []),
    ("markdown link url", "see [x](https://x.org/beta)", []),
    ("bare url", "https://example.org/beta/page", []),
    ("html", "<span title='beta'></span>", []),
    ("math", "$beta$ and $$\nbeta\n$$", []),
    ("the note itself", "these notes", []),
    ("too short", "it works", []),
    ("a private note of another agent", "bob-secret is Bob's", []),
]


@pytest.mark.parametrize(("case", "body", "expected"), CASES, ids=[c[0] for c in CASES])
def test_mentions_table(case: str, body: str, expected: list[tuple[int, int, str, str | None]]) -> None:
    found = find_mentions(body, 1, index(), source_id=SOURCE)
    assert [(m.line, m.column, m.text, m.replacement) for m in found] == expected, case


def test_ambiguous_names_both_candidates() -> None:
    [m] = find_mentions("deploy guide", 1, index(), source_id=SOURCE)
    assert m.target is None
    assert m.candidates == (DUP_A.id, DUP_B.id)


def test_already_linked_target_is_not_a_mention() -> None:
    body = "beta, then [[beta]] again"
    assert find_mentions(body, 1, index(), source_id=SOURCE, linked={BETA.id}) == []


def test_body_line_offsets_the_frontmatter() -> None:
    [m] = find_mentions("beta", 5, index(), source_id=SOURCE)
    assert m == Mention(5, 1, "beta", BETA.id, "beta")


def test_longest_name_wins() -> None:
    idx = NameIndex([("project", MentionTarget("memory:a/project", "project", 0)), ("Project Alpha", ALPHA)])
    found = find_mentions("Project Alpha and project", 1, idx, source_id=SOURCE)
    expected = [("Project Alpha", ALPHA.id), ("project", "memory:a/project")]
    assert [(m.text, m.target) for m in found] == expected


def test_many_names_one_pass() -> None:
    # 10,000 names: the lookup is by first word, so the body is read once.
    targets = [
        (f"topic {i}", MentionTarget(f"memory:shared/topic {i}", f"topic {i}", 1)) for i in range(10_000)
    ]
    found = find_mentions("about topic 9999 and topic 3", 1, NameIndex(targets), source_id=SOURCE)
    assert [m.target for m in found] == ["memory:shared/topic 9999", "memory:shared/topic 3"]
