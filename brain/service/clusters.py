"""The whole workspace in a few hundred nodes: one per scope, one per cluster of its notes.

At 100,000 notes a drawing of every note is a grey hairball that takes the browser minutes to
lay out and seconds per frame to pan (issue 42). A person exploring a big graph starts where
Gephi's and Bloom's users do: the groups, how big each is and how they link, then a group's
own notes on demand. So the server sums the graph up here, from the same reads on both stores
(`list_memories` without bodies, `links_from`), and the page draws a few hundred nodes.

A note's cluster is where a person filed it, so it means something to them: its folder (the
path's parent). A folder too big to say anything (a flat `memory/<agent>/` of 11,000 notes)
is split by the first word of its notes' names (`deploy-rollback-notes` goes with `deploy-*`),
the largest `MAX_WORDS` words each a cluster and the rest one "other" cluster of the folder.
Names and paths only: the answer is the same on both stores and for the same files.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from brain import model

# A folder of more notes than this is split by the first word of their names.
SPLIT_AT = 400
# At most this many words of one folder are clusters of their own; the others are its "other".
MAX_WORDS = 24
# A word shared by fewer notes than this (or than 1/200 of the folder) joins "other".
MIN_WORD = 8
OTHER = "other"
_WORD = re.compile(r"[-_ .]+")


@dataclass(frozen=True, slots=True)
class Note:
    """What the clustering reads of a note."""

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


def assign(notes: Sequence[Note]) -> dict[str, tuple[str, str, str, str]]:
    """Each note's cluster: note id -> (cluster id, scope, label, folder). Deterministic: the same
    notes give the same clusters whatever their order."""
    groups: dict[tuple[str, str], list[Note]] = defaultdict(list)
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
        words = Counter(first_word(n.name) for n in members)
        least = max(MIN_WORD, len(members) // 200)
        ranked = sorted(
            ((c, w) for w, c in words.items() if c >= least and w != OTHER), key=lambda cw: (-cw[0], cw[1])
        )
        kept = {w for _, w in ranked[:MAX_WORDS]}
        for n in members:
            w = first_word(n.name)
            if w in kept:
                out[n.id] = (f"{base}/{w}", scope, f"{label} · {w}-*", folder)
            else:
                out[n.id] = (f"{base}/{OTHER}", scope, f"{label} · {OTHER}", folder)
    return out


def summarize(
    notes: Sequence[Note], links: Mapping[str, Iterable[model.Link]], hubs: int = 3
) -> ClusterSummary:
    """The clusters of `notes` and the resolved links between them. `links`: each note's links
    (as `links_from` answers). A link to an entity (workflow, chat, work item) counts as one to the
    cluster of that entity kind (`cluster:@workflow`, ...), so they show as groups too."""
    where = assign(notes)
    clusters: dict[str, Cluster] = {}
    for n in notes:
        cid, scope, label, folder = where[n.id]
        c = clusters.get(cid)
        if c is None:
            c = clusters[cid] = Cluster(id=cid, scope=scope, label=label, folder=folder)
        c.notes += 1
    degree: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    wanted: set[str] = set()
    total_links = 0
    total_problems = 0
    for n in notes:
        mine = clusters[where[n.id][0]]
        for link in links.get(n.id, ()):
            if link.status is not model.LinkStatus.RESOLVED:
                mine.problems += 1
                total_problems += 1
                if link.target_id.startswith("unresolved:"):
                    wanted.add(link.target_id)
                continue
            target = link.target_id
            if target == n.id:
                continue
            other = where.get(target)
            if other is None:
                kind = target.split(":", 1)[0]
                if kind in {k.value for k in model.ENTITY_KINDS}:
                    oid = f"cluster:@{kind}"
                    if oid not in clusters:
                        clusters[oid] = Cluster(
                            id=oid, scope="", label=f"{kind}s", folder="", kind="entities"
                        )
                    other_cluster = clusters[oid]
                else:
                    continue  # an agent, or a note this summary does not hold: no cluster's
            else:
                other_cluster = clusters[other[0]]
            total_links += 1
            degree[n.id] += 1
            degree[target] += 1
            if other_cluster is mine:
                mine.links += 1
                continue
            mine.outside += 1
            other_cluster.outside += 1
            key = (mine.id, other_cluster.id) if mine.id < other_cluster.id else (other_cluster.id, mine.id)
            pairs[key] += 1
    members: dict[str, list[Note]] = defaultdict(list)
    for n in notes:
        members[where[n.id][0]].append(n)
    entity_sizes: Counter[str] = Counter()
    for target in degree:
        kind = target.split(":", 1)[0]
        if target not in where and f"cluster:@{kind}" in clusters:
            entity_sizes[f"cluster:@{kind}"] += 1
    for cid, size in entity_sizes.items():
        clusters[cid].notes = size
    for cid, ms in members.items():
        ms.sort(key=lambda m: (-degree[m.id], m.id))
        clusters[cid].hubs = [m.name for m in ms[:hubs]]
    ordered = sorted(clusters.values(), key=lambda c: (-c.notes, c.id))
    position = {c.id: i for i, c in enumerate(ordered)}
    edges = sorted(
        (
            ClusterEdge(a=min(position[x], position[y]), b=max(position[x], position[y]), links=w)
            for (x, y), w in pairs.items()
        ),
        key=lambda e: (e.a, e.b),
    )
    return ClusterSummary(
        clusters=ordered,
        edges=edges,
        notes=len(notes),
        links=total_links,
        problems=total_problems,
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


def members_of(notes: Sequence[Note], cluster: str) -> list[Note]:
    """The notes of one cluster (`cluster:...`) or of one scope (`scope:<name>`), in id order."""
    if cluster.startswith("scope:"):
        scope = cluster.removeprefix("scope:")
        return sorted((n for n in notes if n.scope == scope), key=lambda n: n.id)
    where = assign(notes)
    return sorted((n for n in notes if where[n.id][0] == cluster), key=lambda n: n.id)
