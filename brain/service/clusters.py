"""The whole workspace in a few hundred nodes: one per scope, one per cluster of its notes.

At 100,000 notes a drawing of every note is a grey hairball that takes the browser minutes to
lay out and seconds per frame to pan (issue 42). A person exploring a big graph starts where
Gephi's and Bloom's users do: the groups, how big each is and how they link, then a group's
own notes on demand. So the server sums the graph up here, from the same reads on both stores
(`list_memories` without bodies, `links_from`), and the page draws a few hundred nodes.

A note's cluster is where a person filed it, so it means something to them: its folder (the
path's parent). A folder too big to say anything (a flat `memory/<agent>/` of 11,000 notes)
is split by the first word of its notes' names (`deploy-rollback-notes` goes with `deploy-*`),
the largest `MAX_WORDS` words each a cluster and the rest in alphabetical runs ("other: api …
lease") of at most `REST` notes, so no cluster is a bigger pile than a drawing of it shows.
Names and paths only: the answer is the same on both stores and for the same files.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from brain import model

# A folder of more notes than this is split by the first word of their names.
SPLIT_AT = 400
# At most this many words of one folder are clusters of their own; the others are its "other".
MAX_WORDS = 24
# A word shared by fewer notes than this (or than 1/200 of the folder) joins "other".
MIN_WORD = 8
# The other words go in alphabetical runs of at most this many notes (the page draws 1,500 of a cluster).
REST = 1500
OTHER = "other"
_WORD = re.compile(r"[-_ .]+")


class NoteLike(Protocol):
    """What the clustering reads of a note (a `MemoryNode` is one)."""

    @property
    def id(self) -> str: ...
    @property
    def scope(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...


N = TypeVar("N", bound=NoteLike)


@dataclass(frozen=True, slots=True)
class Note:
    """A note as the clustering reads it (tests make these; the server passes `MemoryNode`s)."""

    id: str
    scope: str
    name: str
    path: str


@dataclass(slots=True)
class Cluster:
    """A group of notes of one scope: its id (`cluster:<scope>/<folder>[/<word>-*]`), label and counts."""

    id: str
    scope: str
    label: str
    folder: str
    kind: str = "notes"  # or "entities": the workflows, chats or work items notes link to
    notes: int = 0
    links: int = 0  # resolved links between two of its notes
    problems: int = 0  # its notes' broken, ambiguous and missing-anchor links
    outside: int = 0  # resolved links to notes of other clusters (either way) and to entities
    hubs: list[str] = field(default_factory=list)  # its best-linked notes' names, most first


@dataclass(frozen=True, slots=True)
class ClusterEdge:
    """Resolved links between two clusters (either way), `a` < `b` (indexes into the clusters)."""

    a: int
    b: int
    links: int


@dataclass(frozen=True, slots=True)
class ClusterSummary:
    """Every cluster (largest first), the links between them, and the totals they sum to."""

    clusters: list[Cluster]
    edges: list[ClusterEdge]
    notes: int
    links: int  # resolved links between two clusters' notes or to entities: inside ones plus edges
    problems: int
    wanted: int  # distinct unresolved targets


def first_word(name: str) -> str:
    """The first word of a note's name, lower case: what `deploy-rollback` and `Deploy notes` share."""
    base = name.rsplit("/", 1)[-1]
    for part in _WORD.split(base.lower()):
        if part:
            return part
    return base.lower() or "-"


def folder_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def assign(notes: Sequence[NoteLike]) -> dict[str, tuple[str, str, str, str]]:
    """Each note's cluster: note id -> (cluster id, scope, label, folder). Deterministic: the same
    notes give the same clusters whatever their order."""
    groups: dict[tuple[str, str], list[NoteLike]] = defaultdict(list)
    for n in notes:
        groups[(n.scope, folder_of(n.path))].append(n)
    out: dict[str, tuple[str, str, str, str]] = {}
    for (scope, folder), members in groups.items():
        tail = folder.rsplit("/", 1)[-1] or scope
        base = f"cluster:{scope}/{folder}"
        # The folder's own name when it is the scope's; the scope and folder when it is a subfolder.
        label = scope if tail == scope else f"{scope} · {tail}"
        if len(members) <= SPLIT_AT:
            for n in members:
                out[n.id] = (base, scope, label, folder)
            continue
        word_of = {n.id: first_word(n.name) for n in members}
        words = Counter(word_of.values())
        least = max(MIN_WORD, len(members) // 200)
        ranked = sorted(((c, w) for w, c in words.items() if c >= least), key=lambda cw: (-cw[0], cw[1]))
        cluster_of = {w: (f"{base}/{w}", f"{label} · {w}-*") for _, w in ranked[:MAX_WORDS]}
        # The other words, in alphabetical runs of at most REST notes each ("other: api … lease"):
        # a run is drawn whole when a person opens it (the page's cap), and none swamps the picture.
        rest = sorted(w for w in words if w not in cluster_of)
        runs: list[list[str]] = []
        size = 0
        for w in rest:
            if not runs or size + words[w] > REST:
                runs.append([])
                size = 0
            runs[-1].append(w)
            size += words[w]
        for run in runs:
            name = run[0] if len(run) == 1 else f"{run[0]} … {run[-1]}"
            for w in run:
                cluster_of[w] = (f"{base}/~{run[0]}", f"{label} · {OTHER}: {name}")
        for n in members:
            cid, text = cluster_of[word_of[n.id]]
            out[n.id] = (cid, scope, text, folder)
    return out


def summarize(
    notes: Sequence[NoteLike], links: Mapping[str, Iterable[model.Link]], hubs: int = 3
) -> ClusterSummary:
    """The clusters of `notes` and the resolved links between them. `links`: each note's links
    (as `links_from` answers). A link to an entity (workflow, chat, work item) counts as one to the
    cluster of that entity kind (`cluster:@workflow`, ...), so they show as groups too."""
    where = assign(notes)
    clusters: list[Cluster] = []
    index: dict[str, int] = {}
    of_note: dict[str, int] = {}  # note id -> its cluster's index: one lookup per link
    for n in notes:
        cid, scope, label, folder = where[n.id]
        k = index.get(cid)
        if k is None:
            k = index[cid] = len(clusters)
            clusters.append(Cluster(id=cid, scope=scope, label=label, folder=folder))
        clusters[k].notes += 1
        of_note[n.id] = k
    entity_kinds = {k.value for k in model.ENTITY_KINDS}
    entities: dict[str, set[str]] = defaultdict(set)
    degree: Counter[str] = Counter()
    pairs: Counter[tuple[int, int]] = Counter()
    inside = [0] * len(clusters)
    problems = [0] * len(clusters)
    wanted: set[str] = set()
    resolved = model.LinkStatus.RESOLVED
    for n in notes:
        source = n.id
        mine = of_note[source]
        for link in links.get(source, ()):
            target = link.target_id
            if link.status is not resolved:
                problems[mine] += 1
                if target.startswith("unresolved:"):
                    wanted.add(target)
                continue
            if target == source:
                continue
            other = of_note.get(target)
            if other is None:
                kind = target.split(":", 1)[0]
                if kind not in entity_kinds:
                    continue  # an agent, or a note this summary does not hold: no cluster's
                oid = f"cluster:@{kind}"
                other = index.get(oid)
                if other is None:
                    other = index[oid] = len(clusters)
                    clusters.append(Cluster(id=oid, scope="", label=f"{kind}s", folder="", kind="entities"))
                    inside.append(0)
                    problems.append(0)
                entities[oid].add(target)
            degree[source] += 1
            degree[target] += 1
            if other == mine:
                inside[mine] += 1
            else:
                pairs[(mine, other) if mine < other else (other, mine)] += 1
    for k, c in enumerate(clusters):
        c.links = inside[k]
        c.problems = problems[k]
        if c.kind == "entities":
            c.notes = len(entities[c.id])
    for (x, y), w in pairs.items():
        clusters[x].outside += w
        clusters[y].outside += w
    members: list[list[NoteLike]] = [[] for _ in clusters]
    for n in notes:
        members[of_note[n.id]].append(n)
    for k, ms in enumerate(members):
        best = heapq.nsmallest(hubs, ms, key=lambda m: (-degree[m.id], m.id))
        clusters[k].hubs = [m.name for m in best]
    order = sorted(range(len(clusters)), key=lambda k: (-clusters[k].notes, clusters[k].id))
    position = {k: i for i, k in enumerate(order)}
    edges = sorted(
        (
            ClusterEdge(a=min(position[x], position[y]), b=max(position[x], position[y]), links=w)
            for (x, y), w in pairs.items()
        ),
        key=lambda e: (e.a, e.b),
    )
    return ClusterSummary(
        clusters=[clusters[k] for k in order],
        edges=edges,
        notes=len(notes),
        links=sum(inside) + sum(pairs.values()),
        problems=sum(problems),
        wanted=len(wanted),
    )


def scope_of_cluster(cluster: str) -> str | None:
    """The scope a cluster id (`cluster:<scope>/...`) or scope id (`scope:<scope>`) names; None
    for anything else (an entity kind's cluster holds no notes to drill into)."""
    if cluster.startswith("scope:"):
        return cluster.removeprefix("scope:") or None
    if cluster.startswith("cluster:") and not cluster.startswith("cluster:@") and "/" in cluster:
        return cluster.removeprefix("cluster:").split("/", 1)[0] or None
    return None


def members_of(notes: Sequence[N], cluster: str) -> list[N]:
    """The notes of one cluster (`cluster:...`) or of one scope (`scope:<name>`), in id order."""
    if cluster.startswith("scope:"):
        scope = cluster.removeprefix("scope:")
        return sorted((n for n in notes if n.scope == scope), key=lambda n: n.id)
    where = assign(notes)
    return sorted((n for n in notes if where[n.id][0] == cluster), key=lambda n: n.id)
