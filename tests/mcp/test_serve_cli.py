"""`brain serve` as users start it: the printed MCP URL answers, under the tokens file."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.mcp.conftest import TOKENS, http_session

MCP_LINE = re.compile(r"MCP \(streamable HTTP\) at (http://127\.0\.0\.1:\d+)/mcp")


async def test_brain_serve_prints_and_serves_mcp(workspace: Path, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS), encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", str(workspace), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "BRAIN_TOKENS_FILE": str(tokens)},
    )
    try:
        assert process.stdout is not None
        base = None
        deadline = time.monotonic() + 60
        while base is None and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 0.2)[0]:
                line = process.stdout.readline()
                if "ready on" in line:  # the UI and MCP lines come with it: already buffered
                    for _ in range(3):
                        found = MCP_LINE.search(process.stdout.readline())
                        if found:
                            base = found.group(1)
                            break
                    assert base, line
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert base is not None, "brain serve never printed its MCP URL"
        async with http_session(base, "writer-token") as session:
            ok, text = await session.memory(command="view", path="/memories/house-style.md")
        assert ok
        assert text.startswith("/memories/house-style.md (10 lines):")
    finally:
        process.terminate()
        process.wait(15)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
