"""Workspace roots: several folders, a file opened outside them, and the TCP transport."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.lsp.client import LanguageClient as PlainClient
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from brain.lsp.roots import find_root

from .conftest import write_tree
from .test_server import open_note, until

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")


def workspace_files(scope: str, note: str) -> dict[str, str]:
    return {f"memory/{scope}/{note}.md": f"---\ndescription: {note} of {scope}\n---\n[[nowhere-{scope}]]\n"}


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    roots = {name: tmp_path / name for name in ("one", "two", "loose")}
    write_tree(roots["one"], workspace_files("bot", "first"))
    write_tree(roots["two"], workspace_files("agent", "second"))
    write_tree(roots["loose"], workspace_files("solo", "third"))
    (roots["one"] / "docs").mkdir()
    return roots


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "brain", "lsp"]))
async def client(lsp_client: LanguageClient, folders: dict[str, Path]) -> AsyncIterator[None]:
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            workspace_folders=[
                types.WorkspaceFolder(folders["one"].as_uri(), "one"),
                # a folder inside a brain workspace: its workspace is the folder above
                types.WorkspaceFolder((folders["two"] / "memory").as_uri(), "two-memory"),
            ],
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_each_folder_is_its_own_workspace(client: LanguageClient, folders: dict[str, Path]) -> None:
    await until(lambda: len(client.progress_reports) == 2)
    first = await open_note(client, folders["one"], "memory/bot/first.md")
    second = await open_note(client, folders["two"], "memory/agent/second.md")
    assert [d.code for d in client.diagnostics[first]] == ["broken-link"]
    assert [d.code for d in client.diagnostics[second]] == ["broken-link"]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert sorted(s.name for s in found or []) == ["first", "second"]


async def test_a_file_elsewhere_finds_its_workspace_by_walking_up(
    client: LanguageClient, folders: dict[str, Path]
) -> None:
    third = await open_note(client, folders["loose"], "memory/solo/third.md")
    assert [d.code for d in client.diagnostics[third]] == ["broken-link"]
    result = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(third), types.Position(3, 2))
    )
    assert isinstance(result, types.CompletionList)
    await until(lambda: len(client.progress_reports) == 3)


@pytest.mark.parametrize(
    ("start", "root"),
    [("one/memory/bot", "one"), ("one/docs", "one"), ("one", "one"), ("two/memory", "two"), ("", None)],
)
def test_find_root(folders: dict[str, Path], start: str, root: str | None) -> None:
    base = folders["one"].parent
    assert find_root(base / start) == (base / root if root else None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_tcp_transport(folders: dict[str, Path]) -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "brain", "lsp", "--tcp", f"127.0.0.1:{port}"])
    try:
        client = PlainClient("tcp-test", "1")
        for _ in range(100):
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        result = await client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(folders["one"].as_uri(), "one")],
        ))
        assert result.server_info is not None
        assert result.server_info.name == "brain"
        assert result.capabilities.rename_provider is not None
        client.initialized(types.InitializedParams())
        note = folders["one"] / "memory/bot/first.md"
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(note.as_uri(), "markdown", 1, note.read_text(encoding="utf-8"))
        ))
        symbols = await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(types.TextDocumentIdentifier(note.as_uri()))
        )
        assert symbols == []
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_bad_tcp_address_is_a_clear_error() -> None:
    command = [sys.executable, "-m", "brain", "lsp", "--tcp", "nowhere"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "--tcp wants HOST:PORT" in done.stderr
