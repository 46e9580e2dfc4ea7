"""The maintenance report is kept until the graph changes (brain/maintain/report_cache.py),
over GraphQL on both stores: a repeated request runs no second pass, and a change of the
graph (a sync of an edited workspace) is in the very next report."""

from __future__ import annotations

from pathlib import Path

import httpx

from brain.config.operator import MaintainConfig
from brain.maintain.report_cache import kept_report
from brain.store.base import GraphStore
from tests.api.client import post
from tests.api.live import live_server
from tests.maintain.conftest import note, workspace_with
from tests.tool.conftest import write

REPORT = (Path(__file__).resolve().parents[2] / "graphql" / "maintenance-report.graphql").read_text(
    encoding="utf-8"
)
STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")


async def test_a_report_is_read_again_only_after_the_graph_changed(
    tmp_path: Path, store: GraphStore
) -> None:
    root = workspace_with(tmp_path / "ws", {"memory/writer/style-a.md": (STYLE, 5)})
    with live_server(root, store, watch=False) as live:
        brain = live.services.brain
        async with httpx.AsyncClient(timeout=60) as client:
            first = await post(client, live.graphql, REPORT)
            again = await post(client, live.graphql, REPORT)
            assert "errors" not in first, first
            assert again == first
            findings = first["data"]["maintenanceReport"]["findings"]
            assert not [f for f in findings if f["code"] == "duplicate"]
            # kept: the same report object, no second pass
            config = MaintainConfig()
            assert kept_report(brain, None, config) is kept_report(brain, None, config)
            write(root, "memory/writer/style-b.md", STYLE, age_days=1)
            brain.sync(["memory/writer/style-b.md"])
            after = await post(client, live.graphql, REPORT)
            scoped = await post(client, live.graphql, REPORT, {"scope": "writer"})
    for answer in (after, scoped):  # the older copy is the duplicate to delete
        report = answer["data"]["maintenanceReport"]
        duplicates = [f["path"] for f in report["findings"] if f["code"] == "duplicate"]
        assert duplicates == ["memory/writer/style-a.md"]
    before = first["data"]["maintenanceReport"]["findingCount"]
    assert after["data"]["maintenanceReport"]["findingCount"] > before
