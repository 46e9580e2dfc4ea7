"""Change notifications on the 2026-07-28 protocol: `subscriptions/listen` streams, per agent.

On that protocol a client asks for change events with one `subscriptions/listen` request
whose response is the stream (the SDK's `ListenHandler` serves it). Its bus fans every event
out to every stream, so brain keeps one bus per agent: a change reaches the buses of the
agents that may see the note (its owner's, or everyone's for a shared note), and a stream
asking for another agent's note URI has that URI dropped, as if it did not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ResourceUpdated,
)
from mcp.shared.exceptions import MCPError

from brain.mcp.caller import Caller
from brain.mcp.resources import parse_uri
from brain.model import SHARED_SCOPE
from brain.tool import Refusal
from brain.tool.service import MemoryService

MAX_STREAMS_PER_AGENT = 64


class AgentListens:
    def __init__(self, service: MemoryService, caller_of: Callable[[Any], Caller]) -> None:
        self.service = service
        self.caller_of = caller_of
        self._agents: dict[str, tuple[InMemorySubscriptionBus, ListenHandler]] = {}

    def _for(self, agent: str) -> tuple[InMemorySubscriptionBus, ListenHandler]:
        found = self._agents.get(agent)
        if found is None:
            bus = InMemorySubscriptionBus()
            found = self._agents[agent] = (bus, ListenHandler(bus, max_subscriptions=MAX_STREAMS_PER_AGENT))
        return found

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        try:
            agent = self.caller_of(ctx).resolve(self.service)
        except Refusal as refusal:
            raise MCPError(types.INVALID_PARAMS, refusal.text()) from None
        wanted = params.notifications
        visible = [u for u in wanted.resource_subscriptions or () if _visible(u, agent)]
        narrowed = wanted.model_copy(update={"resource_subscriptions": visible or None})
        _, handler = self._for(agent)
        return await handler(ctx, params.model_copy(update={"notifications": narrowed}))

    async def publish(self, scope: str, uri: str, *, listed: bool, body: bool) -> None:
        for agent, (bus, _) in list(self._agents.items()):
            if scope not in (agent, SHARED_SCOPE):
                continue
            if listed:
                await bus.publish(ResourcesListChanged())
            if body:
                await bus.publish(ResourceUpdated(uri))


def _visible(uri: str, agent: str) -> bool:
    parsed = parse_uri(uri)
    return parsed is not None and parsed[0] in (agent, SHARED_SCOPE)
