"""A real `brain serve` in a subprocess with a hard memory limit, for hostile API cases.

The hostile suite must fail, not hang or take the machine down, when a limit regresses: the
server runs as its own process under `RLIMIT_AS`, every request has a time budget, and after
(and during) every case `/healthz` and an ordinary query must still answer within a budget.
`peak_rss()` reads the kernel's high-water mark (VmHWM) so benchmarks can report it.
"""

from __future__ import annotations

import json
import os
import re
import resource
import select
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

READY = re.compile(r"ready on (http://127\.0\.0\.1:\d+/graphql)")
MEMORY_LIMIT = 3 * 1024**3  # address space of the server process (threads reserve some)
PROBE_BUDGET = 5.0  # seconds for /healthz or an ordinary query; generous: the CI machine is shared
ADMIN_TOKEN = "admin-token-0123456789"
AGENT_TOKEN = "bot-token-0123456789"
ORDINARY = "{ stats { memories agents } }"


@dataclass
class HostileServer:
    process: subprocess.Popen[str]
    url: str  # .../graphql
    log: Path  # the server's stderr: a file, since a pipe nobody reads would block the server

    @property
    def base(self) -> str:
        return self.url.removesuffix("/graphql")

    @property
    def ws(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    def peak_rss(self) -> int:
        """The server's peak resident set size in bytes (VmHWM)."""
        return _status_kib(self.process.pid, "VmHWM") * 1024

    def rss(self) -> int:
        return _status_kib(self.process.pid, "VmRSS") * 1024

    def alive(self) -> bool:
        return self.process.poll() is None

    def stderr_tail(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-4000:]


def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _limit_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def write_tokens(path: Path) -> Path:
    path.write_text(json.dumps({ADMIN_TOKEN: "*", AGENT_TOKEN: "bot"}), encoding="utf-8")
    return path


@contextmanager
def hostile_server(
    workspace: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    memory_limit: int = MEMORY_LIMIT,
) -> Iterator[HostileServer]:
    """`brain serve workspace --port 0` under a memory limit; killed at the end."""
    log = workspace.parent / f"serve-{time.monotonic_ns()}.log"
    stderr = log.open("w", encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "serve", str(workspace), "--port", "0", *args],
        stdout=subprocess.PIPE, stderr=stderr, text=True,
        # Few malloc arenas: each thread's arena reserves 64 MB of address space otherwise.
        env={**os.environ, "MALLOC_ARENA_MAX": "2", **(env or {})},
        preexec_fn=lambda: _limit_memory(memory_limit),
    )
    try:
        yield HostileServer(process, _wait_for_url(process, log), log)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        stderr.close()
        if process.stdout is not None:
            process.stdout.close()


def _wait_for_url(process: subprocess.Popen[str], log: Path, timeout: float = 60.0) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.1)
        if ready:
            found = READY.search(process.stdout.readline())
            if found:
                return found.group(1)
        if process.poll() is not None:
            raise AssertionError(f"brain serve exited early: {log.read_text()[-4000:]}")
    raise AssertionError("brain serve never printed its URL")


def probe(server: HostileServer, token: str | None = ADMIN_TOKEN, budget: float = PROBE_BUDGET) -> None:
    """`/healthz` and an ordinary query answer within `budget` seconds each (nothing blocks)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        health = httpx.get(f"{server.base}/healthz", timeout=budget)
        answer = httpx.post(server.url, json={"query": ORDINARY}, headers=headers, timeout=budget)
    except httpx.TimeoutException as exc:
        raise AssertionError(f"the server did not answer within {budget} s: it is blocked") from exc
    except httpx.TransportError as exc:
        raise AssertionError(f"the server is gone: {exc}; {server.stderr_tail()}") from exc
    assert health.status_code == 200, health.text
    assert answer.status_code == 200, answer.text
    assert "errors" not in answer.json(), answer.text
