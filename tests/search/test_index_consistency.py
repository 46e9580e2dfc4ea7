"""The search indexes follow every edit, rename and delete (a random-operations state machine).

After each step, keyword search for every word of a small vocabulary finds exactly the notes
whose text holds that word (the oracle reads the files), and once the embedding worker is
idle every note has a vector of its current content and no deleted note has one. The
encoder here is a deterministic bag-of-words hash: this test checks the bookkeeping, the
relevance tests check the model.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from brain.index.text import query_terms, title_of
from brain.search.embedding import VectorCache
from brain.search.indexer import EmbeddingIndexer
from brain.search.service import Mode, SearchService
from brain.service.brain import Brain
from brain.store.base import GraphStore, MemoryFilter, SearchIndex
from brain.store.memory.store import MemoryStore
from tests.contract.helpers import Workspace

WORDS = ["apple", "berry", "cherry", "delta", "echo", "fig"]
NAMES = ["one", "two", "three", "four"]
SCOPES = ["shared", "bot"]


class BagOfWords:
    name = "test-bag-of-words"

    def encode_texts(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * 384  # the model's size: Neo4j's vector index is made for it
            for word in query_terms(text):
                vector[int.from_bytes(hashlib.sha1(word.encode()).digest()[:2], "big") % 384] += 1.0
            norm = sum(v * v for v in vector) ** 0.5 or 1.0
            out.append([v / norm for v in vector])
        return out


class SearchFollowsTheFiles(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="brain-search-sm-"))
        (self.root / "memory").mkdir()
        self.store = MemoryStore()
        self.brain = Brain(self.root, self.store)
        self.brain.sync()
        cache = VectorCache("test", folder=self.root / ".cache")
        self.indexer = EmbeddingIndexer(self.store, self.store, BagOfWords(), cache=cache, batch=2)
        self.service = SearchService(self.store, self.indexer)
        self.brain.ingester.listeners.append(self.service.on_batch)
        self.indexer.start()

    def teardown(self) -> None:
        self.indexer.close()
        self.brain.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def _path(self, scope: str, name: str) -> Path:
        return self.root / "memory" / scope / f"{name}.md"

    @rule(scope=st.sampled_from(SCOPES), name=st.sampled_from(NAMES),
          words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
    def write(self, scope: str, name: str, words: list[str]) -> None:
        path = self._path(scope, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\ndescription: note\n---\n" + " ".join(words) + "\n", encoding="utf-8")
        self.brain.sync([str(path.relative_to(self.root))])

    @rule(scope=st.sampled_from(SCOPES), name=st.sampled_from(NAMES))
    def delete(self, scope: str, name: str) -> None:
        path = self._path(scope, name)
        if path.exists():
            path.unlink()
            self.brain.sync([str(path.relative_to(self.root))])

    @rule(scope=st.sampled_from(SCOPES), old=st.sampled_from(NAMES), new=st.sampled_from(NAMES))
    def rename(self, scope: str, old: str, new: str) -> None:
        source, target = self._path(scope, old), self._path(scope, new)
        if source.exists() and not target.exists():
            source.rename(target)
            self.brain.sync([str(p.relative_to(self.root)) for p in (source, target)])

    def _files(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for path in sorted((self.root / "memory").glob("*/*.md")):
            scope, name = path.parent.name, path.stem
            out[f"memory:{scope}/{name}"] = title_of(name) + " " + path.read_text(encoding="utf-8")
        return out

    @invariant()
    def keyword_search_finds_exactly_the_notes_with_the_word(self) -> None:
        files = self._files()
        for word in WORDS:
            expected = {i for i, text in files.items() if word in query_terms(text)}
            hits = self.service.search(word, mode=Mode.KEYWORD, limit=100).hits
            assert {h.id for h in hits} == expected, word
            bot = self.service.search(word, mode=Mode.KEYWORD, limit=100, agent="nobody").hits
            assert {h.id for h in bot} == {i for i in expected if i.startswith("memory:shared/")}

    @invariant()
    def every_note_has_a_vector_of_its_current_content(self) -> None:
        assert self.indexer.wait(timeout=60)
        current = {m.id: m.hash for m in self.store.list_memories(MemoryFilter())}
        assert self.store.vector_hashes() == current


SearchFollowsTheFiles.TestCase.settings = settings(max_examples=25, stateful_step_count=12, deadline=None)
TestSearchFollowsTheFiles = SearchFollowsTheFiles.TestCase


def test_edits_renames_and_deletes_on_both_stores(store: GraphStore, tmp_path: Path) -> None:
    """The same steps as the state machine, written out, on the embedded store and on Neo4j."""
    ws = Workspace(tmp_path)
    ws.write("memory/bot/alpha.md", "---\ndescription: first\n---\napple berry\n")
    ws.write("memory/shared/beta.md", "---\ndescription: second\n---\nberry cherry\n")
    brain = ws.brain(store)
    index = cast(SearchIndex, store)
    indexer = EmbeddingIndexer(store, index, BagOfWords(), cache=VectorCache("t", tmp_path / ".c"))
    service = SearchService(store, indexer)
    brain.ingester.listeners.append(service.on_batch)
    indexer.start()

    def found(word: str, agent: str | None = None) -> set[str]:
        return {h.id for h in service.search(word, mode=Mode.KEYWORD, agent=agent).hits}

    def vectors_follow() -> None:
        assert indexer.wait(timeout=120)
        assert index.vector_hashes() == {m.id: m.hash for m in store.list_memories(MemoryFilter())}

    try:
        assert found("berry") == {"memory:bot/alpha", "memory:shared/beta"}
        vectors_follow()
        brain.sync([ws.write("memory/bot/alpha.md", "---\ndescription: first\n---\ndelta\n")])
        assert found("apple") == set()
        assert found("delta") == {"memory:bot/alpha"}
        vectors_follow()
        brain.sync(ws.rename("memory/bot/alpha.md", "memory/bot/gamma.md"))
        assert found("delta") == {"memory:bot/gamma"}
        assert found("gamma") == {"memory:bot/gamma"}  # the name is searchable as words
        vectors_follow()
        semantic = service.search("delta", mode=Mode.SEMANTIC).hits
        assert [h.id for h in semantic][:1] == ["memory:bot/gamma"]
        assert found("delta", agent="other") == set()
        brain.sync([ws.delete("memory/bot/gamma.md")])
        assert found("delta") == set()
        vectors_follow()
        assert [h.id for h in service.search("cherry", mode=Mode.SEMANTIC).hits] == ["memory:shared/beta"]
    finally:
        indexer.close()
