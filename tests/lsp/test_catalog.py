"""The completion catalog follows the graph's change events and equals a fresh build."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.lsp.features.catalog import Catalog
from brain.model import Kind, MemoryNode

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


def test_a_scope_is_read_when_first_asked_and_changes_meanwhile_are_in_it(
    make_brain: BrainFactory, tmp_path: Path
) -> None:
    brain = make_brain({"memory/other/x.md": "x\n"})
    catalog = Catalog.of(brain.store)
    brain.subscribe(catalog.apply)
    assert names(catalog, "bot") == ["alpha", "beta"]  # read now; `other` not yet

    # Changes to a scope not read yet: a new note, a deleted one, a new scope, an emptied one.
    (tmp_path / "memory/other/y.md").write_text("y\n", encoding="utf-8")
    (tmp_path / "memory/other/x.md").unlink()
    (tmp_path / "memory/late").mkdir()
    (tmp_path / "memory/late/z.md").write_text("z\n", encoding="utf-8")
    (tmp_path / "memory/shared/gamma.md").unlink()
    brain.sync()
    assert catalog.scopes() == ["bot", "late", "other"]
    assert names(catalog, "other") == ["y"]
    assert names(catalog, "late") == ["z"]
    assert names(catalog, "shared") == []
    assert snapshot(catalog) == snapshot(Catalog.of(brain.store))


def test_a_catalog_of_a_snapshot_s_rows_equals_one_of_a_full_read(
    make_brain: BrainFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from brain.service.brain import Brain

    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(tmp_path.parent / f"{tmp_path.name}-snapshots"))
    extra = {f"memory/{s}/n{i}.md": f"---\ndescription: {s} {i}\n---\n" for s in "abc" for i in range(3)}
    full = make_brain(extra)
    cold = Brain(tmp_path, cache=True)
    cold.sync()
    cold.close()  # writes the snapshot
    warm = Brain(tmp_path, cache=True)
    assert warm.open_snapshot()  # memories held as rows until read
    assert warm.store.memory_scopes() == full.store.memory_scopes() == {
        "a": 3, "b": 3, "bot": 2, "c": 3, "shared": 1,
    }
    expected = Catalog.of(full.store)
    restored = Catalog.of(warm.store)
    for scope in ("bot", "b", "shared", "nobody"):
        assert [(e.key, e.node) for e in restored.memories(scope)] == [
            (e.key, e.node) for e in expected.memories(scope)
        ]
    assert snapshot(restored) == snapshot(expected)


def test_a_completion_reads_only_the_scopes_it_offers(make_brain: BrainFactory) -> None:
    from brain.store.base import MemoryFilter
    from brain.store.memory.store import MemoryStore

    class Recording(MemoryStore):
        def __init__(self, image: MemoryStore) -> None:
            super().__init__()
            self.restore(image.contents())
            self.asked: list[MemoryFilter] = []

        def list_memories(
            self, where: MemoryFilter, after: str | None = None, limit: int | None = None,
            *, bodies: bool = True,
        ) -> list[MemoryNode]:
            self.asked.append(where)
            return super().list_memories(where, after, limit, bodies=bodies)

    brain = make_brain({f"memory/agent-{i}/note.md": "x\n" for i in range(20)})
    assert isinstance(brain.store, MemoryStore)
    store = Recording(brain.store)
    catalog = Catalog.of(store)
    assert store.asked == []
    assert [e.key for _, group in catalog.groups("bot") for e in group][:3] == ["alpha", "beta", "gamma"]
    assert sorted(where.scope or "" for where in store.asked) == ["bot", "shared"]
    catalog.groups("bot")
    assert len(store.asked) == 2  # read once
