"""Memory files to graph changes: one file (`build_memory`), or a batch on every core.

A first ingest of a large workspace spends most of its time here, so a big batch is split
among helper processes (`python -m brain.ingest_worker`) while this process parses its own
share. Everything here is pure but for its arguments, so the helpers give exactly the
results this process would.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Sequence

from brain.layouts import RuleContext, get_layout
from brain.layouts.secrets import secret_problems
from brain.model import MemoryNode
from brain.parse import decode, parse_note
from brain.store.linking import NoteChange


def content_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


MemoryFile = tuple[str, str, str, bytes, float]  # rel, scope, name, bytes, mtime
#: The layout (by name: it crosses into helper processes) and what its rules depend on.
NoteRules = tuple[str, RuleContext]
PARALLEL_MIN = 2000


def build_memories(files: Sequence[MemoryFile], rules: NoteRules | None = None) -> list[NoteChange]:
    """build_memory over many files; a big batch (a first ingest) is parsed on every core.

    Helpers are plain `python -m brain.ingest_worker` processes fed through pipes, not a
    multiprocessing pool: nothing of the caller's process (threads, its __main__) is
    copied or re-imported, and a helper that fails only means its share is parsed here.
    """
    cores = int(os.environ.get("BRAIN_INGEST_WORKERS", "0")) or min(os.cpu_count() or 1, 8)
    if len(files) < PARALLEL_MIN or cores < 2:
        return [build_memory(*f, rules=rules) for f in files]
    share = len(files) // cores
    # The helpers start while this process parses the first share.
    parts = [files[: share], *(files[share * i : share * (i + 1)] for i in range(1, cores - 1))]
    parts.append(files[share * (cores - 1) :])
    helpers = [start_worker(part, rules) for part in parts[1:]]
    out = [build_memory(*f, rules=rules) for f in parts[0]]
    for part, helper in zip(parts[1:], helpers, strict=True):
        out.extend(finish_worker(helper, part, rules))
    return out


def start_worker(
    files: Sequence[MemoryFile], rules: NoteRules | None = None
) -> subprocess.Popen[bytes] | None:
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "brain.ingest_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
    payload = pickle.dumps((rules, list(files)), protocol=pickle.HIGHEST_PROTOCOL)
    threading.Thread(target=_feed, args=(proc, payload), daemon=True).start()
    return proc


def _feed(proc: subprocess.Popen[bytes], payload: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
    except OSError:
        pass


def finish_worker(
    proc: subprocess.Popen[bytes] | None, files: Sequence[MemoryFile], rules: NoteRules | None = None
) -> list[NoteChange]:
    if proc is not None:
        assert proc.stdout is not None
        try:
            result: list[NoteChange] = pickle.loads(proc.stdout.read())
            if proc.wait() == 0 and len(result) == len(files):
                return result
        except (OSError, EOFError, pickle.UnpicklingError):
            proc.kill()
            proc.wait()
    return [build_memory(*f, rules=rules) for f in files]


def build_memory(
    rel: str, scope: str, name: str, raw: bytes, mtime: float, rules: NoteRules | None = None
) -> NoteChange:
    """A note node and its wikilinks from a file's bytes. Pure but for its arguments.

    `rules` name the layout (default latchai): it gives the note's kind and its own rule
    problems; the `secret` rule holds in every layout.
    """
    text, problems = decode(raw, rel)
    note = parse_note(text, rel)
    layout = get_layout(rules[0] if rules is not None else "latchai")
    role = layout.classify(rel)
    context = rules[1] if rules is not None else RuleContext()
    problems.extend(secret_problems(rel, text))
    problems.extend(layout.note_rules(rel, role, text, note, context))
    memory = MemoryNode(
        scope=scope,
        name=name,
        path=rel,
        description=note.description,
        type=note.type,
        hash=content_hash(raw),
        size=len(raw),
        modified_at=mtime,
        body=note.body,
        headings=note.headings,
        properties=note.properties,
        problems=tuple(problems) + note.problems,
        blocks=note.blocks,
        note_kind=role.node_kind,
        triggers=layout.note_triggers(rel, role, note),
    )
    return NoteChange(memory, note.links)
