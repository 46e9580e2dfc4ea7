"""A first sync written in parts (brain/ingest/parts.py) builds the graph one batch builds."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from brain.index.text import index_words
from brain.ingest import ingester as ingest
from brain.ingest import parse_helpers
from brain.ingest.claims import claim
from brain.ingest.parts import PartWriter
from brain.model import WikiLink
from brain.service.brain import Brain
from brain.store.base import MemoryFilter, SearchWhere
from brain.store.memory.store import MemoryStore
from tests.unit.test_ingest_parts_layouts import in_parts


def workspace(root: Path, count: int = 60) -> None:
    """Notes linking forwards and backwards (across parts), to anchors, ambiguous names,
    agents and missing notes."""
    rng = random.Random(7)
    scopes = ["alpha", "beta", "shared"]
    names = [f"note-{i:03d}" for i in range(count)]
    for i, name in enumerate(names):
        scope = scopes[i % 3]
        targets = [rng.choice(names) for _ in range(4)]
        links = " ".join(f"[[{t}]]" for t in targets)
        links += f" [[{rng.choice(names)}#Part {rng.randint(0, 2)}]] [[missing-{i % 5}]] [[alpha]]"
        links += f" [[{rng.choice(scopes)}/{rng.choice(names)}]] ^block-{i}"
        text = f"---\ndescription: note {i}\ntype: project\n---\n# Part {i % 2}\n\n{links}\n"
        path = root / "memory" / scope / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if i % 7 == 0:  # the same name in another scope: ambiguous where not qualified
            other = root / "memory" / scopes[(i + 1) % 3] / f"{name}.md"
            other.parent.mkdir(parents=True, exist_ok=True)
            other.write_text(f"# Part 1\ncopy of {name} [[note-000]]\n", encoding="utf-8")


def graph(root: Path) -> tuple[object, ...]:
    brain = Brain(root, MemoryStore())
    result = brain.sync()
    # The keyword index, whether the words were counted here or by the helpers.
    words = {w for m in brain.store.list_memories(MemoryFilter()) for w in index_words(m.body)}
    ranked = [brain.store.keyword_search([w], SearchWhere(), 100) for w in sorted(words)]
    return brain.store.export(), brain.problems(), (result.parsed, len(result.changed_ids)), ranked


@pytest.mark.parametrize("workers", ["1", "2"])
def test_parts_give_the_graph_of_one_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    workspace(tmp_path)
    whole = graph(tmp_path)  # 60 notes: under PARALLEL_MIN and one part
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", workers)
    written = in_parts(monkeypatch, size=5)
    assert graph(tmp_path) == whole
    assert len(written) >= 5  # it was written in parts, each planned against the ones before


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_ingesters_state_shares_the_stores_strings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """A note's id and hash are held once, by the store and the ingester's file states,
    claims and sync result alike (at 100,000 notes each extra copy of them was 9-11 MB)."""
    workspace(tmp_path)
    monkeypatch.setenv("BRAIN_INGEST_WORKERS", workers)
    monkeypatch.setattr(parse_helpers, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parse_helpers, "CHUNK", 3)
    monkeypatch.setattr(PartWriter, "size", 5)
    monkeypatch.setattr(ingest, "MEMORY_PART", 5)
    brain = Brain(tmp_path, MemoryStore())
    result = brain.sync()
    store = brain.store
    assert isinstance(store, MemoryStore)
    held = {node_id: node_id for node_id in store._memories}  # the store's own strings
    claims = {node_id: node_id for node_id in brain.ingester.claims}
    changed = {node_id: node_id for node_id in result.changed_ids}
    assert len(held) >= 60
    for node_id, key in held.items():
        memory = store._memory(key)
        assert memory is not None
        state = brain.ingester.files[memory.path]
        assert state.node_id is key
        assert state.hash is memory.hash
        assert claims[node_id] is key
        assert changed[node_id] is key


def test_claims_are_sorted_tuples_a_snapshot_shares_and_duplicates_keep_their_order(tmp_path: Path) -> None:
    """Nearly every id has one file: a claim is a tuple of its files, sorted (the first wins),
    and the state a snapshot writes shares it instead of copying a set per node."""
    workspace(tmp_path)
    for name, text in (("deploy.yaml", "name: deploy\n"), ("deploy.json", '{"name": "deploy"}\n')):
        (tmp_path / "workflows").mkdir(exist_ok=True)
        (tmp_path / "workflows" / name).write_text(text)
    brain = Brain(tmp_path, MemoryStore())
    brain.sync()
    claims = brain.ingester.claims
    assert claims["workflow:deploy"] == ("workflows/deploy.json", "workflows/deploy.yaml")
    assert all(type(files) is tuple and list(files) == sorted(files) for files in claims.values())
    assert sum(len(files) == 1 for files in claims.values()) == len(claims) - 1
    state = brain.ingester.state()
    assert all(state.claims[node_id] is files for node_id, files in claims.items())
    (tmp_path / "workflows" / "deploy.json").unlink()  # the other file wins now
    brain.sync()
    assert brain.ingester.claims["workflow:deploy"] == ("workflows/deploy.yaml",)
    assert brain.ingester.files.get("workflows/deploy.yaml") is not None


def test_a_first_syncs_claims_are_those_the_general_claim_makes(tmp_path: Path) -> None:
    """`claim` takes a shorter way when nothing was claimed before: the same claims, gone
    files and problems, with duplicates in any order and a symlink among them."""
    workspace(tmp_path)
    (tmp_path / "workflows").mkdir()
    for name in ("deploy.yaml", "deploy.json", "build.yaml", "zeta.yaml", "alpha.json"):
        (tmp_path / "workflows" / name).write_text("name: x\n")
    (tmp_path / "workflows" / "alpha.yaml").symlink_to(tmp_path / "workflows" / "zeta.yaml")
    (tmp_path / "memory" / "shared" / "linked.md").symlink_to(tmp_path / "memory" / "shared" / "note-002.md")
    made = []
    for general in (False, True):
        ingester = Brain(tmp_path, MemoryStore()).ingester
        stats = {stat.rel: stat for stat in ingester.layout.walk(tmp_path)}
        if general:  # a claim held before (dropped after): the general way
            ingester.claims["memory:nobody/none"] = ()
        gone: set[str] = set()
        claim(ingester, stats, gone)
        ingester.claims.pop("memory:nobody/none", None)
        made.append((dict(ingester.claims), gone, dict(ingester.file_problems), sorted(stats)))
    assert made[0] == made[1]
    claims, gone, _, _ = made[0]
    assert claims["workflow:deploy"] == ("workflows/deploy.json", "workflows/deploy.yaml")
    assert gone == {"workflows/alpha.yaml", "memory/shared/linked.md"}


@pytest.mark.parametrize("limit", [1, 7])
def test_parts_resolve_each_target_once_and_give_the_same_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int,
) -> None:
    """The parts' links resolve against the walk's names, which stay the same: a target
    written in a scope is resolved once (linking.ResolutionMemo), and the graph is the one
    resolving every link gives, however small the memo (it starts over when full)."""
    from brain import resolve
    from brain.store import linking

    workspace(tmp_path)
    whole = graph(tmp_path)
    monkeypatch.setattr(linking, "MEMO_LIMIT", limit)
    monkeypatch.setattr(linking, "MEMO_PER_NAME", 0)  # not sized by the workspace
    resolved: list[str] = []

    def counted(link: WikiLink, *args: Any, **kwargs: Any) -> resolve.Resolution:
        resolved.append(link.target)
        return resolve.resolve_link(link, *args, **kwargs)

    monkeypatch.setattr(linking, "resolve_link", counted)
    in_parts(monkeypatch, size=5)
    assert graph(tmp_path) == whole
    targets = len(resolved)
    monkeypatch.setattr(linking, "MEMO_LIMIT", 1 << 15)
    resolved.clear()
    in_parts(monkeypatch, size=5)
    assert graph(tmp_path) == whole
    assert len(resolved) < targets  # a memo that keeps more resolves fewer
