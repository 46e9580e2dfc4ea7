"""Plain files as nodes (space): binary or text, media type, and what the secret scan reads.

Binary is what the seed calls binary: a NUL byte, or bytes that are not UTF-8. Such a file is
metadata in the graph (size, media type, hash, age), never an encoding error.
"""

from __future__ import annotations

import mimetypes

from brain.model import FileNode
from brain.workspace import FileRole

#: A text file larger than this is not scanned for secrets: the scan is linear but a
#: multi-megabyte log would dominate an ingest. Notes are always scanned.
SECRET_SCAN_MAX_BYTES = 1 << 20

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
)


def is_binary(raw: bytes) -> bool:
    if b"\x00" in raw:
        return True
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def media_type(name: str, raw: bytes, binary: bool) -> str:
    """By the content's magic bytes for the common binary formats, else by extension."""
    for magic, kind in _MAGIC:
        if raw.startswith(magic):
            return kind
    if name.lower().endswith(".md"):  # not in every Python's or system's mime table
        return "text/markdown"
    guessed, _ = mimetypes.guess_type(name, strict=False)
    if guessed:
        return guessed
    return "application/octet-stream" if binary else "text/plain"


def file_node(role: FileRole, rel: str, raw: bytes, digest: str, mtime: float) -> FileNode:
    binary = is_binary(raw)
    return FileNode(
        scope=role.scope, name=role.name, path=rel, size=len(raw),
        media_type=media_type(role.name, raw, binary), binary=binary, hash=digest,
        modified_at=mtime,
    )
