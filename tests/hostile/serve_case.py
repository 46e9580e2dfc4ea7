"""`brain serve` on a workspace holding hostile files, as a user would run it; run budgeted.

`python -c "from tests.hostile.serve_case import main; main()" WORKSPACE` starts the server,
waits for its ready line, asks /healthz and /graphql, drops a deep JSON file and an alias
bomb into the live workspace (the watcher picks them up), asks again, then sends SIGTERM and
times the exit. Prints one JSON object of what it saw.
"""

from __future__ import annotations

import json
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.hostile.budget import brain_argv
from tests.hostile.corpus import checked_in, deep_json

READY = re.compile(r"ready on (\S+)")
QUERY = "{ problems(first: 100) { nodes { path code } } }"


def wait_ready(proc: subprocess.Popen[str], seconds: float) -> str | None:
    assert proc.stdout is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if select.select([proc.stdout], [], [], 0.2)[0]:
            found = READY.search(proc.stdout.readline())
            if found:
                return found.group(1).removesuffix("/graphql").rstrip("/")
        if proc.poll() is not None:
            return None
    return None


def problems(http: httpx.Client) -> tuple[int, list[tuple[str, str]]]:
    response = http.post("/graphql", json={"query": QUERY})
    if response.status_code != 200:
        return response.status_code, []
    nodes = response.json()["data"]["problems"]["nodes"]
    return 200, sorted((n["path"], n["code"]) for n in nodes)


def main() -> None:
    root = Path(sys.argv[1])
    out: dict[str, Any] = {}
    started = time.monotonic()
    proc = subprocess.Popen(
        brain_argv(["serve", str(root), "--port", "0"]),
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    base = wait_ready(proc, 30)
    out["ready_seconds"] = round(time.monotonic() - started, 2) if base else None
    if base is not None:
        with httpx.Client(base_url=base, timeout=10) as http:
            out["healthz"] = http.get("/healthz").status_code
            out["at_start"] = problems(http)
            (root / "workflows" / "deep-live.json").write_bytes(deep_json())
            (root / "memory" / "shared" / "lol-live.md").write_bytes(checked_in("billion-laughs.md"))
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                status, found = problems(http)
                out["live"] = (status, found)
                if status != 200 or len(found) >= 4:
                    break
                time.sleep(0.2)
            out["healthz_after"] = http.get("/healthz").status_code
    stopped = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
        out["sigterm_seconds"] = round(time.monotonic() - stopped, 2)
    except subprocess.TimeoutExpired:
        out["sigterm_seconds"] = None
        proc.kill()
        proc.wait()
    print(json.dumps(out))
