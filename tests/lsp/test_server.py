"""End to end: `python -m brain lsp` driven by pytest-lsp, as VS Code and as Neovim.

pytest-lsp checks every response against the client profile's declared capabilities; its
specification warnings fail these tests. Positions are computed here independently (by
encoding the text), in whatever encoding the server negotiated with the profile.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from .conftest import WORKSPACE, write_tree

pytestmark = [
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
    pytest.mark.asyncio(loop_scope="module"),
]
PROFILES = ["visual-studio-code", "neovim"]
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "brain", "lsp"])


async def start_session(
    client: LanguageClient, profile: str, folders: list[types.WorkspaceFolder]
) -> None:
    registrations: list[types.Registration] = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    client.registrations = registrations  # type: ignore[attr-defined]
    client.profile = profile  # type: ignore[attr-defined]
    result = await client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities(profile), workspace_folders=folders)
    )
    client.encoding = result.capabilities.position_encoding  # type: ignore[attr-defined]


@pytest_lsp.fixture(config=SERVER, params=PROFILES, loop_scope="module")
async def fresh(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path
) -> AsyncIterator[None]:
    """A server of its own, started on the workspace: for what `initialize` itself does."""
    write_tree(tmp_path, WORKSPACE)
    await start_session(lsp_client, request.param, [types.WorkspaceFolder(tmp_path.as_uri(), tmp_path.name)])
    yield
    await lsp_client.shutdown_session()


# One server a profile for the module: a server start costs 1-2 s of CPU, and 22 starts were
# most of this module's time. Tests write (unsaved buffers, a created note, renames), so none
# shares a workspace: each gets a fresh copy as a workspace folder of its own (`workspace`),
# a session of its own in the server, removed after the test.
@pytest_lsp.fixture(config=SERVER, params=PROFILES, scope="module")
async def client(request: pytest.FixtureRequest, lsp_client: LanguageClient) -> AsyncIterator[None]:
    await start_session(lsp_client, request.param, [])
    yield
    await lsp_client.shutdown_session()


def folders_changed(client: LanguageClient, root: Path, added: bool) -> None:
    folder = types.WorkspaceFolder(root.as_uri(), root.name)
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        types.WorkspaceFoldersChangeEvent(added=[folder] if added else [], removed=[] if added else [folder])
    ))


@pytest_asyncio.fixture(loop_scope="module")
async def workspace(client: LanguageClient, tmp_path: Path) -> AsyncIterator[Path]:
    write_tree(tmp_path, WORKSPACE)
    folders_changed(client, tmp_path, added=True)
    yield tmp_path
    folders_changed(client, tmp_path, added=False)


# ------------------------------------------------------------------ helpers


def units(client: LanguageClient, text: str) -> int:
    """Length of `text` in the negotiated encoding, computed without brain's code."""
    encoding = str(client.encoding)  # type: ignore[attr-defined]
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


async def until(check: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.02)


def uri_of(root: Path, rel: str) -> str:
    return (root / rel).as_uri()


async def open_note(client: LanguageClient, root: Path, rel: str, text: str | None = None) -> str:
    uri = uri_of(root, rel)
    client.diagnostics.pop(uri, None)
    if text is None:
        text = (root / rel).read_text(encoding="utf-8")
    item = types.TextDocumentItem(uri, "markdown", 1, text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    await until(lambda: uri in client.diagnostics)
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version, uri),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )


def codes(client: LanguageClient, uri: str) -> list[str]:
    return [str(d.code) for d in client.diagnostics.get(uri, [])]


def doc(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri)


# ------------------------------------------------------------------ tests


async def test_initialize_negotiates_and_indexes_with_progress(fresh: LanguageClient) -> None:
    client = fresh
    expected = "utf-16" if client.profile == "visual-studio-code" else "utf-8"  # type: ignore[attr-defined]
    assert client.encoding == expected  # type: ignore[attr-defined]
    await until(lambda: any(
        isinstance(r, types.WorkDoneProgressEnd) for rs in client.progress_reports.values() for r in rs
    ))
    (reports,) = client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert "3 memories of 1 agent" in (reports[-1].message or "")
    if client.profile == "visual-studio-code":  # type: ignore[attr-defined]
        assert [r.method for r in client.registrations] == ["workspace/didChangeWatchedFiles"]  # type: ignore[attr-defined]


async def test_completion_after_brackets(client: LanguageClient, workspace: Path) -> None:
    line = "😀 é 漢 see [["
    uri = await open_note(client, workspace, "memory/bot/new.md", f"---\ntype: user\n---\n{line}\n")
    result = await client.text_document_completion_async(
        types.CompletionParams(doc(uri), types.Position(3, units(client, line)))
    )
    assert isinstance(result, types.CompletionList)
    labels = [item.label for item in result.items]
    # the note being edited (`new`) is not offered
    assert labels == ["alpha", "beta", "gamma", "nightly-release", "standup", "fix-login"]
    gamma = result.items[2]
    assert gamma.detail == "memory · shared · reference"
    if gamma.documentation is None:  # VS Code resolves documentation lazily
        gamma = await client.completion_item_resolve_async(gamma)
    assert isinstance(gamma.documentation, types.MarkupContent)
    assert "Gamma, shared" in gamma.documentation.value
    edit = gamma.text_edit
    assert edit is not None
    assert edit.new_text == "gamma]]"
    start = edit.range.start if isinstance(edit, types.TextEdit) else edit.insert.start
    assert start == types.Position(3, units(client, line))


async def test_broken_link_diagnostic_and_creating_the_note(client: LanguageClient, workspace: Path) -> None:
    prefix = "日本語 😀 "
    text = f"---\ntype: user\n---\n{prefix}[[missing-note]]\n"
    uri = await open_note(client, workspace, "memory/bot/wants.md", text)
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.code == "broken-link"
    assert diagnostic.severity is types.DiagnosticSeverity.Error
    start, end = units(client, prefix), units(client, prefix + "[[missing-note]]")
    assert diagnostic.range == types.Range(types.Position(3, start), types.Position(3, end))
    created = workspace / "memory/bot/missing-note.md"
    created.write_text("---\ndescription: now it exists\n---\n", encoding="utf-8")
    if client.profile == "visual-studio-code":  # type: ignore[attr-defined]
        # VS Code reports the new file; Neovim sends nothing and the server watches the disk itself
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(created.as_uri(), types.FileChangeType.Created)]
        ))
    await until(lambda: codes(client, uri) == [])


async def test_unsaved_edit_refreshes_another_open_note(client: LanguageClient, workspace: Path) -> None:
    reader = await open_note(client, workspace, "memory/bot/reader.md", "see [[beta#Later]]\n")
    assert codes(client, reader) == ["missing-anchor"]
    beta_text = (workspace / "memory/bot/beta.md").read_text(encoding="utf-8")
    beta = await open_note(client, workspace, "memory/bot/beta.md", beta_text)
    change(client, beta, 2, beta_text + "\n## Later\n")
    await until(lambda: codes(client, reader) == [])
    client.text_document_did_close(types.DidCloseTextDocumentParams(doc(beta)))
    await until(lambda: codes(client, reader) == ["missing-anchor"])


async def test_frontmatter_validation_as_you_type(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "memory/bot/typed.md", "---\ntype: user\n---\nbody\n")
    assert codes(client, uri) == []
    change(client, uri, 2, "---\ntype: Users\n---\nbody\n")
    await until(lambda: codes(client, uri) == ["invalid-frontmatter"])
    (diagnostic,) = client.diagnostics[uri]
    assert diagnostic.range == types.Range(types.Position(1, 0), types.Position(1, 4))
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        doc(uri), diagnostic.range, types.CodeActionContext([diagnostic])
    ))
    assert actions is not None
    assert [a.title for a in actions if isinstance(a, types.CodeAction)] == [
        "Set type to user", "Set type to feedback", "Set type to project", "Set type to reference",
    ]


async def test_create_note_code_action(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "memory/bot/asks.md", "---\ntype: user\n---\n[[brand-new]]\n")
    (diagnostic,) = client.diagnostics[uri]
    context = types.CodeActionContext([diagnostic], only=[types.CodeActionKind.QuickFix])
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(doc(uri), diagnostic.range, context)
    )
    assert actions is not None
    first = actions[0]
    assert isinstance(first, types.CodeAction)
    assert first.title == "Create memory/bot/brand-new.md"
    assert first.edit is not None
    assert first.edit.document_changes is not None
    create = first.edit.document_changes[0]
    assert isinstance(create, types.CreateFile)
    assert create.uri == uri_of(workspace, "memory/bot/brand-new.md")
    assert not (workspace / "memory/bot/brand-new.md").exists()


async def test_hover_definition_references(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "memory/bot/alpha.md")
    at_gamma = types.Position(9, 25)
    hover = await client.text_document_hover_async(types.HoverParams(doc(uri), at_gamma))
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.startswith("**memory** `shared/gamma` · reference · ")
    assert "Gamma, shared" in hover.contents.value
    found = await client.text_document_definition_async(types.DefinitionParams(doc(uri), at_gamma))
    assert isinstance(found, list)
    assert isinstance(found[0], types.LocationLink)
    assert found[0].target_uri == uri_of(workspace, "memory/shared/gamma.md")
    refs = await client.text_document_references_async(types.ReferenceParams(
        context=types.ReferenceContext(include_declaration=False), text_document=doc(uri),
        position=types.Position(0, 0),
    ))
    assert refs is not None
    assert [(r.uri, r.range.start.line) for r in refs] == [(uri_of(workspace, "memory/bot/beta.md"), 5)]


async def test_links_and_symbols(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "memory/bot/alpha.md")
    links = await client.text_document_document_link_async(types.DocumentLinkParams(doc(uri)))
    assert [link.target for link in links or []] == [
        uri_of(workspace, "memory/bot/beta.md"), uri_of(workspace, "memory/shared/gamma.md") + "#L8",
    ]
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(doc(uri)))
    assert symbols is not None
    assert [s.name for s in symbols] == ["Alpha"]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="gam"))
    assert [s.name for s in found or []] == ["gamma"]


async def test_rename_from_a_link(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "memory/bot/alpha.md")
    at_gamma = types.Position(9, 25)
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(doc(uri), at_gamma))
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "gamma"
    assert prepared.range == types.Range(types.Position(9, 26), types.Position(9, 31))
    edit = await client.text_document_rename_async(types.RenameParams(doc(uri), at_gamma, "delta"))
    assert edit is not None
    assert edit.document_changes is not None
    *texts, move = edit.document_changes
    assert isinstance(move, types.RenameFile)
    assert (move.old_uri, move.new_uri) == (
        uri_of(workspace, "memory/shared/gamma.md"), uri_of(workspace, "memory/shared/delta.md")
    )
    (text_edit,) = texts
    assert isinstance(text_edit, types.TextDocumentEdit)
    assert text_edit.text_document.uri == uri
    assert text_edit.text_document.version == 1
    assert [e.new_text for e in text_edit.edits] == ["[[shared/delta#Usage|gamma usage]]"]


async def test_rename_refused_with_a_reason(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "memory/bot/alpha.md")
    with pytest.raises(JsonRpcException, match=re.escape("memory/bot/beta.md already exists")):
        await client.text_document_rename_async(types.RenameParams(doc(uri), types.Position(0, 0), "beta"))
    change(client, uri, 2, "[[workflow:nightly-release]]\n")
    prepare = types.PrepareRenameParams(doc(uri), types.Position(0, 4))
    with pytest.raises(JsonRpcException, match="points to a workflow"):
        await client.text_document_prepare_rename_async(prepare)


async def test_documents_outside_a_workspace_get_nothing(
    client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("plain") / "readme.md"
    elsewhere.write_text("[[not-a-brain]]\n", encoding="utf-8")
    uri = elsewhere.as_uri()
    item = types.TextDocumentItem(uri, "markdown", 1, "[[x")
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    ask = types.CompletionParams(doc(uri), types.Position(0, 3))
    assert await client.text_document_completion_async(ask) is None
    assert uri not in client.diagnostics


async def test_add_frontmatter_is_a_refactoring(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "memory/bot/bare.md", "# Bare note\n\nbody\n")
    top = types.Range(types.Position(0, 0), types.Position(0, 0))
    for only, expected in (
        ([types.CodeActionKind.Refactor], ["Add frontmatter (description, type)"]),
        ([types.CodeActionKind.QuickFix], []),
    ):
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(doc(uri), top, types.CodeActionContext([], only=only))
        )
        assert [a.title for a in actions or [] if isinstance(a, types.CodeAction)] == expected
