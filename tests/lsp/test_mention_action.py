"""The code action "Link to [[x]]" at an unlinked mention, end to end over `brain lsp`
(pytest-lsp, as VS Code and as Neovim), on an unsaved buffer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import WORKSPACE, write_tree
from .test_server import client, doc, folders_changed, open_note, units  # noqa: F401  (pytest-lsp's fixture)

pytestmark = [
    pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning"),
    pytest.mark.asyncio(loop_scope="module"),
]


@pytest_asyncio.fixture(loop_scope="module")
async def workspace(client: LanguageClient, tmp_path: Path) -> AsyncIterator[Path]:  # noqa: F811
    """A fresh copy, a workspace folder of its own in the module's server (test_server's `client`)."""
    write_tree(tmp_path, {
        **WORKSPACE,
        "memory/shared/deploy-guide.md": "---\ndescription: How we deploy.\n---\nsteps\n",
        "agents/other.md": "---\nmemory: true\n---\n",
        "memory/other/private-plan.md": "---\ndescription: Not for bot.\n---\nsecret\n",
    })
    folders_changed(client, tmp_path, added=True)
    yield tmp_path
    folders_changed(client, tmp_path, added=False)


async def test_link_to_a_mention(client: LanguageClient, workspace: Path) -> None:  # noqa: F811
    text = "---\ntype: user\n---\nÉté: the Deploy Guide, not `deploy guide`, nor private plan.\n"
    uri = await open_note(client, workspace, "memory/bot/mentions.md", text)
    line = types.Range(types.Position(3, 0), types.Position(3, 0))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(doc(uri), line, types.CodeActionContext([]))
    )
    found = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.title.startswith("Link to")]
    # One: the code span is not a mention, and `other`'s private note is out of bot's reach.
    assert [a.title for a in found] == ["Link to [[deploy-guide|Deploy Guide]]"]
    edit = found[0].edit
    assert edit is not None
    changes = edit.document_changes or []
    [text_edit] = [e for c in changes if isinstance(c, types.TextDocumentEdit) for e in c.edits]
    start = units(client, "Été: the ")
    assert text_edit.range == types.Range(
        types.Position(3, start), types.Position(3, start + units(client, "Deploy Guide"))
    )
    assert text_edit.new_text == "[[deploy-guide|Deploy Guide]]"
    frontmatter = await client.text_document_code_action_async(types.CodeActionParams(
        doc(uri), types.Range(types.Position(1, 0), types.Position(1, 0)), types.CodeActionContext([]),
    ))
    assert not [a for a in frontmatter or [] if a.title.startswith("Link to")]


async def test_link_to_a_note_created_after_the_names_were_kept(
    client: LanguageClient, workspace: Path,  # noqa: F811
) -> None:
    """The names a code action reads are kept between requests (the session brain's
    MentionCache) and follow the graph: a note created on disk is offered once it is in."""
    import asyncio

    text = "---\ntype: user\n---\nRead the Runbook Index first.\n"
    uri = await open_note(client, workspace, "memory/bot/reads.md", text)
    line = types.Range(types.Position(3, 0), types.Position(3, 0))

    async def titles() -> list[str]:
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(doc(uri), line, types.CodeActionContext([])))
        found = [a for a in actions or [] if isinstance(a, types.CodeAction)]
        return [a.title for a in found if a.title.startswith("Link")]

    assert await titles() == []  # no such note yet: the names are read and kept
    created = workspace / "memory/shared/runbook-index.md"
    created.write_text("---\ndescription: Where the runbooks are.\n---\nlist\n", encoding="utf-8")
    if client.profile == "visual-studio-code":  # type: ignore[attr-defined]
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(created.as_uri(), types.FileChangeType.Created)]))
    deadline = asyncio.get_running_loop().time() + 15
    while (found := await titles()) == [] and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.1)
    assert found == ["Link to [[runbook-index|Runbook Index]]"]
