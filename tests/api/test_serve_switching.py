"""`brain serve` hands the GIL between its threads every millisecond, not every 5 ms
(brain/api/http/switching.py): read in the real serving process, once it answers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from brain.api.http.switching import SWITCH_INTERVAL

# Runs `brain serve` as the CLI does, with one thread that asks /healthz until the server
# answers, then prints the process's switch interval and stops the server with SIGINT.
PROBE = """
import os, signal, sys, threading, time, urllib.request
from brain.cli.main import main

def probe():
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(sys.argv[1], timeout=5).read()
            break
        except OSError:
            time.sleep(0.1)
    print(f"switch interval: {sys.getswitchinterval()!r}", flush=True)
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=probe, daemon=True).start()
sys.exit(main(["serve", sys.argv[2], "--port", sys.argv[3]]))
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_the_serving_process_switches_threads_every_millisecond(workspace: Path) -> None:
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, f"http://127.0.0.1:{port}/healthz", str(workspace), str(port)],
        capture_output=True, text=True, timeout=180, env={**os.environ, "BRAIN_SEMANTIC": "off"},
    )
    assert done.returncode == 0, done.stderr
    assert f"switch interval: {SWITCH_INTERVAL!r}" in done.stdout.splitlines(), done.stdout
    assert SWITCH_INTERVAL < 0.005  # below Python's default
