"""Hover, definition, references, document links and symbols over a real graph."""

from __future__ import annotations

from lsprotocol import types

from brain.lsp.features.hover import hover
from brain.lsp.features.navigation import (
    definition,
    document_links,
    document_symbols,
    references,
    workspace_symbols,
)

from .conftest import BrainFactory, context, document

ALPHA = "memory/bot/alpha.md"
# line 9 (0-based) of alpha.md: "See [[beta]] and [[shared/gamma#Usage|gamma usage]]."
LINE = 9


def pos(line: int, character: int) -> types.Position:
    return types.Position(line, character)


def hover_text(make_brain: BrainFactory, text: str | None, position: types.Position, **features: bool) -> str:
    brain = make_brain()
    result = hover(context(brain, **features), document(brain, ALPHA, text), position)
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value


def test_hover_on_a_memory_link(make_brain: BrainFactory) -> None:
    text = hover_text(make_brain, None, pos(LINE, 6))
    assert text.startswith("**memory** `bot/beta` · user · 3 days ago")
    assert "Beta note" in text
    assert "Back to [[alpha]]." in text
    assert text.endswith("`memory/bot/beta.md`")


def test_hover_on_an_anchored_link_shows_that_section(make_brain: BrainFactory) -> None:
    text = hover_text(make_brain, None, pos(LINE, 30))
    assert text.startswith("**memory** `shared/gamma` · reference")
    assert "## Usage\n\nUse it." in text
    assert "# Gamma\n" not in text


def test_hover_range_is_the_link(make_brain: BrainFactory) -> None:
    brain = make_brain()
    result = hover(context(brain), document(brain, ALPHA, "😀 [[beta]]"), pos(0, 5))
    assert result is not None
    assert result.range == types.Range(pos(0, 3), pos(0, 11))


def test_hover_on_entities_broken_and_ambiguous_links(make_brain: BrainFactory) -> None:
    assert hover_text(make_brain, "[[workflow:nightly-release]]", pos(0, 3)).startswith(
        "**workflow** `nightly-release` · 3 days ago\n\nNightly release"
    )
    assert "**missing note** `nowhere`" in hover_text(make_brain, "[[nowhere]]", pos(0, 3))
    assert "No heading `Nope` here. Headings: `Alpha`, `Details`." in hover_text(
        make_brain, "[[alpha#Nope]]", pos(0, 3)
    )
    brain = make_brain({"work-items/standup.md": "x\n"})
    result = hover(context(brain), document(brain, ALPHA, "[[standup]]"), pos(0, 3))
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    assert "could mean" in result.contents.value
    assert "`chat:standup`" in result.contents.value
    assert "`work-item:standup`" in result.contents.value


def test_hover_in_plain_text_and_off_links(make_brain: BrainFactory) -> None:
    brain = make_brain()
    plain = hover(context(brain, hover_markdown=False), document(brain, ALPHA), pos(LINE, 6))
    assert plain is not None
    assert isinstance(plain.contents, types.MarkupContent)
    assert plain.contents.kind is types.MarkupKind.PlainText
    assert "**" not in plain.contents.value
    assert hover(context(brain), document(brain, ALPHA), pos(LINE, 1)) is None


def test_hover_follows_unsaved_text(make_brain: BrainFactory) -> None:
    """The open buffer counts: a link typed a second ago already hovers."""
    assert "Gamma, shared" in hover_text(make_brain, "new [[gamma]]", pos(0, 7))


def test_definition_with_and_without_links_support(make_brain: BrainFactory) -> None:
    brain = make_brain()
    found = definition(context(brain), document(brain, ALPHA), pos(LINE, 30))
    assert found is not None
    (link,) = found
    assert isinstance(link, types.LocationLink)
    assert link.target_uri.endswith("memory/shared/gamma.md")
    assert link.target_range.start.line == 7  # the `## Usage` heading
    assert link.origin_selection_range == types.Range(pos(LINE, 17), pos(LINE, 51))
    plain = definition(context(brain, definition_links=False), document(brain, ALPHA), pos(LINE, 6))
    top = types.Range(pos(0, 0), pos(0, 0))
    assert plain == [types.Location((brain.root / "memory/bot/beta.md").as_uri(), top)]
    assert definition(context(brain), document(brain, ALPHA, "[[nowhere]]"), pos(0, 3)) is None
    chat = definition(context(brain), document(brain, ALPHA, "[[chat:standup]]"), pos(0, 3))
    assert chat is not None
    assert isinstance(chat[0], types.LocationLink)
    assert chat[0].target_uri.endswith("chats/standup.md")


def test_references_of_a_link_target_and_of_this_note(make_brain: BrainFactory) -> None:
    brain = make_brain({"memory/shared/more.md": "漢字 [[bot/alpha]] and [[gamma]]\n"})
    ctx = context(brain)
    of_gamma = references(ctx, document(brain, ALPHA), pos(LINE, 30), include_declaration=False)
    assert of_gamma is not None
    assert sorted((loc.uri.rsplit("/", 2)[-2:][1], loc.range.start.line, loc.range.start.character)
                  for loc in of_gamma) == [("alpha.md", LINE, 17), ("more.md", 0, 21)]
    of_alpha = references(ctx, document(brain, ALPHA), pos(0, 0), include_declaration=True)
    assert of_alpha is not None
    assert [(loc.uri.rsplit("/", 1)[-1], loc.range.start.character) for loc in of_alpha] == [
        ("alpha.md", 0), ("beta.md", 8), ("more.md", 3),
    ]


def test_references_of_a_broken_link_are_everyone_who_wants_it(make_brain: BrainFactory) -> None:
    brain = make_brain({"memory/bot/w1.md": "[[wanted]]\n", "memory/bot/w2.md": "x [[wanted]]\n"})
    found = references(context(brain), document(brain, "memory/bot/w1.md"), pos(0, 3), False)
    assert found is not None
    assert sorted(loc.uri.rsplit("/", 1)[-1] for loc in found) == ["w1.md", "w2.md"]


def test_document_links(make_brain: BrainFactory) -> None:
    brain = make_brain()
    links = document_links(context(brain, link_tooltips=True), document(brain, ALPHA))
    assert [(link.range.start.character, link.target.rsplit("/", 1)[-1]) for link in links] == [  # type: ignore[union-attr]
        (4, "beta.md"), (17, "gamma.md#L8"),
    ]
    assert links[0].tooltip == "memory · bot · user — Beta note"
    assert document_links(context(brain), document(brain, ALPHA))[0].tooltip is None


def test_document_symbols_nest_headings(make_brain: BrainFactory) -> None:
    brain = make_brain()
    text = "# Top\n\n## One\n\ntext\n\n### Deep\n\n## Two\n\n# Other\n"
    symbols = document_symbols(context(brain), document(brain, ALPHA, text))
    assert [s.name for s in symbols] == ["Top", "Other"]
    top = symbols[0]
    assert isinstance(top, types.DocumentSymbol)
    assert [c.name for c in top.children or []] == ["One", "Two"]
    assert top.range == types.Range(pos(0, 0), pos(9, 0))
    one = (top.children or [])[0]
    assert [c.name for c in one.children or []] == ["Deep"]
    flat = document_symbols(context(brain, hierarchical_symbols=False), document(brain, ALPHA, text))
    assert [s.name for s in flat] == ["Top", "One", "Deep", "Two", "Other"]
    assert isinstance(flat[0], types.SymbolInformation)


def test_workspace_symbols_by_name_and_description(make_brain: BrainFactory) -> None:
    brain = make_brain({"memory/bot/zeta.md": "---\ndescription: about gamma rays\n---\n"})
    found = workspace_symbols(context(brain), "gamma")
    assert [s.name for s in found] == ["gamma", "zeta"]
    assert found[0].container_name == "shared · Gamma, shared"
    assert len(workspace_symbols(context(brain), "")) == 4


def test_references_in_files_with_a_bom_and_crlf(make_brain: BrainFactory) -> None:
    brain = make_brain()
    (brain.root / "memory/bot/windows.md").write_bytes("\ufeff😀 [[gamma]]\r\nx [[gamma]]\r\n".encode())
    brain.sync()
    found = references(context(brain), document(brain, "memory/shared/gamma.md"), pos(0, 0), False)
    assert found is not None
    spots = sorted((loc.range.start.line, loc.range.start.character, loc.range.end.character)
                   for loc in found if loc.uri.endswith("windows.md"))
    assert spots == [(0, 3, 12), (1, 2, 11)]
