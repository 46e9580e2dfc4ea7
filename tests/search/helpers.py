"""The labelled query set, a Brain over the example workspace, and relevance measures."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from brain.search.embedding import load_encoder
from brain.search.service import Mode, SearchService
from brain.service.brain import Brain
from brain.store.base import GraphStore

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "tests" / "fixtures" / "search" / "queries.json"
EXAMPLE = REPO / "examples" / "workspace"


@dataclass(frozen=True)
class Labelled:
    kind: str
    query: str
    relevant: tuple[str, ...]


def labelled() -> list[Labelled]:
    spec = json.loads(LABELS.read_text(encoding="utf-8"))
    return [Labelled(q["kind"], q["query"], tuple(q["relevant"])) for q in spec["queries"]]


def needs_model() -> None:
    encoder, reason = load_encoder()
    if encoder is None:
        pytest.skip(reason)


def example_brain(store: GraphStore | None = None, root: Path = EXAMPLE) -> Brain:
    brain = Brain(root, store)
    brain.sync()
    assert brain.search.indexer.wait(timeout=900), "embeddings never became ready"
    return brain


@dataclass(frozen=True)
class Relevance:
    recall_at_3: float
    mrr: float


def measure(search: SearchService, mode: Mode, kind: str | None = None) -> Relevance:
    found = mrr = 0.0
    queries = [q for q in labelled() if kind is None or q.kind == kind]
    for q in queries:
        ids = [h.id for h in search.search(q.query, mode=mode, limit=10).hits]
        found += any(i in q.relevant for i in ids[:3])
        mrr += next((1.0 / rank for rank, i in enumerate(ids, 1) if i in q.relevant), 0.0)
    return Relevance(found / len(queries), mrr / len(queries))
