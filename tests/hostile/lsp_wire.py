"""A raw JSON-RPC client for `brain lsp` over stdio: it can send what no proper client would.

pytest-lsp structures and validates what it sends, so it cannot send a position of -1, a
message nested 100,000 deep or a Content-Length of a gigabyte; this client writes bytes. It
is used by scripts that run in a budgeted child (tests/hostile/budget.py), so the server it
starts inherits the child's memory limit and dies with it.
"""

from __future__ import annotations

import json
import os
import resource
import select
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.hostile.budget import brain_argv


def server_argv() -> list[str]:
    return brain_argv(["lsp"])


class Wire:
    def __init__(self, cwd: Path, argv: list[str] | None = None, memory: int | None = None) -> None:
        limit = (lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory))) if memory else None
        self.proc = subprocess.Popen(
            argv or server_argv(), cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=limit,
            stderr=open(cwd / "server.log", "wb"),  # noqa: SIM115 - lives as long as the server
        )
        self.buffer = b""
        self.next_id = 0
        self.notifications: list[dict[str, Any]] = []
        self.responses: dict[Any, dict[str, Any]] = {}

    # ------------------------------------------------------------------ sending

    def send_body(self, body: bytes, length: int | None = None) -> None:
        assert self.proc.stdin is not None
        header = f"Content-Length: {len(body) if length is None else length}\r\n\r\n".encode()
        self.proc.stdin.write(header + body)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_body(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def request(self, method: str, params: Any = None) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    # ------------------------------------------------------------------ receiving

    def _read_message(self, deadline: float) -> dict[str, Any] | None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                headers = self.buffer[:end].decode("ascii", "replace").split("\r\n")
                length = next(int(h.split(":")[1]) for h in headers if h.lower().startswith("content-length"))
                if len(self.buffer) >= end + 4 + length:
                    body = self.buffer[end + 4 : end + 4 + length]
                    self.buffer = self.buffer[end + 4 + length :]
                    message: dict[str, Any] = json.loads(body)
                    return message
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None
                self.buffer += chunk

    def response(self, request_id: Any, seconds: float = 10.0) -> dict[str, Any] | None:
        """The response to `request_id`, collecting notifications on the way; None: none came."""
        deadline = time.monotonic() + seconds
        while request_id not in self.responses:
            message = self._read_message(deadline)
            if message is None:
                return None
            if "id" in message and "method" not in message:
                self.responses[message["id"]] = message
            elif "method" in message and "id" in message:  # a request from the server: accept it
                self.send({"id": message["id"], "result": None})
            else:
                self.notifications.append(message)
        return self.responses.pop(request_id)

    def call(self, method: str, params: Any = None, seconds: float = 10.0) -> dict[str, Any] | None:
        return self.response(self.request(method, params), seconds)

    def diagnostics(self, uri: str, seconds: float = 10.0) -> list[dict[str, Any]] | None:
        """The latest diagnostics published for `uri` within `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            for note in reversed(self.notifications):
                if note.get("method") == "textDocument/publishDiagnostics" and note["params"]["uri"] == uri:
                    found: list[dict[str, Any]] = note["params"]["diagnostics"]
                    return found
            message = self._read_message(deadline)
            if message is None:
                return None
            if "method" in message and "id" in message:
                self.send({"id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)
            else:
                self.responses[message["id"]] = message

    # ------------------------------------------------------------------ session

    def initialize(self, root: Path) -> dict[str, Any] | None:
        result = self.call("initialize", {
            "processId": None, "rootUri": root.as_uri(), "capabilities": {},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        }, seconds=30)
        self.notify("initialized", {})
        return result

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {
            "textDocument": {"uri": uri, "languageId": "markdown", "version": version, "text": text},
        })

    def close(self) -> None:
        try:
            self.call("shutdown", None, seconds=5)
            self.notify("exit")
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
