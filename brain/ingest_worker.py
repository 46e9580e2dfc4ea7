"""A helper process of a big ingest: parses the memory files it is sent, chunk by chunk.

Started by brain.parse_helpers. On stdin: a frame with the note rules, then frames that each
hold a chunk of files, until stdin closes; on stdout, one frame of results a chunk, as soon as
it is parsed. A frame is its length (8 bytes, little-endian) and a pickle: both ends are the
same brain install. One chunk at a time is held, so a helper's memory does not grow with the
workspace.
"""

from __future__ import annotations

import gc
import pickle
import sys
from typing import IO

_LENGTH = 8


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    stream.write(len(payload).to_bytes(_LENGTH, "little"))
    stream.write(payload)


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame's payload; None at the end of the stream. Raises EOFError if cut short."""
    head = stream.read(_LENGTH)
    if not head:
        return None
    if len(head) != _LENGTH:
        raise EOFError("a frame's length was cut short")
    size = int.from_bytes(head, "little")
    payload = stream.read(size)
    if len(payload) != size:
        raise EOFError("a frame was cut short")
    return payload


def main() -> int:
    # Imported here: the parent imports this module for the frames, not for parsing.
    from brain.memory_files import MemoryFile, NoteRules, build_memory

    gc.disable()  # a short-lived process of acyclic data: collections would only cost time
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    first = read_frame(stdin)
    if first is None:
        return 0
    rules: NoteRules | None = pickle.loads(first)
    while (frame := read_frame(stdin)) is not None:
        files: list[MemoryFile] = pickle.loads(frame)
        result = [build_memory(*f, rules=rules) for f in files]
        write_frame(stdout, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
