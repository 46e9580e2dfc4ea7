"""The memory tool refuses a hostile frontmatter with its teaching refusal, within budget.

Before the fix an alias bomb of 400 bytes was accepted, and the re-index of the written note
never finished (the write call never answered). Both the in-process tool (what REST and
GraphQL call) and `brain memory` run in a child under a hard time and memory limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hostile.budget import MIB, python_case
from tests.hostile.corpus import checked_in, deep_frontmatter
from tests.hostile.zygote import brain_case

SECONDS = 15.0
MEMORY = 1024 * MIB
HOSTILE = {
    "billion-laughs": checked_in("billion-laughs.md").decode(),
    "alias-bomb-mappings": checked_in("alias-bomb-mappings.md").decode(),
    "deep-frontmatter": deep_frontmatter(2_000).decode(),
}
ORIGINAL = "---\ndescription: the note as it was\n---\nkeep me\n"


def workspace(root: Path) -> Path:
    (root / "agents").mkdir(parents=True)
    (root / "agents" / "writer.md").write_text("---\ndescription: Writes.\nmemory: true\n---\n")
    (root / "memory" / "writer").mkdir(parents=True)
    (root / "memory" / "writer" / "note.md").write_text(ORIGINAL)
    return root


IN_PROCESS = """
import json, sys
from pathlib import Path
from brain.service.brain import Brain
from brain.tool.service import MemoryService
from brain.tool.calls.tool import MemoryTool
root = Path(sys.argv[1] if len(sys.argv) > 1 else {root!r})
brain = Brain(root)
brain.sync()
tool = MemoryTool(MemoryService(root, brain))
text = sys.stdin.read()
for command, payload in (
    ("create", {{"command": "create", "path": "/memories/note.md", "file_text": text}}),
    ("create-new", {{"command": "create", "path": "/memories/new.md", "file_text": text}}),
    ("str_replace", {{"command": "str_replace", "path": "/memories/note.md",
                      "old_str": ORIGINAL, "new_str": text}}),
):
    result = tool.run("writer", payload)
    refusal = result.refusal
    print(json.dumps({{"command": command, "code": refusal.code.value if refusal else None,
                      "message": refusal.message if refusal else None}}))
""".replace("ORIGINAL", repr(ORIGINAL))


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_in_process_tool_refuses(tmp_path: Path, name: str) -> None:
    root = workspace(tmp_path / "ws")
    outcome = python_case(
        IN_PROCESS.format(root=str(root)), seconds=SECONDS, memory=MEMORY, stdin=HOSTILE[name].encode()
    )
    print(name, outcome.summary())
    assert outcome.returncode == 0, outcome.summary() + outcome.stderr[-3000:]
    results = [json.loads(line) for line in outcome.stdout.splitlines()]
    assert [r["command"] for r in results] == ["create", "create-new", "str_replace"]
    for result in results:
        assert result["code"] == "invalid-argument", result
        assert "frontmatter" in result["message"], result
        assert "too costly" in result["message"], result
    assert (root / "memory" / "writer" / "note.md").read_text() == ORIGINAL
    assert not (root / "memory" / "writer" / "new.md").exists()


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_cli_refuses(tmp_path: Path, name: str) -> None:
    root = workspace(tmp_path / "ws")
    args = ["memory", "--workspace", str(root), "writer", "create", "/memories/note.md"]
    outcome = brain_case(args, seconds=SECONDS, memory=MEMORY, stdin=HOSTILE[name].encode())
    print(name, outcome.summary())
    assert outcome.returncode == 1, outcome.summary() + outcome.stdout + outcome.stderr
    assert "too costly" in outcome.stderr, outcome.stderr
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert (root / "memory" / "writer" / "note.md").read_text() == ORIGINAL
