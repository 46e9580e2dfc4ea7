"""The budgets of brain.parse.safeyaml and brain.parse.safejson, and the linear key-line count.

Pure tables."""

from __future__ import annotations

import pytest
import yaml

from brain.parse import safejson
from brain.parse.frontmatter import MAX_FRONTMATTER_BYTES, costly_frontmatter, key_lines
from brain.parse.safeyaml import MAX_ALIASES, MAX_DEPTH, MAX_VALUES, YAMLBudgetError, safe_load


def laughs(levels: int, width: int = 9) -> str:
    lines = ["a0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 1\nb: [x, y]\n", {"a": 1, "b": ["x", "y"]}),
        ("base: &b {k: 1}\nother:\n  <<: *b\n  j: 2\n", {"base": {"k": 1}, "other": {"k": 1, "j": 2}}),
        ("a: &x [1, 2]\nb: *x\nc: *x\n", {"a": [1, 2], "b": [1, 2], "c": [1, 2]}),
        (laughs(3), yaml.safe_load(laughs(3))),  # 729 values: aliases within budget are fine
        ("v: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1), yaml.safe_load("v: " + "[" * 63 + "]" * 63)),
    ],
)
def test_within_budget_loads_like_safe_load(text: str, expected: object) -> None:
    assert safe_load(text) == expected


@pytest.mark.parametrize(
    ("text", "words", "line"),
    [
        (laughs(9), "aliases are expanded", 5),  # 9**9 values from 350 bytes; over at a5
        ("a: &a [1]\n" + "".join(f"k{i}: *a\n" for i in range(MAX_ALIASES + 1)), "aliases", MAX_ALIASES + 1),
        ("v: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n", "nested", 0),
        ("v: " + "[" * 5000 + "]" * 5000 + "\n", "nested", 0),
        ("[" + ", ".join(["1"] * (MAX_VALUES + 1)) + "]", "values", 0),
    ],
)
def test_over_budget_is_refused_with_a_line(text: str, words: str, line: int) -> None:
    with pytest.raises(YAMLBudgetError) as caught:
        safe_load(text)
    assert words in caught.value.problem
    assert caught.value.problem_mark is not None
    assert caught.value.problem_mark.line == line
    assert caught.value.fix


def test_size_budget() -> None:
    with pytest.raises(YAMLBudgetError, match="over the limit"):
        safe_load("a: " + "x" * 100 + "\n", max_bytes=50)


def test_a_bomb_in_frontmatter_is_one_problem_with_line_and_fix() -> None:
    note = "---\ndescription: d\n" + laughs(9) + "---\nbody\n"
    problem = costly_frontmatter(note, "memory/shared/lol.md")
    assert problem is not None
    assert problem.code == "invalid-frontmatter"
    assert problem.line == 8
    assert problem.fix is not None
    assert "alias" in problem.message
    assert costly_frontmatter("---\ndescription: d\n---\n") is None
    big = "---\n" + "".join(f"k{i}: {i}\n" for i in range(MAX_FRONTMATTER_BYTES // 8)) + "---\n"
    assert costly_frontmatter(big) is not None


def test_key_lines() -> None:
    assert key_lines("a: 1\nb:\n  - x\n\n'c': 2\n") == {"a": 2, "b": 3, "c": 6}


@pytest.mark.parametrize(
    ("text", "depth", "line"),
    [
        ("{}", 1, 1),
        ('{"a": "[[[[[[", "b": [1, {"c": "]]]"}]}', 3, 1),
        ('{"a": "\\"[[[["}', 1, 1),
        ("[1,\n[2,\n[3]]]", 3, 3),
        ("", 0, 1),
    ],
)
def test_json_depth_ignores_strings(text: str, depth: int, line: int) -> None:
    assert safejson.depth_of(text) == (depth, line)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a":' * 70 + "1" + "}" * 70])
def test_deep_json_is_refused_not_a_recursion_error(text: str) -> None:
    with pytest.raises(safejson.JSONBudgetError, match="over the limit"):
        safejson.loads(text)
    assert safejson.loads('{"a": [1, 2]}') == {"a": [1, 2]}
