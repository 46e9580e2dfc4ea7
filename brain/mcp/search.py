"""Where `search` joins the MCP server once brain has a search service.

The `memory_search` tool is listed only when a search function exists, so a server without
search never offers a tool that cannot answer. `find_search` looks for it on the Brain
(`brain.search`, the name the search work is expected to use); until then it finds nothing.
To wire another implementation, pass `search=` to `BrainMcp`: a callable taking the query,
the scopes the agent may read (its own and `shared`) and a limit, and returning JSON-ready
hits (each with at least `path` or `id`); this module turns memory paths into virtual ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from brain.model import SHARED_SCOPE
from brain.service import Brain
from brain.tool.refusal import Call, Refusal, RefusalCode

SearchFunction = Callable[[str, Sequence[str], int], Sequence[dict[str, Any]]]
MAX_QUERY = 1000
MAX_LIMIT = 50


def find_search(brain: Brain) -> SearchFunction | None:
    """The Brain's search, if this build has one (a feature check, not a dependency)."""
    found = getattr(brain, "search", None)
    return found if callable(found) else None


def run_search(search: SearchFunction, agent: str, args: dict[str, Any]) -> dict[str, Any]:
    query, limit = args.get("query"), args.get("limit", 10)
    if not isinstance(query, str) or not query.strip() or len(query) > MAX_QUERY:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"`query` must be a non-empty string of at most {MAX_QUERY} characters",
            Call("memory_search", {"query": "release notes"}),
        )
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT, f"`limit` must be a whole number from 1 to {MAX_LIMIT}",
            Call("memory_search", {"query": query, "limit": 10}),
        )
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
