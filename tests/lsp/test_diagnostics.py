"""Problems -> diagnostics at the exact range, in every encoding; problems filtered by path."""

from __future__ import annotations

import pytest
from lsprotocol import types

from brain.lsp.features.diagnostics import plain_text, to_diagnostic
from brain.lsp.features.positions import Encoding, LineIndex
from brain.model import Problem, Severity

from .conftest import BrainFactory

LINK = Problem("broken-link", Severity.ERROR, "p", "m", line=4, column=8, length=11)
TEXT = "---\ntype: Users\n---\n😀 é 漢 [[missing]] x\n"


def rng(a: int, b: int, c: int, d: int) -> types.Range:
    return types.Range(types.Position(a, b), types.Position(c, d))


@pytest.mark.parametrize(
    ("problem", "encoding", "expected"),
    [
        # the link starts after `😀 é 漢 ` (6 code points: emoji 2 units, é is e + combining mark)
        (LINK, "utf-16", rng(3, 8, 3, 19)),
        (LINK, "utf-8", rng(3, 13, 3, 24)),
        (LINK, "utf-32", rng(3, 7, 3, 18)),
        (Problem("invalid-frontmatter", Severity.ERROR, "p", "m", line=2, column=1, length=4), "utf-16",
         rng(1, 0, 1, 4)),
        (Problem("invalid-frontmatter", Severity.ERROR, "p", "m", line=2), "utf-16", rng(1, 0, 1, 11)),
        (Problem("not-markdown", Severity.WARNING, "p", "m"), "utf-16", rng(0, 0, 0, 0)),
    ],
)
def test_ranges(problem: Problem, encoding: Encoding, expected: types.Range) -> None:
    text = TEXT.replace("é", "e\u0301")
    assert to_diagnostic(problem, LineIndex.of(text, encoding)).range == expected


def test_diagnostic_fields() -> None:
    problem = Problem(
        "ambiguous-link", Severity.ERROR, "p", "`[[x]]` could mean any of: a, b", line=1, column=1,
        length=5, target="x", candidates=("memory:shared/x", "workflow:x"), fix="name one",
    )
    diagnostic = to_diagnostic(problem, LineIndex.of("[[x]]", "utf-16"))
    assert diagnostic.code == "ambiguous-link"
    assert diagnostic.source == "brain"
    assert diagnostic.severity is types.DiagnosticSeverity.Error
    assert diagnostic.message == "[[x]] could mean any of: a, b\nfix: name one"
    assert diagnostic.data == {
        "code": "ambiguous-link", "target": "x", "candidates": ["memory:shared/x", "workflow:x"],
    }
    warning = to_diagnostic(Problem("memory-off", Severity.WARNING, "p", "m"), LineIndex.of("", "utf-16"))
    assert warning.severity is types.DiagnosticSeverity.Warning


def test_problems_by_path_are_the_full_list_filtered(make_brain: BrainFactory) -> None:
    brain = make_brain({
        "memory/bot/broken.md": "[[nowhere]] and [[alpha#Nope]]\n",
        "memory/bot/bad-type.md": "---\ntype: Users\n---\nx\n",
        "memory/bot/notes.txt": "not markdown\n",
        "memory/old-bot/left.md": "an agent without a definition\n",
    })
    everything = brain.problems()
    assert {p.code for p in everything} >= {
        "broken-link", "missing-anchor", "invalid-frontmatter", "not-markdown", "memory-off",
    }
    for paths in (
        ["memory/bot/broken.md"],
        ["memory/bot/broken.md", "memory/bot/bad-type.md"],
        ["memory/bot/notes.txt", "memory/old-bot"],
        ["memory/bot/alpha.md"],
        [],
    ):
        assert brain.problems(paths) == [p for p in everything if p.path in paths]
        assert brain.store.problems(paths) == [p for p in brain.store.problems() if p.path in paths]


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("`[[x]]` points to nothing: no note `x`", '[[x]] points to nothing: no note "x"'),
        ("type `Users` is not one of user, feedback", 'type "Users" is not one of user, feedback'),
        ('write `type: "a b"` instead', "write 'type: \"a b\"' instead"),
        ("add a line `---` after the last key", 'add a line "---" after the last key'),
        ("no code here", "no code here"),
        ("a lone ` backtick", "a lone ` backtick"),
    ],
)
def test_messages_are_plain_text(markdown: str, plain: str) -> None:
    assert plain_text(markdown) == plain
    problem = Problem("broken-link", Severity.ERROR, "p", markdown, fix="see `[[y]]`")
    assert to_diagnostic(problem, LineIndex.of("", "utf-16")).message == plain + "\nfix: see [[y]]"
