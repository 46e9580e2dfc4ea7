"""Code actions for brain's problems, as edits the user accepts."""

from __future__ import annotations

import pytest
from lsprotocol import types

from brain.lsp.edits.workspace_edit import TextChange, workspace_edit
from brain.lsp.features.actions import Action, actions_for

from .conftest import BrainFactory, context, document

NOTE = "memory/bot/note.md"


def actions(
    make_brain: BrainFactory, text: str, lines: tuple[int, int] = (0, 99), **features: bool
) -> list[Action]:
    brain = make_brain({NOTE: text})
    doc = document(brain, NOTE)
    return actions_for(context(brain, **features), doc, *lines, brain.problems([NOTE]))


def titles(found: list[Action]) -> list[str]:
    return [a.title for a in found]


def test_create_missing_note_in_the_links_scope(make_brain: BrainFactory) -> None:
    found = actions(make_brain, "---\ntype: user\n---\nsee [[new-idea#Plan|x]]\n")
    assert titles(found) == ["Create memory/bot/new-idea.md", "Create memory/shared/new-idea.md"]
    preferred = found[0]
    assert preferred.preferred
    assert preferred.problem is not None
    assert preferred.problem.code == "broken-link"
    assert preferred.changes.creates == [
        ("memory/bot/new-idea.md", "---\ndescription: \ntype: \n---\n\n# Plan\n")
    ]


@pytest.mark.parametrize(
    ("link", "created"),
    [
        ("[[shared/new]]", ["Create memory/shared/new.md"]),
        ("[[other/new.md]]", ["Create memory/other/new.md"]),
        ("[[memory:new]]", ["Create memory/bot/new.md", "Create memory/shared/new.md"]),
        ("[[workflow:new]]", []),  # not a memory
    ],
)
def test_create_follows_the_link_form(make_brain: BrainFactory, link: str, created: list[str]) -> None:
    found = actions(make_brain, f"---\ntype: user\n---\n{link}\n")
    assert [t for t in titles(found) if t.startswith("Create")] == created


def test_no_create_without_client_support(make_brain: BrainFactory) -> None:
    found = actions(make_brain, "---\ntype: user\n---\n[[new]]\n", create_files=False)
    assert not [t for t in titles(found) if t.startswith("Create")]


def test_close_names_for_a_misspelled_link(make_brain: BrainFactory) -> None:
    found = actions(make_brain, "---\ntype: user\n---\nsee [[gama|g]]\n")
    assert "Change to [[gamma]]" in titles(found)
    change = next(a for a in found if a.title == "Change to [[gamma]]")
    assert change.changes.edits == [TextChange(NOTE, 3, 4, 14, "[[gamma|g]]")]


def test_explicit_link_for_each_candidate(make_brain: BrainFactory) -> None:
    brain = make_brain({
        NOTE: "---\ntype: user\n---\n[[standup#Top]]\n",
        "work-items/standup.md": "x\n",
    })
    found = actions_for(context(brain), document(brain, NOTE), 0, 9, brain.problems([NOTE]))
    assert titles(found) == ["Link to chat:standup", "Link to work-item:standup"]
    assert found[1].changes.edits == [TextChange(NOTE, 3, 0, 15, "[[work-item:standup#Top]]")]


def test_invalid_type_offers_the_four_types(make_brain: BrainFactory) -> None:
    found = actions(make_brain, "---\ndescription: d\ntype: Users  # old\n---\nbody\n")
    assert titles(found) == [f"Set type to {t}" for t in ("user", "feedback", "project", "reference")]
    assert [a.preferred for a in found] == [False, False, False, False]  # `users` is no type's case variant
    assert found[2].changes.edits == [TextChange(NOTE, 2, 6, 11, "project")]
    hinted = actions(make_brain, "---\ntype: Feedback\n---\nbody\n")
    assert [a.title for a in hinted if a.preferred] == ["Set type to feedback"]


def test_add_frontmatter_to_a_note_without_one(make_brain: BrainFactory) -> None:
    found = actions(make_brain, "\n# Deploy: the checklist\n\nsteps\n", lines=(1, 1))
    assert titles(found) == ["Add frontmatter (description, type)"]
    (edit,) = found[0].changes.edits
    assert edit.new_text == "---\ndescription: 'Deploy: the checklist'\ntype: \n---\n"
    assert actions(make_brain, "\n# Deploy\n\nsteps\n", lines=(3, 3)) == []  # only near the top
    assert actions(make_brain, "---\ntype: user\n---\nbody\n", lines=(0, 0)) == []


def test_actions_only_for_the_requested_lines(make_brain: BrainFactory) -> None:
    text = "---\ntype: user\n---\n[[nowhere]]\n\n[[gama]]\n"
    assert titles(actions(make_brain, text, lines=(5, 5))) == ["Create memory/bot/gama.md",
                                                               "Create memory/shared/gama.md",
                                                               "Change to [[gamma]]"]


def test_create_becomes_create_file_and_insert(make_brain: BrainFactory) -> None:
    brain = make_brain({NOTE: "---\ntype: user\n---\n[[new]]\n"})
    (action, *_) = actions_for(context(brain), document(brain, NOTE), 0, 9, brain.problems([NOTE]))
    edit = workspace_edit(context(brain), action.changes, lambda rel: None)
    assert edit.document_changes is not None
    create, insert = edit.document_changes
    assert isinstance(create, types.CreateFile)
    assert create.uri.endswith("memory/bot/new.md")
    assert isinstance(insert, types.TextDocumentEdit)
    assert insert.text_document.version is None
    assert not (brain.root / "memory/bot/new.md").exists()  # the server never writes


def test_clients_without_document_changes_get_plain_changes(make_brain: BrainFactory) -> None:
    brain = make_brain({NOTE: "---\ntype: Users\n---\n"})
    action = actions_for(context(brain), document(brain, NOTE), 0, 9, brain.problems([NOTE]))[0]
    edit = workspace_edit(context(brain, document_changes=False), action.changes, lambda rel: 3)
    assert edit.document_changes is None
    assert edit.changes is not None
    assert list(edit.changes) == [(brain.root / NOTE).as_uri()]


@pytest.mark.parametrize(("text", "title", "new_text", "span"), [
    ("x [[|see this]] y", "Replace `[[|see this]]` by its label `see this`", "see this", (2, 15)),
    ("| [[\\|cell]] |", "Replace `[[\\|cell]]` by its label `cell`", "cell", (2, 12)),
    ("x [[#]] y", "Delete the empty link `[[#]]`", "", (2, 7)),
    ("😀 [[]]", "Delete the empty link `[[]]`", "", (2, 6)),
])
def test_empty_link_quick_fix(
    make_brain: BrainFactory, text: str, title: str, new_text: str, span: tuple[int, int]
) -> None:
    (found,) = actions(make_brain, f"---\ntype: user\n---\n{text}\n")
    assert (found.title, found.kind, found.preferred) == (title, types.CodeActionKind.QuickFix, True)
    assert found.problem is not None
    assert found.problem.code == "empty-link"
    assert found.changes.edits == [TextChange(NOTE, 3, *span, new_text)]
