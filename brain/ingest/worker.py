"""A helper process of a big ingest: parses the memory files it is sent, chunk by chunk.

Started by brain.ingest.parse_helpers. On stdin: a frame with the note rules and whether to count
each note's keywords (brain/index/postings.py), then frames that each
hold a chunk of files, until stdin closes; on stdout, one frame of results a chunk, as soon as
it is parsed. A frame may instead hold a sync's names (brain.parse.mention_seeds.ScopedVocabulary):
from then on each chunk's answer is its results and their mention seeds by note id. A frame
is its length (8 bytes, little-endian) and a pickle: both ends are the same brain install.
One chunk at a time is held, so a helper's memory does not grow with the workspace.
"""

from __future__ import annotations

import dataclasses
import gc
import io
import os
import pickle
import sys
from collections.abc import Sequence
from itertools import chain
from typing import IO, Any

from brain.model import Headings, MemoryNode, leaf_key
from brain.store.linking import NoteChange
from brain.store.memory.rows import PATH  # MemoryNode's `path` among its fields

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


class ResultPickler(pickle.Pickler):
    """A pickler of parse results that sends a frozen dataclass or a named tuple as (class,
    field values).

    The default for a frozen dataclass with slots is its state, set again field by field by
    dataclasses' Python __setstate__; a class called with its values is built by its own
    __init__. At 10,000 notes (100,000 links and headings): dumps 0.80 -> 0.38 s, loads
    (in the ingesting process) 0.90 -> 0.64 s. marshal or msgpack of plain tuples dump
    faster but cost as much to load once the objects are built again (0.70 and 1.22 s).

    Short strings that repeat across a chunk's notes (a note's type, heading texts, a link's
    target, label and anchor) are sent once a chunk: pickle writes an object it has seen as
    a reference, so the ingesting process decodes one string where it decoded one a note,
    and keeps one (at 100,000 notes, 300 bytes a note held by the store).

    A note's path is sent as its file's place in the chunk (`rels`, the paths the chunk was
    sent with): the ingesting process puts in its own string, the one its file states and
    claims hold, instead of keeping a second copy (9 MB at 100,000 notes).
    """

    def __init__(self, file: IO[bytes], protocol: int, rels: Sequence[str] = ()) -> None:
        # By their module's name, not __main__'s (a helper runs this module as __main__).
        from brain.ingest.memory_files import note_change, walked_memory

        super().__init__(file, protocol)
        self.strings: dict[str, str] = {}
        self.places = {rel: at for at, rel in enumerate(rels)}
        self.walked_memory = walked_memory
        self.note_change = note_change

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        # A list comprehension over the values chained in C, not a generator: a third of
        # the time of the links' flattening, most of what a helper spent pickling a note.
        if cls is NoteChange:  # its links as one flat tuple: no object to reduce for each
            memory, links, keywords = obj
            seen = self.strings.setdefault
            flat = tuple([seen(v, v) if v.__class__ is str else v for v in chain.from_iterable(links)])
            return self.note_change, (memory, flat, keywords)
        if cls is Headings:  # its texts repeat across notes as a Heading's do (SHARED_FIELDS)
            seen = self.strings.setdefault
            flat = tuple([seen(v, v) if v.__class__ is str else v for v in obj.flat])
            return Headings.of_flat, (flat,)
        fields = _FIELDS.get(cls)
        if fields is None:
            if cls in _NOT_FIELDS:
                return NotImplemented
            fields = _fields(cls)
        if fields is None:
            return NotImplemented
        # A named tuple holds its values (WikiLink, NoteChange): as a plain tuple, not itself.
        values = tuple(obj) if cls in _TUPLES else tuple(map(obj.__getattribute__, fields))
        if cls is MemoryNode:
            place = self.places.get(values[PATH])
            if place is not None:
                name_is_key = leaf_key(obj.name) == obj.name  # worked out here, on the helper's core
                return self.walked_memory, (name_is_key, *values[:PATH], place, *values[PATH + 1 :])
        shared = _SHARED_AT[cls]
        if shared:
            strings = self.strings
            held = list(values)
            for at in shared:
                value = held[at]
                if value.__class__ is str:
                    held[at] = strings.setdefault(value, value)
            values = tuple(held)
        # A named tuple is loaded by tuple.__new__ in C: its class's __new__ is Python code
        # (0.54 -> 0.34 us a WikiLink, 55,000 of them at 10,000 notes).
        return (tuple.__new__, (cls, values)) if cls in _TUPLES else (cls, values)


_FIELDS: dict[type, tuple[str, ...]] = {}
_NOT_FIELDS: set[type] = set()
_TUPLES: set[type] = set()  # the named tuples among _FIELDS
_SHARED_AT: dict[type, tuple[int, ...]] = {}
# The string fields that repeat across notes (MemoryNode's type, Heading's, WikiLink's).
SHARED_FIELDS = frozenset({"type", "text", "source", "raw", "target", "label", "anchor"})


def _fields(cls: type) -> tuple[str, ...] | None:
    """The fields of a named tuple, or the init fields of a frozen dataclass, built by
    position; None (default pickling) for any other class."""
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        names: tuple[str, ...] = cls._fields
        _TUPLES.add(cls)
    else:
        params = getattr(cls, "__dataclass_params__", None)
        if params is None or not params.frozen:
            _NOT_FIELDS.add(cls)
            return None
        # The others are worked out by __post_init__ (MemoryNode's id).
        names = tuple(f.name for f in dataclasses.fields(cls) if f.init)
    _SHARED_AT[cls] = tuple(at for at, name in enumerate(names) if name in SHARED_FIELDS)
    _FIELDS[cls] = names
    return names


def dump_results(results: object, rels: Sequence[str] = ()) -> bytes:
    """A chunk's results as a frame; `rels`: the paths the chunk's files were sent with."""
    out = io.BytesIO()
    ResultPickler(out, protocol=pickle.HIGHEST_PROTOCOL, rels=rels).dump(results)
    return out.getvalue()


def load_results(frame: bytes, rels: Sequence[str]) -> Any:
    """The results `dump_results(results, rels)` framed, each note's path one of `rels`."""
    from brain.ingest.memory_files import chunk_paths

    with chunk_paths(rels):
        return pickle.loads(frame)


def main() -> int:
    # Imported here: the parent imports this module for the frames, not for parsing.
    from brain.ingest.memory_files import MemoryFile, NoteRules, shipped
    from brain.parse.mention_seeds import ScopedVocabulary, Seed

    gc.disable()  # a short-lived process of acyclic data: collections would only cost time
    caches = _caches()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    first = read_frame(stdin)
    if first is None:
        return 0
    rules: NoteRules | None
    rules, keywords, bare = pickle.loads(first)
    vocabulary: ScopedVocabulary | None = None
    while (frame := read_frame(stdin)) is not None:
        files: list[MemoryFile] | ScopedVocabulary = pickle.loads(frame)
        if isinstance(files, ScopedVocabulary):  # seed the mentions of the chunks after it
            vocabulary = files
            continue
        seeds: dict[str, tuple[str, Seed]] = {}
        result = shipped(files, rules, keywords, bare, vocabulary, seeds)
        answer = (result, seeds) if vocabulary is not None else result
        write_frame(stdout, dump_results(answer, [f[0] for f in files]))
        stdout.flush()
        del result
        _forget_files(caches)
    return 0


def _caches() -> list[Any]:
    """The layouts' roles by path: each layout module's memoized `classify`."""
    from brain import workspace
    from brain.layouts import lab, mindlink, space

    return [workspace.classify, space.classify, mindlink.classify, lab.classify]


def _forget_files(caches: list[Any]) -> None:
    """Empty the caches of roles by path. The ingesting process keeps them for its rescans;
    a helper sees each file once, so they only grew: 300 bytes a file, 16 MB a helper at
    100,000 notes. Caches of names and link targets are kept (they repeat across chunks)."""
    for cache in caches:
        cache.cache_clear()

if __name__ == "__main__":
    code = main()
    # Out at once, its results all written: the interpreter's teardown (every module and
    # cache freed) held the ingesting process in `Helper.stop` for 12 ms at the end of a
    # sync, when nothing else was left to do.
    sys.stdout.flush()
    os._exit(code)
