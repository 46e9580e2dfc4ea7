"""`graphClusters` and `graphOverview(cluster:)` over HTTP on both stores: the summary's counts
are the workspace's, a cluster's drill-down holds exactly its notes (its best-linked ones when
capped, with how many there are), and a wrong cluster id is refused in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.service import clusters
from brain.store.base import GraphStore
from tests.api.client import post
from tests.api.conftest import ServerFactory
from tests.contract.helpers import Workspace, note

CLUSTERS = """{ graphClusters { notes links problems wanted scopes { scope notes agent }
  clusters { id kind scope label notes links outside problems hubs } edgeSources edgeTargets edgeLinks } }"""
DRILL = """query ($cluster: String!, $limit: Int!) { graphOverview(cluster: $cluster, limit: $limit) {
  truncated memoryTotal nodes { id kind } edgeTotal } }"""


def workspace(root: Path) -> Path:
    ws = Workspace(root)
    ws.write("agents/alice.md", "---\ndescription: alice\nmemory: true\n---\n")
    ws.write("workflows/nightly.yaml", "name: nightly\n")
    # Six deploy notes linking to their hub, four retry notes, an odd one: past SPLIT_AT (set to 8).
    # (Subfolders, one cluster each, are the unit test's: this layout keeps a scope's notes flat.)
    ws.write("memory/alice/deploy-hub.md", note("hub", "[[retry-1]] [[gone]]"))
    for i in range(1, 6):
        ws.write(f"memory/alice/deploy-{i}.md", note("d", "[[deploy-hub]]"))
    for i in range(1, 5):
        ws.write(f"memory/alice/retry-{i}.md", note("r", "[[deploy-hub]] [[shared/s]]" if i == 1 else ""))
    ws.write("memory/alice/lone.md", note("x", "[[also-gone]]"))
    ws.write("memory/shared/s.md", note("s", "[[alice/deploy-hub]]"))
    return root


async def ask(url: str, query: str, **variables: Any) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=30) as client:
        return await post(client, url, query, variables, token=None)


@pytest.fixture
def url(serve: ServerFactory, store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(clusters, "SPLIT_AT", 8)
    monkeypatch.setattr(clusters, "MIN_WORD", 3)
    return serve(workspace(tmp_path / "ws"), store).graphql


async def test_the_summary_counts_the_workspace_and_drills_down_to_a_clusters_notes(url: str) -> None:
    data = (await ask(url, CLUSTERS))["data"]["graphClusters"]
    assert data["notes"] == 12
    assert {s["scope"]: (s["notes"], s["agent"]) for s in data["scopes"]} == {
        "alice": (11, True),
        "shared": (1, False),
    }
    got = {c["id"]: (c["notes"], c["links"], c["outside"], c["problems"]) for c in data["clusters"]}
    assert got == {
        "cluster:alice/memory/alice/deploy": (
            6,
            5,
            3,
            1,
        ),  # five links in; hub <-> retry-1, s -> hub; [[gone]]
        "cluster:alice/memory/alice/retry": (4, 0, 3, 0),  # retry-1 -> hub and -> s; hub -> retry-1
        "cluster:alice/memory/alice/~lone": (1, 0, 0, 1),
        "cluster:shared/memory/shared": (1, 0, 2, 0),
    }
    assert (data["problems"], data["wanted"]) == (2, 2)
    deploy = next(c for c in data["clusters"] if c["id"].endswith("/deploy"))
    assert (deploy["hubs"][0], deploy["label"]) == ("deploy-hub", "alice · deploy-*")
    ids = [c["id"] for c in data["clusters"]]
    edges = {
        (ids[s], ids[t]): w
        for s, t, w in zip(data["edgeSources"], data["edgeTargets"], data["edgeLinks"], strict=True)
    }
    assert edges == {
        ("cluster:alice/memory/alice/deploy", "cluster:alice/memory/alice/retry"): 2,
        ("cluster:alice/memory/alice/deploy", "cluster:shared/memory/shared"): 1,
        ("cluster:alice/memory/alice/retry", "cluster:shared/memory/shared"): 1,
    }
    # The clusters' notes add up to the whole, as the page's status line says.
    assert sum(c["notes"] for c in data["clusters"] if c["kind"] == "notes") == data["notes"]

    # Drill-down: exactly the cluster's notes, its agent, and the targets its broken links want.
    drill = (await ask(url, DRILL, cluster="cluster:alice/memory/alice/deploy", limit=100))["data"][
        "graphOverview"
    ]
    memories = sorted(n["id"] for n in drill["nodes"] if n["kind"] == "memory")
    assert memories == [
        "memory:alice/deploy-1",
        "memory:alice/deploy-2",
        "memory:alice/deploy-3",
        "memory:alice/deploy-4",
        "memory:alice/deploy-5",
        "memory:alice/deploy-hub",
    ]
    assert {n["id"] for n in drill["nodes"] if n["kind"] != "memory"} == {"agent:alice", "unresolved:gone"}
    assert (drill["memoryTotal"], drill["truncated"]) == (6, False)
    # Capped: the best-linked first (the hub: seven links in, two out).
    capped = (await ask(url, DRILL, cluster="cluster:alice/memory/alice/deploy", limit=1))["data"][
        "graphOverview"
    ]
    assert [n["id"] for n in capped["nodes"] if n["kind"] == "memory"] == ["memory:alice/deploy-hub"]
    assert (capped["memoryTotal"], capped["truncated"]) == (6, True)
    scope = (await ask(url, DRILL, cluster="scope:alice", limit=100))["data"]["graphOverview"]
    assert scope["memoryTotal"] == 11


async def test_a_wrong_cluster_id_is_refused_in_words(url: str) -> None:
    answer = await ask(url, DRILL, cluster="cluster:@workflow", limit=10)
    assert answer["data"] is None
    assert "is not a cluster of notes: ask graphClusters" in answer["errors"][0]["message"]
