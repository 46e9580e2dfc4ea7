"""The editor sees exactly what `brain check` reports: same codes, same places, same messages
(as plain text: the Problems panel shows no markdown).

A generated workspace (broken, ambiguous and anchored links, shadowed names, non-ASCII text)
is checked with `brain check --format json`; then every memory is opened in the language
server, and the diagnostics of each file must be that file's problems, position for position
(`brain check` counts code points, the server speaks the negotiated encoding).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from bench.workload import generate
from brain.lsp.features.diagnostics import plain_text

from .conftest import write_tree
from .test_server import until

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"
EXTRA = {  # what the generator does not produce: every other problem a memory file can have
    "chats/dup.md": "a chat\n",
    "work-items/dup.md": "a work item\n",
    "memory/shared/parity-extra.md": (
        "---\ntype: Users\n---\n# Top\n\n😀 [[dup]] and 漢字 [[shared/parity-extra#Nope|x]] and [[#Top]]\n"
    ),
    "memory/shared/bad-yaml.md": "---\ndescription: [unclosed\n---\nbody\n",
    # anchors as Obsidian writes them: headings with code and punctuation, paths, block ids
    "memory/shared/parity-anchors.md": (
        "# Top\n\n### The `date` field\n\n## Step 1: Install\n\n### Sub\n\nA paragraph ^para-1\n\n"
        "- item ^li\n\n[[#^para-1]] [[#^LI]] [[#^nope]] [[#The date field]] [[#The `date` field]]\n"
        "[[#Step 1 Install#Sub]] [[#Top#Nope]] [[parity-extra#Top]] [[parity-extra#^none]]\n"
        "math $[[not-a-link]]$ and [[|label]] and [[#]] and `[[|code]]`\n"
    ),
    "memory/shared/deep/nested.md": "in a nested folder\n",
}


@pytest.fixture(scope="module", params=["generated", "example"])
def checked(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[dict[str, Any]]]:
    root = tmp_path_factory.mktemp(request.param)
    if request.param == "generated":
        generate(root, 150, agents=3, seed=11)
        write_tree(root, EXTRA)
    elif EXAMPLE.is_dir():
        shutil.copytree(EXAMPLE, root, dirs_exist_ok=True)
    else:
        pytest.skip("examples/workspace is not in this checkout")
    done = subprocess.run(
        [sys.executable, "-m", "brain", "check", str(root), "--format", "json"],
        capture_output=True, text=True, check=False,
    )
    problems: list[dict[str, Any]] = json.loads(done.stdout)["problems"]
    return root, problems


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "brain", "lsp"]),
    params=["visual-studio-code", "neovim"],
)
async def client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, checked: tuple[Path, list[dict[str, Any]]]
) -> AsyncIterator[None]:
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(request.param),
        workspace_folders=[types.WorkspaceFolder(checked[0].as_uri(), "ws")],
    ))
    lsp_client.encoding = str(result.capabilities.position_encoding)  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def to_units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


async def test_diagnostics_are_brain_checks_problems(
    client: LanguageClient, checked: tuple[Path, list[dict[str, Any]]]
) -> None:
    root, problems = checked
    notes = sorted((root / "memory").rglob("*.md"))
    for note in notes:
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(note.as_uri(), "markdown", 1, note.read_text(encoding="utf-8"))
        ))
    await until(lambda: all(note.as_uri() in client.diagnostics for note in notes), timeout=60)

    encoding = client.encoding  # type: ignore[attr-defined]
    expected: set[tuple[str, str, int, int, str]] = set()
    for problem in problems:
        path = root / problem["path"]
        if path.suffix != ".md":
            continue
        line = problem.get("line", 1) - 1
        text = path.read_text(encoding="utf-8").split("\n")[line]
        column = to_units(text[: problem.get("column", 1) - 1], encoding) if "column" in problem else None
        expected.add((problem["path"], problem["code"], line, column if column is not None else -1,
                      plain_text(problem["message"])))
    seen: set[tuple[str, str, int, int, str]] = set()
    for note in notes:
        for diagnostic in client.diagnostics[note.as_uri()]:
            rel = note.relative_to(root).as_posix()
            message = diagnostic.message.split("\nfix: ")[0]
            start = diagnostic.range.start
            column = start.character
            placed = (p for p in problems if "column" in p and p["path"] == rel)
            if not any(plain_text(p["message"]) == message for p in placed):
                column = -1  # a problem without a column covers its line
            seen.add((rel, str(diagnostic.code), start.line, column, message))
    assert seen == expected
    codes = {code for _, code, *_ in seen}
    assert "broken-link" in codes
    if (root / "memory/shared/parity-extra.md").exists():
        assert codes >= {
            "ambiguous-link", "missing-anchor", "invalid-frontmatter", "nested-directory", "empty-link",
        }
        anchors = sorted(
            (line, message) for rel, code, line, _, message in seen
            if rel == "memory/shared/parity-anchors.md"
        )
        assert anchors == [(line, plain_text(message)) for line, message in [
            (12, "`[[#^nope]]`: the target has no block `^nope`"),
            (13, "`[[#Top#Nope]]`: the target has no heading path `Top > Nope`"),
            (13, "`[[parity-extra#^none]]`: the target has no block `^none`"),
            (14, "`[[#]]` links to nothing: it names no note and no heading"),
            (14, "`[[|label]]` links to nothing: it names no note and no heading"),
        ]]
