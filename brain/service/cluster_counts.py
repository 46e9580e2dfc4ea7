"""The whole-workspace summary (clusters.py), kept up to date from each write instead of made
again from every note and link.

Made from a full read, the summary of 100,000 notes took 26 to 42 s, and every change to the
graph made the next page pay it again (issue 42). A note added, removed or relinked changes only
its own cluster's counts, the weights of the edges its links are on, and the degree of the notes
at their ends. So the counts are kept at a grain that a note's own fields decide, the *atom*
(scope, folder, first word of its name), and the summary is summed from atoms on demand:

* each atom's notes (and each folder's first words: which clusters a folder splits into depends
  on them, `clusters.folder_clusters`), its notes' problem links;
* links between atoms (`pairs`, by source atom and target atom, or target entity kind), and for
  each note the atoms of the notes linking to it (`into`), so a note that moves to another atom
  moves its incoming links' weight with it;
* each note's degree, and each atom's best-linked notes (its hubs' candidates), found again only
  for the atoms whose degrees changed;
* the distinct unresolved targets and linked entities, by reference counts.

`ClusterKeeper` feeds the counters from the brain's change events (`Brain.subscribe`: every
batch the ingester applies, a generation switched in, a replica following its writer), which
name each note whose fields or links changed; the next question reads just those notes and
their links (`get_nodes`, `links_from`: the same on both stores), takes each one's old
contribution away and adds the new. Past `REBUILD_ABOVE` changed notes (a first sync) a full read
is cheaper. The answer is `clusters.summarize`'s for the same graph: a randomized test edits a
workspace and compares the two after each edit (tests/unit/test_cluster_counts.py).
"""

from __future__ import annotations

import heapq
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Final

from brain import model
from brain.model import LinkStatus, MemoryNode
from brain.service.clusters import (
    Cluster,
    ClusterSummary,
    NoteLike,
    first_word,
    folder_clusters,
    folder_of,
    ordered,
)
from brain.store.base import GraphStore, MemoryFilter

Atom = tuple[str, str, str]  # (scope, folder, first word of the name)
Folder = tuple[str, str]  # (scope, folder)
# What a counted link of a note is: to a note, to an entity, or a problem link.
NOTE: Final = 0
ENTITY: Final = 1
PROBLEM: Final = 2
# Past this many changed notes a full read beats reading them one by one (a first sync, a rebuild).
REBUILD_ABOVE = 5_000
_ENTITY_KINDS = frozenset(k.value for k in model.ENTITY_KINDS)
_RESOLVED = LinkStatus.RESOLVED


def _bump(counter: dict[object, int], key: object, by: int) -> None:
    now = counter.get(key, 0) + by
    if now:
        counter[key] = now
    else:
        del counter[key]


class ClusterCounts:
    """The counters the summary is summed from. Not thread-safe: the keeper holds a lock."""

    def __init__(self, hubs: int = 3) -> None:
        self.hubs = hubs
        self.atom_of: dict[str, Atom] = {}
        self.name_of: dict[str, str] = {}
        self.members: dict[Atom, set[str]] = {}
        self.words: dict[Folder, Counter[str]] = {}
        self.rows: dict[str, tuple[tuple[str, int], ...]] = {}  # each note's counted links
        self.into: dict[str, Counter[Atom]] = {}  # a note's counted incoming links, by source atom
        self.pairs: dict[tuple[Atom, Atom | str], int] = {}  # links by (source atom, target atom or kind)
        self.problems: dict[Atom, int] = {}
        self.wanted: dict[str, int] = {}  # unresolved target -> links to it
        self.entities: dict[str, int] = {}  # linked entity -> links to it
        self.entity_kinds: dict[str, int] = {}  # entity kind -> distinct entities linked
        self.degree: dict[str, int] = {}
        self._tops: dict[Atom, list[tuple[int, str]]] = {}  # an atom's best-linked notes, kept
        self._splits: dict[Folder, dict[str, tuple[str, str]]] = {}  # folder_clusters, kept
        self._resplit: set[Folder] = set()  # folders whose first words changed since
        # The cluster each atom (or entity kind) is in, and the links between clusters summed
        # from `pairs` through it, kept: a summary after an edit adds the pairs' changes since
        # (`_moved`) rather than summing every pair, unless a folder split differently.
        self._cluster: dict[Atom | str, str] | None = None
        self._links: dict[tuple[str, str], int] = {}  # (cluster id, cluster id), the lower first
        self._moved: list[tuple[Atom, Atom | str, int]] = []

    # ------------------------------------------------------------------ keeping step

    def update(self, notes: Mapping[str, NoteLike | None], links: Mapping[str, Iterable[model.Link]]) -> None:
        """The notes named in `notes` changed: each is now as given (None: gone), with the links
        `links` gives. Their old links go first, then every one is filed again, then their new
        links are counted (whether a target is a note is read once all are filed)."""
        for node_id in notes:
            self._unlink(node_id)
        for node_id, note in notes.items():
            self._unfile(node_id)
            if note is not None:
                self._file(note)
        for node_id, note in notes.items():
            if note is not None:
                self._link(node_id, links.get(node_id, ()))

    def _file(self, note: NoteLike) -> None:
        atom = (note.scope, folder_of(note.path), first_word(note.name))
        node_id = note.id
        self.atom_of[node_id] = atom
        self.name_of[node_id] = note.name
        self.members.setdefault(atom, set()).add(node_id)
        self._word(atom, 1)
        for source_atom, n in self.into.get(node_id, {}).items():
            self._pair((source_atom, atom), n)
        self._tops.pop(atom, None)

    def _unfile(self, node_id: str) -> None:
        atom = self.atom_of.pop(node_id, None)
        if atom is None:
            return
        del self.name_of[node_id]
        members = self.members[atom]
        members.discard(node_id)
        if not members:
            del self.members[atom]
        self._word(atom, -1)
        for source_atom, n in self.into.get(node_id, {}).items():
            self._pair((source_atom, atom), -n)
        self._tops.pop(atom, None)

    def _word(self, atom: Atom, by: int) -> None:
        folder = (atom[0], atom[1])
        words = self.words.setdefault(folder, Counter())
        words[atom[2]] += by
        if not words[atom[2]]:
            del words[atom[2]]
            if not words:
                del self.words[folder]
        self._resplit.add(folder)

    def _pair(self, key: tuple[Atom, Atom | str], by: int) -> None:
        _bump(self.pairs, key, by)  # type: ignore[arg-type]
        if self._cluster is not None:
            self._moved.append((key[0], key[1], by))

    def _link(self, source: str, links: Iterable[model.Link]) -> None:
        atom = self.atom_of[source]
        rows: list[tuple[str, int]] = []
        for link in links:
            target = link.target_id
            if link.status is not _RESOLVED:
                rows.append((target, PROBLEM))
            elif target == source:
                continue
            elif target in self.atom_of:
                rows.append((target, NOTE))
            elif target.split(":", 1)[0] in _ENTITY_KINDS:
                rows.append((target, ENTITY))
            # else an agent, or a note the summary does not hold: counted nowhere
        if rows:
            self.rows[source] = tuple(rows)
            self._count(source, atom, self.rows[source], 1)

    def _unlink(self, source: str) -> None:
        rows = self.rows.pop(source, None)
        if rows:
            self._count(source, self.atom_of[source], rows, -1)

    def _count(self, source: str, atom: Atom, rows: tuple[tuple[str, int], ...], sign: int) -> None:
        for target, what in rows:
            if what == PROBLEM:
                _bump(self.problems, atom, sign)  # type: ignore[arg-type]
                if target.startswith("unresolved:"):
                    _bump(self.wanted, target, sign)  # type: ignore[arg-type]
                continue
            _bump(self.degree, source, sign)  # type: ignore[arg-type]
            if what == NOTE:
                into = self.into.setdefault(target, Counter())
                into[atom] += sign
                if not into[atom]:
                    del into[atom]
                    if not into:
                        del self.into[target]
                _bump(self.degree, target, sign)  # type: ignore[arg-type]
                there = self.atom_of.get(target)
                if there is not None:  # a target gone since: its weight left with it (_unfile)
                    self._pair((atom, there), sign)
                    self._tops.pop(there, None)
            else:
                kind = target.split(":", 1)[0]
                self._pair((atom, kind), sign)
                was = self.entities.get(target, 0)
                _bump(self.entities, target, sign)  # type: ignore[arg-type]
                if (was == 0) != (was + sign == 0):  # first link to it, or its last gone
                    _bump(self.entity_kinds, kind, 1 if was == 0 else -1)  # type: ignore[arg-type]
        self._tops.pop(atom, None)

    # ------------------------------------------------------------------ the summary

    def _top(self, atom: Atom) -> list[tuple[int, str]]:
        found = self._tops.get(atom)
        if found is None:
            degree = self.degree
            found = self._tops[atom] = heapq.nsmallest(
                self.hubs, ((-degree.get(m, 0), m) for m in self.members[atom]))
        return found

    def _clusters_of_atoms(self) -> dict[Atom | str, str]:
        """Each atom's cluster id (and each linked entity kind's), with `_links` summed to match:
        brought up to date with the folders split again and the pairs moved since."""
        mapped = self._cluster
        again = False
        for folder in self._resplit:
            old = self._splits.pop(folder, None)
            words = self.words.get(folder)
            if words is None:
                continue
            new = self._splits[folder] = folder_clusters(folder[0], folder[1], words)
            if old is not None and any(new[w][0] != old[w][0] for w in new.keys() & old.keys()):
                again = True  # a note moved between clusters: every pair is summed again
            if mapped is not None:
                for word, (cid, _) in new.items():
                    mapped[(folder[0], folder[1], word)] = cid
        self._resplit.clear()
        for kind in self.entity_kinds:
            if mapped is not None:
                mapped[kind] = f"cluster:@{kind}"
        if mapped is None or again:
            mapped = {(f[0], f[1], w): cid
                      for f, split in self._splits.items() for w, (cid, _) in split.items()}
            mapped.update((kind, f"cluster:@{kind}") for kind in self.entity_kinds)
            links: dict[tuple[str, str], int] = {}
            for (source, target), n in self.pairs.items():
                a, b = mapped[source], mapped[target]
                key = (a, b) if a <= b else (b, a)
                links[key] = links.get(key, 0) + n
            self._links, self._cluster = links, mapped
        else:
            links = self._links
            for source, target, n in self._moved:
                a, b = mapped[source], mapped[target]
                _bump(links, (a, b) if a <= b else (b, a), n)  # type: ignore[arg-type]
        self._moved.clear()
        return mapped

    def summary(self) -> ClusterSummary:
        """The summary `clusters.summarize` gives for the same notes and links."""
        self._clusters_of_atoms()
        clusters: list[Cluster] = []
        index: dict[str, int] = {}
        tops: list[list[tuple[int, str]]] = []
        for folder, words in self.words.items():
            split = self._splits[folder]
            for word, n in words.items():
                cid, label = split[word]
                k = index.get(cid)
                if k is None:
                    k = index[cid] = len(clusters)
                    clusters.append(Cluster(id=cid, scope=folder[0], label=label, folder=folder[1]))
                    tops.append([])
                atom = (folder[0], folder[1], word)
                clusters[k].notes += n
                clusters[k].problems += self.problems.get(atom, 0)
                tops[k].extend(self._top(atom))
        for kind, n in self.entity_kinds.items():
            index[f"cluster:@{kind}"] = len(clusters)
            clusters.append(Cluster(id=f"cluster:@{kind}", scope="", label=f"{kind}s", folder="",
                                    kind="entities", notes=n))
            tops.append([])
        between: dict[tuple[int, int], int] = {}
        inside = 0
        for (a, b), n in self._links.items():
            if a == b:
                clusters[index[a]].links += n
                inside += n
            else:
                x, y = index[a], index[b]
                between[(x, y) if x < y else (y, x)] = n
        for k, found in enumerate(tops):
            clusters[k].hubs = [self.name_of[m] for _, m in heapq.nsmallest(self.hubs, found)]
        return ordered(clusters, between, notes=len(self.atom_of), inside=inside,
                       problems=sum(self.problems.values()), wanted=len(self.wanted))


class ClusterKeeper:
    """One store's summary, kept from the change events of the brain it serves. `summary()` is
    what a request asks: the counters brought up to date with the notes changed since, or made
    from a full read the first time (and after a change of more than REBUILD_ABOVE notes)."""

    def __init__(self, store: GraphStore, hubs: int = 3) -> None:
        self.store = store
        self.hubs = hubs
        self.builds = 0  # full reads so far (tests and the benchmark read it)
        self.updates = 0  # changes applied since
        self._counts: ClusterCounts | None = None
        self._answer: ClusterSummary | None = None
        self._changed: set[str] = set()
        self._seen = threading.Lock()  # guards `_changed` (events arrive on writers' threads)
        self._making = threading.Lock()  # one maker at a time; a second asker waits for its answer

    def changed(self, node_id: str) -> None:
        """A change event's node (any kind: only notes count, read when asked)."""
        with self._seen:
            self._changed.add(node_id)

    def summary(self) -> ClusterSummary:
        with self._making:
            with self._seen:
                changed, self._changed = self._changed, set()
            counts = self._counts
            if counts is None or len(changed) > REBUILD_ABOVE:
                counts = self._build()
            elif changed:
                self._update(counts, changed)
            elif self._answer is not None:
                return self._answer
            self._answer = counts.summary()
            return self._answer

    def _build(self) -> ClusterCounts:
        counts = ClusterCounts(self.hubs)
        self._counts = None  # a failed read leaves nothing half made
        notes = self.store.list_memories(MemoryFilter(), bodies=False)
        counts.update({n.id: n for n in notes}, self.store.links_from([n.id for n in notes]))
        self._counts = counts
        self.builds += 1
        return counts

    def _update(self, counts: ClusterCounts, changed: set[str]) -> None:
        try:
            nodes = self.store.get_nodes(changed)
            notes: dict[str, NoteLike | None] = {}
            for node_id in changed:
                node = nodes.get(node_id)
                if isinstance(node, MemoryNode):
                    notes[node_id] = node
                elif node_id in counts.atom_of:
                    notes[node_id] = None  # deleted, or no longer a note
            links = self.store.links_from([i for i, n in notes.items() if n is not None])
        except BaseException:
            with self._seen:  # asked again next time
                self._changed |= changed
            raise
        counts.update(notes, links)
        self.updates += len(notes)
