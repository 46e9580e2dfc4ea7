"""Every Cypher statement of the Neo4j store, in one place.

Values are always parameters. Labels and relationship types are never taken from data:
statements that vary by label are rendered here, once, from the fixed allow-list `LABELS`,
and looked up by label. `schema/neo4j.cypher` publishes `SCHEMA` (a test checks for drift).
"""

from __future__ import annotations

from typing import Any

from brain.model import ENTITY_KINDS, NOTE_KINDS, Kind
from brain.store.base import MemoryFilter
from brain.store.neo4j.generations.staged import LEGACY_LABELS, LIVE_SCHEMA, STAGED_LABELS, staged_schema
from brain.store.neo4j.records import order_key
from brain.store.neo4j.sharing.database import SHARED_SCHEMA
from brain.store.visibility import PRIVATE_PREFIXES

LABELS: tuple[str, ...] = tuple(kind.label for kind in Kind)
ENTITY_LABELS: tuple[str, ...] = tuple(kind.label for kind in ENTITY_KINDS)
# Notes of the layouts' other kinds (DailyNote, Skill, Tool) carry `Memory` too, so every
# note query works on them; each node is read once, under its primary label.
NOTE_SUBLABELS: tuple[str, ...] = tuple(k.label for k in NOTE_KINDS if k is not Kind.MEMORY)
PRIMARY_LABELS: tuple[str, ...] = tuple(label for label in LABELS if label not in NOTE_SUBLABELS)
NAMED_LABELS: tuple[str, ...] = ("Memory", "Agent", *ENTITY_LABELS, "File")
ANY_LABEL = "|".join(LABELS)

# ------------------------------------------------------------------ schema

_INDEXES: tuple[tuple[str, str, str], ...] = (
    # (name, pattern, property): what the queries below look things up by
    ("memory_key", "(n:Memory)", "n.key"),
    ("memory_path", "(n:Memory)", "n.path"),
    ("memory_scope", "(n:Memory)", "n.scope"),
    ("memory_type", "(n:Memory)", "n.type"),
    ("memory_order", "(n:Memory)", "n.orderKey"),
    ("agent_key", "(n:Agent)", "n.key"),
    ("workflow_key", "(n:Workflow)", "n.key"),
    ("chat_key", "(n:Chat)", "n.key"),
    ("work_item_key", "(n:WorkItem)", "n.key"),
    ("file_key", "(n:File)", "n.key"),
    ("links_to_key", "()-[n:LINKS_TO]-()", "n.key"),
)


def _snake(label: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in label).lstrip("_")


_LIVE_SET_SCHEMA: tuple[str, ...] = (
    *(
        f"CREATE CONSTRAINT {_snake(label)}_id IF NOT EXISTS "
        f"FOR (n:{label}) REQUIRE n.id IS UNIQUE"
        for label in LABELS
    ),
    *(f"CREATE INDEX {name} IF NOT EXISTS FOR {pattern} ON ({prop})" for name, pattern, prop in _INDEXES),
    # Search (brain/store/neo4j/search.py): BM25 over the words of name, description and body,
    # analysed like brain/index/text.py (no stop words: queries drop them on both stores);
    # and the notes' MiniLM vectors (384 floats, cosine).
    "CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (n:Memory) ON EACH [n.title, n.description, n.body] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}",
    "CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (n:Memory) ON (n.embedding) "
    "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}",
)
SCHEMA: tuple[str, ...] = (
    *_LIVE_SET_SCHEMA,
    *SHARED_SCHEMA,  # the workspace identity and the change log (brain/store/neo4j/sharing/database.py)
    # The other set of labels, for a generation written while the first is live, and the
    # node that says which set is live (brain/store/neo4j/generations/staged.py).
    *(twin for twin in map(staged_schema, _LIVE_SET_SCHEMA) if twin is not None),
    LIVE_SCHEMA,
)
AWAIT_INDEXES = "CALL db.awaitIndexes($seconds)"


def schema_file() -> str:
    """The text of schema/neo4j.cypher."""
    header = (
        "// The Neo4j schema of brain: created by the store on start (idempotent).\n"
        "// Generated from brain/store/neo4j/cypher.py: python -m brain.store.neo4j.cypher\n"
    )
    return header + "".join(statement + ";\n" for statement in SCHEMA)


# ------------------------------------------------------------------ writes
# Every transaction built from these is safe to run twice in a row (a managed transaction
# may be retried, and one whose commit outcome is unknown is run again by the store): nodes
# are MERGEd and overwritten, a note's links are dropped before they are created in the same
# transaction, a relink replaces whatever is at (source, ordinal). Statements that detach
# links return `orphans`: Unresolved ids that may now have nothing pointing at them, for
# CLEANUP_UNRESOLVED at the end of the same transaction.

UPSERT_MEMORIES = """
UNWIND $rows AS row
MERGE (m:Memory {id: row.props.id})
SET m = row.props
WITH m, row
MATCH (a:Agent {id: row.owner})
MERGE (a)-[:REMEMBERS]->(m)
"""

UPSERT_AGENTS = """
UNWIND $rows AS row
MERGE (a:Agent {id: row.props.id})
SET a = row.props
WITH a, row
WHERE row.props.name <> $shared
MATCH (m:Memory {scope: row.props.name})
WHERE m.owner = row.props.name
MERGE (a)-[:REMEMBERS]->(m)
"""

# A note of another kind: the same, plus its own label (from the allow-list).
UPSERT_NOTES: dict[str, str] = {
    label: UPSERT_MEMORIES.replace("SET m = row.props\n", f"SET m = row.props\nSET m:{label}\n")
    for label in NOTE_SUBLABELS
}

UPSERT_FILES = """
UNWIND $rows AS row
MERGE (n:File {id: row.props.id})
SET n = row.props
"""

UPSERT_ENTITIES: dict[str, str] = {
    label: f"""
UNWIND $rows AS row
MERGE (n:{label} {{id: row.props.id}})
SET n = row.props
"""
    for label in ENTITY_LABELS
}

# The USING INDEX SEEK hints pin the plan: planned on an empty database (the first chunk of a
# full ingest), Neo4j would otherwise scan every LINKS_TO edge (or, hinted with a plain
# USING INDEX, the whole id index) per row, and keep that plan cached.
# It also stores the source's revision (brain/store/neo4j/sharing/revs.py), or clears it (null).
DROP_LINKS = """
UNWIND $rows AS row
MATCH (s:Memory {id: row.source})
USING INDEX SEEK s:Memory(id)
SET s.rev = row.rev
WITH s
MATCH (s)-[r:LINKS_TO]->(t)
WITH r, CASE WHEN t:Unresolved THEN t.id END AS orphan
DELETE r
RETURN collect(DISTINCT orphan) AS orphans
"""


def _link_target(label: str, placeholder: bool = False) -> str:
    if label == "Unresolved":
        return "MERGE (t:Unresolved {id: row.target}) ON CREATE SET t.target = row.name"
    if placeholder:  # a node of a later part: made here, filled by its own upsert
        primary = "Memory" if label in NOTE_SUBLABELS else label  # what UPSERT_NOTES merges on
        return f"MERGE (t:{primary} {{id: row.target}}) ON CREATE SET t.placeholder = true"
    return f"MATCH (t:{label} {{id: row.target}})"


CREATE_LINKS: dict[str, str] = {
    label: f"""
UNWIND $rows AS row
MATCH (s:Memory {{id: row.source}})
{_link_target(label)}
CREATE (s)-[r:LINKS_TO]->(t)
SET r = row.props
"""
    for label in LABELS
}

# A relink replaces the link at (source, ordinal) only if there is one, as the embedded store,
# and clears the source's revision: the next start rewrites that note whole.
RELINKS: dict[str, str] = {
    label: f"""
UNWIND $rows AS row
MATCH (s:Memory {{id: row.source}})
USING INDEX SEEK s:Memory(id)
MATCH (s)-[old:LINKS_TO {{ordinal: row.props.ordinal}}]->(previous)
{_link_target(label)}
WITH s, t, old, row, CASE WHEN previous:Unresolved THEN previous.id END AS orphan
DELETE old
CREATE (s)-[r:LINKS_TO]->(t)
SET r = row.props, s.rev = null
RETURN collect(DISTINCT orphan) AS orphans
"""
    for label in LABELS
}

# A first sync in parts onto a staged generation (brain/store/neo4j/generations/rebuild.py) links to
# nodes of later parts: a relationship needs both ends, so the link makes its target, bare.
# Its upsert fills it (`SET n = row.props` drops the mark); one the sync never wrote (a name
# the walk foresaw wrongly: its links were relinked elsewhere) is dropped before the switch.
PLACEHOLDING: dict[str, str] = {
    **{CREATE_LINKS[label]: CREATE_LINKS[label].replace(_link_target(label), _link_target(label, True))
       for label in LABELS},
    **{RELINKS[label]: RELINKS[label].replace(_link_target(label), _link_target(label, True))
       for label in LABELS},
}
DROP_PLACEHOLDERS = f"""
MATCH (n:{ANY_LABEL}) WHERE n.placeholder
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
"""

DELETE_NODES: dict[str, str] = {
    label: f"""
UNWIND $ids AS id
MATCH (n:{label} {{id: id}})
OPTIONAL MATCH (n)-[:LINKS_TO]->(u:Unresolved)
WITH n, collect(u.id) AS orphans
DETACH DELETE n
RETURN orphans
"""
    for label in (*NAMED_LABELS, *NOTE_SUBLABELS)
}

CLEANUP_UNRESOLVED = """
UNWIND $ids AS id
MATCH (u:Unresolved {id: id})
WHERE NOT EXISTS { ()-[:LINKS_TO]->(u) }
DELETE u
"""

ANY_NODE = f"MATCH (n:{ANY_LABEL}) RETURN 1 AS one LIMIT 1"

CLEAR_SOME = f"""
MATCH (n:{ANY_LABEL}|{'|'.join((*STAGED_LABELS, *LEGACY_LABELS))})
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
"""

# ------------------------------------------------------------------ reads


def _union(template: str, labels: tuple[str, ...] = PRIMARY_LABELS) -> str:
    """One statement over several labels: `template` with {label} filled from the allow-list."""
    return "\nUNION ALL\n".join(template.format(label=label) for label in labels)


# The unions look every id up under every label (a missed index seek is nearly free): one
# list parameter, never an empty one, keeps the query plan cached (Neo4j re-plans a statement
# when a parameter's type changes, and an empty list has another type than a list of strings).
# A node's properties without the search vector (brain/store/neo4j/search.py): 384 floats
# that no reader of a note needs, and that would otherwise travel with every note read.
NODE_PROPS = "n {{.*, embedding: null}}"
MEMORY_PROPS = "m {.*, embedding: null}"
MEMORY_PROPS_NO_BODY = "m {.*, embedding: null, body: ''}"
# (A placeholder, a node of a later part that a staged first sync linked to before writing
# it, is not a node yet: see PLACEHOLDING.)
GET_NODES = _union(
    f"MATCH (n:{{label}}) WHERE n.id IN $ids AND n.placeholder IS NULL "
    f"RETURN '{{label}}' AS label, {NODE_PROPS} AS props"
)

NAME_ENTRIES = _union(
    "MATCH (n:{label}) WHERE n.key IN $keys RETURN n.id AS id, n.key AS key, n.scope AS scope",
    NAMED_LABELS,
)

# Pinned to the key index: planned while the set it reads is empty (a staged first sync's
# parts, brain/store/neo4j/generations/rebuild.py), Neo4j scanned every note of it per call.
LINKS_WITH_KEYS = """
MATCH (s:Memory)-[r:LINKS_TO]->(t)
USING INDEX r:LINKS_TO(key)
WHERE r.key IN $keys
RETURN s.id AS source, t.id AS target, properties(r) AS props
"""

LINKS_FROM = """
MATCH (s:Memory)-[r:LINKS_TO]->(t)
WHERE s.id IN $ids
RETURN s.id AS source, t.id AS target, properties(r) AS props
"""

LINKS_TO = _union(
    "MATCH (s:Memory)-[r:LINKS_TO]->(t:{label}) WHERE t.id IN $ids "
    "RETURN s.id AS source, t.id AS target, properties(r) AS props"
)

ANCHORS = """
MATCH (m:Memory)
WHERE m.id IN $ids AND m.placeholder IS NULL
RETURN m.id AS id, m {.headings, .headingLevels, .headingLines, .headingSources, .blocks} AS props
"""

MEMORY_BY_ID = "MATCH (m:Memory {id: $id}) RETURN m {.*, embedding: null} AS props"
MEMORIES_BY_KEY = "MATCH (m:Memory {key: $key}) RETURN m {.*, embedding: null} AS props"
MEMORY_BY_PATH = "MATCH (m:Memory {path: $path}) RETURN m {.*, embedding: null} AS props"

# list_memories / count_memories: the WHERE is built from these fixed fragments only.
MEMORY_FILTERS: dict[str, str] = {
    "scope": "m.scope = $scope",
    "agent": "m.scope = $agent",
    "type": "m.type = $type",
    "text": "(m.nameFold CONTAINS $text OR m.descriptionFold CONTAINS $text)",
    "has_problems": (
        "(m.problemCount > 0 OR EXISTS { (m)-[r:LINKS_TO]->() WHERE r.status <> 'resolved' })"
        " = $has_problems"
    ),
    "after": "m.orderKey > $after",
}


def list_memories(
    where: MemoryFilter, after: str | None, limit: int | None, bodies: bool = True
) -> tuple[str, dict[str, Any]]:
    conditions, params = _memory_conditions(where)
    if after is not None:
        conditions.append(MEMORY_FILTERS["after"])
        params["after"] = order_key(after)
    props = MEMORY_PROPS if bodies else MEMORY_PROPS_NO_BODY
    query = f"MATCH (m:Memory)\nWHERE {_all(conditions)}\nRETURN {props} AS props\nORDER BY m.orderKey"
    if limit is not None:
        query += "\nLIMIT $limit"
        params["limit"] = max(limit, 1)  # as the embedded store: the first match always comes
    return query, params


def count_memories(where: MemoryFilter) -> tuple[str, dict[str, Any]]:
    conditions, params = _memory_conditions(where)
    return f"MATCH (m:Memory)\nWHERE {_all(conditions)}\nRETURN count(m) AS n", params


def _memory_conditions(where: MemoryFilter) -> tuple[list[str], dict[str, Any]]:
    values: dict[str, Any] = {
        "scope": where.scope,
        "agent": where.agent,
        "type": where.type,
        "text": where.text.casefold() if where.text else None,
        "has_problems": where.has_problems,
    }
    params = {name: value for name, value in values.items() if value is not None}
    return [MEMORY_FILTERS[name] for name in params], params


def _all(conditions: list[str]) -> str:
    return " AND ".join(conditions) or "true"


MEMORY_TYPE_COUNTS = """
UNWIND $scopes AS scope
MATCH (m:Memory {scope: scope})
RETURN scope, m.type AS type, count(m) AS n
ORDER BY scope, type
"""

MEMORY_SCOPES = "MATCH (m:Memory) RETURN m.scope AS scope, count(m) AS n ORDER BY scope"

LIST_AGENTS = "MATCH (a:Agent) RETURN properties(a) AS props"
LIST_ENTITIES: dict[str, str] = {
    label: f"MATCH (n:{label}) RETURN properties(n) AS props" for label in ENTITY_LABELS
}

def _in_reach(var: str) -> str:
    """Whether node `var` is in the caller's reach (Reach.sees): `$scopes` null (everything),
    or not a private kind (visibility.py's id prefixes), or of one of `$scopes`, or of a
    scope nobody owns (with a colon: lab's projects)."""
    private = " OR ".join(f"{var}.id STARTS WITH '{prefix}'" for prefix in PRIVATE_PREFIXES)
    return f"($scopes IS NULL OR NOT ({private}) OR {var}.scope IN $scopes OR {var}.scope CONTAINS ':')"


# Neighbours of a BFS frontier, per node, within the caller's reach: link targets (`out`,
# each with whether it is in reach and the target text, which project it: a target out of
# reach is its Unresolved node to this caller) and sources; an agent's memories come from
# the scope branch (the id may name a folder whose agent has no node).
NEIGHBOURS = (
    "MATCH (n:Memory) WHERE n.id IN $ids "
    "RETURN n.id AS id, "
    f"[(n)-[r:LINKS_TO]->(t) | {{id: t.id, seen: {_in_reach('t')}, target: r.target}}] AS out, "
    f"[(s)-[:LINKS_TO]->(n) WHERE {_in_reach('s')} | s.id] AS ids"
    "\nUNION ALL\n"
    + _union(
        "MATCH (n:{label}) WHERE n.id IN $ids RETURN n.id AS id, [] AS out, "
        f"[(s)-[:LINKS_TO]->(n) WHERE {_in_reach('s')} | s.id] AS ids",
        tuple(label for label in PRIMARY_LABELS if label != "Memory"),
    )
    + "\nUNION ALL\n"
    "UNWIND $ids AS agent WITH agent WHERE agent STARTS WITH 'agent:' "
    f"MATCH (m:Memory {{scope: substring(agent, 6)}}) WHERE {_in_reach('m')} "
    "RETURN agent AS id, [] AS out, collect(m.id) AS ids"
)
# Links of sources in reach into notes out of it, by the name key they ask for: to the
# caller they point to an Unresolved node that no stored edge names.
NEIGHBOURS_ASKING = f"""
MATCH (s:Memory)-[r:LINKS_TO]->(t)
USING INDEX r:LINKS_TO(key)
WHERE r.key IN $keys AND {_in_reach('s')} AND NOT {_in_reach('t')}
RETURN s.id AS source, t.id AS target, properties(r) AS props
"""

# A page of the links into each node, in (source id, line, column) order after the cursor
# ($source "" and $line -1: from the start), from sources in the caller's reach: Neo4j's Top-K
# sort over the node's relationships ships and builds only the page (a note with 450,000
# backlinks shipped them all, for every page). The label comes from the allow-list only.
_AFTER_CURSOR = (
    "(s.id > $source OR (s.id = $source AND (r.line > $line OR (r.line = $line AND r.column > $column))))"
)
BACKLINKS_PAGE = (
    # CALL (id) { }, not CALL { WITH id }: the old form is deprecated, and the server's notice
    # of it came back with every page (the driver logs each: 4 KB of stderr a request).
    "UNWIND $ids AS id CALL (id) {\n"
    + _union(
        "MATCH (t:{label} {{id: id}}) MATCH (s:Memory)-[r:LINKS_TO]->(t) "
        f"WHERE {_AFTER_CURSOR} AND {_in_reach('s')} "
        "RETURN s.id AS source, t.id AS target, properties(r) AS props, r.line AS line, "
        "r.column AS column ORDER BY source, line, column LIMIT $first"
    )
    + "\n}\nRETURN source, target, props ORDER BY target, source, line, column"
)
# How many links land on each node, from sources in reach.
BACKLINK_COUNTS = _union(
    "MATCH (t:{label}) WHERE t.id IN $ids "
    f"RETURN t.id AS id, COUNT {{{{ MATCH (s:Memory)-[:LINKS_TO]->(t) WHERE {_in_reach('s')} }}}} AS n"
)

# A caller with a reach sees a resolved link into a note out of it as broken, so those come too.
_PROBLEM_LINKS = f"""
RETURN m.path AS path, m.problems AS problems,
       [(m)-[r:LINKS_TO]->(t) WHERE r.status <> 'resolved' OR NOT {_in_reach('t')}
        | {{target: t.id, props: properties(r)}}] AS links,
       m.id AS id
"""
PROBLEMS = (
    f"MATCH (m:Memory)\nWHERE {_in_reach('m')} AND (m.problemCount > 0 OR EXISTS {{ "
    f"(m)-[r:LINKS_TO]->(t) WHERE r.status <> 'resolved' OR NOT {_in_reach('t')} }})"
    + _PROBLEM_LINKS
)
PROBLEMS_AT = f"MATCH (m:Memory)\nWHERE m.path IN $paths AND {_in_reach('m')}" + _PROBLEM_LINKS
MEMORY_OFF_AGENTS = "MATCH (a:Agent {memoryOff: true}) RETURN properties(a) AS props"

# Links are counted from their (live) sources: an old generation being deleted has links too.
STATS = """
OPTIONAL MATCH (:Memory)-[r:LINKS_TO]->()
WITH r.status AS status, count(r) AS n
WITH collect({status: status, n: n}) AS links
RETURN links,
       COUNT { (:Agent) } AS agents,
       COUNT { (:Memory) } AS memories,
       COUNT { (:Unresolved) } AS unresolved,
       COUNT { (:Workflow) } AS workflows,
       COUNT { (:Chat) } AS chats,
       COUNT { (:WorkItem) } AS work_items
"""

EXPORT_NODES = f"MATCH (n:{ANY_LABEL}) RETURN labels(n) AS labels, properties(n) AS props"
EXPORT_LINKS = (
    "MATCH (s:Memory)-[r:LINKS_TO]->(t) RETURN s.id AS source, t.id AS target, properties(r) AS props"
)
EXPORT_REMEMBERS = "MATCH (a:Agent)-[:REMEMBERS]->(m:Memory) RETURN a.id AS agent, m.id AS memory"

PING = "RETURN 1 AS ok"


if __name__ == "__main__":
    print(schema_file(), end="")
