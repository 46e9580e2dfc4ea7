"""The editor is answered while a large workspace is still being indexed."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from bench.workload import generate

from .test_server import until

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")
NOTES = 3000


@pytest.fixture(scope="module")
def big_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big")
    generate(root, NOTES, agents=6, seed=7)
    return root


# One parse process, so indexing takes seconds (not the ~1 s of a parallel ingest) and the
# requests below are sure to arrive while it runs.
SERIAL = {**os.environ, "BRAIN_INGEST_WORKERS": "1"}


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "brain", "lsp"], server_env=SERIAL)
)
async def client(lsp_client: LanguageClient, big_workspace: Path) -> AsyncIterator[None]:
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(big_workspace.as_uri(), "big")],
        )
    )
    yield
    await lsp_client.shutdown_session()


def indexing_ended(client: LanguageClient) -> bool:
    reports = [r for rs in client.progress_reports.values() for r in rs]
    return any(isinstance(r, types.WorkDoneProgressEnd) for r in reports)


async def test_requests_are_answered_during_indexing(client: LanguageClient, big_workspace: Path) -> None:
    note = next(iter(sorted((big_workspace / "memory" / "shared").glob("*.md"))))
    uri = note.as_uri()
    text = note.read_text(encoding="utf-8") + "\nsee [[\n"
    last = len(text.split("\n")) - 2
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
    )
    ask = types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(last, 6))

    early = await client.text_document_completion_async(ask)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    answered_before_the_end = not indexing_ended(client)
    assert answered_before_the_end
    assert isinstance(early, types.CompletionList)
    assert early.is_incomplete  # the client asks again; by then the graph is there
    assert symbols  # headings need no graph

    await until(lambda: indexing_ended(client), timeout=120)
    reports = next(iter(client.progress_reports.values()))
    assert any(isinstance(r, types.WorkDoneProgressReport) for r in reports)
    await until(lambda: uri in client.diagnostics, timeout=30)  # published once the graph is built
    later = await client.text_document_completion_async(ask)
    assert isinstance(later, types.CompletionList)
    assert len(later.items) == 100  # capped; the user narrows by typing
    assert later.is_incomplete


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "brain", "lsp", "--no-cache"], server_env=SERIAL
    )
)
async def cold(lsp_client: LanguageClient, big_workspace: Path) -> AsyncIterator[None]:
    """A server that reads everything (no snapshot), one parse process: indexing takes seconds."""
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(big_workspace.as_uri(), "big")],
        )
    )
    yield
    await lsp_client.shutdown_session()


def targets(result: types.CompletionList | None) -> list[tuple[str, str | None, str]]:
    assert isinstance(result, types.CompletionList)
    out = []
    for item in result.items:
        assert item.text_edit is not None
        out.append((item.label, item.sort_text, item.text_edit.new_text))
    return out


@pytest.mark.parametrize("typed", ["", "re"])
async def test_completion_before_indexing_ends_offers_what_the_index_offers(
    cold: LanguageClient, big_workspace: Path, typed: str
) -> None:
    client = cold
    agent = sorted(p for p in (big_workspace / "memory").iterdir() if p.name != "shared")[0]
    notes = sorted(agent.glob("*.md"))
    note, last = notes[0], notes[-1]  # `last` is read near the end of indexing
    uri = note.as_uri()
    text = note.read_text(encoding="utf-8") + f"\nsee [[{last.stem}]] and [[no-such-note]]\nsee [[{typed}\n"
    line = len(text.split("\n")) - 2
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
    )
    ask = types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(line, 6 + len(typed)))

    early = await client.text_document_completion_async(ask)  # waits for the walk, not the index
    answered_before_the_end = not indexing_ended(client)
    assert answered_before_the_end
    assert isinstance(early, types.CompletionList)
    assert early.items
    assert early.is_incomplete  # asked again as the user types: the descriptions come then
    assert uri not in client.diagnostics  # nothing is said of links until everything is read

    await until(lambda: indexing_ended(client), timeout=120)
    await until(lambda: uri in client.diagnostics, timeout=30)
    later = await client.text_document_completion_async(ask)
    assert targets(early) == targets(later)
    broken = [d.message for d in client.diagnostics[uri] if "no-such-note" in d.message]
    assert broken
    assert not [d.message for d in client.diagnostics[uri] if last.stem in d.message]


async def test_links_asked_before_indexing_ends_wait_for_the_index(
    cold: LanguageClient, big_workspace: Path
) -> None:
    """Document links, definitions and references need the graph: asked right after opening,
    while the first index is still being built, they wait for it. Answered from the empty
    store they said "no links", and an editor asks for document links again only after an edit."""
    client = cold
    agent = sorted(p for p in (big_workspace / "memory").iterdir() if p.name != "shared")[2]
    notes = sorted(agent.glob("*.md"))
    note, last = notes[0], notes[-1]  # `last` is read near the end of indexing
    uri = note.as_uri()
    text = f"---\ndescription: waits\n---\nsee [[{last.stem}]] and [[no-such-note]]\n"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
    )
    document = types.TextDocumentIdentifier(uri)
    asked_before_the_end = not indexing_ended(client)
    links, found, backlinks = await asyncio.gather(
        client.text_document_document_link_async(types.DocumentLinkParams(document)),
        client.text_document_definition_async(types.DefinitionParams(document, types.Position(3, 7))),
        client.text_document_references_async(
            types.ReferenceParams(
                text_document=document, position=types.Position(3, 7),
                context=types.ReferenceContext(include_declaration=True),
            )
        ),
    )
    assert asked_before_the_end
    assert links is not None
    assert [link.target for link in links] == [last.as_uri()]  # the missing note has no target
    assert isinstance(found, list)
    assert [t.target_uri for t in found if isinstance(t, types.LocationLink)] == [last.as_uri()]
    assert backlinks  # at least this note's own link, from the index


@pytest.fixture(scope="module")
def warm_workspace(big_workspace: Path) -> Path:
    """The workspace with the snapshot a first start leaves (written here, in this session's
    private snapshot folder, which the server below inherits)."""
    from brain.service.brain import Brain

    brain = Brain(big_workspace, cache=True)
    brain.sync()
    brain.close()  # waits for the snapshot
    assert brain.snapshots is not None
    assert brain.snapshots.writes == 1
    return big_workspace


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "brain", "lsp"]))
async def warm(lsp_client: LanguageClient, warm_workspace: Path) -> AsyncIterator[None]:
    """A server that starts from the snapshot (environment read when it is spawned)."""
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[types.WorkspaceFolder(warm_workspace.as_uri(), "big")],
        )
    )
    yield
    await lsp_client.shutdown_session()


def snapshot_file(root: Path) -> Path:
    """This workspace's snapshot (the session's folder holds other tests' too)."""
    from brain.snapshot.cachepaths import snapshot_path

    found = snapshot_path(root.resolve())
    assert found.is_file()
    return found


def broken_links(client: LanguageClient, uri: str, name: str) -> list[str]:
    return [d.message for d in client.diagnostics.get(uri, []) if name in d.message]


async def test_a_warm_start_answers_at_once_what_the_index_answers(
    warm: LanguageClient, warm_workspace: Path
) -> None:
    """From the snapshot: the first `[[` (asked right after opening, while the snapshot may
    still be loading) offers what the loaded index offers, and no diagnostics call a link
    broken that is not."""
    client = warm
    written = snapshot_file(warm_workspace).stat()
    agent = sorted(p for p in (warm_workspace / "memory").iterdir() if p.name != "shared")[1]
    notes = sorted(agent.glob("*.md"))
    note, last = notes[0], notes[-1]
    uri = note.as_uri()
    text = note.read_text(encoding="utf-8") + f"\nsee [[{last.stem}]] and [[no-such-note]]\nsee [[\n"
    line = len(text.split("\n")) - 2
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "markdown", 1, text))
    )
    ask = types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(line, 6))

    first = await client.text_document_completion_async(ask)
    assert isinstance(first, types.CompletionList)
    assert first.items
    assert not broken_links(client, uri, last.stem)  # whatever was published by now is true

    await until(lambda: indexing_ended(client), timeout=120)
    await until(lambda: uri in client.diagnostics, timeout=30)
    later = await client.text_document_completion_async(ask)
    assert targets(first) == targets(later)
    assert broken_links(client, uri, "no-such-note")
    assert not broken_links(client, uri, last.stem)
    # It was a warm start: a cold one rewrites the snapshot at once after its first sync.
    now = snapshot_file(warm_workspace).stat()
    assert (now.st_ino, now.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
