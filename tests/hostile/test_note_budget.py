"""A note on disk has a budget of bytes, links and nesting (brain/parse/note_budget.py).

Before: a 25 MB nested list took ~80 s to check, a 20 MB note 26 s and 834 MB, and a note
of 450,000 links made `backlinks` answer 7 MB, unpaged, every time. Now a note over its size
is a node (path, size, hash) with one `too-large` error and is never parsed; one nested
past the budget gets `too-deep` and its body is not scanned; links past the budget are
dropped with `too-many-links`. `brain check` (with the Python scanner and the Rust one) runs
under a time and memory budget; GraphQL shows the same problems on both stores, and pages
the backlinks of a note that many notes link to.
"""

from __future__ import annotations

import hashlib
import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.mcp.tools import graph as mcp_graph
from brain.mcp.tools.graph import AgentView
from brain.model import MemoryNode
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.tool.calls.refusal import Refusal
from tests.api.live import live_server
from tests.hostile.budget import MIB, brain_argv, run_limited
from tests.tool.conftest import make_workspace

BIG = "memory/shared/big.md"
NESTED = "memory/shared/nested.md"
LINKY = "memory/shared/linky.md"
DEEP = "memory/shared/deep.md"
FM = "---\ndescription: {}\n---\n"


def hostile_workspace(root: Path) -> Path:
    shared = root / "memory" / "shared"
    shared.mkdir(parents=True)
    (shared / "target.md").write_text(FM.format("the target") + "# Top\n")
    line = "see [[target]] and [[target#Top]] with words around them ^b\n"
    with open(root / BIG, "w") as fh:  # 20 MB of links and block ids
        fh.write(FM.format("big"))
        for _ in range(20 * MIB // len(line)):
            fh.write(line)
    with open(root / NESTED, "w") as fh:  # a 25 MB nested list
        fh.write(FM.format("nested"))
        written = 0
        i = 0
        while written < 25 * MIB:
            item = "  " * (i % 60) + f"- item [[target]] {i}\n"
            fh.write(item)
            written += len(item)
            i += 1
    links = "".join("[[target]] " if i % 10 else "[[target]]\n" for i in range(6_000))
    (root / LINKY).write_text(FM.format("many links") + links)
    (root / DEEP).write_text(FM.format("deep") + "".join(">" * i + " [[target]]\n" for i in range(150)))
    return root


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_workspace(tmp_path_factory.mktemp("budget") / "ws")


def problems_of(text: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for line in text.splitlines():
        parts = line.split(" ", 3)
        if len(parts) > 2 and parts[1] == "error":
            found.setdefault(parts[0].split(":")[0], set()).add(parts[2])
    return found


EXPECTED = {BIG: {"too-large"}, NESTED: {"too-large"}, LINKY: {"too-many-links"}, DEEP: {"too-deep"}}


@pytest.mark.parametrize("native", ["1", "0"], ids=["rust-scanner", "python-parser"])
def test_brain_check_reports_each_budget_within_budget(workspace: Path, native: str) -> None:
    env = {**os.environ, "BRAIN_NATIVE": native}
    outcome = run_limited(brain_argv(["check", str(workspace)]), seconds=40, memory=1024 * MIB, env=env)
    print(outcome.summary())
    assert not outcome.timed_out, outcome.summary()
    assert outcome.returncode == 1, outcome.stderr[-2000:]
    assert problems_of(outcome.stdout) == EXPECTED
    assert outcome.peak_rss_mib < 400  # before: 834 MB for the 20 MB note alone
    assert "over the budget of 1,048,576 bytes (1 MiB)" in outcome.stdout
    assert "BRAIN_MAX_NOTE_BYTES" in outcome.stdout
    assert "only the first 5,000 are in the graph" in outcome.stdout


QUERY = """{
  big: memory(scope: "shared", name: "big") {
    size hash linkCount headings { text } problems { code message }
  }
  linky: memory(scope: "shared", name: "linky") { linkCount problems { code } }
  target: memory(scope: "shared", name: "target") {
    backlinkCount
    backlinks(first: 100) { source { name } line column cursor }
  }
}"""


def gql(http: httpx.Client, query: str, variables: dict[str, object] | None = None) -> Any:
    body = http.post("/graphql", json={"query": query, "variables": variables or {}}).json()
    assert "errors" not in body, body
    return body["data"]


def test_graphql_shows_the_budget_problems_and_pages_backlinks(workspace: Path, store: GraphStore) -> None:
    with live_server(workspace, store) as live, httpx.Client(base_url=live.base, timeout=60) as http:
        data = gql(http, QUERY)
    big, linky, target = data["big"], data["linky"], data["target"]
    assert big["size"] == (workspace / BIG).stat().st_size
    assert len(big["hash"]) == 64
    assert (big["linkCount"], big["headings"]) == (0, [])
    assert [p["code"] for p in big["problems"]] == ["too-large"]
    assert linky["linkCount"] == 5000
    assert [p["code"] for p in linky["problems"]] == ["too-many-links"]
    # linky's 5,000 kept links land on target (deep.md's body is not scanned): pages of 100.
    assert target["backlinkCount"] == 5000
    assert len(target["backlinks"]) == 100


def test_backlinks_page_through_every_link_once(
    tmp_path: Path, store: GraphStore
) -> None:
    root = tmp_path / "ws"
    shared = root / "memory" / "shared"
    shared.mkdir(parents=True)
    (shared / "hub.md").write_text(FM.format("hub"))
    for n in range(3):
        (shared / f"n{n}.md").write_text(FM.format(f"n{n}") + "[[hub]]\n" * 90)
    seen: list[tuple[str, int]] = []
    pages = []
    query = """query($after: String) { memory(scope: "shared", name: "hub") {
        backlinkCount backlinks(first: 100, after: $after) { source { name } line cursor } } }"""
    with live_server(root, store) as live, httpx.Client(base_url=live.base, timeout=30) as http:
        after = None
        while True:
            memory = gql(http, query, {"after": after})["memory"]
            page = memory["backlinks"]
            pages.append(len(page))
            seen += [(link["source"]["name"], link["line"]) for link in page]
            if len(page) < 100:
                break
            after = page[-1]["cursor"]
        too_many = http.post("/graphql", json={"query": '{ memory(scope: "shared", name: "hub") '
                                                      "{ backlinks(first: 1000) { line } } }"}).json()
    assert memory["backlinkCount"] == 270
    assert pages == [100, 100, 70]
    assert len(seen) == 270
    assert len(set(seen)) == 270
    assert "out of range 0..100" in json.dumps(too_many["errors"])


def test_top_level_lists_are_paged_by_id(tmp_path: Path, store: GraphStore) -> None:
    root = tmp_path / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    (root / "workflows").mkdir()
    for n in range(130):
        (root / "workflows" / f"w{n:03}.yaml").write_text(f"title: flow {n}\n")
    query = "query($after: String) { workflows(after: $after) { id } }"
    with live_server(root, store) as live, httpx.Client(base_url=live.base, timeout=30) as http:
        first = [w["id"] for w in gql(http, query)["workflows"]]
        rest = [w["id"] for w in gql(http, query, {"after": first[-1]})["workflows"]]
    assert len(first) == 100
    assert len(rest) == 30
    assert sorted(first + rest) == [f"workflow:w{n:03}" for n in range(130)]


def test_a_note_that_grows_past_the_budget_is_never_read_whole(tmp_path: Path, store: GraphStore) -> None:
    root = tmp_path / "ws"
    (root / "memory" / "shared").mkdir(parents=True)
    note = root / "memory" / "shared" / "grows.md"
    note.write_text(FM.format("small") + "[[x]]\n")
    brain = Brain(root, store)
    brain.sync()
    with open(note, "a") as fh:  # 20 MB appended while brain runs: an incremental sync
        for _ in range(20):
            fh.write("[[x]] " * (MIB // 6) + "\n")
    tracemalloc.start()
    brain.sync([note.relative_to(root).as_posix()])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 8 * MIB  # a stat and a hash in pieces; reading it whole held 20 MB
    found = store.get_nodes(["memory:shared/grows"])["memory:shared/grows"]
    assert isinstance(found, MemoryNode)
    assert found.hash == hashlib.sha256(note.read_bytes()).hexdigest()
    assert found.size == note.stat().st_size
    assert [p.code for p in brain.problems() if p.path.endswith("grows.md")] == ["too-large"]
    assert store.links_from(["memory:shared/grows"]).get("memory:shared/grows", []) == []


def test_mcp_link_tools_list_at_most_200_and_count_the_rest(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    shared = root / "memory" / "shared"
    (shared / "hub.md").write_text(FM.format("hub"))
    for n in range(3):
        (shared / f"n{n}.md").write_text(FM.format(f"n{n}") + "[[hub]]\n" * 90)
    (root / "memory" / "writer" / "many.md").write_text(FM.format("many") + "[[hub]]\n" * 250)
    brain = Brain(root)
    brain.sync()
    view = AgentView(brain, "writer")
    back = mcp_graph.backlinks(view, "/memories/shared/hub.md")
    assert (len(back["backlinks"]), back["total"], back["truncated"]) == (200, 520, True)
    assert mcp_graph.render("memory_backlinks", back).startswith(
        f'/memories/shared/hub.md: 520 backlink(s), 200 shown here; the next with after "{back["next"]}"')
    # Page on with `next` to the end: every backlink once, in order, and the last page says so.
    pages = [back]
    while pages[-1]["next"] and len(pages) < 5:
        pages.append(mcp_graph.backlinks(view, "/memories/shared/hub.md", pages[-1]["next"]))
    assert [len(p["backlinks"]) for p in pages] == [200, 200, 120]
    seen = [(b["source"], b["line"]) for p in pages for b in p["backlinks"]]
    assert len(set(seen)) == 520
    assert pages[-1]["truncated"] is False
    for bad in ("garbage!", "W10", 7, "x" * 5000):
        with pytest.raises(Refusal, match="not a cursor of these backlinks"):
            mcp_graph.backlinks(view, "/memories/shared/hub.md", bad)
    out = mcp_graph.links(view, "/memories/many.md")
    assert (len(out["links"]), out["total"], out["truncated"], out["next"]) == (200, 250, True, "200")
    rest = mcp_graph.links(view, "/memories/many.md", out["next"])
    assert (len(rest["links"]), rest["truncated"], rest["next"]) == (50, False, None)
    assert {x["line"] for x in out["links"]}.isdisjoint(x["line"] for x in rest["links"])
    with pytest.raises(Refusal, match="must be the `next` of the previous answer"):
        mcp_graph.links(view, "/memories/many.md", "-1")
    # Problems page the same way: 250 broken links, each a problem of the note.
    (root / "memory" / "writer" / "broken.md").write_text(
        FM.format("broken") + "".join(f"[[missing-{n}]]\n" for n in range(250)))
    brain.sync()
    first = mcp_graph.problems(view, "/memories/broken.md")
    assert (len(first["problems"]), first["total"], first["next"]) == (200, 250, "200")
    assert mcp_graph.render("memory_problems", first).startswith(
        '250 problem(s), 200 shown here; the next with after "200"')
    last = mcp_graph.problems(view, "/memories/broken.md", first["next"])
    assert (len(last["problems"]), last["next"]) == (50, None)
