"""Anchors in the editor: completion after `#` and `#^`, definition, hover, block id rename."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from brain.lsp.capabilities import ClientFeatures
from brain.lsp.edits.block_rename import block_target, plan_block_rename
from brain.lsp.edits.rename import RenameRefused
from brain.lsp.features.catalog import Catalog
from brain.lsp.features.completion import complete
from brain.lsp.features.cursor import typing_at
from brain.lsp.features.graph import identity_of
from brain.lsp.features.hover import hover
from brain.lsp.features.navigation import definition
from brain.lsp.features.positions import LineIndex
from brain.model import Anchors
from brain.parse.note import parse_note
from brain.service.brain import Brain

from .conftest import NOW, WORKSPACE, BrainFactory, context, document, write_tree

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")
ALPHA = "memory/bot/alpha.md"
GAMMA = "memory/shared/gamma.md"
FILES = {
    **WORKSPACE,
    GAMMA: (
        "---\ndescription: Gamma, shared\ntype: reference\n---\n\n# Gamma\n\n## Usage\n\n"
        "Use it,\nwith care. ^use-it\n\n## Step 1: Install\n\n### Sub: `part`\n\n- item ^li\n"
    ),
    ALPHA: (
        "---\ndescription: Alpha note\ntype: project\n---\n\n# Alpha\n\n## Details\n\n"
        "See [[beta]] and [[shared/gamma#Usage|gamma usage]].\n"
        "Block [[shared/gamma#^use-it]] and [[shared/gamma#^USE-IT|again]], [[shared/gamma#^gone]].\n"
    ),
}
FEATURES = ClientFeatures(markdown=True, label_details=True)


def completions(brain: Brain, text: str) -> list[tuple[str, str]]:
    """(label, inserted text) of each item completed at `¦` in alpha."""
    before, after = text.split("¦")
    lines = (before + after).split("\n")
    line, column = before.count("\n"), len(before.split("\n")[-1])
    typing = typing_at(lines, line, column)
    assert typing is not None
    source = identity_of(ALPHA)
    assert source is not None
    note = parse_note(before + after)
    result = complete(
        typing, source, brain.store, Catalog.of(brain.store), LineIndex(lines, FEATURES.encoding), column,
        FEATURES, Anchors(note.headings, note.blocks), NOW,
    )
    assert result is not None
    out = []
    for item in result.items:
        assert item.text_edit is not None
        out.append((item.label, item.text_edit.new_text))
    return out


# (typed, [(label, inserted text)])
COMPLETION_TABLE = [
    ("[[shared/gamma#^¦", [("^use-it", "^use-it]]"), ("^li", "^li]]")]),
    ("[[shared/gamma#^l¦]]", [("^li", "^li")]),
    ("[[shared/gamma#step¦", [("Step 1: Install", "Step 1 Install]]")]),  # what Obsidian writes
    ("[[shared/gamma#Step 1 Install#¦", [("Sub: part", "Step 1 Install#Sub `part`]]")]),
    ("[[shared/gamma#Usage#¦", []),  # nothing inside Usage
    ("[[shared/gamma#Nope#¦", []),
    ("text ^own\n\n[[#^¦", [("^own", "^own]]")]),  # this note's own blocks, as typed
]


@pytest.mark.parametrize(("typed", "expected"), COMPLETION_TABLE)
def test_anchor_completion(make_brain: BrainFactory, typed: str, expected: list[tuple[str, str]]) -> None:
    assert completions(make_brain(base=FILES), typed) == expected


def test_definition_of_a_block_link_covers_the_block(make_brain: BrainFactory) -> None:
    brain = make_brain(base=FILES)
    found = definition(context(brain), document(brain, ALPHA), types.Position(10, 8))
    assert found is not None
    (location,) = found
    assert isinstance(location, types.LocationLink)
    assert location.target_uri.endswith(GAMMA)
    # "Use it,\nwith care. ^use-it": lines 9 and 10 (0-based), the whole paragraph
    assert location.target_range == types.Range(types.Position(9, 0), types.Position(11, 0))


def test_definition_of_a_heading_path_and_a_copied_heading(make_brain: BrainFactory) -> None:
    brain = make_brain(base=FILES)
    for text, line in [("[[shared/gamma#Step 1 Install#Sub `part`]]", 14), ("[[shared/gamma#sub part]]", 14)]:
        found = definition(context(brain), document(brain, ALPHA, text), types.Position(0, 3))
        assert found is not None
        assert found[0].target_range.start == types.Position(line, 0)  # type: ignore[union-attr]


def hover_value(brain: Brain, position: types.Position, text: str | None = None) -> str:
    result = hover(context(brain), document(brain, ALPHA, text), position)
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value


def test_hover_on_a_block_link_shows_the_block(make_brain: BrainFactory) -> None:
    text = hover_value(make_brain(base=FILES), types.Position(10, 8))
    assert "Use it,\nwith care." in text
    assert "^use-it" not in text
    assert "## Usage" not in text


def test_hover_on_a_missing_block_lists_the_blocks(make_brain: BrainFactory) -> None:
    text = hover_value(make_brain(base=FILES), types.Position(10, 70))
    assert "No block `^gone` here. Blocks: `^use-it`, `^li`." in text


def test_hover_on_an_own_block_link(make_brain: BrainFactory) -> None:
    text = hover_value(make_brain(base=FILES), types.Position(2, 3), "Mine ^m1\n\n[[#^m1]]\n")
    assert text.startswith("**block** `^m1` of this note")
    assert "Mine" in text


def test_block_rename_plan_rewrites_the_id_and_its_links(make_brain: BrainFactory) -> None:
    brain = make_brain(base=FILES)
    target = block_target(context(brain), document(brain, ALPHA), types.Position(10, 25))
    assert target is not None
    assert (target.memory.path, target.block.id) == (GAMMA, "use-it")
    assert target.range == types.Range(types.Position(10, 22), types.Position(10, 28))
    changes = plan_block_rename(brain.store, target.memory, target.block, "^careful")
    assert sorted((c.path, c.line, c.start, c.end, c.new_text) for c in changes.edits) == [
        (ALPHA, 10, 22, 28, "careful"),
        (ALPHA, 10, 51, 57, "careful"),  # `^USE-IT`: the same block, written in capitals
        (GAMMA, 10, 12, 18, "careful"),
    ]
    # the same plan from the `^use-it` in gamma itself
    own = block_target(context(brain), document(brain, GAMMA), types.Position(10, 14))
    assert own is not None
    assert own.block == target.block


@pytest.mark.parametrize(("new", "reason"), [
    ("has space", "cannot be a block id"),
    ("under_score", "cannot be a block id"),
    ("LI", "already has a block `^li`"),
])
def test_block_rename_refusals(make_brain: BrainFactory, new: str, reason: str) -> None:
    brain = make_brain(base=FILES)
    target = block_target(context(brain), document(brain, ALPHA), types.Position(10, 25))
    assert target is not None
    with pytest.raises(RenameRefused, match=re.escape(reason)):
        plan_block_rename(brain.store, target.memory, target.block, new)


# ------------------------------------------------------------------ over JSON-RPC


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    write_tree(tmp_path, FILES)
    return tmp_path


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "brain", "lsp"]),
    params=["visual-studio-code", "neovim"],
)
async def client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, workspace: Path
) -> AsyncIterator[None]:
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(request.param),
        workspace_folders=[types.WorkspaceFolder(workspace.as_uri(), workspace.name)],
    ))
    yield
    await lsp_client.shutdown_session()


async def test_rename_a_block_id_over_json_rpc(client: LanguageClient, workspace: Path) -> None:
    path = workspace / ALPHA
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri, "markdown", 1, path.read_text(encoding="utf-8"))
    ))
    at = types.TextDocumentIdentifier(uri)
    on_block = types.Position(10, 25)
    prepared = None
    for _ in range(200):  # the first request may come while the workspace is indexed
        try:
            params = types.PrepareRenameParams(at, on_block)
            prepared = await client.text_document_prepare_rename_async(params)
            break
        except JsonRpcException as exc:
            if "still indexing" not in str(exc):
                raise
            await asyncio.sleep(0.05)
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "use-it"
    edit = await client.text_document_rename_async(types.RenameParams(at, on_block, "careful"))
    assert edit is not None
    by_uri: dict[str, list[str]] = {}
    if edit.document_changes is not None:
        for change in edit.document_changes:
            assert isinstance(change, types.TextDocumentEdit)
            by_uri[change.text_document.uri] = sorted(e.new_text for e in change.edits)  # type: ignore[union-attr]
    else:
        assert edit.changes is not None
        by_uri = {u: sorted(e.new_text for e in edits) for u, edits in edit.changes.items()}
    assert by_uri == {uri: ["careful", "careful"], (workspace / GAMMA).as_uri(): ["careful"]}
    with pytest.raises(JsonRpcException, match="cannot be a block id"):
        await client.text_document_rename_async(types.RenameParams(at, on_block, "no spaces"))
