"""A write too big for one transaction: a new generation, staged, then switched in.

A difference up to `Limits.atomic_rows` is one transaction. A bigger one (about
40,000 notes changed while brain was down, or a first ingest of a big workspace) cannot be:
the server's heap decides. Written in parts under the documented labels, readers would see a
half-written graph. So the new generation is the whole graph written under `BrainStaged…`
labels (`BrainStagedMemory`, …), which no documented query and no brain read matches, in as
many transactions as it takes, and then switched in by relabelling (brain/store/neo4j/generations/switch.py):
afterwards the graph is under `Memory`, `Agent`, … again, as docs/neo4j.md and docs/cypher.md
promise the people who query it by hand. Up to `Limits.switch_nodes` nodes the switch is one
transaction; past that, pages, with brain's own reads pointed at the staged labels meanwhile
by the `BrainLive` node (its `labels`, "" the rest of the time).

Every statement here and in brain/store/neo4j/cypher.py is written on the documented labels;
`on(statement, live)` renders it for another set (and its own search indexes). Readers look
`BrainLive` up in the same transaction as their query and trust the answer for a moment
after (brain/store/neo4j/generations/live.py), writers in each write transaction
(brain/store/neo4j/write.py), so a query of brain's never mixes two generations, and links
never cross them.

Why not write one property at the switch, as the two sets `Memory…`/`BrainBMemory…` did (the
second design): the graph then lived under `BrainB…` after every other rebuild, and every
hand-written query had to ask `BrainLive` first (issue 42). Why not one relabelling
transaction at any size (the first design, `BrainNext…` and `BrainOld`): at 1,000,000 notes it
outgrew the 4.2 GB of transaction memory a 6 GB heap allows; the pages here do not.

An incremental batch that big (a branch switch under a running server) has no whole graph
to stage: the live generation is first copied onto the staged labels by the server, and the
batch is written onto the copy (COPY_STEPS below); the switch is the same. What the batch
replaces is not copied: a node it upserts is copied bare (its id; the upsert sets every
property), and the outgoing links of a note it relinks are left out (the batch writes them
all); an unresolved node that only those links pointed at is dropped once the batch is on
the copy (DROP_STAGED_ORPHANS).

A staged note copies its search vector from the live note of the same content, so search
keeps working across a rebuild without re-embedding; a vector the indexer puts after that
copy is put again once the new generation is live (`Neo4jSearch.replaying_vectors`). A
rebuild interrupted before its switch leaves staged nodes that no reader sees; the next
rebuild (or `clear`) removes them, and a writer's start removes an old generation left behind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from neo4j import ManagedTransaction

from brain.model import NOTE_KINDS, Kind
from brain.store.base import WriteBatch

LABELS: tuple[str, ...] = tuple(kind.label for kind in Kind)  # as brain/store/neo4j/cypher.py

STAGED_PREFIX = "BrainStaged"  # the labels of a generation being written (`BrainStagedMemory`, …)
LEGACY_PREFIX = "BrainB"  # the second set of labels of brains before stable labels
STAGING_LABEL = "BrainStaging"  # which rebuild is staging (one node)
LIVE_LABEL = "BrainLive"  # which set brain's own reads use while a big switch runs (one node)
STAGED_LABELS: tuple[str, ...] = tuple(STAGED_PREFIX + label for label in LABELS)
# Left by older brains: the relabelling switch's `BrainNext…`/`BrainOld`, and the second set
# `BrainB…` (a generation that a start switches in if `BrainLive` names it, else deletes).
LEGACY_LABELS: tuple[str, ...] = (
    "BrainOld", *("BrainNext" + label for label in LABELS), *(LEGACY_PREFIX + label for label in LABELS)
)
# Notes of other kinds (DailyNote, Skill, Tool) carry Memory too: every node has one primary label.
SUBLABELS: tuple[str, ...] = tuple(k.label for k in NOTE_KINDS if k is not Kind.MEMORY)
PRIMARY_LABELS: tuple[str, ...] = tuple(label for label in LABELS if label not in SUBLABELS)
SEARCH_INDEXES = ("memory_text", "memory_embedding")  # named in queries (brain/store/neo4j/search.py)

# A label: after the colon, or after `|` in a union of labels (`(n:Memory|Agent)`).
_LABEL = re.compile(r"(?<=[:|])(" + "|".join(LABELS) + r")\b")
_INDEX_NAME = re.compile(r"'(" + "|".join(SEARCH_INDEXES) + r")'")
_SCHEMA_NAME = re.compile(r"^(CREATE (?:CONSTRAINT|INDEX|FULLTEXT INDEX|VECTOR INDEX)) (\w+)")

# Which set brain reads: no node or "" (the documented labels), or a prefix while a switch
# too big for one transaction relabels the new generation (see the module's docstring).
LIVE = f"OPTIONAL MATCH (g:{LIVE_LABEL} {{key: 'brain'}}) RETURN g.labels AS labels"
LIVE_SCHEMA = f"CREATE CONSTRAINT brain_live_key IF NOT EXISTS FOR (n:{LIVE_LABEL}) REQUIRE n.key IS UNIQUE"

# The vector of the live note with the same content (a staged upsert's `m`, `row`).
_COPY_VECTOR = """OPTIONAL MATCH (live:Memory {id: row.props.id})
WHERE live.embeddingHash = row.props.hash
FOREACH (_ IN CASE WHEN live IS NULL THEN [] ELSE [1] END |
  SET m.embedding = live.embedding, m.embeddingHash = live.embeddingHash)
"""


def index_prefix(prefix: str) -> str:
    """The names of a set's own indexes: `BrainStaged` -> `brain_staged_` (`BrainB` -> `brain_b_`)."""
    return "".join("_" + c.lower() if c.isupper() else c for c in prefix).lstrip("_") + "_"


@lru_cache(maxsize=2048)
def on(statement: str, live: str | None) -> str:
    """`statement`, written on the documented labels, on the set `live` (a prefix; None or
    "": the documented labels themselves), with that set's search indexes."""
    if not live:
        return statement
    rendered = _LABEL.sub(lambda m: f"{live}{m.group(1)}", statement)
    return _INDEX_NAME.sub(lambda m: f"'{index_prefix(live)}{m.group(1)}'", rendered)


@cache
def staged(statement: str) -> str:
    """`statement` on the staged generation: every label of the allow-list renamed."""
    rendered = on(statement, STAGED_PREFIX)
    if rendered.lstrip().startswith("UNWIND $rows AS row\nMERGE (m:"):  # a note upsert
        head, tail = rendered.split("WITH m, row\n", 1)
        rendered = head + "WITH m, row\n" + _COPY_VECTOR + "WITH m, row\n" + tail
    return rendered


@lru_cache(maxsize=1024)
def varies(statement: str) -> bool:
    """Whether `statement` names a documented label or search index (reads LIVE first)."""
    return bool(_LABEL.search(statement) or _INDEX_NAME.search(statement))


def unstaged(label: str) -> str:
    """A label of any set as the documented one (what `labels(n)` returns, as a kind)."""
    return label.removeprefix(STAGED_PREFIX).removeprefix(LEGACY_PREFIX)


def live_labels(tx: ManagedTransaction) -> str | None:
    """Which set brain reads (`on`'s `live`), read in the transaction `tx`."""
    record = tx.run(LIVE).single()
    return None if record is None else record["labels"]


def staged_schema(statement: str) -> str | None:
    """The staged set's twin of a schema statement (None: it names no label)."""
    twin = on(statement, STAGED_PREFIX)
    return None if twin == statement else _SCHEMA_NAME.sub(rf"\1 {index_prefix(STAGED_PREFIX)}\2", twin)


# A rebuild names itself before it stages; its switch runs once, even if its transaction is
# run again after a lost commit outcome (the second run finds the token gone, and does nothing).
STAGING = f"MERGE (s:{STAGING_LABEL} {{key: 'brain'}}) SET s.token = $token"
SWITCH_ONCE = f"""
OPTIONAL MATCH (s:{STAGING_LABEL} {{key: 'brain'}}) WHERE s.token = $token
DELETE s
RETURN count(s) AS due
"""
# Where brain's own reads go: `$labels` a prefix while a big switch relabels, "" after.
SWITCH = f"MERGE (g:{LIVE_LABEL} {{key: 'brain'}}) SET g.labels = $labels"
ANY_STAGED = (f"RETURN EXISTS {{ MATCH (n:{'|'.join((*STAGED_LABELS, *LEGACY_LABELS))}) }} "
              f"OR EXISTS {{ MATCH (g:{LIVE_LABEL}) WHERE g.labels <> '' }} AS left")
# What a rebuild that did not switch staged, and generations older brains left behind.
DROP_STAGED = f"""
MATCH (n:{'|'.join((*STAGED_LABELS, *LEGACY_LABELS))})
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
"""

# ------------------------------------------------------------------ the switch: relabelling
# The generation under the prefix `P` becomes the graph under the documented labels, in three
# steps, each a statement per label run page by page (`$limit` nodes) until it returns 0, or
# all in one transaction (an atomic switch). Each is idempotent, so a switch cut short is
# finished by the next writer's start.
# 1. A new node takes its documented labels; the old node of the same id goes (the id
#    constraints hold at every commit). Its `P…` labels stay: brain reads them meanwhile.
_RELABEL = """
MATCH (n:{staged}) WHERE NOT n:{label}
WITH n LIMIT $limit
OPTIONAL MATCH (old:{label} {{id: n.id}})
DETACH DELETE old
WITH n
SET n:{label}
{sublabels}RETURN count(*) AS done
"""
_SUBLABEL = "FOREACH (_ IN CASE WHEN n:{staged} THEN [1] ELSE [] END | SET n:{label})\n"
# 2. The old nodes no new one replaced.
_DROP_OLD = """
MATCH (n:{label}) WHERE NOT n:{staged}
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS done
"""
# 3. The `P…` labels go (only from nodes that have their documented label: step 1 is done).
_UNSTAGE = """
MATCH (n:{staged}) WHERE n:{label}
WITH n LIMIT $limit
REMOVE n:{staged}
RETURN count(*) AS done
"""


@cache
def relabel_steps(prefix: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The statements of the three steps (relabel, drop the old, unstage) for the set `prefix`."""
    memory_sublabels = "".join(_SUBLABEL.format(staged=prefix + s, label=s) for s in SUBLABELS)
    relabel = tuple(
        _RELABEL.format(staged=prefix + label, label=label,
                        sublabels=memory_sublabels if label == "Memory" else "")
        for label in PRIMARY_LABELS
    )
    drop = tuple(_DROP_OLD.format(label=label, staged=prefix + label) for label in PRIMARY_LABELS)
    unstage = tuple(_UNSTAGE.format(staged=prefix + label, label=label) for label in LABELS)
    return relabel, drop, unstage


@cache
def switch_size(prefix: str) -> str:
    """How many nodes the switch of the set `prefix` relabels and drops (the count store: no scan)."""
    counts = [f"COUNT {{ MATCH (:{p}{label}) }}" for p in ("", prefix) for label in PRIMARY_LABELS]
    return "RETURN " + " + ".join(counts) + " AS nodes"


# ------------------------------------------------------------------ a big incremental write
# An incremental batch past `atomic_rows` has no whole graph to stage (the ingester holds only
# what changed), so the live generation is copied onto the staged labels first, by the server,
# page by page (properties, search vectors and links as they are), the batch is written onto
# the copy, and the switch above swaps them. Readers see the graph before or after the batch.

# A page of the live ids of a label, in order (the id constraint's index): `$after` the last.
PAGE: dict[str, str] = {
    label: f"MATCH (n:{label}) WHERE n.id > $after RETURN n.id AS id ORDER BY n.id LIMIT $limit"
    for label in LABELS
}
# Each statement runs on a page: `$ids` the page; `$bare` those the batch upserts, copied
# without properties (the upsert's `SET n = row.props` replaces them all anyway), `$full`
# the others; `$sources` those whose outgoing links the batch does not replace.
_COPY_NODES = """
UNWIND $full AS id
MATCH (n:{label} {{id: id}})
CREATE (c:{staged})
SET c = properties(n)
"""
_COPY_BARE = """
UNWIND $bare AS id
CREATE (c:{staged} {{id: id}})
"""
_COPY_SUBLABEL = """
UNWIND $ids AS id
MATCH (c:{memory} {{id: id}})
SET c:{staged}
"""
_COPY_LINKS = """
UNWIND $sources AS id
MATCH (s:Memory {{id: id}})-[r:LINKS_TO]->(t:{label})
MATCH (cs:{memory} {{id: id}})
MATCH (ct:{staged} {{id: t.id}})
CREATE (cs)-[c:LINKS_TO]->(ct)
SET c = properties(r)
"""
_COPY_REMEMBERS = f"""
UNWIND $ids AS id
MATCH (a:Agent)-[:REMEMBERS]->(m:Memory {{id: id}})
MATCH (cm:{STAGED_PREFIX}Memory {{id: id}})
MATCH (ca:{STAGED_PREFIX}Agent {{id: a.id}})
CREATE (ca)-[:REMEMBERS]->(cm)
"""
_MEMORY = STAGED_PREFIX + "Memory"


# The copy, step by step: (the label paged through, the statements run on each page of its
# ids, the page size). Nodes first, so the links have both ends.
COPY_STEPS: tuple[tuple[str, tuple[str, ...], int], ...] = (
    *((label, (_COPY_NODES.format(label=label, staged=STAGED_PREFIX + label),
               _COPY_BARE.format(staged=STAGED_PREFIX + label)), 5_000)
      for label in PRIMARY_LABELS),
    *((label, (_COPY_SUBLABEL.format(memory=_MEMORY, staged=STAGED_PREFIX + label),), 5_000)
      for label in SUBLABELS),
    ("Memory", (*(_COPY_LINKS.format(label=label, memory=_MEMORY, staged=STAGED_PREFIX + label)
                  for label in PRIMARY_LABELS), _COPY_REMEMBERS), 1_000),
)
# Once the batch is written on the copy: unresolved nodes that only the links it rewrote
# pointed at (a relinked note's links, which the copy left out, did not drop them).
DROP_STAGED_ORPHANS = f"""
MATCH (u:{STAGED_PREFIX}Unresolved) WHERE NOT ()-[:LINKS_TO]->(u)
WITH u LIMIT $limit
DETACH DELETE u
RETURN count(*) AS deleted
"""


@dataclass(frozen=True, slots=True)
class Rewritten:
    """What a batch written onto the copy replaces whole, so the copy leaves it out."""

    nodes: frozenset[str]  # upserted: every property set again
    link_sources: frozenset[str]  # notes whose outgoing links are all written again

    @classmethod
    def by(cls, batch: WriteBatch) -> Rewritten:
        nodes = [*(m.id for m in batch.memories), *(a.id for a in batch.agents),
                 *(e.id for e in batch.entities), *(f.id for f in batch.files)]
        return cls(frozenset(nodes), frozenset(batch.links))

    def page(self, ids: list[str]) -> dict[str, list[str]]:
        """The parameters of a page's statements (see _COPY_NODES)."""
        bare = [i for i in ids if i in self.nodes]
        return {"ids": ids, "bare": bare, "full": [i for i in ids if i not in self.nodes] if bare else ids,
                "sources": [i for i in ids if i not in self.link_sources]}
