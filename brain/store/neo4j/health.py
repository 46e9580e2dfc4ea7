"""Memory health on Neo4j (brain/store/health.py): the HealthReader half of Neo4jStore.

Every answer is one or two reads filtered by the caller's reach in the query, as the other
reads are (cypher.py's `_in_reach`): a link into a note out of reach is broken to the caller
and wants that note's name; one into an ambiguity of notes out of reach is broken too.
In-degrees are `COUNT { }` subqueries over each note's relationship chain, and the lists
are ordered by the id constraint's index; the counts pass over the notes in view (seconds at
10,000 notes on a loaded machine: bench/bench_health.py).

So answers are kept until the graph changes, as every read of the store is
(brain/store/neo4j/readcache.py: a new graph token drops them; this process's own writes at
once, anyone else's within the cache's window), and a dashboard's poll costs at most one
read of the token while nothing changed. An answer is kept only if the graph did not change
while it was worked out, so it is never a mix of two states.
"""

from __future__ import annotations

from typing import Any

from neo4j import Record

from brain.model import name_key, unresolved_id
from brain.store.health import HealthAsk, HealthList, PageKey, ScopeHealth, ranked
from brain.store.neo4j.cypher import _in_reach
from brain.store.neo4j.readcache import ReadCache
from brain.store.visibility import PRIVATE_PREFIXES


def _id_in_reach(expr: str) -> str:
    """Reach.sees for a node id held as text (an ambiguous link's candidates)."""
    scope = f"split(substring({expr}, size(split({expr}, ':')[0]) + 1), '/')[0]"
    private = " OR ".join(f"{expr} STARTS WITH '{prefix}'" for prefix in PRIVATE_PREFIXES)
    return f"($scopes IS NULL OR NOT ({private}) OR {scope} IN $scopes OR {scope} CONTAINS ':')"


_NOTE = f"(m:Memory) WHERE {_in_reach('m')} AND ($scope IS NULL OR m.scope = $scope)"
_SEEN_IN = f"COUNT {{ (s:Memory)-[:LINKS_TO]->(m) WHERE {_in_reach('s')} }}"
_LINKED = f"EXISTS {{ (s:Memory)-[:LINKS_TO]->(m) WHERE {_in_reach('s')} }}"
_NO_DESCRIPTION = "coalesce(trim(m.description), '') = ''"
_NO_TYPE = "coalesce(m.type, '') = ''"
# A link's status as the caller sees it (Reach.link).
_SEEN_STATUS = (
    f"CASE WHEN NOT {_in_reach('t')} THEN 'broken' "
    f"WHEN r.status = 'ambiguous' AND any(c IN coalesce(r.candidates, []) WHERE NOT {_id_in_reach('c')}) "
    "THEN 'broken' ELSE r.status END"
)

NOTE_COUNTS = f"""
MATCH {_NOTE}
WITH m, {_SEEN_IN} AS seen, EXISTS {{ (m)-[:LINKS_TO]->() }} AS links_out
RETURN m.scope AS scope, count(m) AS notes,
       sum(CASE WHEN seen = 0 AND NOT links_out THEN 1 ELSE 0 END) AS orphans,
       sum(CASE WHEN seen = 0 AND m.modifiedAt < $cutoff THEN 1 ELSE 0 END) AS stale,
       sum(CASE WHEN {_NO_DESCRIPTION} THEN 1 ELSE 0 END) AS without_description,
       sum(CASE WHEN {_NO_TYPE} THEN 1 ELSE 0 END) AS without_type
"""
LINK_COUNTS = f"""
MATCH {_NOTE.replace('(m:Memory)', '(m:Memory)-[r:LINKS_TO]->(t)')}
RETURN m.scope AS scope, {_SEEN_STATUS} AS status, count(r) AS n
"""
_AFTER_ID = "($after IS NULL OR m.id > $after)"
PAGES = {
    HealthList.ORPHANS: f"""
MATCH {_NOTE} AND {_AFTER_ID} AND NOT EXISTS {{ (m)-[:LINKS_TO]->() }} AND NOT {_LINKED}
RETURN 0.0 AS at, m.id AS id ORDER BY id LIMIT $limit""",
    HealthList.STALE: f"""
MATCH {_NOTE} AND m.modifiedAt < $cutoff
  AND ($after IS NULL OR m.modifiedAt > $at OR (m.modifiedAt = $at AND m.id > $after)) AND NOT {_LINKED}
RETURN m.modifiedAt AS at, m.id AS id ORDER BY at, id LIMIT $limit""",
    HealthList.WITHOUT_DESCRIPTION: f"""
MATCH {_NOTE} AND {_AFTER_ID} AND {_NO_DESCRIPTION}
RETURN 0.0 AS at, m.id AS id ORDER BY id LIMIT $limit""",
    HealthList.WITHOUT_TYPE: f"""
MATCH {_NOTE} AND {_AFTER_ID} AND {_NO_TYPE}
RETURN 0.0 AS at, m.id AS id ORDER BY id LIMIT $limit""",
}
HUBS = f"""
MATCH {_NOTE}
WITH m, {_SEEN_IN} AS n WHERE n > 0
RETURN m.id AS id, n ORDER BY n DESC, id LIMIT $top
"""
# Links that want a stored Unresolved node as the caller sees them: broken ones, and ambiguous
# ones among notes out of reach; ranked, or (WANTED_BY) the notes that want the `$ids`.
_WANTING = f"""
MATCH {_NOTE.replace('(m:Memory)', '(m:Memory)-[r:LINKS_TO]->(t:Unresolved)')}
  AND {_SEEN_STATUS} = 'broken'"""
WANTED = _WANTING + "\nRETURN t.id AS id, count(DISTINCT m) AS n ORDER BY n DESC, id LIMIT $top"
WANTED_BY = _WANTING + " AND t.id IN $ids\nRETURN t.id AS id, collect(DISTINCT m.id) AS sources"
# Links into notes out of reach: to the caller, they want the name they were written with.
WANTED_HIDDEN = f"""
MATCH {_NOTE.replace('(m:Memory)', '(m:Memory)-[r:LINKS_TO]->(t)')} AND $scopes IS NOT NULL
  AND NOT {_in_reach('t')}
RETURN m.id AS source, r.target AS target
"""


class Neo4jHealth:
    """Mixed into Neo4jStore: uses its `_read` and its kept reads' epoch."""

    _reads: ReadCache
    _health_seen: int | None = None  # the epoch of the kept reads the answers go with
    _health_answers: dict[tuple[object, ...], Any]

    def _read(self, query: str, **params: Any) -> list[Record]:
        raise NotImplementedError

    def _answer(self, name: str, ask: HealthAsk, *extra: object) -> Any:
        """The answer kept since the graph last changed, or a new one."""
        epoch = self._reads.current()
        if epoch is None:  # nothing would tell of a change: nothing is kept
            return getattr(self, "_health_" + name)(ask, *extra)
        if self._health_seen != epoch:
            self._health_seen, self._health_answers = epoch, {}
        key = (name, ask.cache_key(), *extra)
        found = self._health_answers.get(key)
        if found is None:
            found = getattr(self, "_health_" + name)(ask, *extra)
            if self._reads.epoch == epoch:  # the graph did not change while it was worked out
                if len(self._health_answers) > 256:
                    self._health_answers.clear()
                self._health_answers[key] = found
        return found

    def _health_read(self, query: str, ask: HealthAsk, **params: Any) -> list[Record]:
        return self._read(query, scopes=ask.reach.scope_list(), scope=ask.scope, **params)

    def _health_counts(self, ask: HealthAsk) -> list[ScopeHealth]:
        rows: dict[str, dict[str, int]] = {}
        for r in self._health_read(NOTE_COUNTS, ask, cutoff=ask.stale_before):
            rows[r["scope"]] = {k: int(r[k]) for k in (
                "notes", "orphans", "stale", "without_description", "without_type")}
        for r in self._health_read(LINK_COUNTS, ask):
            row = rows.get(r["scope"])
            if row is None:
                continue
            row["links"] = row.get("links", 0) + int(r["n"])
            if r["status"] != "resolved":
                key = str(r["status"]).replace("-", "_")
                row[key] = row.get(key, 0) + int(r["n"])
        return [ScopeHealth(scope, **row) for scope, row in sorted(rows.items())]

    def _health_page(
        self, ask: HealthAsk, which: HealthList, after: PageKey | None, limit: int
    ) -> list[PageKey]:
        at, after_id = (None, None) if after is None else after
        found = self._health_read(
            PAGES[which], ask, cutoff=ask.stale_before, at=at, after=after_id, limit=limit
        )
        return [(float(r["at"]), str(r["id"])) for r in found]

    def _health_hubs(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        if top <= 0:
            return []
        return [(str(r["id"]), int(r["n"])) for r in self._health_read(HUBS, ask, top=top)]

    def _health_wanted(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        hidden: dict[str, set[str]] = {}
        if ask.reach.scopes is not None:
            for r in self._health_read(WANTED_HIDDEN, ask):
                hidden.setdefault(unresolved_id(name_key(r["target"])), set()).add(r["source"])
        # The query's top, and every target that links into hidden notes want too (with the
        # notes that want it either way, counted once): no other target can pass its top.
        counts = {str(r["id"]): int(r["n"]) for r in self._health_read(WANTED, ask, top=max(top, 0))}
        if hidden:
            for r in self._health_read(WANTED_BY, ask, ids=sorted(hidden)):
                hidden[r["id"]].update(r["sources"])
            counts.update((target, len(sources)) for target, sources in hidden.items())
        return ranked(counts, top)

    def health_counts(self, ask: HealthAsk) -> list[ScopeHealth]:
        found: list[ScopeHealth] = self._answer("counts", ask)
        return found

    def health_page(
        self, ask: HealthAsk, which: HealthList, after: PageKey | None, limit: int
    ) -> list[PageKey]:
        found: list[PageKey] = self._answer("page", ask, which, after, limit)
        return found

    def health_hubs(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = self._answer("hubs", ask, top)
        return found

    def health_wanted(self, ask: HealthAsk, top: int) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = self._answer("wanted", ask, top)
        return found
