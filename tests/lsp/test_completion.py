"""Completion inside `[[`, after `[[name#`, and in the frontmatter, over a real graph."""

from __future__ import annotations

import pytest
from lsprotocol import types

from brain.lsp.capabilities import ClientFeatures
from brain.lsp.features.catalog import Catalog
from brain.lsp.features.completion import complete, match_rank
from brain.lsp.features.cursor import typing_at
from brain.lsp.features.graph import Lookup, identity_of, probe
from brain.lsp.features.positions import Encoding, LineIndex
from brain.model import Anchors, LinkStatus
from brain.parse.note import parse_note
from brain.service.brain import Brain

from .conftest import NOW, BrainFactory

FEATURES = ClientFeatures(markdown=True, label_details=True)


def run(
    brain: Brain, text: str, rel: str = "memory/bot/alpha.md",
    features: ClientFeatures = FEATURES,
) -> types.CompletionList | None:
    before, after = text.split("¦")
    lines = (before + after).split("\n")
    line, column = before.count("\n"), len(before.split("\n")[-1])
    typing = typing_at(lines, line, column)
    assert typing is not None
    source = identity_of(rel)
    assert source is not None
    index = LineIndex(lines, features.encoding)
    note = parse_note(before + after)
    own = Anchors(note.headings, note.blocks)
    catalog = Catalog.of(brain.store)
    return complete(typing, source, brain.store, catalog, index, column, features, own, NOW)


def labels(result: types.CompletionList | None) -> list[str]:
    assert result is not None
    return [item.label for item in result.items]


def new_text(item: types.CompletionItem) -> str:
    assert item.text_edit is not None
    return item.text_edit.new_text


def test_targets_in_resolution_order(make_brain: BrainFactory) -> None:
    result = run(make_brain(), "see [[¦", rel="memory/bot/new-note.md")
    assert labels(result) == ["alpha", "beta", "gamma", "nightly-release", "standup", "fix-login"]
    assert result is not None
    assert result.is_incomplete is False


@pytest.mark.parametrize("typed", ["", "al", "alp", "a", "bot/al"])
def test_the_note_being_edited_is_not_offered(make_brain: BrainFactory, typed: str) -> None:
    brain = make_brain()
    assert "alpha" not in labels(run(brain, f"see [[{typed}¦"))
    assert "bot/alpha" not in labels(run(brain, f"see [[{typed}¦"))
    # ...but it is, from any other note
    others = labels(run(brain, f"see [[{typed}¦", rel="memory/bot/beta.md"))
    assert "alpha" in others or "bot/alpha" in others


def test_each_item_shows_kind_type_and_description(make_brain: BrainFactory) -> None:
    result = run(make_brain(), "see [[¦")
    assert result is not None
    by_label = {item.label: item for item in result.items}
    gamma = by_label["gamma"]
    assert gamma.detail == "memory · shared · reference"
    assert gamma.kind is types.CompletionItemKind.File
    assert gamma.label_details is not None
    assert gamma.label_details.description == "Gamma, shared"
    assert isinstance(gamma.documentation, types.MarkupContent)
    assert "Gamma, shared" in gamma.documentation.value
    assert "3 days ago" in gamma.documentation.value
    assert "`memory/shared/gamma.md`" in gamma.documentation.value
    assert by_label["nightly-release"].detail == "workflow · Nightly release"
    assert by_label["fix-login"].detail == "work item · Fix the login page"
    assert by_label["standup"].detail == "chat · Daily standup"


def test_plain_text_clients_get_no_markdown_and_no_label_details(make_brain: BrainFactory) -> None:
    result = run(make_brain(), "see [[¦", features=ClientFeatures())
    assert result is not None
    item = result.items[0]
    assert isinstance(item.documentation, str)
    assert "**" not in item.documentation
    assert item.label_details is None


@pytest.mark.parametrize(
    ("extra", "label", "inserted"),
    [
        # the agent has its own `gamma`: a bare name would reach it, so the shared one is qualified
        ({"memory/bot/gamma.md": "mine\n"}, "shared/gamma", "shared/gamma]]"),
        # a memory named like the workflow shadows it: the workflow needs its prefix
        (
            {"memory/shared/nightly-release.md": "x\n"},
            "workflow:nightly-release",
            "workflow:nightly-release]]",
        ),
        # a chat and a work item with one id: bare would be ambiguous
        ({"work-items/standup.md": "w\n"}, "chat:standup", "chat:standup]]"),
    ],
)
def test_insert_text_names_exactly_the_item(
    make_brain: BrainFactory, extra: dict[str, str], label: str, inserted: str
) -> None:
    result = run(make_brain(extra), "see [[¦")
    assert label in labels(result)
    item = next(i for i in result.items if i.label == label)  # type: ignore[union-attr]
    assert new_text(item) == inserted


def test_every_inserted_target_resolves_to_its_item(make_brain: BrainFactory) -> None:
    brain = make_brain({
        "memory/bot/gamma.md": "mine\n",
        "memory/shared/nightly-release.md": "x\n",
        "work-items/standup.md": "w\n",
        "memory/other/alpha.md": "not offered: another agent's note\n",
    })
    result = run(brain, "see [[¦")
    assert result is not None
    source = identity_of("memory/bot/alpha.md")
    assert source is not None
    lookup = Lookup(brain.store)
    seen = set()
    for item in result.items:
        resolution = lookup.resolve(probe(new_text(item).removesuffix("]]")), source)
        assert resolution.status is LinkStatus.RESOLVED, item.label
        seen.add(resolution.target_id)
    assert len(seen) == len(result.items)
    assert "memory:other/alpha" not in seen


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("shared/¦", ["shared/gamma"]),
        ("workflow:¦", ["workflow:nightly-release"]),
        ("Chat: st¦", ["Chat:standup"]),
        ("agent:¦", ["agent:bot"]),
        ("gam¦", ["gamma"]),
        ("bt¦", ["beta"]),  # a subsequence still matches
        ("zzz¦", []),
    ],
)
def test_typed_prefixes_narrow_the_list(make_brain: BrainFactory, typed: str, expected: list[str]) -> None:
    result = run(make_brain(), "see [[" + typed)
    assert labels(result) == expected
    if typed.rstrip("¦").split(":")[-1].split("/")[-1]:
        assert result is not None
        assert result.is_incomplete


def test_another_agents_scope_is_offered_when_typed(make_brain: BrainFactory) -> None:
    brain = make_brain({"memory/other/notes.md": "x\n"})
    assert labels(run(brain, "[[other/¦")) == ["other/notes"]
    assert "notes" not in labels(run(brain, "[[¦"))


def test_closing_brackets_are_added_only_when_missing(make_brain: BrainFactory) -> None:
    brain = make_brain()
    open_ = run(brain, "see [[ga¦ and more")
    closed = run(brain, "see [[ga¦]] and more")
    assert new_text(open_.items[0]) == "gamma]]"  # type: ignore[union-attr]
    assert new_text(closed.items[0]) == "gamma"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("encoding", "start", "end"),
    [("utf-16", 6, 8), ("utf-8", 10, 12), ("utf-32", 5, 7)],
)
def test_edit_range_in_the_negotiated_encoding(
    make_brain: BrainFactory, encoding: Encoding, start: int, end: int
) -> None:
    # `😀漢 [[ga`: the target starts after 5 code points = 6 UTF-16 units = 10 bytes
    result = run(make_brain(), "😀漢 [[ga¦", features=ClientFeatures(encoding=encoding))
    assert result is not None
    edit = result.items[0].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.character, edit.range.end.character) == (start, end)


def test_insert_replace_edit_when_the_client_supports_it(make_brain: BrainFactory) -> None:
    result = run(make_brain(), "[[ga¦mxx]]", features=ClientFeatures(insert_replace=True))
    assert result is not None
    edit = result.items[0].text_edit
    assert isinstance(edit, types.InsertReplaceEdit)
    assert (edit.insert.end.character, edit.replace.end.character) == (4, 7)


def test_headings_of_the_target(make_brain: BrainFactory) -> None:
    brain = make_brain()
    result = run(brain, "see [[gamma#¦")
    assert labels(result) == ["Gamma", "Usage"]
    assert result is not None
    assert new_text(result.items[1]) == "Usage]]"
    assert result.items[1].detail == "## heading of shared/gamma (line 8)"
    assert labels(run(brain, "see [[shared/gamma#us¦]]")) == ["Usage"]
    assert run(brain, "see [[missing#¦") is None


def test_headings_of_this_note(make_brain: BrainFactory) -> None:
    assert labels(run(make_brain(), "# One\n\n## Two\n\n[[#¦")) == ["One", "Two"]


def test_frontmatter_keys_not_yet_present(make_brain: BrainFactory) -> None:
    brain = make_brain()
    assert labels(run(brain, "---\n¦\n---\n")) == ["description", "type"]
    result = run(brain, "---\ntype: user\nd¦\n---\n")
    assert labels(result) == ["description"]
    assert result is not None
    assert new_text(result.items[0]) == "description: "


def test_type_values(make_brain: BrainFactory) -> None:
    result = run(make_brain(), "---\ntype: fe¦\n---\n")
    assert labels(result) == ["user", "feedback", "project", "reference"]
    assert result is not None
    edit = result.items[1].text_edit
    assert isinstance(edit, types.TextEdit)
    assert (edit.range.start.character, edit.range.end.character, edit.new_text) == (6, 8, "feedback")


@pytest.mark.parametrize(
    ("name", "typed", "rank"),
    [
        ("gamma", "", 0),
        ("gamma", "gam", 0),
        ("release-notes", "notes", 1),
        ("releasenotes", "notes", 2),
        ("release-notes", "rlsn", 3),
        ("gamma", "x", None),
    ],
)
def test_match_rank(name: str, typed: str, rank: int | None) -> None:
    assert match_rank(name, typed) == rank


def test_empty_graph_gives_an_empty_list(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    (tmp_path / "memory" / "bot").mkdir(parents=True)
    brain = Brain(tmp_path)
    brain.sync()
    assert labels(run(brain, "[[¦")) == []


def test_documentation_waits_for_resolve_when_the_client_resolves(make_brain: BrainFactory) -> None:
    from brain.lsp.features.completion import resolve_item

    brain = make_brain()
    features = ClientFeatures(markdown=True, resolve_documentation=True)
    before, lines = "see [[", ["see [["]
    typing = typing_at(lines, 0, len(before))
    source = identity_of("memory/bot/alpha.md")
    assert typing is not None
    assert source is not None
    result = complete(
        typing, source, brain.store, Catalog.of(brain.store), LineIndex(lines, "utf-16"), len(before),
        features, (), NOW, resolve_uri="file:///doc.md",
    )
    assert result is not None
    gamma = next(item for item in result.items if item.label == "gamma")
    assert gamma.documentation is None
    assert gamma.data == {"uri": "file:///doc.md", "id": "memory:shared/gamma"}
    resolved = resolve_item(gamma, brain.store, features, NOW)
    assert isinstance(resolved.documentation, types.MarkupContent)
    assert resolved.documentation.value.startswith("**gamma** · memory · shared · reference · 3 days ago")
