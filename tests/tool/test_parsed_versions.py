"""What each kept version parses to is kept once, by its writer, and read by the diff.

Planted bugs, each seen to fail: keep_versions not adding the summary (the first test), the
append opened write-only (after a torn line its pread fails and nothing more is kept: the
second).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from brain.tool.access import Actor
from brain.tool.calls.tool import MemoryTool
from brain.tool.diff.query import memory_changes
from brain.tool.history.parsed import ParsedVersions, default_parsed_path, parse_version
from brain.tool.service import MemoryService
from tests.tool.conftest import NOW

TEXT = "---\ndescription: Plan.\n---\n\n# Plan\n\nsee [[nowhere]] and [[house-style]]\n"


def test_a_write_keeps_what_its_versions_parse_to_and_the_diff_reads_it(workspace: Path) -> None:
    service = MemoryService(workspace, clock=lambda: NOW)
    payload = {"command": "create", "path": "/memories/plan.md", "file_text": TEXT}
    result = MemoryTool(service).run("writer", payload)
    assert result.ok, result.text
    path = default_parsed_path(service.blobs.directory)
    [line] = [json.loads(raw) for raw in path.read_text().splitlines()]
    assert line == {"d": result.hash, "l": [["nowhere", 7], ["house-style", 7]], "p": []}
    fresh = ParsedVersions(path)
    fresh.load()
    assert fresh.get(str(result.hash)) == parse_version(TEXT.encode())
    # The blobs gone (retention), what they parsed to still answers the links.
    shutil.rmtree(service.blobs.directory)
    found = memory_changes(MemoryService(workspace, clock=lambda: NOW), Actor.admin(), "1h")
    assert found["links"]["broken"] == [{"source": "memory/writer/plan.md", "target": "nowhere", "line": 7}]
    assert found["notKept"] == []


def test_a_torn_or_foreign_line_is_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "parsed-v1.jsonl"
    digest = "a" * 64
    path.write_text(
        json.dumps({"d": digest, "l": [["x", "not a line"]], "p": []}, separators=(",", ":")) + "\n"
        + '{"d":"' + "b" * 64 + '","l":[["y",1]'  # torn: no end, no newline
    )
    versions = ParsedVersions(path)
    versions.load()
    assert versions.get(digest) is None  # parsed again from its blob instead
    assert versions.get("b" * 64) is None
    assert versions.add(digest, b"[[z]]\n").links == {"z": 1}
    again = ParsedVersions(path)
    again.load()
    assert again.get(digest) == parse_version(b"[[z]]\n")  # the later, good line wins


def test_a_fifo_in_its_place_is_never_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "parsed-v1.jsonl"
    os.mkfifo(path)
    versions = ParsedVersions(path)
    versions.load()  # would block forever on a FIFO
    assert versions.add("c" * 64, b"[[q]]\n").links == {"q": 1}  # still answered, not kept
