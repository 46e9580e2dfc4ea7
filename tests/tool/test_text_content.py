"""Text the tool will and will not store: NUL bytes, invalid UTF-8, old secrets, sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.tool.calls.tool import MemoryTool
from brain.tool.files.confined import MemoryFolders
from brain.tool.history.log import History
from brain.tool.service import MemoryService


def test_nul_characters_are_refused(tool: MemoryTool) -> None:
    result = tool.create("writer", "/memories/x.md", "one\ntwo\x00three\n")
    assert result.text == (
        "Refused: the new text of /memories/x.md has a NUL character on line 2: memories are text\n"
        'Try: {"command": "create", "path": "/memories/x.md", "file_text": "one\\ntwothree\\n"}'
    )


def test_a_file_that_is_not_utf8_can_be_viewed_and_replaced_but_not_edited(
    tool: MemoryTool, workspace: Path
) -> None:
    (workspace / "memory/writer/latin1.md").write_bytes(b"caf\xe9\nline two\n")
    seen = tool.view("writer", "/memories/latin1.md")
    assert seen.text == "/memories/latin1.md (2 lines):\n     1\tcaf\ufffd\n     2\tline two"
    edit = tool.str_replace("writer", "/memories/latin1.md", "line two", "line 2")
    assert edit.text == (
        "Refused: /memories/latin1.md is not valid UTF-8 (line 1), so it cannot be edited in place: "
        "overwrite it whole with create\n"
        'Try: {"command": "create", "path": "/memories/latin1.md"}'
    )
    assert tool.create("writer", "/memories/latin1.md", "café\nline two\n").ok


def test_a_secret_already_in_a_file_does_not_block_other_edits(tool: MemoryTool, workspace: Path) -> None:
    (workspace / "memory/writer/old.md").write_text("legacy: ghp_" + "A1b2" * 9 + "\nnotes\n")
    assert tool.str_replace("writer", "/memories/old.md", "notes", "better notes").ok
    refused = tool.insert("writer", "/memories/old.md", 2, "password = Zq8xW2pL9v")
    assert refused.refusal is not None
    assert refused.refusal.code.value == "secret"
    assert "line 3 of the new text" in refused.text
    # The agent can still remove the old secret.
    assert tool.str_replace("writer", "/memories/old.md", "ghp_" + "A1b2" * 9, "(in the vault)").ok


def test_the_size_cap_counts_the_file_after_the_edit(tmp_path: Path, workspace: Path) -> None:
    service = MemoryService(workspace, history=History(tmp_path / "h.jsonl"), max_file_bytes=1000)
    tool = MemoryTool(service)
    assert tool.create("writer", "/memories/log.md", "x" * 900 + "\n").ok
    result = tool.insert("writer", "/memories/log.md", 1, "y" * 200)
    assert result.text == (
        "Refused: /memories/log.md would be 1,102 bytes; one memory file holds at most 1,000 bytes. "
        "Keep one topic per file: split it and put the rest in a new note such as /memories/log-2.md\n"
        'Try: {"command": "create", "path": "/memories/log-2.md", "file_text": "' + "y" * 200 + '"}'
    )


def test_crlf_files_keep_their_line_ends(tool: MemoryTool, workspace: Path) -> None:
    (workspace / "memory/writer/crlf.md").write_bytes(b"one\r\ntwo\r\n")
    assert tool.insert("writer", "/memories/crlf.md", 1, "one and a half").ok
    assert (workspace / "memory/writer/crlf.md").read_bytes() == b"one\r\none and a half\r\ntwo\r\n"
    assert tool.view("writer", "/memories/crlf.md").text.endswith("     3\ttwo")


def test_a_huge_file_a_person_left_is_not_read(tmp_path: Path, workspace: Path) -> None:
    service = MemoryService(workspace, history=History(tmp_path / "h.jsonl"), max_file_bytes=1000)
    (workspace / "memory/writer/dump.md").write_bytes(b"x" * (service.read_limit + 1))
    result = MemoryTool(service).view("writer", "/memories/dump.md")
    assert result.refusal is not None
    assert result.refusal.code.value == "too-large"
    assert "is 1,048,577 bytes, more than the memory tool reads (1,048,576)" in result.text
    listing = MemoryTool(service).view("writer", "/memories")
    assert "/memories/dump.md — " + "x" * 119 + "… (today)" in listing.text


def test_the_lowest_layer_refuses_names_the_upper_ones_would_never_pass(workspace: Path) -> None:

    folders = MemoryFolders(workspace)
    with pytest.raises(ValueError, match="not a scope name"), folders.open(".."):
        pass
    with folders.open("writer") as folder:
        assert folder is not None
        for bad in ("../agents/writer.md", ".x.md", "a/b.md", "x.txt"):
            with pytest.raises(ValueError, match="not a memory file name"):
                folder.read(bad)
            with pytest.raises(ValueError, match="not a memory file name"):
                folder.write_atomic(bad, b"x")
