"""`brain serve` as users start it, for the history tests that reach it over HTTP and MCP.

Its log goes to a file beside the tokens file: a pipe nobody reads fills (the Neo4j driver's
notices, a busy first sync) and stops the server mid-request.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MCP_LINE = re.compile(r"MCP \(streamable HTTP\) at (http://127\.0\.0\.1:\d+)/mcp")


@contextmanager
def serving(root: Path, tokens: Path, *args: str) -> Iterator[str]:
    """`brain serve ROOT ARGS` with the tokens file; yields its base URL once it says it is ready."""
    log_path = tokens.parent / "serve.log"
    with log_path.open("a") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "brain", "serve", str(root), "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=log, text=True,
            env={**os.environ, "BRAIN_TOKENS_FILE": str(tokens)},
        )
        try:
            assert process.stdout is not None
            base = None
            deadline = time.monotonic() + 180
            while base is None and time.monotonic() < deadline:
                if select.select([process.stdout], [], [], 0.2)[0]:
                    line = process.stdout.readline()
                    if "ready on" in line:
                        for _ in range(3):
                            found = MCP_LINE.search(process.stdout.readline())
                            if found:
                                base = found.group(1)
                                break
                assert process.poll() is None, log_path.read_text()[-3000:]
            assert base is not None, f"brain serve never became ready: {log_path.read_text()[-3000:]}"
            yield base
        finally:
            process.terminate()
            process.wait(30)
            if process.stdout is not None:
                process.stdout.close()
