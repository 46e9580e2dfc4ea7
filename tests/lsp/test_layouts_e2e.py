"""End to end in the new layouts: `python -m brain lsp` driven by pytest-lsp (as VS Code and as
Neovim) on one small workspace per layout: completion, diagnostics (as you type), hover and
rename work there as in latchai, by each layout's own rules."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from brain.layouts import LAYOUTS
from tests.lsp.conftest import write_tree
from tests.lsp.test_server import change, codes, doc, open_note, units, until, uri_of

pytestmark = [
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
    pytest.mark.asyncio(loop_scope="module"),
]

SPACE = {
    "brain.toml": 'layout = "space"\n',
    "alice/memory/drafts/plan.md": (
        "# Launch plan\n\nShip on Friday; see [[notes/risks#Venue]] and [[risks]].\n"
    ),
    "alice/memory/notes/risks.md": (
        "---\ndescription: What could go wrong at the launch\n---\n\n# Risks\n\n## Venue\n\nIt may move.\n"
    ),
    "alice/memory/chart.png": "not really a png",
    "bob/memory/risks.md": "Bob's own risks: another agent's tree.\n",
}
MINDLINK = {
    "brain.toml": 'layout = "mindlink"\n',
    "alice/memory/entries/prefers-short-answers.md": (
        "---\nname: prefers-short-answers\ndescription: Maya wants answers in three sentences or fewer."
        "\ntype: user\n---\n\nConclusion first. See [[no-emoji]].\n"
    ),
    "alice/memory/entries/no-emoji.md": (
        "---\nname: no-emoji\ndescription: No emoji in release notes.\ntype: feedback\n---\n\n"
        "Never use emoji.\n\nWhy: they render as boxes.\nHow to apply: write the word.\n"
    ),
    "alice/memory/2026-11-30.md": "Worked on [[prefers-short-answers]].\n",
}
LAB = {
    "brain.toml": 'layout = "lab"\n',
    "MEMORY.md": "# Memory\n\n## 2026-11-30 Release\n\nUse [[deploy]] for releases.\n",
    "skills/deploy/SKILL.md": (
        "---\nname: deploy\ndescription: Ship a release to production.\n---\n\n# Deploy\n\n"
        "## Triggers\n\n- release\n"
    ),
    "memory/2026-11-30.md": "Deployed with [[deploy]].\n",
}


def _workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    write_tree(tmp_path, files)
    return tmp_path


# One server a profile for the module (a start costs 1-2 s of CPU); each test's workspace is a
# fresh copy, added as a workspace folder of its own and removed after, so tests that write
# (renames, created notes) share nothing.
@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "brain", "lsp"]),
    params=["visual-studio-code", "neovim"],
    scope="module",
)
async def client(request: pytest.FixtureRequest, lsp_client: LanguageClient) -> AsyncIterator[None]:
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """VS Code's profile accepts the server's file watch registration."""

    lsp_client.profile = request.param  # type: ignore[attr-defined]
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(request.param), workspace_folders=[],
    ))
    lsp_client.encoding = result.capabilities.position_encoding  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest_asyncio.fixture(loop_scope="module")
async def workspace(
    request: pytest.FixtureRequest, client: LanguageClient, tmp_path: Path
) -> AsyncIterator[Path]:
    name = request.param
    assert name in LAYOUTS, f"the {name} layout is not in brain.layouts.LAYOUTS"
    root = _workspace(tmp_path, {"space": SPACE, "mindlink": MINDLINK, "lab": LAB}[name])
    folder = types.WorkspaceFolder(root.as_uri(), root.name)
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        types.WorkspaceFoldersChangeEvent(added=[folder], removed=[])
    ))
    yield root
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])
    ))


async def complete(client: LanguageClient, uri: str, line: int, text: str) -> list[types.CompletionItem]:
    result = await client.text_document_completion_async(
        types.CompletionParams(doc(uri), types.Position(line, units(client, text)))
    )
    assert isinstance(result, types.CompletionList)
    return result.items


async def hover(client: LanguageClient, uri: str, line: int, column: int) -> str:
    found = await client.text_document_hover_async(types.HoverParams(doc(uri), types.Position(line, column)))
    assert found is not None
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value


# ---------------------------------------------------------------------- space


@pytest.mark.parametrize("workspace", ["space"], indirect=True)
async def test_space_completion_offers_the_agents_own_tree(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "alice/memory/drafts/new.md", "see [[\n")
    items = await complete(client, uri, 0, "see [[")
    labels = [item.label for item in items]
    assert "notes/risks" in labels
    assert "drafts/plan" in labels
    assert not any("bob" in (item.detail or "") for item in items)  # another agent's tree
    risks = next(item for item in items if item.label == "notes/risks")
    assert risks.detail == "memory · alice · no type"


@pytest.mark.parametrize("workspace", ["space"], indirect=True)
async def test_space_diagnostics_as_you_type(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "alice/memory/drafts/plan.md")
    assert codes(client, uri) == []  # a path link, a bare name of the own tree, an anchor
    text = (workspace / "alice/memory/drafts/plan.md").read_text()
    change(client, uri, 2, text + "\nAlso [[notes/nowhere]] and [[notes/risks#Parking]].\n")
    await until(lambda: codes(client, uri) == ["broken-link", "missing-anchor"])
    change(client, uri, 3, text + "\nkey: AKIAABCDEFGHIJKLMNOP\n")
    await until(lambda: codes(client, uri) == ["secret"])
    (secret,) = client.diagnostics[uri]
    assert secret.severity is types.DiagnosticSeverity.Error
    assert "AKIAABCDEFGHIJKLMNOP" not in secret.message  # the value is never echoed
    deep = "alice/memory/" + "/".join(["d"] * 16) + "/deep.md"
    deep_uri = await open_note(client, workspace, deep, "too deep\n")
    await until(lambda: "path-too-deep" in codes(client, deep_uri))


@pytest.mark.parametrize("workspace", ["space"], indirect=True)
async def test_space_hover_and_create_note(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "alice/memory/drafts/plan.md")
    line = "Ship on Friday; see [[notes/risks#Venue]] and [[risks]]."
    for column in (line.index("notes/risks") + 2, line.index("[[risks]]") + 3):
        shown = await hover(client, uri, 2, column)
        assert shown.startswith("**memory** `alice/notes/risks`")
        assert "What could go wrong at the launch" in shown
    asks = await open_note(client, workspace, "alice/memory/drafts/asks.md", "[[ideas/brand-new]]\n")
    (diagnostic,) = client.diagnostics[asks]
    only = [types.CodeActionKind.QuickFix]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        doc(asks), diagnostic.range, types.CodeActionContext([diagnostic], only=only)
    ))
    assert actions is not None
    titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
    assert titles[0] == "Create alice/memory/ideas/brand-new.md"


@pytest.mark.parametrize("workspace", ["space"], indirect=True)
async def test_space_rename_keeps_the_folder_and_both_link_forms(
    client: LanguageClient, workspace: Path
) -> None:
    uri = await open_note(client, workspace, "alice/memory/drafts/plan.md")
    line = "Ship on Friday; see [[notes/risks#Venue]] and [[risks]]."
    at = types.Position(2, line.index("risks]]") + 1)
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(doc(uri), at))
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "risks"
    assert line[prepared.range.start.character : prepared.range.end.character] == "risks"
    edit = await client.text_document_rename_async(types.RenameParams(doc(uri), at, "dangers"))
    assert edit is not None
    assert edit.document_changes is not None
    texts = [c for c in edit.document_changes if isinstance(c, types.TextDocumentEdit)]
    renames = [c for c in edit.document_changes if isinstance(c, types.RenameFile)]
    assert [(r.old_uri, r.new_uri) for r in renames] == [(
        uri_of(workspace, "alice/memory/notes/risks.md"), uri_of(workspace, "alice/memory/notes/dangers.md"),
    )]
    new_texts = sorted(e.new_text for t in texts for e in t.edits)
    assert new_texts == ["[[dangers]]", "[[notes/dangers#Venue]]"]


# ---------------------------------------------------------------------- mindlink


@pytest.mark.parametrize("workspace", ["mindlink"], indirect=True)
async def test_mindlink_entries_and_daily_notes(client: LanguageClient, workspace: Path) -> None:
    daily = await open_note(client, workspace, "alice/memory/2026-11-30.md")
    assert "broken-link" not in codes(client, daily)
    shown = await hover(client, daily, 0, len("Worked on [[") + 2)
    assert "Maya wants answers in three sentences or fewer." in shown
    entry = await open_note(client, workspace, "alice/memory/entries/new.md", "see [[\n")
    labels = [item.label for item in await complete(client, entry, 0, "see [[")]
    assert {"prefers-short-answers", "no-emoji"} <= set(labels)
    feedback = workspace / "alice/memory/entries/no-emoji.md"
    uri = await open_note(client, workspace, "alice/memory/entries/no-emoji.md")
    change(client, uri, 2, feedback.read_text().replace("Why: they render as boxes.\n", ""))
    await until(lambda: "feedback-incomplete" in codes(client, uri))


@pytest.mark.parametrize("workspace", ["mindlink"], indirect=True)
async def test_mindlink_rename_an_entry(client: LanguageClient, workspace: Path) -> None:
    uri = await open_note(client, workspace, "alice/memory/entries/prefers-short-answers.md")
    text = "Conclusion first. See [[no-emoji]]."
    at = types.Position(6, text.index("no-emoji") + 1)
    edit = await client.text_document_rename_async(types.RenameParams(doc(uri), at, "plain-words"))
    assert edit is not None
    assert edit.document_changes is not None
    renames = [c for c in edit.document_changes if isinstance(c, types.RenameFile)]
    assert [r.new_uri for r in renames] == [uri_of(workspace, "alice/memory/entries/plain-words.md")]


# ---------------------------------------------------------------------- lab


@pytest.mark.parametrize("workspace", ["lab"], indirect=True)
async def test_lab_links_to_skills_and_problems(client: LanguageClient, workspace: Path) -> None:
    memory = await open_note(client, workspace, "MEMORY.md")
    assert "broken-link" not in codes(client, memory)
    line = "Use [[deploy]] for releases."
    shown = await hover(client, memory, 4, line.index("deploy") + 1)
    assert "Ship a release to production." in shown
    project = await open_note(client, workspace, "projects/web/notes.md", "see [[\n")
    labels = [item.label for item in await complete(client, project, 0, "see [[")]
    assert "deploy" in labels
    text = (workspace / "MEMORY.md").read_text()
    change(client, memory, 2, text + "\n## An undated entry\n\nNo date here.\n")
    await until(lambda: "undated-entry" in codes(client, memory))


@pytest.mark.parametrize("workspace", ["space"], indirect=True)
async def test_space_a_file_written_outside_the_editor_fixes_a_link(
    client: LanguageClient, workspace: Path
) -> None:
    uri = await open_note(client, workspace, "alice/memory/drafts/asks.md", "See [[ideas/fresh]].\n")
    assert codes(client, uri) == ["broken-link"]
    created = workspace / "alice/memory/ideas/fresh.md"
    created.parent.mkdir(parents=True)
    created.write_text("# Fresh\n", encoding="utf-8")  # as the space verbs or an agent would
    if client.profile == "visual-studio-code":  # type: ignore[attr-defined]
        # VS Code reports it (the server asked for every file of a space root); Neovim sends
        # nothing and the server watches the disk itself
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(created.as_uri(), types.FileChangeType.Created)]
        ))
    await until(lambda: codes(client, uri) == [])
