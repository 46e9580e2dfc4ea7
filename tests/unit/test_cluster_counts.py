"""The summary kept from each write (brain/service/cluster_counts.py) equals the one counted from
a full read (clusters.summarize) after every edit of a randomized run: notes added, removed,
moved to another folder (same id, new path), renamed into another first word, relinked; links
resolved, broken, to themselves, to entities and agents; folders crossing the split threshold.

The edits are applied as a store announces them: the edited note and every note whose links
changed because of it (a link that now resolves, or is now broken), nothing else."""

from __future__ import annotations

import random

import pytest

from brain.model import Link, LinkStatus
from brain.service import clusters
from brain.service.cluster_counts import ClusterCounts
from brain.service.clusters import ClusterSummary, Note, summarize

SCOPES = ("alice", "bob", "shared")
FOLDERS = ("", "ops", "ops/deep")
WORDS = ("deploy", "retry", "queue", "api", "lease", "zeta")
ENTITIES = ("workflow:nightly", "chat:c1", "work_item:w9", "agent:alice")


def link(source: str, target: str, status: LinkStatus) -> Link:
    return Link(source, 0, target, status, f"[[{target}]]", target, target, None, None, False, 1, 1)


class Graph:
    """A tiny consistent graph: notes, and each note's wanted targets resolved against them."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.notes: dict[str, Note] = {}
        self.wants: dict[str, list[str]] = {}  # note id -> targets as written (ids or entity ids)

    def resolved(self) -> dict[str, list[Link]]:
        out: dict[str, list[Link]] = {}
        for source, wanted in self.wants.items():
            links = []
            for t in wanted:
                if t in self.notes or t in ENTITIES:
                    links.append(link(source, t, LinkStatus.RESOLVED))
                elif t.startswith("#"):
                    links.append(link(source, t[1:], LinkStatus.AMBIGUOUS))
                else:
                    links.append(link(source, "unresolved:" + t.split("/", 1)[-1], LinkStatus.BROKEN))
            out[source] = links
        return out

    def new_note(self, node_id: str | None = None) -> Note:
        rng = self.rng
        scope = rng.choice(SCOPES)
        name = f"{rng.choice(WORDS)}-{rng.randrange(40)}"
        node_id = node_id or f"memory:{scope}/{name}"
        scope = node_id.split(":", 1)[1].split("/", 1)[0]
        folder = "/".join(x for x in ("memory", scope, rng.choice(FOLDERS)) if x)
        return Note(id=node_id, scope=scope, name=rng.choice((name, node_id.rsplit("/", 1)[1])),
                    path=f"{folder}/{name}.md")

    def some_targets(self, me: str) -> list[str]:
        rng = self.rng
        pool = [*self.notes, *ENTITIES, me, "memory:alice/gone-1", "#memory:bob/amb"]
        return [rng.choice(pool) for _ in range(rng.randrange(5))]

    def edit(self) -> set[str]:
        """One random edit; the notes it touched itself."""
        rng = self.rng
        roll = rng.random()
        ids = sorted(self.notes)
        if roll < 0.35 or not ids:
            note = self.new_note()
            self.notes[note.id] = note
            self.wants[note.id] = self.some_targets(note.id)
            return {note.id}
        victim = rng.choice(ids)
        if roll < 0.5:
            del self.notes[victim]
            del self.wants[victim]
        elif roll < 0.7:
            self.notes[victim] = self.new_note(victim)  # moved: same id, another folder or word
        else:
            self.wants[victim] = self.some_targets(victim)
        return {victim}


def same(kept: ClusterSummary, fresh: ClusterSummary) -> None:
    assert kept.clusters == fresh.clusters
    assert kept.edges == fresh.edges
    assert (kept.notes, kept.links, kept.problems, kept.wanted) == (
        fresh.notes, fresh.links, fresh.problems, fresh.wanted)


@pytest.mark.parametrize("seed", range(12))
def test_kept_summary_equals_a_fresh_count_after_each_random_edit(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small thresholds: folders split by first word and merge back as notes come and go.
    monkeypatch.setattr(clusters, "SPLIT_AT", 6)
    monkeypatch.setattr(clusters, "MIN_WORD", 2)
    monkeypatch.setattr(clusters, "MAX_WORDS", 2)
    monkeypatch.setattr(clusters, "REST", 3)
    rng = random.Random(seed)
    graph = Graph(rng)
    counts = ClusterCounts(hubs=2)
    before: dict[str, list[Link]] = {}
    for step in range(150):
        touched = graph.edit()
        links = graph.resolved()
        # What a store announces: the edited notes and the sources whose links changed.
        changed = touched | {s for s, found in links.items() if before.get(s) != found}
        changed |= {s for s in before if s not in links}
        counts.update({i: graph.notes.get(i) for i in changed}, {i: links.get(i, []) for i in changed})
        before = links
        fresh = summarize(list(graph.notes.values()), links, hubs=2)
        try:
            same(counts.summary(), fresh)
        except AssertionError:
            raise AssertionError(f"seed {seed}, step {step}") from None


def test_a_summary_asked_twice_without_change_is_the_same_answer() -> None:
    counts = ClusterCounts()
    a = Note("memory:a/x-1", "a", "x-1", "memory/a/x-1.md")
    b = Note("memory:a/y-1", "a", "y-1", "memory/a/sub/y-1.md")
    counts.update({a.id: a, b.id: b}, {a.id: [link(a.id, b.id, LinkStatus.RESOLVED)]})
    first = counts.summary()
    assert first == counts.summary()
    assert [(c.id, c.outside, c.hubs) for c in first.clusters] == [
        ("cluster:a/memory/a", 1, ["x-1"]), ("cluster:a/memory/a/sub", 1, ["y-1"])]
