"""The kept counts' walk back (brain/tool/asof/counts/series.py) runs in the serving process, on a
thread of its own: while it runs, requests are answered, as of a moment or now, reads and
writes (issue 44: one request never blocks the others). A real server (tests/api/live.py),
the real walk, held in the middle of its steps until the requests have been answered.

Planted bug, seen to fail: the walk holding the moments' build lock (which a request building
a moment takes) for its whole length: stats(asOf:) of a moment the counts do not cover yet,
answered by the whole moment, then waits for the walk (its request timed out).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool import memory_service
from brain.tool.asof.counts.series import StatsSeries, series_of
from brain.tool.asof.service import graph_at, moments_of
from brain.tool.diff.changes import _iso
from tests.api.live import live_server
from tests.tool.test_as_of_series import _timeline


def test_requests_are_answered_while_the_counts_are_walked_on_both_stores(
    tmp_path: Path, store: GraphStore, monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    t.brain.close()
    held, release = threading.Event(), threading.Event()
    undo = StatsSeries._undo
    steps = [0]

    def paused(self: StatsSeries, walker: Any, record: Any) -> None:
        steps[0] += 1
        if steps[0] == 3:  # mid-walk: two records undone, the rest to come
            held.set()
            assert release.wait(300), "the test never let the walk go on"
        undo(self, walker, record)

    monkeypatch.setattr(StatsSeries, "_undo", paused)
    with live_server(t.root, store) as live, httpx.Client(base_url=live.base, timeout=60) as http:
        service = memory_service(live.brain)
        series = series_of(moments_of(service))
        series.ensure()  # (the server's start began it already: then this one is a no-op)
        assert held.wait(120), "the walk did not start"
        try:
            walking = series.thread
            first = _iso(t.moments[0])

            def gql(query: str) -> Any:
                answer = http.post("/graphql", json={"query": query}).json()
                assert "errors" not in answer, answer
                return answer["data"]

            # As of a moment the counts do not cover yet: the whole moment answers.
            then = gql(f'{{ stats(asOf: "{first}") {{ memories links broken }} }}')["stats"]
            whole = graph_at(service, first).stats()
            assert then == {"memories": whole.memories, "links": whole.links, "broken": whole.broken}
            note = gql(f'{{ memory(path: "memory/writer/notes.md", asOf: "{_iso(t.moments[4])}") '
                       "{ path links(first: 20) { status } } }")
            assert note["memory"]["path"] == "memory/writer/notes.md"
            assert gql("{ stats { memories } }")["stats"]["memories"] > 0
            got = http.get("/api/memory/writer/notes.md")
            assert got.status_code == 200, got.text
            made = http.put("/api/memory/writer/during.md", json={"content": "# During\n\n[[plans]]\n"})
            assert made.status_code == 201, made.text
            # All answered with the walk still held in the middle of its steps.
            assert walking is not None
            assert walking.is_alive()
            assert not release.is_set()
        finally:
            release.set()
        assert walking is not None
        walking.join(120)
        # The walk went on and finished; the write made meanwhile is walked on the next ask.
        series.ensure(wait=True)
        records = moments_of(service).history.all()
        assert series.high == len(records)
        for at in t.moments:
            when = _iso(at)
            assert gql(f'{{ stats(asOf: "{when}") {{ links }} }}')["stats"]["links"] == (
                graph_at(service, when).stats().links), when
