"""Answers before the first index is built: the names a folder walk finds (brain/lsp/startup/early.py).

Completion from the walk's names must offer the targets the index will offer, in the same
order and with the same inserted text; it may only say less about them (no description or
type), never something false. Hover says where a link lands when the names tell, and nothing
(never "missing note") when they do not.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest
from lsprotocol import types

from brain.lsp.capabilities import ClientFeatures
from brain.lsp.context import Document
from brain.lsp.features.catalog import Catalog
from brain.lsp.features.completion import complete, complete_early
from brain.lsp.features.cursor import typing_at
from brain.lsp.features.graph import identity_of
from brain.lsp.features.hover import early_hover
from brain.lsp.features.positions import LineIndex
from brain.lsp.startup.early import EarlyNames, walk_names, walk_parts
from brain.lsp.startup.packed import pack
from brain.model import Anchors
from brain.service.brain import Brain

from .conftest import NOW, BrainFactory

FEATURES = ClientFeatures(markdown=True, label_details=True, hover_markdown=True)
CLASHES = {  # the same names in several places: the inserted text must tell them apart
    "memory/shared/beta.md": "---\ndescription: A shared beta\ntype: reference\n---\n",
    "memory/bot/standup.md": "---\ndescription: Notes of the standup\ntype: project\n---\n",
    "memory/other/alpha.md": "---\ndescription: Another agent's alpha\ntype: user\n---\n",
    "workflows/fix-login.yaml": "title: Fix login (workflow)\nsteps: []\n",
    "agents/helper.md": "---\ndescription: A helper\nmemory: false\n---\n",
}


Walk = Callable[[Brain], EarlyNames]


def walked_here(brain: Brain) -> EarlyNames:
    return walk_names(brain.root, brain.layout)


def walked_by_the_child(brain: Brain) -> EarlyNames:
    """As the server gets them from the child that walked (brain/lsp/startup/prewalk.py): packed, through
    pickle, unpacked as asked."""
    packed = pickle.loads(pickle.dumps(pack(walk_parts(brain.root, brain.layout))))
    return packed.early(brain.root)  # type: ignore[no-any-return]


@pytest.fixture(params=[walked_here, walked_by_the_child], ids=["walked-here", "packed"])
def walk(request: pytest.FixtureRequest) -> Walk:
    return request.param  # type: ignore[no-any-return]


def ask(
    brain: Brain, text: str, early: EarlyNames | None, indexed: bool = False,
    rel: str = "memory/bot/new-note.md", features: ClientFeatures = FEATURES,
) -> types.CompletionList | None:
    """Completion as indexed (`indexed`), else before the index: from `early` (None: no walk yet)."""
    before, after = text.split("¦")
    lines = (before + after).split("\n")
    line, column = before.count("\n"), len(before.split("\n")[-1])
    typing = typing_at(lines, line, column)
    assert typing is not None
    source = identity_of(rel)
    assert source is not None
    index = LineIndex(lines, features.encoding)
    if indexed:
        catalog = Catalog.of(brain.store)
        return complete(typing, source, brain.store, catalog, index, column, features, Anchors(), NOW)
    return complete_early(typing, source, early, index, column, features, Anchors(), NOW)


def shown(result: types.CompletionList | None) -> list[tuple[str, str, str | None, object]]:
    assert result is not None
    out: list[tuple[str, str, str | None, object]] = []
    for item in result.items:
        assert item.text_edit is not None
        out.append((item.label, item.text_edit.new_text, item.sort_text, item.kind))
    return out


@pytest.mark.parametrize(
    "text",
    ["see [[¦", "see [[be¦", "see [[st¦", "see [[shared/¦", "see [[other/al¦", "see [[workflow:¦",
     "see [[chat:¦", "see [[agent:¦", "see [[fix¦]] later", "see [[a¦", "see [[xyz¦"],
)
def test_the_walk_offers_what_the_index_offers(make_brain: BrainFactory, walk: Walk, text: str) -> None:
    brain = make_brain(CLASHES)
    early = walk(brain)
    indexed = ask(brain, text, None, indexed=True)
    before = ask(brain, text, early)
    assert shown(before) == shown(indexed)
    assert before is not None
    assert before.is_incomplete  # asked again as the user types: the descriptions come then


def test_early_items_say_what_the_path_and_the_description_say(make_brain: BrainFactory, walk: Walk) -> None:
    brain = make_brain(CLASHES)
    early = walk(brain)
    result = ask(brain, "see [[¦", early)
    indexed = ask(brain, "see [[¦", None, indexed=True)
    assert result is not None
    assert indexed is not None
    items = {item.label: item for item in result.items}
    assert items["alpha"].detail == "memory · bot"  # no "no type": the type is not read yet
    # Each item's description (a note's, a chat's title) is read from its one file: the same
    # as once indexed.
    described = {i.label: i.label_details for i in indexed.items}
    assert len([d for d in described.values() if d is not None]) >= 8, described
    assert {label: items[label].label_details for label in described} == described
    assert items["workflow:fix-login"].label_details is not None
    assert items["workflow:fix-login"].label_details.description == "Fix login (workflow)"
    assert items["chat:standup"].detail == "chat"  # the title is in the file
    documentation = items["gamma"].documentation
    assert isinstance(documentation, types.MarkupContent)
    assert "memory/shared/gamma.md" in documentation.value
    agents = ask(brain, "see [[agent:¦", early)
    indexed_agents = ask(brain, "see [[agent:¦", None, indexed=True)
    assert agents is not None
    assert indexed_agents is not None
    assert {item.label: item.detail for item in agents.items} == {
        "agent:bot": "agent", "agent:helper": "agent", "agent:other": "agent",
    }
    assert [i.label_details for i in agents.items] == [i.label_details for i in indexed_agents.items]
    assert any(i.label_details is not None for i in agents.items)  # agents/helper.md says one


def test_before_the_walk_ends_the_list_is_empty_and_incomplete(make_brain: BrainFactory) -> None:
    result = ask(make_brain(), "see [[al¦", None)
    assert result == types.CompletionList(is_incomplete=True, items=[])


def test_keys_need_no_graph(make_brain: BrainFactory) -> None:
    brain = make_brain()
    result = ask(brain, "---\ndesc¦\n---\n", None, indexed=True)
    early = ask(brain, "---\ndesc¦\n---\n", None)
    assert result is not None
    assert early is not None
    assert [i.label for i in early.items] == [i.label for i in result.items]
    assert "description" in [i.label for i in early.items]


def test_another_notes_headings_wait_for_the_index(make_brain: BrainFactory, walk: Walk) -> None:
    brain = make_brain()
    early = walk(brain)
    result = ask(brain, "see [[shared/gamma#¦", early)
    assert result == types.CompletionList(is_incomplete=True, items=[])


def hover_at(brain: Brain, early: EarlyNames, text: str) -> types.Hover | None:
    before, after = text.split("¦")
    rel = "memory/bot/new-note.md"
    doc = Document((brain.root / rel).as_uri(), rel, before + after, 1)
    position = types.Position(before.count("\n"), len(before.split("\n")[-1]))
    return early_hover(early, doc, position, FEATURES)


def test_early_hover_says_where_a_link_lands(make_brain: BrainFactory, walk: Walk) -> None:
    brain = make_brain()
    early = walk(brain)
    found = hover_at(brain, early, "see [[gam¦ma]] now")
    assert found is not None
    assert isinstance(found.contents, types.MarkupContent)
    assert "**memory** `shared/gamma`" in found.contents.value
    assert "`memory/shared/gamma.md`" in found.contents.value
    assert "still indexing" in found.contents.value


@pytest.mark.parametrize("text", ["see [[nowhere¦]] now", "see [[gamma#no-such-hea¦ding]]"])
def test_early_hover_never_claims_a_link_is_broken(make_brain: BrainFactory, walk: Walk, text: str) -> None:
    brain = make_brain()
    early = walk(brain)
    found = hover_at(brain, early, text)
    if found is not None:  # the anchor is not read yet: where it lands, no word on the heading
        assert isinstance(found.contents, types.MarkupContent)
        assert "missing" not in found.contents.value.casefold()
        assert "no heading" not in found.contents.value.casefold()
    assert hover_at(brain, early, "see [[nowhere¦]] now") is None
