"""BrainMemoryTool against the Anthropic SDK's own BetaLocalFilesystemMemoryTool.

The same scripted calls go through both (no model is called). Each step declares how the
two relate, and the test checks the declaration:

- "same": both accept with the same effect (the same files with the same bytes; the same
  numbered lines for a file view; the same notes in a listing), or both refuse;
- "stricter": brain refuses what the SDK accepts (not `.md`, a sub-folder, a secret, a
  range past the end, a directory delete), and its refusal names a call that brain then
  accepts. Both sides then continue from that call, so later steps compare like with like;
- "lenient": brain accepts what the SDK refuses: `create` of an existing note overwrites it,
  as seeds/000 says ("write or overwrite a whole file").
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.tools import ToolError
from anthropic.lib.tools._beta_builtin_memory_tool import BetaLocalFilesystemMemoryTool

from brain.integrations.anthropic import BrainAsyncMemoryTool, BrainMemoryTool, BrainUnavailable
from tests.api.live import LiveServer
from tests.tool.conftest import write

Step = tuple[str, dict[str, Any]]
STYLE = (
    "---\ndescription: House style.\ntype: feedback\n---\n\n"
    "- Headline first.\n- No exclamation marks.\n- Headline first.\n"
)
AWS_KEY = "AKIA" + "Z7QWERTYUIOPASDF"

LIFE: list[Step] = [
    ("same", {"command": "view", "path": "/memories"}),
    ("same", {"command": "create", "path": "/memories/style.md", "file_text": STYLE}),
    ("same", {"command": "view", "path": "/memories/style.md"}),
    ("same", {"command": "view", "path": "/memories/style.md", "view_range": [2, 3]}),
    ("same", {"command": "view", "path": "/memories/style.md", "view_range": [6, -1]}),
    ("same", {"command": "str_replace", "path": "/memories/style.md",
              "old_str": "- No exclamation marks.", "new_str": "- No exclamation marks, ever: $1 $$ \\1."}),
    ("same", {"command": "str_replace", "path": "/memories/style.md", "old_str": "absent", "new_str": "x"}),
    ("same", {"command": "str_replace", "path": "/memories/style.md",
              "old_str": "- Headline first.", "new_str": "x"}),
    ("same", {"command": "insert", "path": "/memories/style.md", "insert_line": 0,
              "insert_text": "# Style\n"}),
    ("same", {"command": "insert", "path": "/memories/style.md", "insert_line": 9, "insert_text": "Last."}),
    ("same", {"command": "insert", "path": "/memories/style.md", "insert_line": 99, "insert_text": "x\n"}),
    ("same", {"command": "view", "path": "/memories/style.md"}),
    ("same", {"command": "create", "path": "/memories/shared/tone.md", "file_text": "Calm.\n"}),
    ("same", {"command": "rename", "old_path": "/memories/style.md", "new_path": "/memories/shared/tone.md"}),
    ("same", {"command": "rename", "old_path": "/memories/style.md",
              "new_path": "/memories/shared/style.md"}),
    ("same", {"command": "view", "path": "/memories"}),
    ("same", {"command": "view", "path": "/memories/shared"}),
    ("same", {"command": "delete", "path": "/memories/shared/style.md"}),
    ("same", {"command": "view", "path": "/memories/shared/style.md"}),
    ("same", {"command": "delete", "path": "/memories/shared/style.md"}),
    ("same", {"command": "view", "path": "/memories/../escape.md"}),
    ("same", {"command": "create", "path": "/etc/passwd", "file_text": "x"}),
]

STRICTER: list[Step] = [
    ("same", {"command": "create", "path": "/memories/lines.md", "file_text": "a\nb\nc\n"}),
    ("stricter", {"command": "create", "path": "/memories/notes.txt", "file_text": "hello\n"}),
    ("stricter", {"command": "create", "path": "/memories/projects/alpha.md", "file_text": "alpha\n"}),
    ("stricter", {"command": "create", "path": "/memories/keys.md", "file_text": f"aws = {AWS_KEY}\n"}),
    ("stricter", {"command": "str_replace", "path": "/memories/lines.md", "old_str": "b",
                  "new_str": f"token: {AWS_KEY}"}),
    ("stricter", {"command": "view", "path": "/memories/lines.md", "view_range": [1, 50]}),
    ("same", {"command": "create", "path": "/memories/shared/tone.md", "file_text": "Calm.\n"}),
    ("stricter", {"command": "delete", "path": "/memories/shared"}),
    ("lenient", {"command": "create", "path": "/memories/lines.md", "file_text": "rewritten\n"}),
    ("same", {"command": "view", "path": "/memories"}),
    ("same", {"command": "view", "path": "/memories/lines.md"}),
]


class Sides:
    """The SDK's tool on one folder and brain's on a workspace, both starting empty."""

    def __init__(self, tmp: Path, brain: Callable[[dict[str, Any]], str]) -> None:
        self.sdk = BetaLocalFilesystemMemoryTool(str(tmp / "sdk"))
        self.sdk_root = Path(self.sdk.memory_root)
        self.brain_call = brain
        self.workspace = tmp / "ws"

    def call_sdk(self, args: dict[str, Any]) -> tuple[bool, str]:
        try:
            return True, str(self.sdk.call(args))
        except ToolError as exc:
            return False, str(exc)

    def call_brain(self, args: dict[str, Any]) -> tuple[bool, str]:
        try:
            return True, self.brain_call(args)
        except ToolError as exc:
            return False, str(exc)

    def sdk_tree(self) -> dict[str, bytes]:
        return {
            "/memories/" + p.relative_to(self.sdk_root).as_posix(): p.read_bytes()
            for p in self.sdk_root.rglob("*") if p.is_file() and not p.name.startswith(".")
        }

    def brain_tree(self) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for scope, prefix in (("writer", "/memories/"), ("shared", "/memories/shared/")):
            folder = self.workspace / "memory" / scope
            if folder.is_dir():
                for p in folder.iterdir():
                    if p.is_file() and not p.name.startswith("."):
                        out[prefix + p.name] = p.read_bytes()
        return out

    def restore_sdk(self, tree: dict[str, bytes]) -> None:
        shutil.rmtree(self.sdk_root)
        self.sdk_root.mkdir(parents=True)
        for path, data in tree.items():
            target = self.sdk_root / path.removeprefix("/memories/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def numbered(text: str) -> list[str]:
    """The numbered lines of a file view, without the empty line the SDK shows after a final newline."""
    lines = [line for line in text.splitlines() if re.match(r"^ *\d+\t", line)]
    return lines[:-1] if lines and re.fullmatch(r" *\d+\t", lines[-1]) else lines


def listed(text: str) -> set[str]:
    return set(re.findall(r"(/memories/(?:shared/)?[^\s/<>]+\.md)", text))


def suggestion(refusal: str) -> dict[str, Any]:
    found = re.search(r"^Try: (\{.*\})$", refusal, re.MULTILINE)
    assert found, f"the refusal names no call that would work: {refusal}"
    call: dict[str, Any] = json.loads(found.group(1))
    return call


def play(sides: Sides, script: list[Step]) -> list[str]:
    """Run a script through both tools; answer what each step turned out to be."""
    seen: list[str] = []
    for declared, args in script:
        before = sides.sdk_tree()
        sdk_ok, sdk_text = sides.call_sdk(args)
        brain_ok, brain_text = sides.call_brain(args)
        if sdk_ok == brain_ok:
            seen.append("same")
            if sdk_ok and args["command"] == "view" and args["path"].endswith(".md"):
                assert numbered(brain_text) == numbered(sdk_text), args
            elif sdk_ok and args["command"] == "view":
                assert listed(brain_text) == listed(sdk_text), args
            if not sdk_ok:
                assert brain_text.startswith("Refused: "), brain_text
        elif sdk_ok:
            seen.append("stricter")
            assert brain_text.startswith("Refused: "), brain_text
            fixed = suggestion(brain_text)
            ok, text = sides.call_brain(fixed)
            assert ok, f"brain's own suggestion {fixed} was refused: {text}"
            sides.restore_sdk(before)  # both sides go on from the call that worked
            assert sides.call_sdk(fixed)[0], fixed
        else:
            seen.append("lenient")
            assert args["command"] == "create", args
            assert "already exists" in sdk_text, sdk_text
            sides.call_sdk({"command": "delete", "path": args["path"]})
            assert sides.call_sdk(args)[0]
        assert sides.brain_tree() == sides.sdk_tree(), (declared, args)
    return seen


def make_workspace(root: Path) -> Path:
    write(root, "agents/writer.md", "---\ndescription: Writes.\nmemory: true\n---\n")
    (root / "memory").mkdir(parents=True)
    return root


@pytest.mark.parametrize("script", [LIFE, STRICTER], ids=["a-note-s-life", "brain-s-rules"])
def test_in_process_against_the_sdk(tmp_path: Path, script: list[Step]) -> None:
    tool = BrainMemoryTool(make_workspace(tmp_path / "ws"), agent="writer")
    sides = Sides(tmp_path, tool.call)
    assert play(sides, script) == [declared for declared, _ in script]


@pytest.mark.parametrize("script", [LIFE, STRICTER], ids=["a-note-s-life", "brain-s-rules"])
def test_remote_against_the_sdk(tmp_path: Path, script: list[Step], server: LiveServer) -> None:
    """Through `brain serve`'s HTTP API with the agent's token: the same answers."""
    tool = BrainMemoryTool.remote(server.base, token="writer-token")
    sides = Sides(tmp_path, tool.call)
    sides.workspace = server.brain.root
    for scope in ("writer", "shared"):  # start as empty as the SDK's folder
        for note in (sides.workspace / "memory" / scope).glob("*.md"):
            note.unlink()
    assert play(sides, script) == [declared for declared, _ in script]


async def test_the_async_variant_answers_the_same(tmp_path: Path) -> None:
    sync_tool = BrainMemoryTool(make_workspace(tmp_path / "a"), agent="writer")
    async_tool = BrainAsyncMemoryTool(make_workspace(tmp_path / "b"), agent="writer")
    for _, args in LIFE + STRICTER:
        try:
            expected: tuple[bool, str] = (True, sync_tool.call(args))
        except ToolError as exc:
            expected = (False, str(exc))
        try:
            got: tuple[bool, str] = (True, await async_tool.call(args))
        except ToolError as exc:
            got = (False, str(exc))
        assert got == expected, args


def test_it_plugs_into_the_sdk_as_the_memory_tool(tmp_path: Path) -> None:
    tool = BrainMemoryTool(make_workspace(tmp_path / "ws"), agent="writer")
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    assert tool.name == "memory"
    # The SDK's own dispatch (parsed commands) reaches brain too.
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand

    created = tool.execute(BetaMemoryTool20250818CreateCommand(
        command="create", path="/memories/a.md", file_text="A.\n"
    ))
    assert created == "Created /memories/a.md (1 line). Note: it has no frontmatter; start memory " \
        "files with `---`, `description: <one line>`, `type: user|feedback|project|reference`, `---`."
    with pytest.raises(ToolError, match=r"^Refused: "):
        tool.call({"command": "view"})


def test_the_prompt_block_in_process_and_remote(tmp_path: Path, server: LiveServer) -> None:
    local = BrainMemoryTool(server.brain.root, agent="writer").prompt()
    remote = BrainMemoryTool.remote(server.base, token="writer-token", agent="writer").prompt()
    assert local.startswith("## Your memory\n")
    assert remote == local
    with pytest.raises(TypeError, match="name the agent"):
        BrainMemoryTool.remote(server.base, token="writer-token").prompt()


def test_a_server_that_refuses_the_token_is_not_the_model_s_fault(server: LiveServer) -> None:
    tool = BrainMemoryTool.remote(server.base, token="wrong")
    with pytest.raises(BrainUnavailable, match="answered 401"):
        tool.call({"command": "view", "path": "/memories"})
    tool = BrainMemoryTool.remote(server.base, token="reviewer-token", agent="writer")
    with pytest.raises(ToolError, match="belong to agent `reviewer`"):
        tool.call({"command": "view", "path": "/memories"})


async def test_the_async_variant_remote(server: LiveServer) -> None:
    tool = BrainAsyncMemoryTool.remote(server.base, token="writer-token", agent="writer")
    assert (await tool.call({"command": "view", "path": "/memories/house-style.md"})).startswith(
        "/memories/house-style.md (10 lines):"
    )
    assert (await tool.prompt()).startswith("## Your memory\n")
