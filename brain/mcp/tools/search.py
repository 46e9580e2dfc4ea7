"""The `memory_search` tool: brain's search (brain/search) as the agent sees it.

`find_search` adapts `Brain.search` (keyword and semantic, fused) to the tool's shape: the
query, the scopes the agent may read (its own and `shared`) and a limit, returning JSON-ready
hits. Another implementation can be passed as `search=` to `BrainMcp`. Whatever the search
returns, this module keeps only the agent's own and shared notes and turns memory paths into
the agent's virtual ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from brain.model import SHARED_SCOPE
from brain.service.brain import Brain
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.layouts.search_args import MAX_LIMIT, checked_search_args

SearchFunction = Callable[[str, Sequence[str], int], Sequence[dict[str, Any]]]


def find_search(brain: Brain) -> SearchFunction:
    """The Brain's search, started on the first query (it loads the model and embeds)."""

    def search(query: str, scopes: Sequence[str], limit: int) -> list[dict[str, Any]]:
        from brain.search.service import SearchError

        agent = next(s for s in scopes if s != SHARED_SCOPE)
        try:
            answer = brain.search.search(query, agent=agent, limit=min(limit, MAX_LIMIT))
        except SearchError as exc:
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT, str(exc), Call("memory_search", {"query": "release notes"})
            ) from None
        return [
            {"id": hit.id, "path": hit.path, "name": hit.name, "scope": hit.scope,
             "score": round(hit.score, 6), "snippet": hit.snippet, "matched": list(hit.matched)}
            for hit in answer.hits
        ]

    return search


def run_search(search: SearchFunction, agent: str, args: dict[str, Any]) -> dict[str, Any]:
    query, limit = checked_search_args(args.get("query"), args.get("limit", 10))
    scopes = (agent, SHARED_SCOPE)
    hits: list[dict[str, Any]] = []
    for found in search(query, scopes, limit):
        hit = dict(found)
        path = hit.get("path")
        if isinstance(path, str) and path.startswith("memory/"):
            parts = path.split("/")
            if len(parts) != 3 or parts[1] not in scopes:
                continue  # another agent's note: it does not exist for this one
            hit["path"] = f"/memories/{parts[2]}" if parts[1] == agent else f"/memories/shared/{parts[2]}"
        hits.append(hit)
    return {"query": query, "hits": hits[:limit]}
