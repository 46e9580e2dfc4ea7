"""MCP's stdio transport with limits: a line is at most `max_line_bytes`, nested at most
`MAX_DEPTH`, and every line that is not a message is answered, not dropped.

The SDK's transport read a line whole however long it was (a 200 MB line took about 800 MB),
and what did not parse was handed to the session as an exception, which logs it at debug
level and answers nothing: a client that sent a message nested 100,000 deep, or one with a
lone surrogate escape (`\\ud800`, which pydantic refuses), waited for ever. Here:

- a line is read in chunks of at most the cap (`readline(limit)`): one over the cap is read
  on and dropped as it arrives, never held whole, and answered -32600 (to its id if its first
  bytes show one); the next line is served as usual;
- not UTF-8, not JSON, or a lone surrogate: -32700; nested past MAX_DEPTH (measured before
  it is parsed, brain/parse/safejson.py), or JSON that is not a JSON-RPC message: -32600.

The cap is BRAIN_MAX_BODY_BYTES (1 MiB by default), as for an HTTP request body; the depth
is HTTP's (brain/api/http/jsonbody.py). As in the SDK, while it serves, fd 0 reads the null device
and fd 1 writes to stderr, so nothing a handler prints can corrupt the messages.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from brain.api.http.jsonbody import MAX_JSON_DEPTH
from brain.parse import safejson

log = logging.getLogger("brain.mcp")

MAX_DEPTH = MAX_JSON_DEPTH
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
Outgoing = SessionMessage | bytes  # a message of the server's, or an error line of the transport's


class LineTooLong(Exception):
    def __init__(self, head: bytes) -> None:
        super().__init__("line too long")
        self.head = head


def read_line(stream: IO[bytes], limit: int) -> bytes | None:
    """The next line (without its newline), None at end of input; raises LineTooLong after
    reading past a line longer than `limit`, holding no more than `limit` bytes of it."""
    line = stream.readline(limit + 1)
    if not line:
        return None
    if line.endswith(b"\n"):
        return line[:-1]
    if len(line) <= limit:
        return line  # the last line, without a newline
    head = line[:4096]
    while True:  # drop the rest as it comes
        more = stream.readline(limit)
        if not more or more.endswith(b"\n"):
            raise LineTooLong(head)


def error_line(msg_id: Any, code: int, message: str) -> bytes:
    body = {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
    return json.dumps(body).encode() + b"\n"


def parse(line: bytes) -> types.JSONRPCMessage | bytes:
    """The message on one line, or the error line that answers it."""
    try:
        text = line.decode("utf-8")
        safejson.check_depth(text, MAX_DEPTH)
    except UnicodeDecodeError as exc:
        return error_line(safejson.recover_id(line), PARSE_ERROR,
                          f"parse error: the line is not UTF-8 (byte {exc.start}): send UTF-8 JSON")
    except safejson.JSONBudgetError as exc:
        return error_line(safejson.recover_id(line), INVALID_REQUEST,
                          f"message refused: {exc.message}; no MCP message needs that many")
    try:
        message: types.JSONRPCMessage = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        return message
    except ValueError as exc:  # pydantic's ValidationError is one
        return error_line(*_diagnose(text, exc))


def _diagnose(text: str, exc: ValueError) -> tuple[Any, int, str]:
    try:
        data = json.loads(text)  # Python's parser: the same JSON, and it takes lone surrogates
    except ValueError as bad:
        return safejson.recover_id(text.encode()), PARSE_ERROR, f"parse error: not JSON ({bad})"
    msg_id = data.get("id") if isinstance(data, dict) else None
    msg_id = msg_id if isinstance(msg_id, int | str) else None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as bad:
        return msg_id, PARSE_ERROR, (
            f"parse error: a string holds a lone surrogate (U+{ord(bad.object[bad.start]):04X}), "
            "which is not Unicode text: send UTF-8 text"
        )
    first = str(exc).splitlines()
    reason = " ".join(first[1:3]).strip()[:300] if len(first) > 1 else str(exc)[:300]
    return msg_id, INVALID_REQUEST, f"invalid request: not a JSON-RPC 2.0 message ({reason})"


@asynccontextmanager
async def capped_stdio(
    max_line_bytes: int,
) -> AsyncIterator[tuple[MemoryObjectReceiveStream[SessionMessage | Exception],
                         MemoryObjectSendStream[Outgoing]]]:
    """(read stream, write stream) over this process's stdin and stdout, for `Server.run`."""
    in_fd, out_fd = _claim()
    stdin = os.fdopen(in_fd, "rb", closefd=False)
    stdout = os.fdopen(out_fd, "wb", closefd=False)
    to_server, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, outgoing = anyio.create_memory_object_stream[Outgoing](16)
    errors = write_stream.clone()

    async def reader() -> None:
        lines_in, lines = anyio.create_memory_object_stream[bytes | LineTooLong | None](4)
        _pump(stdin, max_line_bytes, lines_in, anyio.lowlevel.current_token())
        async with lines, to_server, errors:
            async for line in lines:
                if line is None:
                    return
                if isinstance(line, LineTooLong):
                    log.warning("an MCP message over %d bytes: dropped", max_line_bytes)
                    await errors.send(error_line(
                        safejson.recover_id(line.head), INVALID_REQUEST,
                        f"message refused: longer than {max_line_bytes:,} bytes "
                        "(BRAIN_MAX_BODY_BYTES): send less",
                    ))
                    continue
                if not line.strip():
                    continue
                parsed = parse(line)
                if isinstance(parsed, bytes):
                    log.warning("a line that is not an MCP message: %s", parsed.decode()[:300].strip())
                    await errors.send(parsed)
                else:
                    await to_server.send(SessionMessage(parsed))

    async def writer() -> None:
        async with outgoing:
            async for item in outgoing:
                data = item if isinstance(item, bytes) else (
                    item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
                )
                await anyio.to_thread.run_sync(_write, stdout, data)

    reading = anyio.CancelScope()

    async def read_until_stopped() -> None:
        with reading:
            await reader()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_until_stopped)
            tg.start_soon(writer)
            try:
                yield read_stream, write_stream
            finally:  # the server is done: stop reading, write what is queued, and end
                reading.cancel()
                await write_stream.aclose()
    finally:
        _release(in_fd, out_fd)


def _pump(
    stdin: IO[bytes], limit: int, into: MemoryObjectSendStream[bytes | LineTooLong | None],
    token: anyio.lowlevel.EventLoopToken,
) -> None:
    """Read lines on a daemon thread of its own, handing each to the loop (None: the end).
    Not anyio's worker threads: those are joined at exit, so a server stopped by Ctrl-C while
    its client kept stdin open waited for ever (the SDK's transport did too)."""

    def pump() -> None:
        while True:
            item: bytes | LineTooLong | None
            try:
                item = read_line(stdin, limit)
            except LineTooLong as long:
                item = long
            except (OSError, ValueError):
                item = None
            try:
                anyio.from_thread.run(into.send, item, token=token)
            except Exception:  # the loop is gone or stopped reading: nobody wants more lines
                return
            if item is None:
                return

    threading.Thread(target=pump, name="brain-mcp-stdin", daemon=True).start()


def _write(stream: IO[bytes], data: bytes) -> None:
    stream.write(data)
    stream.flush()


def _claim() -> tuple[int, int]:
    """Private copies of fds 0 and 1 for the wire; 0 then reads the null device, 1 writes to 2."""
    in_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    out_fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    return in_fd, out_fd


def _release(in_fd: int, out_fd: int) -> None:
    """Fds 0 and 1 back on the wire. The copies stay open: a reading thread may still block on
    one, and a closed number could be reused under it."""
    with contextlib.suppress(OSError):
        os.dup2(in_fd, 0)
        os.dup2(out_fd, 1)
