"""A snapshot of the graph and of what the ingester knows, so a restart reads only what changed.

Without it every `brain serve`, `brain lsp` or `brain check` parses the whole workspace again
(seconds at 10,000 notes, a minute at 100,000). The snapshot lives outside the workspace, in
the user's cache folder (`BRAIN_CACHE_DIR`, else `$XDG_CACHE_HOME/brain`, else
`~/.cache/brain`), one file per workspace named by a digest of its real path. After loading
it, the usual stat-and-hash rescan runs, so a file changed while brain was down is read.

It is never trusted blindly. The header names the workspace, the file format, brain's
version, a digest of brain's own code and of `brain.toml` (what changes parsing); a snapshot
of another workspace, of other code or settings is ignored, as is one whose length or
SHA-256 does not match (truncated, corrupt). The payload is msgpack, in columns decoded
against brain's own types (brain/snapshot/columns.py, brain/snapshot/rows.py): nothing in the file
picks a class or runs code. Whatever is wrong, one log line says so and the workspace is
read in full. The checksum and the sizes are verified before a byte of the payload is decoded
(decoding a crafted 10 MB payload cost 730 MB before its mismatch was found), and a snapshot
in a folder (or a file) someone else owns or others may write is not used at all
(brain/cachepaths.py: the checksum is no defence against whoever can rewrite the file).

File: MAGIC, u32 header length, header (JSON, space-padded), payload (msgpack values in
sequence), keyword index (its own image, brain/index/bm25.py).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import msgpack  # type: ignore[import-untyped]

from brain import __version__
from brain.ingest.ingester import IngestState
from brain.snapshot import cachepaths, rows
from brain.snapshot import columns as snapshot_columns
from brain.store.memory.image import StoreImage

log = logging.getLogger("brain.snapshot.image")

# 3: a memory's nested fields one msgpack blob each (brain/store/memory/packed.py); 4: its
# description written as it is, not through the string table (brain/snapshot/columns.py)
FORMAT = 4
MAGIC = b"brain-snapshot\n"
MAX_HEADER = 1 << 16
CONFIG_FILES = ("brain.toml",)  # what in a workspace changes how files are parsed


@runtime_checkable
class SnapshotStore(Protocol):
    """A store that can hand over its whole contents and take them back (the embedded one;
    Neo4j keeps its own data between starts)."""

    def contents(self) -> StoreImage: ...
    def restore(self, image: StoreImage) -> None: ...


@runtime_checkable
class DatabaseStore(Protocol):
    """A store whose database keeps the graph between starts (Neo4j): its snapshot holds only
    the ingester's state, and is used only while the database still holds the graph it was
    taken with (`graph_stamp()`, changed by every write; empty: no stamp, never trusted)."""

    snapshot_kind: str  # its snapshots' own file name, beside the embedded store's

    def claim(self, root: str) -> None: ...
    def graph_stamp(self) -> str: ...


class SnapshotRefused(Exception):
    """Why a snapshot file cannot be used: stale, foreign, truncated or corrupt."""


RACY_NS = 2_000_000_000


def distrust_recent(state: IngestState, now_ns: int) -> IngestState:
    """Files modified in the last seconds may change again within their mtime's granularity
    with the same size: mark them so the next start reads them (the hash decides), as git
    does with racily clean entries."""
    files = state.files
    for rel, file in files.items():
        if file.mtime_ns >= now_ns - RACY_NS:
            files[rel] = file._replace(size=-3)  # the copy's, not the ingester's
    return state


@functools.cache
def code_digest() -> str:
    """brain's own source (and the payload's schema): a parser fix makes old snapshots stale."""
    digest = hashlib.sha256((rows.schema(IngestState) + rows.schema(StoreImage)).encode())
    package = Path(__file__).resolve().parent.parent  # all of brain, not only brain/snapshot
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        with contextlib.suppress(OSError):
            digest.update(path.read_bytes())
    return digest.hexdigest()


def config_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for name in CONFIG_FILES:
        try:
            digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
        except OSError:
            digest.update(name.encode() + b"\0-\0")
    return digest.hexdigest()


def identity(root: Path, rules: str = "latchai", store: str = "") -> dict[str, Any]:
    """What a snapshot must have been written for, to be used for `root` now (`rules`: the
    layout, and the day where its rules read the date: Ingester.rules_identity)."""
    return {
        "format": FORMAT, "brain": __version__, "code": code_digest(),
        "config": config_digest(root), "root": str(root.resolve()), "rules": rules,
        "layout": snapshot_columns.LAYOUT, "store": store,
    }


HEADER_ROOM = 4096  # the header is written last, into room kept for it: the payload streams


def write(
    path: Path, root: Path, state: IngestState, image: StoreImage, rules: str = "latchai",
    store: str = "",
) -> int:
    """Write the snapshot atomically (a private temp file, fsync, rename); returns its size.

    The payload is packed column by column straight into the file (and its checksum), so
    writing costs little memory beyond the graph itself."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not cachepaths.trusted(path.parent, "snapshots"):  # bodies are private; it could be swapped
        raise SnapshotRefused(f"untrusted folder: {cachepaths.untrusted(path.parent)}")
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)  # mode 0600: bodies are private
    digest = hashlib.sha256()
    written = 0
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(b"\0" * (len(MAGIC) + 4 + HEADER_ROOM))

            def put(chunk: bytes) -> None:
                nonlocal written
                digest.update(chunk)
                out.write(chunk)
                written += len(chunk)

            packer = msgpack.Packer(use_bin_type=True)
            for value in snapshot_columns.encode(state, image):
                put(packer.pack(value))
            payload_size = written
            keywords = image.keywords
            for piece in [keywords] if isinstance(keywords, bytes) else keywords.chunks():
                put(piece)  # the index's postings copied a megabyte at a time, not joined
            keywords_size = written - payload_size
            if not isinstance(keywords, bytes) and keywords_size != keywords.size:
                raise ValueError("the keyword index changed size while it was written")
            header = {**identity(root, rules, store), "payload": payload_size, "keywords": keywords_size,
                      "sha256": digest.hexdigest(), "written": time.time()}
            head = json.dumps(header).encode().ljust(HEADER_ROOM)  # JSON allows trailing spaces
            if len(head) > HEADER_ROOM:
                raise ValueError("snapshot header too long")
            out.seek(0)
            out.write(MAGIC + struct.pack(">I", len(head)) + head)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return len(MAGIC) + 4 + HEADER_ROOM + written


def read(
    path: Path, root: Path, rules: str = "latchai", store: str = "",
) -> tuple[IngestState, StoreImage]:
    """The snapshot at `path`, checked against `root`; raises SnapshotRefused (or OSError)."""
    state, image, fill = read_deferred(path, root, rules, store)
    fill()
    return state, image


def read_deferred(
    path: Path, root: Path, rules: str = "latchai", store: str = "",
) -> tuple[IngestState, StoreImage, Callable[[], None]]:
    """`read`, with the state's file states and claims built when the third value is called
    (snapshot_columns.decode_deferred: a server is ready before it builds them).

    The file is read twice: once for its checksum, then, only if it matched, decoded column by
    column (the file is never one buffer in memory)."""
    for checked in (path.parent, path):
        if not cachepaths.trusted(checked, "snapshots"):
            raise SnapshotRefused(f"untrusted: {checked} {cachepaths.untrusted(checked)}")
    with path.open("rb") as f:
        opened = cachepaths.stat_untrusted(os.fstat(f.fileno()))  # replaced since it was checked?
        if opened is not None:
            raise SnapshotRefused(f"untrusted: {path} {opened}")
        start = len(MAGIC) + 4
        lead = f.read(start)
        if len(lead) < start or not lead.startswith(MAGIC):
            raise SnapshotRefused("corrupt: not a brain snapshot")
        (size,) = struct.unpack_from(">I", lead, len(MAGIC))
        raw_header = f.read(size) if size <= MAX_HEADER else b""
        if size > MAX_HEADER or len(raw_header) < size:
            raise SnapshotRefused("corrupt or truncated header")
        try:
            header = json.loads(raw_header)
            payload_size, keywords_size = int(header["payload"]), int(header["keywords"])
            checksum = str(header["sha256"])
        except (ValueError, KeyError, TypeError) as exc:
            raise SnapshotRefused(f"corrupt header ({exc})") from None
        wanted = identity(root, rules, store)
        if header.get("root") != wanted["root"]:
            raise SnapshotRefused(f"foreign: written for {header.get('root')!r}")
        for key in ("format", "brain", "code", "config", "rules", "layout", "store"):
            if header.get(key) != wanted[key]:
                what = {"format": "snapshot format", "brain": "brain version", "code": "brain's code",
                        "config": "brain.toml", "rules": "the layout or its day",
                        "layout": "the machine's byte order",
                        "store": "the graph in the database"}[key]
                raise SnapshotRefused(f"stale: {what} changed since it was written")
        body = start + size
        expected = body + payload_size + keywords_size
        actual = os.fstat(f.fileno()).st_size
        if actual != expected:
            raise SnapshotRefused(f"truncated: {actual} bytes where {expected} were written")
        # Verified before anything is decoded: decoding overlapped with hashing (a thread) cost
        # the start nothing, but a corrupt or crafted payload was decoded whole, at up to 70
        # times its size in memory, before its mismatch was seen. Hashing first costs a start
        # the hash alone (about 2 ms a MB: 20 ms at 10,000 notes).
        if sha256_from(f.fileno(), body) != checksum:
            raise SnapshotRefused("corrupt: checksum mismatch")
        f.seek(body + payload_size)
        keywords = f.read(keywords_size)
        f.seek(body)
        unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=True, use_list=True,
                                    max_buffer_size=max(payload_size, 1 << 20))
        try:
            state, image, fill = snapshot_columns.decode_deferred(unpacker.unpack)
            if unpacker.tell() != payload_size:
                raise ValueError(f"the payload ends at {unpacker.tell()} of {payload_size} bytes")
        except Exception as exc:  # the checksum matched, so this is a writer bug: never fatal
            raise SnapshotRefused(f"corrupt: cannot decode ({type(exc).__name__}: {exc})") from None
    image.keywords = keywords
    return state, image, fill


def sha256_from(fd: int, start: int) -> str:
    """The SHA-256 of an open file from `start` to its end (by `pread`: the reader's position
    is left alone, and it is the file opened even if a new snapshot replaced it since)."""
    digest = hashlib.sha256()
    buffer = bytearray(1 << 20)
    view = memoryview(buffer)
    at = start
    while got := os.preadv(fd, [buffer], at):
        digest.update(view[:got])
        at += got
    view.release()
    return digest.hexdigest()
