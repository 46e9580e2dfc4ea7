"""The index of which paths ever linked a name (brain/tool/asof/linkers.py), kept in
`.brain/history/linkers-v1.jsonl`: what it holds equals what parsing every kept version
gives, a later process reads it instead of parsing, records written since are appended, and
the file is untrusted: a torn line, a line of another record or naming another record's
paths, another format, layout or parser version, a folder or a FIFO at its path, and a
history rewritten under it (retention) are each ignored and built again. `brain serve`'s
first scan warms it (`LinkersStarter`).

Planted bugs, each seen to fail: the tag check on load left out (a foreign line's keys are
served); the path check left out (a line naming another record's path is served); the
rewritten-history check reduced to the old "fewer records than seen" (a record written after
retention dropped the oldest one is never indexed: its backlink is missing); the summaries
the index keeps written under the digest of the version before (each read back wrong), and
not kept at all.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from brain.service.brain import Brain
from brain.tool.asof.around import around_moment
from brain.tool.asof.linkers import LinkerIndex, LinkersStarter, default_linkers_path, linker_index
from brain.tool.asof.service import graph_at, moments_of
from brain.tool.diff.changes import _iso
from brain.tool.history.parsed import ParsedVersions, default_parsed_path, parse_version
from tests.tool.test_as_of_series import Timeline, _timeline


def _expected(t: Timeline) -> dict[str, set[str]]:
    """Name key -> paths, by parsing every kept version of every record (the reference)."""
    moments = moments_of(t.service)
    parse = moments.live.layout.links.parse
    found: dict[str, set[str]] = {}
    for record in moments.history.all():
        for path, digest in ((record.path, record.before), (record.new_path or record.path, record.after)):
            data = moments.blobs.get(digest) if digest else None
            if data is not None:
                for target in parse_version(data).links:
                    found.setdefault(parse(target).key, set()).add(path)
    return found


def _fresh(t: Timeline, path: Path | None = None) -> LinkerIndex:
    """A later process's index: it reads the file, and builds only what the file lacks."""
    moments = moments_of(t.service)
    return LinkerIndex(moments, t.service.parsed, path or default_linkers_path(moments.blobs.directory))


def _loaded(t: Timeline) -> LinkerIndex:
    """A fresh index with only the file read (nothing built)."""
    index = _fresh(t)
    index._load(t.service.history.all())
    return index


def test_the_index_kept_is_every_versions_links_and_is_read_back_not_built(tmp_path: Path) -> None:
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    records = t.service.history.all()
    built = _fresh(t)
    built.ensure(wait=True)
    expected = _expected(t)
    assert {"house-style", "dup", "quiet", "later", "plans"} <= set(expected)
    assert built._by_key == expected
    path = default_linkers_path(t.service.blobs.directory)
    assert len(path.read_text().splitlines()) == len(records) + 1
    read = _loaded(t)
    assert read._seen == len(records)
    assert read._by_key == expected

    # A record written since: its line appended, the lines before untouched.
    before = path.read_bytes()
    t.write("writer", {"command": "create", "path": "/memories/extra.md", "file_text": "[[fresh-name]]\n"})
    assert built.paths(t.service.history.all(), "fresh-name") == {"memory/writer/extra.md"}
    after = path.read_bytes()
    assert after.startswith(before)
    assert after.count(b"\n") == before.count(b"\n") + 1
    assert _loaded(t)._by_key == _expected(t)


def test_an_untrusted_index_file_is_ignored_and_built_again(tmp_path: Path) -> None:
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    _fresh(t).ensure(wait=True)
    expected = _expected(t)
    records = t.service.history.all()
    path = default_linkers_path(t.service.blobs.directory)
    good = path.read_text()
    header, *lines = good.splitlines()

    # A line of another record (a foreign file) and a torn one: the run ends there.
    foreign = json.loads(lines[3])
    foreign["h"] = "0" * 16
    torn = lines[5][: len(lines[5]) // 2]
    doctored = [header, *lines[:3], json.dumps(foreign), *lines[4:5], torn, *lines[6:]]
    path.write_text("\n".join(doctored) + "\n")
    assert _loaded(t)._seen == 3
    path.write_text("\n".join([header, *lines[:5], torn, *lines[6:]]) + "\n")
    assert _loaded(t)._seen == 5
    # ... and built again when asked: the whole index, and the file written whole again.
    rebuilt = _fresh(t)
    rebuilt.ensure(wait=True)
    assert rebuilt._by_key == expected
    assert path.read_text() == good

    # A line with its record's tag that names a path not the record's: another record's line.
    planted = next(i for i, raw in enumerate(lines) if "l" in json.loads(raw))
    lying = json.loads(lines[planted])
    lying["l"] = {"memory/shared/elsewhere.md": ["house-style"]}
    path.write_text("\n".join([header, *lines[:planted], json.dumps(lying), *lines[planted + 1:]]) + "\n")
    assert _loaded(t)._seen == planted
    assert "memory/shared/elsewhere.md" not in set().union(*_loaded(t)._by_key.values())

    # Another format, layout or parser version, not JSON at all: nothing is read from it.
    for first in ('{"index": "asof-linkers", "v": 0, "layout": "latchai", "parsed": 1}',
                  json.dumps({**json.loads(header), "layout": "elsewhere"}),
                  json.dumps({**json.loads(header), "parsed": 0}), "\x00garbage"):
        path.write_text("\n".join([first, *lines]) + "\n")
        assert _loaded(t)._seen == 0
    path.unlink()
    path.mkdir()  # not a file: nothing read; the index is built and kept in memory all the same
    index = _fresh(t)
    index.ensure(wait=True)
    assert index._by_key == expected
    path.rmdir()
    os.mkfifo(path)  # a FIFO is never waited on: not read, and replaced by the index's file
    index = _fresh(t)
    index.ensure(wait=True)
    assert index._by_key == expected
    assert stat.S_ISREG(path.stat().st_mode)
    assert path.read_text() == good
    assert _loaded(t)._seen == len(records)


def test_a_history_rewritten_under_the_index_is_indexed_again(tmp_path: Path) -> None:
    """Retention drops the oldest record: every record's id moves. A record written after it
    (as many records as before) is indexed all the same, and backlinks as of it are right."""
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    moments = moments_of(t.service)
    index = linker_index(moments, t.service.parsed)
    index.ensure(wait=True)
    count = len(t.service.history.all())
    history = t.service.history.path
    history.write_bytes(b"\n".join(history.read_bytes().split(b"\n")[1:]))
    t.write("writer", {"command": "create", "path": "/memories/extra.md", "file_text": "[[house-style]]\n"})
    records = t.service.history.all()
    assert len(records) == count
    assert "memory/writer/extra.md" in index.paths(records, "house-style")
    at = t.moments[-1]
    small = around_moment(moments, t.service.parsed, at, "memory/shared/house-style.md")
    whole = graph_at(t.service, _iso(at))
    node = whole.store.memory_by_path("memory/shared/house-style.md")
    assert node is not None
    sources = sorted(lk.source for lk in whole.store.links_to([node.id]).get(node.id, []))
    assert any("extra" in source for source in sources)
    assert sorted(lk.source for lk in small.store.links_to([node.id]).get(node.id, [])) == sources
    path = default_linkers_path(t.service.blobs.directory)
    assert len(path.read_text().splitlines()) == len(records) + 1  # written whole again
    assert _loaded(t)._by_key == _expected(t)


def test_a_full_sync_warms_the_index_on_a_thread(tmp_path: Path) -> None:
    """As `brain serve` has it after its first scan (api/http/server.py adds the listener)."""
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    path = default_linkers_path(t.service.blobs.directory)
    assert not path.exists()  # nothing asked yet
    t.brain.file_listeners.append(LinkersStarter(lambda: (moments_of(t.service), t.service.parsed)))
    t.brain.sync()  # a full rescan (no paths), as the server's start
    index = linker_index(moments_of(t.service), t.service.parsed)
    assert index.thread is not None
    index.thread.join(60)
    assert index._seen == len(t.service.history.all())
    assert _loaded(t)._by_key == _expected(t)


def test_the_versions_it_parsed_are_kept_as_the_writers_keep_theirs(tmp_path: Path) -> None:
    """A history kept before `parsed-v1.jsonl` was (its versions never summarised): the index
    parses them once and keeps what each parses to, so around.py's "did this version link the
    name then" reads a summary instead of parsing again. Each summary kept equals a parse of
    its blob, under its own sha256; a process reading the file later finds every version."""
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    moments = moments_of(t.service)
    summaries = default_parsed_path(moments.blobs.directory)
    summaries.unlink()  # as a history from before the file
    index = LinkerIndex(moments, ParsedVersions(summaries), None)
    index.ensure(wait=True)
    later = ParsedVersions(summaries)
    later.load()
    digests = {d for r in moments.history.all() for d in (r.before, r.after) if d}
    kept = {d: data for d in digests if (data := moments.blobs.get(d)) is not None}
    assert len(kept) >= 10
    for digest, data in sorted(kept.items()):
        assert later.get(digest) == parse_version(data), digest
    assert index.parsed.get(next(iter(sorted(kept)))) is not None  # the index's own reads them back
    # Nothing is summarised twice by the index (the writers' own lines aside).
    lines = summaries.read_bytes().splitlines()
    assert len(lines) == len({line[6:70] for line in lines}) == len(kept)
