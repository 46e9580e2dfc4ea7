"""`brain mcp` on stdio with hostile lines: each is answered with a JSON-RPC error that says
why, memory stays put, and the next line is served (brain/mcp/transports/stdio_wire.py).

Before: the SDK's transport read a line whole (a 200 MB line took about 800 MB), and a line
it could not parse (nested 100,000 deep, a lone surrogate, not JSON) got no answer at all.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import build_workspace

ANSWER_BUDGET = 60.0  # seconds to wait for one answer: generous, the machine is shared
CAP = 1024 * 1024  # BRAIN_MAX_BODY_BYTES's default
IGNORE_SIGINT_THEN_EXEC = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


class Wire:
    """A raw client: writes bytes as lines, reads the server's lines."""

    def __init__(self, workspace: Path, *, sigint_ignored: bool = False) -> None:
        env = {**os.environ, "BRAIN_STORE": "memory", "MALLOC_ARENA_MAX": "2"}
        # What started it may have ignored SIGINT (a background job, a CI runner): an exec
        # keeps that, so a wrapper that ignores it and execs stands for such a parent.
        start = [sys.executable, "-c", IGNORE_SIGINT_THEN_EXEC] if sigint_ignored else [sys.executable]
        self.proc = subprocess.Popen(
            [*start, "-m", "brain", "mcp", str(workspace), "--agent", "writer"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        try:
            message: dict[str, Any] = json.loads(self.lines.get(timeout=ANSWER_BUDGET))
        except queue.Empty:
            raise AssertionError("no answer: the line was dropped unanswered") from None
        return message

    def peak_rss(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        return 0


@pytest.fixture
def wire(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Wire]:
    yield from _serving(tmp_path, sigint_ignored=getattr(request, "param", False))


@pytest.fixture(scope="module")
def shared_wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    """One server for the tests that only send it lines: each ends by checking the next line
    is served, so a line that broke it fails its own test. (A start is ~1 s of CPU and more
    under load; the peak-memory and Ctrl-C tests keep a process of their own.)"""
    yield from _serving(tmp_path_factory.mktemp("shared"))


def _serving(tmp_path: Path, sigint_ignored: bool = False) -> Iterator[Wire]:
    live = Wire(build_workspace(tmp_path / "ws"), sigint_ignored=sigint_ignored)
    try:
        live.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "0"},
        }}).encode())
        assert "result" in live.answer()
        live.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        yield live
    finally:
        live.proc.kill()
        live.proc.wait(10)


def request(msg_id: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()


def still_serving(wire: Wire, msg_id: int) -> None:
    wire.send(request(msg_id, "ping", {}))
    assert wire.answer() == {"jsonrpc": "2.0", "id": msg_id, "result": {}}


def test_a_line_over_the_cap_is_answered_and_never_held_whole(wire: Wire) -> None:
    before = wire.peak_rss()
    line = request(7, "ping", {"pad": "x" * (96 * CAP)})  # 96 MiB, one line
    wire.send(line)
    answer = wire.answer()
    assert answer["id"] == 7
    assert answer["error"]["code"] == -32600
    assert "longer than 1,048,576 bytes (BRAIN_MAX_BODY_BYTES)" in answer["error"]["message"]
    assert wire.peak_rss() - before < 48 * CAP, "the line was held whole"
    still_serving(wire, 8)


@pytest.mark.parametrize(("line", "code", "says"), [
    (b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"a": ' + b"[" * 100_000
     + b"]" * 100_000 + b"}}", -32600, "nested 100,002 levels deep, over the limit of 32"),
    (b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"a": ' + b"[" * 33
     + b"]" * 33 + b"}}", -32600, "over the limit of 32"),
    (b"{nope", -32700, "not JSON"),
    (b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "x": "\xff"}', -32700, "not UTF-8"),
    (request(9, "tools/call", {"name": "memory_search", "arguments": {"query": "\ud800 friday"}}),
     -32700, "lone surrogate (U+D800)"),
    (b'{"hello": "world", "id": 9}', -32600, "not a JSON-RPC 2.0 message"),
])
def test_a_line_that_is_not_a_message_is_answered_and_the_next_is_served(
    shared_wire: Wire, line: bytes, code: int, says: str
) -> None:
    shared_wire.send(line)
    answer = shared_wire.answer()
    assert answer["error"]["code"] == code
    assert says in answer["error"]["message"]
    assert answer["id"] == (None if line == b"{nope" else 9)
    still_serving(shared_wire, 10)


@pytest.mark.parametrize("wire", [False, True], ids=["sigint-default", "sigint-ignored-by-parent"],
                         indirect=True)
def test_ctrl_c_stops_it_while_the_client_keeps_stdin_open(wire: Wire) -> None:
    """Its stdin is read on a daemon thread: a blocked read no longer holds the exit (with the
    SDK's transport the process never exited until the client closed the pipe). And it stops
    when what started it ignored SIGINT (brain/mcp/transports/stdio.py stop_on_ctrl_c): the
    fresh-clone CI's runner did, its pytest-xdist workers and every `brain mcp` they started
    inherited it, and the test waited out its 60 s."""
    still_serving(wire, 1)
    wire.proc.send_signal(signal.SIGINT)
    try:
        code = wire.proc.wait(ANSWER_BUDGET)
    except subprocess.TimeoutExpired:
        raise AssertionError("brain mcp did not exit on SIGINT while stdin was open") from None
    assert code == 130
