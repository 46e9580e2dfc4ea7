"""Per-scope health and problems by code as of a moment, from the kept counts' detail
(brain/tool/asof/counts/detail.py, series.py), equal the whole moment's (graph.py, the reference) at
every moment of a timeline, on both stores; GraphQL answers them without building the moment
for the admin, and from the whole moment for an agent's token.

The timeline is test_as_of_series.py's (links broken, ambiguous, to a missing heading, a
rename, a delete, edits outside brain) and then a note with bad frontmatter and an empty link
that a later edit fixes, and a folder of an agent without memory (`memory-off`) whose note is
deleted: every kind of problem a note, a file and an agent make.

Planted bugs, each seen to fail: the walker's notes counted once and not as writes replace them
(CountingStore.write as MemoryStore's: the fixed frontmatter still counted); a difference
merged as the whole (`merged` dropping the entries a line does not name); the reach check of
counted_health left out (the agent's answer counted as the admin's); the `f` check on load
left out (a run read from a difference line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool import memory_service
from brain.tool.access import Actor
from brain.tool.asof.counts import series as series_module
from brain.tool.asof.counts.detail import detail_of
from brain.tool.asof.counts.series import default_series_path, series_of
from brain.tool.asof.delta import moment_index
from brain.tool.asof.service import graph_at, moments_of
from brain.tool.diff.changes import _iso
from tests.api.live import live_server
from tests.tool.test_as_of_series import (
    Timeline,
    _reload,
    _timeline,
    answered_whole,
    kept_detail,
    none_built,
)

ADMIN, WRITER, REVIEWER, QUIET = "admin-secret", "writer-secret", "reviewer-secret", "quiet-secret"


def _detailed(root: Path, store: GraphStore) -> Timeline:
    t = _timeline(root, store)
    t.outside("memory/writer/bad.md", "---\ndescription: [oops\n---\n\n[[]] [[plans]]\n")
    t.outside("memory/ghost/lost.md", "# Lost\n\n[[glossary]] [[writer/plans]]\n")
    t.write("writer", {"command": "create", "path": "/memories/shared/wanted.md", "file_text": "[[lost]]\n"})
    t.outside("memory/writer/bad.md", "---\ndescription: fine\n---\n\n[[plans]]\n")
    t.outside("memory/ghost/lost.md", None)
    return t


def test_the_detail_of_each_moment_is_the_whole_moments_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    t = _detailed(tmp_path / "ws", store)
    t.series().ensure(wait=True)
    codes: set[str] = set()
    for at in t.moments:
        whole = detail_of(graph_at(t.service, _iso(at)))
        assert kept_detail(t, at) == whole, _iso(at)
        codes.update(code for code, _ in whole.codes)
        assert {row.scope for row in whole.scope_rows()} >= {"shared"}
    # Every kind of problem the timeline means to make was made (and is counted right).
    assert codes >= {"broken-link", "ambiguous-link", "missing-anchor", "invalid-frontmatter",
                     "empty-link", "memory-off"}
    # Read back from the file by a new series (a restart): the same detail at every moment.
    reloaded = _reload(t)
    records = moments_of(t.service).history.all()
    for at in t.moments:
        first = moment_index(records, moments_of(t.service).timeline, at, moments_of(t.service).clock())
        found = reloaded.kept_at(first, records)
        assert found is not None
        assert found[1] == kept_detail(t, at)


def test_a_detail_far_from_its_snapshot_is_merged_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """More than SNAP records: a moment is a whole detail kept every SNAP checkpoints and the
    differences after it; every one equals the whole moment's. With a whole detail every 32
    checkpoints, not 256: the same merges (a whole one, then up to SNAP - 1 differences) from
    52 writes, not 276 (series.py reads SNAP when it walks and looks up)."""
    snap = 32
    monkeypatch.setattr(series_module, "SNAP", snap)
    t = _timeline(tmp_path / "ws", Brain(tmp_path / "ws").store)
    base = len(t.service.history.all())
    assert base + 2 <= snap  # (the first moment looked at is after the timeline's records)
    times: list[float] = []
    for i in range(snap + 20):
        t.clock[0] += 1
        text = f"[[n{i - 1}]] [[nowhere{i % 3}]]\n" if i % 5 else "# plain\n"
        done = t.tool.run("writer", {"command": "create", "path": f"/memories/n{i}.md", "file_text": text},
                          actor=Actor.admin())
        assert done.ok, done.text
        times.append(t.clock[0] + 0.5)
    series = t.series()
    series.ensure(wait=True)
    assert snap in series._snaps
    assert len(series._snaps) >= 2
    for first in (snap - 1, snap, snap + 1, snap + 19, base + snap + 20):
        at = times[first - base - 1]
        assert kept_detail(t, at) == detail_of(graph_at(t.service, _iso(at))), first


def test_an_old_or_doctored_detail_is_not_trusted(tmp_path: Path) -> None:
    t = _detailed(tmp_path / "ws", Brain(tmp_path / "ws").store)
    blobs = t.service.blobs.directory
    old = blobs.parent / "stats-v1.jsonl"  # a v1 file (counts without detail): walked again, removed
    old.write_text('{"series": "asof-stats", "v": 1, "layout": "latchai"}\n')
    t.series().ensure(wait=True)
    assert not old.exists()
    path = default_series_path(blobs)
    assert path.name == "stats-v2.jsonl"
    records = len(t.service.history.all())
    header, *lines = path.read_text().splitlines()
    assert json.loads(lines[0])["f"] == 1
    assert all("f" not in json.loads(line) for line in lines[1:])
    assert len(_reload(t)._counts) == records

    # The newest line's detail doctored, its counts and tag intact: the graph now finds it out.
    newest = json.loads(lines[-1])
    newest["d"]["p"]["broken-link|error"] = 99
    path.write_text("\n".join([header, *lines[:-1], json.dumps(newest)]) + "\n")
    assert _reload(t)._counts == {}
    # A detail that is not one (a row of 3 counts, a severity brain has not): that line and
    # every one above it are walked again.
    for bad in ({"g": {"writer": [1, 2, 3]}, "p": {}}, {"g": {}, "p": {"x|fatal": 1}},
                {"g": {}, "p": {"broken-link|error": -1}}, [1]):
        line = json.loads(lines[4])
        line["d"] = bad
        path.write_text("\n".join([header, *lines[:4], json.dumps(line), *lines[5:]]) + "\n")
        assert set(_reload(t)._counts) == {1, 2, 3, 4}, bad
    # The first line is not a whole one (the run's start lost): nothing is read.
    path.write_text("\n".join([header, *lines[1:]]) + "\n")
    assert _reload(t)._counts == {}
    # ... and the series walked again answers every moment as the whole moment does.
    series = series_of(moments_of(t.service))
    series.ensure(wait=True)
    for at in t.moments:
        assert kept_detail(t, at) == detail_of(graph_at(t.service, _iso(at)))


REPORT = """{ linkReport(asOf: "%(when)s") { total errors warnings byStatus { status count }
  byCode { code severity count } %(more)s } }"""
HEALTH = """{ memoryHealth(asOf: "%(when)s"%(scope)s) { scope
  total { scope notes links broken ambiguous missingAnchor orphans withoutDescription withoutType }
  scopes { scope notes links broken ambiguous missingAnchor orphans withoutDescription withoutType }
  %(more)s } }"""
SCOPED = """{ memories(asOf: "%(when)s", first: 3, filter: {scope: "writer"}) { totalCount %(more)s } }"""


def test_graphql_detail_as_of_is_answered_from_the_kept_counts_on_both_stores(
    tmp_path: Path, store: GraphStore,
) -> None:
    """`linkReport(asOf:) { byCode errors warnings }`, `memoryHealth(asOf:) { total scopes }`
    (of every scope and of one) and `memories(asOf:, filter: {scope:}) { totalCount }` are
    answered without building the moment, for the admin and for an agent's token (as it sees
    them: other agents' scopes are not in it), and equal the whole moment's answer (asked with
    a field only it answers) at every moment, and before the first record."""
    t = _detailed(tmp_path / "ws", Brain(tmp_path / "ws").store)
    t.brain.close()
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({WRITER: "writer", REVIEWER: "reviewer", QUIET: "quiet"}), encoding="utf-8")
    with (live_server(t.root, store, tokens=TokenRegistry(ADMIN, file)) as live,
          httpx.Client(base_url=live.base, timeout=120) as http):
        moments = moments_of(memory_service(live.brain))
        series_of(moments).ensure(wait=True)

        def ask(query: str, token: str = ADMIN, **values: str) -> Any:
            answer = http.post("/graphql", headers={"Authorization": f"Bearer {token}"},
                               json={"query": query % values}).json()
            assert "errors" not in answer, answer
            found = answer["data"]
            found.get("linkReport", {}).pop("mostWanted", None)
            found.get("memoryHealth", {}).pop("orphans", None)
            found.get("memories", {}).pop("nodes", None)
            return found

        seen: set[str] = set()
        for at in t.moments:
            when = _iso(at)
            # Each moment's reference is built from the graph now, once, and asked by every
            # question of the moment (none_built: the counted answers still build nothing).
            moments._cache.clear()
            for query, values, more in (
                (REPORT, {}, "mostWanted { count }"),
                (HEALTH, {"scope": ""}, "orphans(first: 1) { totalCount }"),
                (HEALTH, {"scope": ', scope: "writer"'}, "orphans(first: 1) { totalCount }"),
                (SCOPED, {}, "nodes { id }"),
            ):
                with none_built(moments, query[:30]):
                    counted = ask(query, when=when, more="", **values)
                assert counted == ask(query, when=when, more=more, **values), (when, query[:30])
                assert answered_whole(moments, at)  # (the reference: the whole moment)
            seen.update(row["scope"] for row in counted_scopes(ask(HEALTH, when=when, more="", scope="")))
            # An agent sees its notes and the shared ones (another's links into its notes are
            # broken to it): its counts are kept too (asof/counts/agents.py), the same as the
            # whole moment's; so are those of an agent with no notes then.
            for token in (WRITER, REVIEWER, QUIET):
                for values in ({"scope": ""}, {"scope": ', scope: "shared"'}):
                    with none_built(moments, f"{token}'s health"):
                        mine = ask(HEALTH, token, when=when, more="", **values)
                    assert mine == ask(HEALTH, token, when=when, more="orphans(first: 1) { totalCount }",
                                       **values), (when, token)
                    assert answered_whole(moments, at)
                    assert {row["scope"] for row in counted_scopes(mine)} <= {token.split("-")[0], "shared"}
        assert {"writer", "reviewer", "shared", "ghost"} <= seen
        # Before the series's first kept line (its first checkpoints forgotten, as when their
        # versions were not kept): the whole moment answers, the same; before the history, the
        # same refusal.
        series = series_of(moments)
        with series._lock:
            for k in range(1, 4):
                del series._counts[k]
        for token in (ADMIN, WRITER, REVIEWER):
            moments._cache.clear()
            assert ask(HEALTH, token, when=_iso(t.moments[1]), more="", scope="") == ask(
                HEALTH, token, when=_iso(t.moments[1]), more="orphans(first: 1) { totalCount }", scope="")
            assert moments._cache
            early = _iso(t.moments[0] - 6)
            refusals = [http.post("/graphql", headers={"Authorization": f"Bearer {token}"}, json={
                "query": HEALTH % {"when": early, "more": more, "scope": ""}}).json()["errors"]
                for more in ("", "orphans(first: 1) { totalCount }")]
            assert refusals[0] == refusals[1]
            assert "history begins" in refusals[0][0]["message"]


def counted_scopes(found: Any) -> list[Any]:
    rows: list[Any] = found["memoryHealth"]["scopes"]
    return rows


def test_a_held_moments_problems_are_worked_out_once_per_reach(tmp_path: Path) -> None:
    """A built moment is never synced again, so its problems (linkReport's most wanted, the
    problems page, `brain check --as-of`) are kept per caller's reach. Planted bug, seen to
    fail: kept by nothing but the moment (an agent given the admin's problems)."""
    from brain.tool.asof.service import problems_as_of

    t = _detailed(tmp_path / "ws", Brain(tmp_path / "ws").store)
    when = _iso(t.moments[-3])  # the bad frontmatter, the ghost's note: problems of three scopes
    admin, writer = Actor.admin(), Actor.of_agent("writer")
    moment, everything = problems_as_of(t.service, admin, when)
    assert moment.frozen
    _, mine = problems_as_of(t.service, writer, when)
    # Each the answer of the moment worked out again, without what is kept.
    assert everything == Brain.problems(moment) != mine
    assert mine == Brain.problems(moment, None, writer.reach)
    assert {p.path.split("/")[1] for p in everything if p.path.startswith("memory/")} >= {"writer", "ghost"}
    assert problems_as_of(t.service, admin, when)[1] == everything  # kept: the same again
    assert set(moment.__dict__["_problems_kept"]) == {None, writer.reach.scopes}
    everything.clear()  # a caller's list is its own
    assert problems_as_of(t.service, admin, when)[1] == Brain.problems(moment)
