"""The arguments of the seeds' `memory_search` (MCP's and mindlink's), checked once for both."""

from __future__ import annotations

from brain.tool.calls.refusal import Call, Refusal, RefusalCode

MAX_QUERY = 1000
MAX_LIMIT = 50


def checked_search_args(query: object, limit: object) -> tuple[str, int]:
    """`query` and `limit` as they may be searched with, or a refusal that shows a good call."""
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
    return query, limit
