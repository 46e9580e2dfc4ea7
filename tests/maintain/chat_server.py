"""A local OpenAI-compatible chat-completions server that a test scripts turn by turn.

A real HTTP server (http.server on a loopback port, in a thread) speaking the real protocol:
`POST /v1/chat/completions` with `model`, `messages`, `tools`; it answers the next scripted
reply as a `chat.completion` object with `tool_calls` and `usage`, and keeps every request
it received so the test can read what the client sent back (the tool results).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]] | bytes | int


def tool_call(
    arguments: dict[str, Any] | str, name: str = "memory", call_id: str | None = None
) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "id": call_id or f"call_{abs(hash(text)) % 10**8}",
        "type": "function",
        "function": {"name": name, "arguments": text},
    }


def calls(*items: dict[str, Any]) -> dict[str, Any]:
    """A reply of tool calls: each item is `tool_call(...)` or the memory tool's arguments."""
    made = [i if "function" in i else tool_call(i) for i in items]
    return {"role": "assistant", "content": None, "tool_calls": made}


def final(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


@dataclass
class ChatServer:
    url: str
    script: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def tool_results(self) -> list[str]:
        """The tool messages of the last request (what the client answered to the last calls)."""
        if not self.requests:
            return []
        return [m["content"] for m in self.requests[-1]["messages"] if m.get("role") == "tool"]


@contextmanager
def chat_server(
    script: list[Reply], *, repeat_last: bool = False, error_body: bytes | None = None
) -> Iterator[ChatServer]:
    state = ChatServer("", list(script))
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            if self.path != "/v1/chat/completions":
                self._send(404, b'{"error": {"message": "not found"}}')
                return
            with lock:
                state.requests.append(body)
                state.headers.append(dict(self.headers))
                if state.script:
                    reply = (
                        state.script.pop(0) if (len(state.script) > 1 or not repeat_last) else state.script[0]
                    )
                else:
                    reply = final("(script ended)")
            if callable(reply):
                reply = reply(body)
            if isinstance(reply, int):
                self._send(reply, error_body or b'{"error": {"message": "scripted failure"}}')
                return
            if isinstance(reply, bytes):
                self._send(200, reply)
                return
            answer = {
                "id": f"chatcmpl-{len(state.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "message": reply,
                        "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop",
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            }
            self._send(200, json.dumps(answer).encode())

        def _send(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
