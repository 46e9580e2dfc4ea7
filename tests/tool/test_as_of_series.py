"""stats(asOf:) from the counts kept after each record (brain/tool/asof/counts/series.py) equals the
whole moment's counts (graph.py, the reference) at every moment of a timeline, on both stores.

The timeline: notes linking by bare name, by scope, to an agent, to a heading a later edit
takes away, a name an agent and a workflow share (ambiguous, then resolved when the workflow
is deleted, then ambiguous again), a rename, a delete, a note created that fixes a broken
link, and edits made outside brain. The counts must come from the series (not from the whole moment, its
fallback), including records written after its walk (walked on the ask). Its file under
`.brain/` is untrusted: a torn line, a foreign file, another layout's header, a count that is
not the graph's now, and a history rewritten under it are each ignored and walked again.

Planted bugs, each seen to fail: the walker's step syncing the record's `after` instead of its
`before` (counts one record late); the tag check on load left out (the doctored counts are
served); the newest-count check left out (a file whose counts are not the graph's is trusted).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool import attach_memory_service
from brain.tool.access import Actor
from brain.tool.asof.counts.detail import Detail
from brain.tool.asof.counts.series import StatsSeries, counts_at, default_series_path, kept_at, series_of
from brain.tool.asof.delta import moment_index
from brain.tool.asof.graph import Moments
from brain.tool.asof.service import graph_at, moments_of, stats_as_of
from brain.tool.calls.tool import MemoryTool
from brain.tool.diff.changes import _iso
from brain.tool.service import MemoryService
from tests.maintain.conftest import workspace_with
from tests.tool.conftest import NOW

STYLE = "# Style\n\n## Headline\n\nFirst.\n"
NOTES = ("# Notes\n\n[[house-style#Headline]] [[agent:writer]] [[agent:quiet]] [[shared/glossary]]\n"
         "[[roster]] [[plan]] [[later]] [[review]] [[nowhere]] [[nowhere]]\n")


class Timeline:
    def __init__(self, root: Path, store: GraphStore) -> None:
        self.root = root
        self.brain = Brain(root, store=store)
        self.brain.sync()
        self.clock = [NOW]
        self.service = MemoryService(root, self.brain, clock=lambda: self.clock[0])
        attach_memory_service(self.brain, self.service)
        self.tool = MemoryTool(self.service)
        self.moments: list[float] = []

    def write(self, agent: str, payload: dict[str, str]) -> None:
        self.clock[0] += 10
        result = self.tool.run(agent, payload, actor=Actor.admin())
        assert result.ok, result.text
        self.brain.sync()
        self.moments.append(self.clock[0] + 1)

    def outside(self, rel: str, text: str | None) -> None:
        """An edit made outside brain, found by the watcher's sync and recorded (external)."""
        self.clock[0] += 10
        if text is None:
            (self.root / rel).unlink()
        else:
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text)
        self.brain.sync()
        self.moments.append(self.clock[0] + 1)

    def series(self) -> StatsSeries:
        return series_of(moments_of(self.service))

    def kept(self, at: float) -> object:
        """The series's counts at `at`, None when it does not cover it."""
        moments = moments_of(self.service)
        records = moments.history.all()
        first = moment_index(records, moments.timeline, at, moments.clock())
        return counts_at(moments, first, records)


def _timeline(root: Path, store: GraphStore) -> Timeline:
    workspace_with(root, {
        "memory/shared/roster.md": "# Roster\n",  # never changed: as the disk has it at every moment
        "agents/quiet.md": "---\ndescription: Quiet.\n---\n",
    })
    t = Timeline(root, store)
    t.write("writer", {"command": "create", "path": "/memories/shared/glossary.md",
                       "file_text": "# Glossary\n\nSee [[house-style]], [[dup]] and [[quiet]].\n"})
    t.write("writer", {"command": "create", "path": "/memories/shared/house-style.md", "file_text": STYLE})
    t.write("writer", {"command": "create", "path": "/memories/plan.md", "file_text": "# Plan\n"})
    t.write("writer", {"command": "create", "path": "/memories/notes.md", "file_text": NOTES})
    t.write("writer", {"command": "create", "path": "/memories/shared/dup.md", "file_text": "# Dup\n"})
    t.outside("workflows/quiet.md", "# Quiet workflow\n")  # [[quiet]]: this or the agent quiet
    t.write("reviewer", {"command": "create", "path": "/memories/review.md", "file_text": "# Review\n"})
    t.write("writer", {"command": "str_replace", "path": "/memories/shared/house-style.md",
                       "old_str": "## Headline", "new_str": "## Lead"})
    t.write("writer", {"command": "rename", "old_path": "/memories/plan.md",
                       "new_path": "/memories/plans.md"})
    t.write("writer", {"command": "create", "path": "/memories/shared/later.md", "file_text": "# Later\n"})
    t.outside("workflows/quiet.md", None)
    t.outside("memory/shared/glossary.md", "# Glossary\n\nSee [[later]], [[plans]], [[dup]] and [[quiet]].\n")
    return t


def _compare(t: Timeline) -> set[str]:
    """Every moment's kept counts against the whole moment's; which link statuses were seen."""
    return _compare_from(t, 0)


def _compare_from(t: Timeline, start: int) -> set[str]:
    seen: set[str] = set()
    for at in t.moments[start:]:
        when = _iso(at)
        kept = t.kept(at)
        assert kept is not None, f"the series does not cover {when}"
        whole = graph_at(t.service, when).stats()
        assert kept == whole, f"as of {when}"
        assert stats_as_of(t.service, when) == (at, whole)
        seen.update(name for name in ("broken", "ambiguous", "missing_anchor") if getattr(whole, name))
    return seen


def test_stats_as_of_each_moment_is_the_whole_moments_counts_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    t = _timeline(tmp_path / "ws", store)
    t.series().ensure(wait=True)
    # The timeline reached every kind of count a link's status makes.
    assert _compare(t) == {"broken", "ambiguous", "missing_anchor"}
    # Written after the walk: the ask walks the few records since (no whole moment built).
    t.outside("workflows/quiet.md", "# Quiet again\n")
    t.write("writer", {"command": "delete", "path": "/memories/shared/later.md"})
    assert _compare(t) >= {"ambiguous"}
    # Kept in the file: a new brain of the same workspace reads the counts, not walks them.
    path = default_series_path(t.service.blobs.directory)
    assert len(path.read_text().splitlines()) == len(t.service.history.all()) + 1
    fresh = Timeline(t.root, t.brain.store)
    fresh.clock, fresh.moments = t.clock, t.moments
    series = fresh.series()
    series.try_extend()
    assert series.high == len(t.service.history.all())
    assert _compare(fresh)


def _reload(t: Timeline) -> StatsSeries:
    """A series of the same workspace read again from its file (a restart)."""
    series = StatsSeries(moments_of(t.service), default_series_path(t.service.blobs.directory))
    series._load(t.service.history.all())
    return series


def kept_detail(t: Timeline, at: float) -> Detail:
    """The kept detail of moment `at` (the series must cover it)."""
    moments = moments_of(t.service)
    records = moments.history.all()
    found = kept_at(moments, moment_index(records, moments.timeline, at, moments.clock()), records)
    assert found is not None, f"the series does not cover {_iso(at)}"
    return found[1]


@contextmanager
def none_built(moments: Moments, what: str) -> Iterator[None]:
    """The body must build no whole moment: the moments built before are set aside while it
    runs (a counted answer that fell back to the whole moment would build one again, and find
    the cache no longer empty), then put back, so the reference asked next is the moment built
    for the same time by an earlier reference, not a new build of it for every question."""
    with moments._lock:
        held = moments._cache.copy()
        moments._cache.clear()
    yield
    with moments._lock:
        built = list(moments._cache)
        moments._cache.update(held)
    assert not built, f"a whole moment was built for {what}"


def answered_whole(moments: Moments, at: float) -> bool:
    """Whether the latest ask was answered by the whole moment of `at`: `Moments.at` puts the
    moment it built or found last in its cache (the reference asks with a field only it answers)."""
    records = moments.history.all()
    key = (moment_index(records, moments.timeline, at, moments.clock()), moments.timeline.epoch)
    return bool(moments._cache) and next(reversed(moments._cache)) == key


def test_an_untrusted_counts_file_is_ignored_and_walked_again(tmp_path: Path) -> None:
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    t.series().ensure(wait=True)
    path = default_series_path(t.service.blobs.directory)
    good = path.read_text().splitlines()
    records = len(t.service.history.all())
    assert len(_reload(t)._counts) == records

    # A doctored count with its line's tag intact is found out by the graph now (the newest).
    header, *lines = good
    newest = json.loads(lines[-1])
    newest["s"][1] += 5
    path.write_text("\n".join([header, *lines[:-1], json.dumps(newest)]) + "\n")
    assert _reload(t)._counts == {}

    # A line of another record (a foreign file, or the history rewritten), and a torn one: the
    # checkpoints from there on are walked again.
    middle = json.loads(lines[3])
    middle["h"] = "0" * 16
    torn = lines[5][: len(lines[5]) // 2]
    path.write_text("\n".join([header, *lines[:3], json.dumps(middle), lines[4], torn, *lines[6:]]) + "\n")
    reloaded = _reload(t)
    assert set(reloaded._counts) == {1, 2, 3}
    # ... and walked again when asked: the series is whole, and answers as the whole moment.
    series = StatsSeries(moments_of(t.service), path)
    series.ensure(wait=True)
    assert series.high == records
    for at in t.moments:
        moments = moments_of(t.service)
        all_records = moments.history.all()
        first = moment_index(all_records, moments.timeline, at, moments.clock())
        assert series.stats_at(first, all_records) == graph_at(t.service, _iso(at)).stats()

    # Another format, another layout, not JSON at all: nothing is read from it.
    for first_line in ('{"series": "asof-stats", "v": 0, "layout": "latchai"}',
                       '{"series": "asof-stats", "v": 1, "layout": "elsewhere"}', "\x00garbage"):
        path.write_text("\n".join([first_line, *lines]) + "\n")
        assert _reload(t)._counts == {}
    path.unlink()
    path.mkdir()  # not a file: nothing read, the walk's counts are kept in memory all the same
    series = StatsSeries(moments_of(t.service), path)
    series.ensure(wait=True)
    assert series.high == records
    path.rmdir()
    os.mkfifo(path)  # a FIFO is never waited on: not read, and replaced by the counts' file
    series = StatsSeries(moments_of(t.service), path)
    series.ensure(wait=True)
    assert series.high == records
    assert stat.S_ISREG(path.stat().st_mode)
    assert len(_reload(t)._counts) == records


def test_records_written_after_the_walk_are_appended_to_the_file(tmp_path: Path) -> None:
    """The file grows by the new records' lines, each once; the history rewritten under it
    (retention moves every record's id) and it is walked and written whole again."""
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    t.series().ensure(wait=True)
    path = default_series_path(t.service.blobs.directory)
    before = path.read_bytes()
    t.write("writer", {"command": "create", "path": "/memories/extra.md", "file_text": "[[nowhere]]\n"})
    assert t.kept(t.moments[-1]) == graph_at(t.service, _iso(t.moments[-1])).stats()
    after = path.read_bytes()
    assert after.startswith(before)
    assert after.count(b"\n") == before.count(b"\n") + 1
    history = t.service.history.path
    lines = history.read_bytes().split(b"\n")
    history.write_bytes(b"\n".join(lines[1:]))  # the oldest record dropped, as retention does
    moments = moments_of(t.service)
    records = moments.history.all()
    assert t.series().stats_at(len(records), records) is None  # every tag moved
    t.series().ensure(wait=True)
    assert len(path.read_text().splitlines()) == len(records) + 1
    _compare_from(t, 1)


COUNTED = """{ linkReport(asOf: "%(when)s") { total byStatus { status count } %(report)s }
  memories(asOf: "%(when)s", first: 5) { totalCount pageInfo { hasNextPage } %(page)s }
  memoryHealth(asOf: "%(when)s") {
    scope total { notes links broken ambiguous missingAnchor %(health)s } } }"""
WRITER = """{ memories(asOf: "%(when)s", first: 5, filter: {scope: "writer"}) { totalCount %(page)s } }"""


def test_graphql_counts_as_of_are_answered_from_the_kept_counts_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    """`linkReport(asOf:)` asking its totals, `memories(asOf:) { totalCount }` (no filter) and
    the admin's `memoryHealth(asOf:)` total are answered from the kept counts, no moment built
    (brain/api/graph/asof/counted.py), and equal the whole moment's answer (asked with a field only
    the whole moment answers) at every moment.

    Planted bug, seen to fail: the filter not looked at (writer's count answered with every
    note's)."""
    import httpx

    from brain.tool import memory_service
    from tests.api.live import live_server

    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    t.brain.close()
    with live_server(t.root, store) as live, httpx.Client(base_url=live.base, timeout=120) as http:
        moments = moments_of(memory_service(live.brain))
        series_of(moments).ensure(wait=True)

        def ask(query: str, when: str, report: str = "", page: str = "", health: str = "") -> Any:
            answer = http.post("/graphql", json={"query": query % {
                "when": when, "report": report, "page": page, "health": health}}).json()
            assert "errors" not in answer, answer
            found = answer["data"]
            for name, key in (("linkReport", "errors"), ("memories", "nodes")):
                if name in found:
                    found[name].pop(key, None)
            if "memoryHealth" in found:
                found["memoryHealth"]["total"].pop("orphans", None)
            return found

        for at in t.moments:
            when = _iso(at)
            moments._cache.clear()  # each moment's reference built from the graph now, once
            with none_built(moments, "the counts"):
                counted = ask(COUNTED, when)
            assert counted == ask(COUNTED, when, "errors", "nodes { id }", "orphans"), when
            assert answered_whole(moments, at)  # (the reference: the whole moment)
            with none_built(moments, "writer's count"):
                writers = ask(WRITER, when)
            assert writers == ask(WRITER, when, page="nodes { id }"), when
            assert answered_whole(moments, at)
