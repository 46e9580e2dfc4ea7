"""Reading LSP messages from stdin with limits: header lines, body size, and no blocking loop.

pygls's reader takes a Content-Length at its word (a 2 GB claim is read whole) and an
unbounded header line; here a header line is at most MAX_HEADER bytes and a body over
MAX_MESSAGE_BYTES is read in chunks and dropped (answered -32600), so memory stays bounded
and the next message is read from the right place. Reads run in a thread, as in pygls, so
the asyncio loop keeps serving while a large body arrives.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Protocol

from brain.lsp.protocol import INVALID_REQUEST, MAX_MESSAGE_BYTES, BrainProtocol
from brain.parse.safejson import recover_id

log = logging.getLogger("brain.lsp")

MAX_HEADER = 8192
CHUNK = 1 << 20
_CONTENT_LENGTH = re.compile(rb"^Content-Length:\s*(\d{1,15})\s*$", re.IGNORECASE)


class Reader(Protocol):
    """What the loop reads from: stdin, or stdin with its first message put back (prewalk.py)."""

    def readline(self, limit: int = -1, /) -> bytes: ...

    def read(self, size: int = -1, /) -> bytes: ...


async def read_loop(stdin: Reader, protocol: BrainProtocol, stop: asyncio.Event | None = None) -> None:
    loop = asyncio.get_running_loop()
    length: int | None = None
    while stop is None or not stop.is_set():
        header = await loop.run_in_executor(None, stdin.readline, MAX_HEADER)
        if not header:
            return  # the client closed stdin
        if not header.endswith(b"\n"):
            log.warning("a header line over %d bytes: skipped", MAX_HEADER)
            continue
        match = _CONTENT_LENGTH.match(header.strip())
        if match:
            length = int(match.group(1))
            continue
        if header.strip() or length is None:
            continue  # another header (Content-Type), or junk before a Content-Length
        size, length = length, None
        if size > MAX_MESSAGE_BYTES:
            head = await _discard(stdin, size)
            if head is None:
                return
            log.error("a message of %d bytes is over the limit of %d: dropped", size, MAX_MESSAGE_BYTES)
            protocol.send_error(recover_id(head), INVALID_REQUEST,
                                f"message of {size:,} bytes refused: the limit is {MAX_MESSAGE_BYTES:,}")
            continue
        body = await loop.run_in_executor(None, _read_exactly, stdin, size)
        if len(body) < size:
            return
        protocol.receive(body)


def _read_exactly(stdin: Reader, size: int) -> bytes:
    parts: list[bytes] = []
    left = size
    while left:
        chunk = stdin.read(left)
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


async def _discard(stdin: Reader, size: int) -> bytes | None:
    """Read `size` bytes and drop them; their first chunk (to find an id), None at end of input."""
    loop = asyncio.get_running_loop()
    left, head = size, b""
    while left:
        chunk = await loop.run_in_executor(None, stdin.read, min(left, CHUNK))
        if not chunk:
            return None
        head = head or chunk[:4096]
        left -= len(chunk)
    return head


