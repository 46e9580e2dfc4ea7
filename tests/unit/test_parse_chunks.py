"""The fast reading of a body (by chunks) equals mistune reading the whole body."""

from __future__ import annotations

import pickle
import sys
import threading
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from brain.index.postings import note_counts
from brain.index.text import title_of
from brain.ingest import parse_helpers
from brain.ingest.memory_files import build_memory
from brain.ingest.parse_helpers import build_memories
from brain.ingest.worker import dump_results, load_results
from brain.model import Headings, WikiLink
from brain.parse.body import scan_body
from brain.store.linking import NoteChange
from tests.batches import batched, examples_for, for_each, joined_texts

PIECES = [
    "[[a]]", "[[b|c]]", "![[d#e]]", "`", "``", "```", "~~~", "\n", "\n\n", "    ", "- ", "> ",
    "# ", "## ", "x", " ", "---", "===", "*", "_", "1. ", "  ", "<", "\t", "#", "\\", "[", "]",
    "\n- ", "\n> ", "\n```\n", "\n    ", "\n1. ", "é", "😀", "Foo ##", "***", "\n---\n",
    "\n\n```\n", "\n~~~~\n", "\n===\n", "\n\n    \n",
    # `<` in a fenced block, inline, or where an HTML block may start (issue 43)
    "<x>", "\n<div>\n", "- <p>", "\n> <b>\n", "\n1. <a>", "\n```sh\n$ cmd <arg>\n```\n", "</div>",
]



def _chunked_is_whole(body: str) -> None:
    assert scan_body(body, 1) == scan_body(body, 1, whole=True)


@batched
@settings(max_examples=examples_for(3000), deadline=None)
@given(joined_texts(PIECES, 50))
def test_chunked_reading_equals_whole_reading(bodies: list[str]) -> None:
    for_each(bodies, _chunked_is_whole)


@pytest.mark.parametrize(
    "body",
    [
        "para\n```\n[[x]]\n```\n",
        "- item\n  ```\n[[x]]\n```\n",
        "> ```\n> [[x]]\n\n[[y]]\n",
        "-     [[code]]\n\n[[real]]\n",
        "text `span\n\n[[a]]` end\n",
        "<!--\n\n[[hidden]]\n\n-->\n",
        "```\n\n[[in-fence]]\n\n```\n[[after]]\n",
        "Title\n===\n[[a]]\n",
        "```sh\n$ curl <url>\n\n[[in-fence]]\n```\n\n[[after]]\n",
        "<div>\n\n```\n[[x]]\n```\n\n[[y]]\n\n</div>\n\n[[z]]\n",
        "- <div>\n\n[[a]]\n\n</div>\n\n[[b]]\n",
        "> <pre>\n\n[[a]]\n\n</pre>\n",
        "10. <div>\n\n[[a]]\n",
        "text <span>\n\n[[a]] </span>\n",
        "```\n<x>\n```\n<!--\n\n[[hidden]]\n\n-->\n",
    ],
)
def test_chunked_reading_equals_whole_reading_on_tricky_bodies(body: str) -> None:
    assert scan_body(body, 1) == scan_body(body, 1, whole=True)


def test_parallel_parse_equals_serial(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    files = [
        (f"memory/shared/n{i}.md", "shared", f"n{i}",
         f"---\ndescription: note {i}\ntype: user\n---\n# H{i}\nsee [[n{i + 1}]] `[[no]]`\n".encode(),
         1_700_000_000.0 + i)
        for i in range(60)
    ]
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 10)
    monkeypatch.setattr(parse_helpers, "CHUNK", 7)
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", "3")
    assert build_memories(files) == [build_memory(*f) for f in files]


def test_helpers_count_each_chunks_keywords_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked to, a helper hands back one block of keyword counts a chunk, shared by the
    chunk's notes (pickled once), each note's row holding what `note_counts` gives."""
    files = [
        (f"memory/shared/n-{i}.md", "shared", f"n-{i}",
         f"---\ndescription: Note {i}\n---\nword{i % 4} Shared shared naïve—café\n".encode(), 1.0 * i)
        for i in range(30)
    ]
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 10)
    monkeypatch.setattr(parse_helpers, "CHUNK", 7)
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", "2")
    builder = parse_helpers.MemoryBuilder(keywords=True)
    builder.extend(files)
    results = builder.finish()
    serial = [build_memory(*f) for f in files]
    assert [(r.memory, r.links) for r in results] == [(s.memory, s.links) for s in serial]
    rows = [r.keywords for r in results]
    assert all(row is not None for row in rows)
    blocks = {id(row[0]) for row in rows if row is not None}
    assert len(blocks) == 5  # 30 notes in chunks of 7
    for result, row in zip(results, rows, strict=True):
        assert row is not None
        block, at = row
        sizes = array("i", block.sizes)
        start = sum(sizes[:at])
        words = block.words.split("\0")
        terms = array("i", block.terms)[start : start + sizes[at]]
        freqs = array("H", block.freqs)[start : start + sizes[at]]
        memory = result.memory
        counts, length = note_counts(title_of(memory.name), memory.description, memory.body)
        assert dict(zip([words[t] for t in terms], freqs, strict=True)) == counts
        assert array("i", block.lengths)[at] == length
    unasked = parse_helpers.MemoryBuilder()
    unasked.extend(files)
    assert all(r.keywords is None for r in unasked.finish())


def linked_notes(count: int) -> list[tuple[str, str, str, bytes, float]]:
    """Notes as files given with their bytes, each linking to the next."""
    return [
        (f"memory/shared/n{i}.md", "shared", f"n{i}", f"# H{i}\nsee [[n{i + 1}]]\n".encode(), 1.0 * i)
        for i in range(count)
    ]


def one_helper_in_small_chunks(monkeypatch: pytest.MonkeyPatch, executable: str) -> None:
    """Two parsers (a helper started as `executable -S` running brain.ingest.worker, and this
    process), chunks of 7, helpers from 10 files on."""
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 10)
    monkeypatch.setattr(parse_helpers, "CHUNK", 7)
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", "2")
    monkeypatch.setattr(sys, "executable", executable)


@pytest.mark.parametrize("helper", ["/bin/false", "/bin/cat", "/nonexistent/python"])
def test_a_helper_that_fails_only_means_its_chunks_are_parsed_here(
    monkeypatch: pytest.MonkeyPatch, helper: str
) -> None:
    """A helper that cannot start, dies at once, or answers garbage (cat echoes its input)."""
    files = linked_notes(40)
    one_helper_in_small_chunks(monkeypatch, helper)
    assert build_memories(files) == [build_memory(*f) for f in files]


def test_a_helper_whose_answer_cannot_be_loaded_only_means_its_chunks_are_parsed_here(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A well-framed answer that names what this brain does not have (another version's
    helper): loading it raises AttributeError, which once left the sync waiting forever."""
    helper = tmp_path / "helper"
    answer = b"\x80\x04cbrain.model\nNoSuchThing\n."  # pickle: a global that is not there
    helper.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "stdin, stdout = sys.stdin.buffer, sys.stdout.buffer\n"
        "def frame():\n"
        "    head = stdin.read(8)\n"
        "    return head and stdin.read(int.from_bytes(head, 'little'))\n"
        "frame()  # the rules\n"
        "while frame():\n"
        f"    stdout.write(len({answer!r}).to_bytes(8, 'little') + {answer!r})\n"
        "    stdout.flush()\n"
    )
    helper.chmod(0o755)
    files = linked_notes(40)
    one_helper_in_small_chunks(monkeypatch, str(helper))
    assert build_memories(files) == [build_memory(*f) for f in files]


def test_this_process_parses_the_chunks_a_busy_helper_would_leave_waiting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Two parsers on two cores: one helper, and this process whenever the helper has LEAD
    chunks queued or it would wait for the helper's results. Here the helper starts late,
    so this process parses the first chunks and the helper the later ones, in order."""
    slow = tmp_path / "slow-python"
    slow.write_text(f"#!/bin/sh\nsleep 1\nexec {sys.executable} \"$@\"\n")
    slow.chmod(0o755)
    files = linked_notes(400)
    one_helper_in_small_chunks(monkeypatch, str(slow))
    here: list[int] = []
    parse_here = parse_helpers.MemoryBuilder._here

    def counting(self: parse_helpers.MemoryBuilder, chunk: list[Any]) -> list[Any]:
        here.append(len(chunk))
        return parse_here(self, chunk)

    monkeypatch.setattr(parse_helpers.MemoryBuilder, "_here", counting)
    builder = parse_helpers.MemoryBuilder()
    taken: list[Any] = []
    for file in files:  # as a first sync does: adding and taking as it goes
        builder.add(file)
        taken.extend(builder.take(8))
    assert builder._helpers is not None
    assert len(builder._helpers) == 1
    assert taken + builder.finish() == [build_memory(*f) for f in files]
    assert 0 < sum(here) < len(files)  # each parsed some


def test_a_helper_that_answers_gets_the_next_held_chunk_while_this_process_is_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chunk held because the helper had LEAD queued goes to the helper as soon as it
    answers (its reader thread sends it), not when this process next adds or takes: a first
    sync writing a part does neither for a tenth of a second."""
    one_helper_in_small_chunks(monkeypatch, sys.executable)
    monkeypatch.setattr(parse_helpers, "LEAD", 1)
    files = linked_notes(28)  # four chunks of 7
    builder = parse_helpers.MemoryBuilder(expected=len(files))
    builder.extend(files)
    assert builder._helpers is not None
    helper = builder._helpers[0]
    assert (helper.sent, builder._held) == (1, 3)
    # A count, not an Event: two answers can land between a wait and its clear (CI lost one so).
    answered = threading.Semaphore(0)
    helper.on_answer, offer = (lambda: (offer(), answered.release())), helper.on_answer  # type: ignore[misc]
    assert offer is not None
    for _ in range(3):  # each answer sends the next held chunk, with no add or take here
        assert answered.acquire(timeout=60)
    assert (helper.sent, builder._held) == (4, 0)
    assert builder.finish() == [build_memory(*f) for f in files]


def test_results_cross_from_helpers_unchanged() -> None:
    """Every note of the examples and fixtures (problems, blocks, properties, layouts' kinds)
    comes out of the helpers' pickling as it went in, class for class."""
    root = Path(__file__).resolve().parents[2]
    paths = sorted((root / "examples").rglob("*.md")) + sorted((root / "tests/fixtures").rglob("*.md"))
    files = [(str(p.relative_to(root)), "shared", p.stem, p.read_bytes(), 1.0) for p in paths]
    results = [build_memory(*f) for f in files]
    assert any(r.memory.problems for r in results)
    assert any(r.memory.blocks for r in results)
    assert any(r.memory.headings for r in results)
    rels = [f[0] for f in files]
    again = load_results(dump_results(results, rels), rels)
    assert again == results
    # A note's path comes back as the string the chunk was sent with, not a copy of it.
    assert all(r.memory.path is rel for r, rel in zip(again, rels, strict=True))
    assert pickle.loads(dump_results(results)) == results  # sent without paths: strings
    assert {type(r.memory.headings) for r in again} == {Headings}
    assert {type(r) for r in again} == {NoteChange}  # a tuple is equal too
    assert {type(w) for r in again for w in r.links} == {WikiLink}
    # A link target written in several notes is one string in the ingesting process.
    targets = [w.target for r in again for w in r.links]
    assert len(targets) > len(set(targets))
    assert len({id(t) for t in targets}) == len(set(targets))
    assert [type(p) for r in again for p in r.memory.problems] == [
        type(p) for r in results for p in r.memory.problems
    ]


def test_a_helper_forgets_the_roles_of_the_files_it_parsed_and_keeps_its_other_caches() -> None:
    """A helper sees each file once: the layouts' roles by path are emptied after each chunk,
    so its memory stays flat; the caches of names and link targets stay (they repeat)."""
    from brain import workspace
    from brain.ingest.worker import _caches, _forget_files
    from brain.layouts import lab
    from brain.model import name_key

    for i in range(50):
        workspace.classify(f"memory/shared/forgotten-{i}.md")
        lab.classify(f"memory/forgotten-{i}.md")
    name_key("Kept")
    caches = _caches()
    assert workspace.classify in caches
    assert lab.classify in caches
    _forget_files(caches)
    assert len(workspace.classify) == len(lab.classify) == 0
    assert name_key.cache_info().currsize >= 1
    assert workspace.classify("memory/shared/forgotten-1.md").name == "forgotten-1"


def test_a_first_walk_starts_the_builder_once_it_has_found_enough_notes() -> None:
    """The helpers of a first sync start during its walk, as soon as it has found
    PARALLEL_MIN notes, not once it is over; a walk of fewer, or one told no `start` (not a
    first sync), makes none."""
    from brain.workspace import FileStat

    files = [FileStat(f"memory/a/{i}.md" if i % 3 else f"workflows/{i}.json", 10, 0)
             for i in range(parse_helpers.PARALLEL_MIN * 2)]
    walked: list[str] = []
    started: list[tuple[int, int]] = []  # (notes it was told, files walked by then)

    def walk() -> Any:
        for stat in files:
            walked.append(stat.rel)
            yield stat

    def start(notes: int) -> parse_helpers.MemoryBuilder:
        started.append((notes, len(walked)))
        return parse_helpers.MemoryBuilder()

    stats, builder = parse_helpers.walk_starting(walk(), start)
    assert builder is not None
    assert list(stats) == [f.rel for f in files]  # every file, in the walk's order
    nth_note = [at for at, f in enumerate(files) if f.rel.endswith(".md")][parse_helpers.PARALLEL_MIN - 1]
    assert started == [(parse_helpers.PARALLEL_MIN, nth_note + 1)]  # right then, mid-walk
    assert nth_note + 1 < len(files)
    assert parse_helpers.walk_starting(iter(files), None) == (stats, None)
    few = files[: parse_helpers.PARALLEL_MIN]
    assert parse_helpers.walk_starting(iter(few), start)[1] is None
    assert len(started) == 1
