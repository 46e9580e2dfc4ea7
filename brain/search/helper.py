"""The embedding helper process: `python -m brain.search.helper`, one per server.

Embedding a workspace is seconds to minutes of numpy work. Run in the serving process it
holds the GIL between matrix products and doubled the web UI's first answers (1.41 s for
the first memory list against 0.62 s without it); a lower thread priority does not help,
because the contention is for the GIL, not the cores. So the server starts this process
lazily, at the lowest CPU priority (nice 19), and sends it texts; it answers with raw
float32 vectors (no JSON floats), looking each text up in the shared vector cache
(brain/search/embedding.py) and computing only the misses.

Frames on stdin/stdout: a 4-byte big-endian length, then that many bytes. A request is a JSON
list of texts; an answer is a JSON header (`{"count", "dims", "embedded"}` or `{"error"}`)
framed, followed by `count * dims * 4` bytes of vectors. The first frame the helper writes is
`{"model": name}` once the model is loaded, or `{"error": why}` if it cannot be. End of input
(the server closed the pipe or died) ends the helper: it never outlives its server.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import struct
import sys
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from brain.search.embedding import MiniLMEncoder, VectorCache

HEADER = struct.Struct(">I")
MAX_FRAME = 64 * 1024 * 1024  # a request of 64 texts of 2,000 characters is ~130 KB


def read_frame(stream: IO[bytes]) -> bytes | None:
    """One frame, or None at end of input."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    if size > MAX_FRAME:
        raise ValueError(f"a frame of {size} bytes is past the {MAX_FRAME}-byte limit")
    data = stream.read(size)
    if len(data) < size:
        return None
    return data


def write_frame(stream: IO[bytes], data: bytes) -> None:
    stream.write(HEADER.pack(len(data)) + data)


def serve(stdin: IO[bytes], stdout: IO[bytes]) -> int:
    from brain.search.embedding import VectorCache, load_encoder

    encoder, reason = load_encoder()
    if encoder is None:
        write_frame(stdout, json.dumps({"error": reason}).encode())
        stdout.flush()
        return 1
    cache = VectorCache(encoder.name)
    write_frame(stdout, json.dumps({"model": encoder.name, "dims": encoder.dimensions}).encode())
    stdout.flush()
    try:
        while (frame := read_frame(stdin)) is not None:
            texts = json.loads(frame)
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                write_frame(stdout, json.dumps({"error": "a request is a JSON list of texts"}).encode())
                stdout.flush()
                continue
            vectors, embedded = embed_cached(encoder, cache, texts)
            header = {"count": len(texts), "dims": encoder.dimensions, "embedded": embedded}
            write_frame(stdout, json.dumps(header).encode())
            stdout.write(b"".join(vectors))
            stdout.flush()
    finally:
        cache.close()
    return 0


def embed_cached(encoder: MiniLMEncoder, cache: VectorCache, texts: list[str]) -> tuple[list[bytes], int]:
    """Each text's vector as float32 bytes, from the cache where it has them; and the misses."""
    from brain.search.embedding import text_key

    keys = [text_key(t) for t in texts]
    known = cache.get_arrays(keys)
    first = {key: i for i, key in reversed(list(enumerate(keys)))}  # a repeated text once
    misses = [i for key, i in first.items() if key not in known]
    if misses:
        fresh = encoder.encode_bytes([texts[i] for i in misses])
        rows = [(keys[i], vector) for i, vector in zip(misses, fresh, strict=True)]
        cache.put_arrays(rows)
        known.update(rows)
    return [known[key] for key in keys], len(misses)


def main() -> int:
    # The server decides when this process stops (it closes our stdin); a Ctrl-C at the
    # terminal reaches the whole process group and must not kill us mid-answer.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(19)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the frames
    try:
        return serve(stdin, stdout)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
