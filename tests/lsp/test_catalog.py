"""The completion catalog follows the graph's change events and equals a fresh build."""

from __future__ import annotations

from pathlib import Path

from brain.lsp.catalog import Catalog
from brain.model import Kind

from .conftest import BrainFactory


def names(catalog: Catalog, scope: str) -> list[str]:
    return [e.key for e in catalog.memories(scope)]


def snapshot(catalog: Catalog) -> object:
    groups = catalog.groups("bot", (Kind.MEMORY, Kind.WORKFLOW, Kind.CHAT, Kind.WORK_ITEM, Kind.AGENT))
    return [(tier, [(e.key, e.node) for e in group]) for tier, group in groups] + [catalog.scopes()]


def test_catalog_follows_changes(make_brain: BrainFactory, tmp_path: Path) -> None:
    brain = make_brain()
    catalog = Catalog.of(brain.store)
    brain.subscribe(catalog.apply)
    assert names(catalog, "bot") == ["alpha", "beta"]

    (tmp_path / "memory/bot/Aardvark.md").write_text("---\ndescription: first\n---\n", encoding="utf-8")
    (tmp_path / "memory/newbie").mkdir()
    (tmp_path / "memory/newbie/hello.md").write_text("hi\n", encoding="utf-8")
    (tmp_path / "workflows/deploy.yaml").write_text("title: Deploy\n", encoding="utf-8")
    (tmp_path / "memory/bot/beta.md").unlink()
    brain.sync()
    assert names(catalog, "bot") == ["aardvark", "alpha"]
    assert names(catalog, "newbie") == ["hello"]
    assert [e.key for e in catalog.others(Kind.WORKFLOW)] == ["deploy", "nightly-release"]

    (tmp_path / "memory/bot/Aardvark.md").write_text("---\ndescription: second\n---\n", encoding="utf-8")
    brain.sync(["memory/bot/Aardvark.md"])
    (first,) = [e for e in catalog.memories("bot") if e.key == "aardvark"]
    assert first.node.description == "second"
    assert snapshot(catalog) == snapshot(Catalog.of(brain.store))


def test_groups_by_tier(make_brain: BrainFactory) -> None:
    catalog = Catalog.of(make_brain({"memory/other/x.md": "x\n"}).store)
    tiers = [(tier, [e.key for e in group]) for tier, group in catalog.groups("bot")]
    assert tiers == [
        (0, ["alpha", "beta"]), (1, ["gamma"]), (2, ["nightly-release"]), (3, ["standup"]),
        (4, ["fix-login"]),
    ]
    assert [(t, [e.key for e in g]) for t, g in catalog.groups("bot", scope="OTHER")] == [(0, ["x"])]
    assert [(t, [e.key for e in g]) for t, g in catalog.groups("bot", kinds=(Kind.AGENT,))] == [
        (5, ["bot", "other"]),
    ]
